"""t-closeness by suppression (Li, Li and Venkatasubramanian, ICDE 2007, with the star objective
of l-diversity by suppression): its instance family and its algorithms, declared once.

Mondrian (LeFevre et al., ICDE 2006) with the t-closeness test on both halves of every cut, a
heuristic, and the CP-SAT / HiGHS pattern models ``tclose-*``.

References
----------
N. Li, T. Li, S. Venkatasubramanian. "t-Closeness: Privacy Beyond k-Anonymity and l-Diversity".
ICDE 2007.
"""

from anonratio.bench.declarations import Algorithm, Family, Hunt, exact_guarantee, no_guarantee
from anonratio.bench.problem import Problem, lazy, reference

# the solvers and exact models load on first use, not when the problem is declared
mondrian = lazy("anonratio.solvers.tcloseness.mondrian:mondrian")
solve_cpsat = lazy("anonratio.exact.tcloseness:solve_cpsat")
solve_highs = lazy("anonratio.exact.tcloseness:solve_highs")

__all__ = ["PROBLEM"]

NAME = "t-closeness"


FAMILIES = (
    Family(
        "tclose-random",
        NAME,
        "n records, d uniform QI columns of `cardinality` values, m sensitive values with Zipf "
        "skew `skew`, a share `correlation` of them the first QI code mod m; groups of >= k "
        "records within EMD t (ground `equal` or `ordered`) of the table",
        {
            "n": 12,
            "d": 3,
            "cardinality": 3,
            "m": 3,
            "t": 0.3,
            "k": 2,
            "skew": 0.0,
            "correlation": 0.0,
            "ground": "equal",
        },
        lazy("anonratio.instances.tcloseness.families:random"),
    ),
)


def _mondrian_hint(instance, seed=None):
    return mondrian(instance, seed=seed)


_LI = "Li et al. 2007"

ALGORITHMS = (
    Algorithm(
        name="tclose-mondrian",
        problem=NAME,
        kind="heuristic",
        function=mondrian,
        guarantee=no_guarantee,
        guarantee_text="none",
        source="LeFevre et al., ICDE 2006 (Mondrian's top-down cuts), a cut allowed when both "
        f"halves have >= k records and are t-close ({_LI}, §4-§5)",
        complexity="O(n d (d + S)) per level of regions, at most n levels",
    ),
    *(
        Algorithm(
            name=f"tclose-{short}",
            problem=NAME,
            kind="exact",
            function=function,
            guarantee=exact_guarantee,
            guarantee_text="1 (exact)",
            source=f"{solver} model over QI patterns, the EMD test made integral "
            "(anonratio.exact.tcloseness)",
            complexity="exponential (branch and bound)",
            hint=_mondrian_hint,
        )
        for function, short, solver in (
            (solve_cpsat, "cpsat", "CP-SAT"),
            (solve_highs, "highs", "HiGHS"),
        )
    ),
)

PROBLEM = Problem(
    name=NAME,
    prefix="tclose",
    n_label="records",
    size="k",
    families=FAMILIES,
    algorithms=ALGORITHMS,
    exact=("tclose-cpsat", "tclose-highs"),
    # small instances that the exact models prove optimal in seconds
    reference=(
        reference("tclose-random-12-k2", "tclose-random", n=12, d=3, cardinality=3, m=3, k=2),
        reference(
            "tclose-random-16-ordered",
            "tclose-random",
            seed=1,
            n=16,
            d=3,
            cardinality=3,
            m=4,
            t=0.2,
            k=2,
            correlation=0.5,
            ground="ordered",
        ),
        reference(
            "tclose-random-20-k3",
            "tclose-random",
            seed=2,
            n=20,
            d=3,
            cardinality=3,
            m=3,
            t=0.25,
            k=3,
            skew=1.0,
            correlation=0.3,
        ),
        reference(
            "tclose-random-30-k3",
            "tclose-random",
            seed=3,
            n=30,
            d=3,
            cardinality=3,
            m=4,
            t=0.2,
            k=3,
            correlation=0.4,
        ),
    ),
    contract=("tclose-random", {"n": 9, "d": 3, "cardinality": 2, "m": 3, "t": 0.3, "k": 2}),
    asv_sizes={
        "small": (("tclose-random", {"n": 2_000, "d": 5, "cardinality": 6, "m": 5, "k": 5}),),
        "large": (("tclose-random", {"n": 20_000, "d": 6, "cardinality": 8, "m": 10, "k": 5}),),
    },
    # the worst-case hunter starts from small random tables and replaces QI cells and sensitive
    # values, duplicates and deletes records
    hunt=Hunt(NAME, "tclose-random", "anonratio.instances.tcloseness.moves:MOVES"),
)
