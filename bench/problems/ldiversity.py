"""l-diversity by suppression (Xiao, Yi and Tao, EDBT 2010): its instance families and its
algorithms, each declared once.

TP (§5) and its hybrid TP+ (§6) with their proven guarantees, the Hilbert heuristic (Ghinita et
al., VLDB 2007) the paper compares against, the exact polynomial algorithm for m = 2 sensitive
values (§4) and the CP-SAT / HiGHS / CBC models ``ldiv-*`` for star and tuple minimization.

References
----------
X. Xiao, K. Yi, Y. Tao. "The Hardness and Approximation Algorithms for L-Diversity". EDBT 2010.
"""

from anonratio.bench.declarations import (
    Algorithm,
    Family,
    Hunt,
    certified_run,
    exact_guarantee,
    no_guarantee,
)
from anonratio.bench.problem import Problem, lazy, reference

# the solvers and exact models load on first use, not when the problem is declared
certify = lazy("anonratio.exact.ldiversity:certify")
solve_cbc = lazy("anonratio.exact.ldiversity:solve_cbc")
solve_cpsat = lazy("anonratio.exact.ldiversity:solve_cpsat")
solve_highs = lazy("anonratio.exact.ldiversity:solve_highs")
hilbert = lazy("anonratio.solvers.ldiversity.hilbert:hilbert")
ldiv_tds = lazy("anonratio.solvers.ldiversity.tds:ldiv_tds")
matching = lazy("anonratio.solvers.ldiversity.matching:matching")
needs_two_values = lazy("anonratio.solvers.ldiversity.matching:needs_two_values")
tp = lazy("anonratio.solvers.ldiversity.tp:tp")
tp_guarantee = lazy("anonratio.solvers.ldiversity.tp:tp_guarantee")
tp_plus = lazy("anonratio.solvers.ldiversity.tp_plus:tp_plus")

__all__ = ["PROBLEM"]

NAME = "l-diversity"


FAMILIES = (
    Family(
        "ldiv-random",
        NAME,
        "n records, d uniform QI attributes of `cardinality` values, m sensitive values with "
        "Zipf skew `skew` (0: uniform), repaired to be l-eligible",
        {"n": 12, "d": 3, "cardinality": 3, "m": 4, "l": 2, "skew": 0.0, "objective": "stars"},
        lazy("anonratio.instances.ldiversity.families:random"),
    ),
    Family(
        "ldiv-sal",
        NAME,
        "SAL-like census table (Xiao et al. 2010, §6, Table 6: Age 79, Gender 2, Race 9, Marital "
        "6, Birth place 56, Education 17, Work class 9; sensitive Income of 50 values), projected "
        "onto d QI attributes: `projection` indexes the C(7, d) subsets in lexicographic order "
        "(0: the first d; the paper's SAL-d averages over all of them)",
        {"n": 2000, "d": 7, "l": 6, "objective": "stars", "projection": 0},
        lazy("anonratio.instances.ldiversity.families:sal"),
    ),
    Family(
        "ldiv-planted",
        NAME,
        "n_groups QI-groups that are each l-eligible already (group_size records, 0: l); "
        "meta optimum 0",
        {
            "n_groups": 4,
            "d": 3,
            "cardinality": 4,
            "m": 4,
            "l": 2,
            "group_size": 0,
            "objective": "stars",
        },
        lazy("anonratio.instances.ldiversity.families:planted"),
    ),
    Family(
        "ldiv-3dm",
        NAME,
        "the 3-dimensional-matching gadget of §4 (m = 3): q elements per dimension, t triples, "
        "with or without a perfect matching",
        {"q": 3, "t": 5, "has_matching": True},
        lazy("anonratio.instances.ldiversity.families:three_dm"),
    ),
    Family(
        "ldiv-adult",
        NAME,
        "UCI Adult (from $ANONRATIO_DATASETS/adult), sensitive occupation, the first d of sex, "
        "age, race, marital-status, education, native-country, workclass as QI; n > 0 samples n",
        {"n": 0, "d": 7, "l": 4, "objective": "stars"},
        lazy("anonratio.instances.ldiversity.families:adult"),
    ),
)


# ---------------------------------------------------------------------------------------------
# algorithms
# ---------------------------------------------------------------------------------------------
def _needs_two_values(instance):
    return needs_two_values(instance)


def _tp_plus_hint(instance, seed=None):
    return tp_plus(instance, seed=seed)


certified_tp_plus = certified_run(
    tp_plus,
    certify,
    "ldiv-certified",
    """ldiv-certified: TP+'s partition (Xiao et al. 2010, §6), then the pattern model's LP bound
    proven in the rest of ``time_limit``
    (:func:`~anonratio.exact.ldiversity.certified.certify`).""",
)


_XIAO = "Xiao et al. 2010"
_TP_TEXT = (
    "per run: tuples 1 after phase 1 (Cor. 5.9), (l h1 + l - 1) / LB after phase 2 (Lemma 5.12), "
    "< l after phase 3; stars: d_R times that (explicit form of Theorem 5.19's O(l d), derived "
    "in anonratio.solvers.ldiversity.tp.tp_bound)"
)

ALGORITHMS = (
    Algorithm(
        name="tp",
        problem=NAME,
        kind="approximation",
        function=tp,
        guarantee=tp_guarantee,
        guarantee_text=_TP_TEXT,
        source=f"{_XIAO}, §5 (the three-phase algorithm TP, inverted lists of §5.5)",
        complexity="phases 1-2 about O(n log n) with inverted lists; phase 3 rounds O(g m)",
    ),
    Algorithm(
        name="tp-plus",
        problem=NAME,
        kind="approximation",
        function=tp_plus,
        guarantee=tp_guarantee,
        guarantee_text=f"as TP ({_TP_TEXT}); Hilbert only splits TP's residue",
        source=f"{_XIAO}, §6 (TP+: TP, then Hilbert on the residue R)",
        complexity="TP, then Hilbert on the |R| residue records",
    ),
    Algorithm(
        name="ldiv-certified",
        problem=NAME,
        kind="heuristic",
        function=certified_tp_plus,
        guarantee=tp_guarantee,
        guarantee_text="as TP+ (inherited: its partition is TP+'s); reports a proven lower bound",
        source=f"TP+ ({_XIAO}, §6), then the LP relaxation of the pattern model tightened by "
        "phase 1, bounded by a Lagrangian bound from its HiGHS duals "
        "(anonratio.exact.ldiversity.lp_bound)",
        complexity="TP+, then an LP of about g 2^d m columns (stars; 2 g m for tuples)",
        gated=False,  # its partition is tp-plus's, which the gate tracks
    ),
    Algorithm(
        name="hilbert",
        problem=NAME,
        kind="heuristic",
        function=hilbert,
        guarantee=no_guarantee,
        guarantee_text="none",
        source="Ghinita et al., VLDB 2007 (Hilbert order of the scaled QI points, then groups "
        f"of l nearby records with l distinct sensitive values), the baseline of {_XIAO}, §6",
        complexity="O(n log n) sort + O(n log m) grouping "
        "(a heap of the m sensitive buckets' heads)",
    ),
    Algorithm(
        name="ldiv-tds",
        problem=NAME,
        kind="heuristic",
        function=ldiv_tds,
        guarantee=no_guarantee,
        guarantee_text="none",
        source="Fung, Wang and Yu, ICDE 2005 (Top-Down Specialization), with every class "
        f"l-eligible and the sensitive attribute as the class: the baseline of {_XIAO}, §6.2",
        complexity="at most one round per internal taxonomy node, each O(n d log n)",
    ),
    Algorithm(
        name="matching",
        problem=NAME,
        kind="exact",
        function=matching,
        guarantee=exact_guarantee,
        guarantee_text="1 (exact; m = 2 sensitive values only)",
        source=f"{_XIAO}, §4 (m = 2: minimum-cost bipartite matching)",
        complexity="O(n^3) assignment, polynomial",
        requires=_needs_two_values,
    ),
    *(
        Algorithm(
            name=f"ldiv-{short}",
            problem=NAME,
            kind="exact",
            function=function,
            guarantee=exact_guarantee,
            guarantee_text="1 (exact)",
            source=f"{solver} model over QI-group counts per group (anonratio.exact.ldiversity)",
            complexity="exponential (branch and bound)",
            hint=_tp_plus_hint,
        )
        for function, short, solver in (
            (solve_cpsat, "cpsat", "CP-SAT"),
            (solve_highs, "highs", "HiGHS"),
            (solve_cbc, "cbc", "CBC"),
        )
    ),
)

PROBLEM = Problem(
    name=NAME,
    prefix="ldiv",
    n_label="records",
    size="l",
    families=FAMILIES,
    algorithms=ALGORITHMS,
    exact=("ldiv-cpsat", "ldiv-highs"),
    # small instances that the exact models prove optimal in seconds
    reference=(
        reference("ldiv-random-12-l2", "ldiv-random", n=12, d=3, cardinality=3, m=4, l=2),
        reference("ldiv-random-15-l3", "ldiv-random", seed=1, n=15, d=3, cardinality=3, m=5, l=3),
        reference(
            "ldiv-random-14-l2-tuples",
            "ldiv-random",
            n=14,
            d=4,
            cardinality=2,
            m=3,
            l=2,
            objective="tuples",
        ),
        reference("ldiv-random-m2-12", "ldiv-random", n=12, d=3, cardinality=3, m=2, l=2),
        reference("ldiv-random-30-l2", "ldiv-random", n=30, d=3, cardinality=3, m=4, l=2),
        reference(
            "ldiv-random-40-l3",
            "ldiv-random",
            seed=2,
            n=40,
            d=4,
            cardinality=2,
            m=6,
            l=3,
            skew=1.0,
        ),
        reference("ldiv-3dm-3x5", "ldiv-3dm", q=3, t=5, has_matching=True),
        reference("ldiv-3dm-3x5-no", "ldiv-3dm", q=3, t=5, has_matching=False),
    ),
    worst_found="tp",
    contract=("ldiv-random", {"n": 9, "d": 3, "cardinality": 2, "m": 3, "l": 2}),
    # the m = 2 matching refuses the contract instance's m = 3
    contract_alternatives=({"m": 2, "n": 10},),
    asv_sizes={
        "small": (("ldiv-sal", {"n": 20_000, "d": 7, "l": 6}),),
        "large": (("ldiv-sal", {"n": 200_000, "d": 7, "l": 6}),),
    },
    # the worst-case hunter starts from small random tables (l = 2) and replaces QI cells and
    # sensitive values, duplicates and deletes records
    hunt=Hunt(NAME, "ldiv-random", "anonratio.instances.ldiversity.moves:MOVES"),
    strong_bound="anonratio.exact.ldiversity.lp_bound:lp_bound",
    publisher="anonratio.bench.publish.problems.ldiversity:PUBLISHER",
    utility="anonratio.solvers.ldiversity.metrics:SOLUTION_METRICS",
)
