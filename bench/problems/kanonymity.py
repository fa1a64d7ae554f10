"""k-anonymity (Aggarwal, Feder, Kenthapadi, Motwani, Panigrahy, Thomas and Zhu 2005): its
instance families and its algorithms, each declared once.

Algorithms: FOREST + DECOMPOSE-COMPONENT (§4), the minimum-weight [1,2]-factor for k = 2 (§5) and
the minimum-weight 2-factor for k = 3 (§6), beside the exact set-partitioning model solved by
CP-SAT, HiGHS, CBC and SCIP (``kanon-cpsat``, ``kanon-highs``, ``kanon-cbc``, ``kanon-bpc``).

References
----------
G. Aggarwal, T. Feder, K. Kenthapadi, R. Motwani, R. Panigrahy, D. Thomas, A. Zhu.
"Approximation Algorithms for k-Anonymity". Journal of Privacy Technology, 2005.
"""

from typing import Any

from anonratio.bench.declarations import (
    Algorithm,
    Family,
    Hunt,
    certified_run,
    exact_guarantee,
    needs_k,
    no_guarantee,
)
from anonratio.bench.problem import Problem, lazy, reference
from anonratio.instances.adult import ADULT_QI

# the solvers and exact models load on first use, not when the problem is declared
solve_cbc = lazy("anonratio.exact.kanonymity:solve_cbc")
solve_cpsat = lazy("anonratio.exact.kanonymity:solve_cpsat")
solve_highs = lazy("anonratio.exact.kanonymity:solve_highs")
solve_bpc = lazy("anonratio.exact.kanonymity:solve_bpc")
certify = lazy("anonratio.exact.kanonymity.certified:certify")
alpha_k_topdown = lazy("anonratio.solvers.kanonymity.alpha_k_topdown:alpha_k_topdown")
alpha_k_requires = lazy("anonratio.solvers.kanonymity.alpha_k_topdown:requires_sensitive")
box_greedy = lazy("anonratio.solvers.kanonymity.box_greedy:box_greedy")
box_greedy_unsupported = lazy("anonratio.solvers.kanonymity.box_greedy:unsupported")
datafly = lazy("anonratio.solvers.kanonymity.datafly:datafly")
one_two_factor = lazy("anonratio.solvers.kanonymity.factor_2:one_two_factor")
one_two_factor_guarantee = lazy("anonratio.solvers.kanonymity.factor_2:one_two_factor_guarantee")
two_factor = lazy("anonratio.solvers.kanonymity.factor_3:two_factor")
two_factor_guarantee = lazy("anonratio.solvers.kanonymity.factor_3:two_factor_guarantee")
forest = lazy("anonratio.solvers.kanonymity.forest:forest")
flash = lazy("anonratio.solvers.kanonymity.flash:flash")
forest_guarantee = lazy("anonratio.solvers.kanonymity.forest:forest_guarantee")
incognito = lazy("anonratio.solvers.kanonymity.incognito:incognito")
k_optimize = lazy("anonratio.solvers.kanonymity.k_optimize:k_optimize")
local_search = lazy("anonratio.solvers.kanonymity.local_search:local_search")
mondrian = lazy("anonratio.solvers.kanonymity.mondrian:mondrian")
mondrian_relaxed = lazy("anonratio.solvers.kanonymity.mondrian:mondrian_relaxed")
samarati = lazy("anonratio.solvers.kanonymity.samarati:samarati")
tds = lazy("anonratio.solvers.kanonymity.tds:tds")

__all__ = ["PROBLEM"]

NAME = "k-anonymity"


# ---------------------------------------------------------------------------------------------
# instance families
# ---------------------------------------------------------------------------------------------
_COMMON = {"k": 3, "model": "suppression", "row_deletion": False}

FAMILIES = (
    Family(
        "kanon-binary",
        "k-anonymity",
        "uniform random binary table (suppression = generalization), Aggarwal et al. 2005 §5-§6; "
        "sensitive > 0 adds a sensitive attribute of that many values, balanced",
        {"n": 20, "m": 6, "k": 3, "row_deletion": False, "sensitive": 0},
        lazy("anonratio.instances.kanonymity.families:binary"),
    ),
    Family(
        "kanon-ternary",
        "k-anonymity",
        "uniform random ternary table (the alphabet of the NP-hardness proof, 2005 §3)",
        {"n": 20, "m": 6, **_COMMON},
        lazy("anonratio.instances.kanonymity.families:ternary"),
    ),
    Family(
        "kanon-categorical",
        "k-anonymity",
        "uniform random table over an alphabet of `alphabet` values, no hierarchies",
        {"n": 20, "m": 6, "alphabet": 4, **_COMMON},
        lazy("anonratio.instances.kanonymity.families:categorical"),
    ),
    Family(
        "kanon-random",
        "k-anonymity",
        "Adult-like table: 10-40 values and 3-5 level interval hierarchies per attribute, "
        "optionally Zipf-skewed (zipf > 0); generalization model; sensitive > 0 adds a "
        "sensitive attribute of that many values, balanced",
        {
            "n": 100,
            "m": 6,
            "k": 3,
            "model": "generalization",
            "row_deletion": False,
            "cardinality": (10, 40),
            "levels": (3, 5),
            "zipf": 0.0,
            "sensitive": 0,
        },
        lazy("anonratio.instances.kanonymity.families:random"),
    ),
    Family(
        "kanon-planted",
        "k-anonymity",
        "records around n_groups random prototypes, each cell redrawn w.p. noise; meta "
        "upper_bound = cost of the planted partition when its groups have >= k records; "
        "levels > 0 adds random hierarchies of that height",
        {
            "n": 60,
            "m": 8,
            "n_groups": 10,
            "noise": 0.1,
            "cardinality": 10,
            "levels": 0,
            **_COMMON,
        },
        lazy("anonratio.instances.kanonymity.families:planted"),
    ),
    Family(
        "kanon-triangles",
        "k-anonymity",
        "edge-partition-into-triangles gadget (2005 §3) of a random union of n_triangles "
        "edge-disjoint triangles, k = 3: optimum 9mt with m = n_triangles, t = ceil(log2(3m+1))",
        {"n_triangles": 3, "n_vertices": 7, "preliminary": False},
        lazy("anonratio.instances.kanonymity.families:triangles"),
    ),
    Family(
        "kanon-gap-pair",
        "k-anonymity",
        "one member ('first' or 'second') of the graph-representation pair (2005 §4): same "
        "k-clique graph, optima k^2 2^(k-2) and k(2^k - 2)",
        {"k": 4, "member": "first"},
        lazy("anonratio.instances.kanonymity.families:gap_pair"),
    ),
    Family(
        "kanon-2factor-tight",
        "k-anonymity",
        "the eight 4-bit records 0000, 0001, 0011, 0111, 1111, 1110, 1100, 1000 at k = 3 "
        "(2005 §6): the cycle decomposition of the optimal 2-factor pays 3 times its weight",
        {},
        lazy("anonratio.instances.kanonymity.families:cycle_8"),
    ),
    Family(
        "kanon-adult",
        "k-anonymity",
        "UCI Adult (from $ANONRATIO_DATASETS/adult) with ARX hierarchies; n > 0 samples n "
        "records without replacement, qi is a comma-separated subset of the 8 QIs",
        {
            "n": 0,
            "k": 5,
            "model": "generalization",
            "row_deletion": False,
            "qi": ADULT_QI,
        },
        lazy("anonratio.instances.kanonymity.families:adult"),
    ),
)


# ---------------------------------------------------------------------------------------------
# algorithms
# ---------------------------------------------------------------------------------------------
#: share of kanon-certified's time limit its local search may take (the bound takes the rest)
CERTIFIED_SEARCH_SHARE = 0.3


certified_search = certified_run(
    local_search,
    certify,
    "kanon-certified",
    """kanon-certified: local search from FOREST's and the box greedy's partitions for
    ``CERTIFIED_SEARCH_SHARE`` of ``time_limit``, then the strongest lower bound most of the rest
    proves, the exact solver's reduced-cost rounds at its prices, and regions of neighbouring
    groups re-solved exactly in what is left: the best-known partition and its bound
    (:func:`~anonratio.exact.kanonymity.certified.certify`).""",
    start_share=CERTIFIED_SEARCH_SHARE,
)


#: longest the exact models' warm start runs, whatever share of the run's limit it is given
HINT_MAX_S = 10.0


def _best_known_hint(instance, seed=None, time_limit=HINT_MAX_S):
    """The exact models' warm start: local search from the cheaper of FOREST's and the box
    greedy's partitions, for its share of the run's ``time_limit`` (at most ``HINT_MAX_S``)."""
    return local_search(instance, seed=seed, time_limit=min(HINT_MAX_S, time_limit))


#: what the exact models of the set-partitioning formulation share
_EXACT: dict[str, Any] = {
    "problem": NAME,
    "kind": "exact",
    "guarantee": exact_guarantee,
    "guarantee_text": "1 (exact)",
    "hint": _best_known_hint,
}

#: Samarati, Incognito and Flash enumerate the generalization lattice: they refuse a huge one
_small_lattice = lazy("anonratio.solvers.kanonymity.lattice_search:small_lattice")


_AGGARWAL = "Aggarwal et al. 2005"
_SURVEY = "Ciriani et al. 2009"
_CLASSIC = "none for the partition cost (a classic algorithm of the survey)"
_FACTOR_TIME = (
    "O(n^2) distances + a degree-constrained ILP solved to a zero gap (HiGHS, with LP-dual "
    "pricing of edges)"
)

ALGORITHMS = (
    Algorithm(
        name="forest",
        problem=NAME,
        kind="approximation",
        function=forest,
        guarantee=forest_guarantee,
        guarantee_text="max(2k-1, 3k-5)",
        source=f"{_AGGARWAL}, §4 (FOREST + DECOMPOSE-COMPONENT)",
        complexity="exact (k-1)-nearest neighbours of the unique records (pigeonhole boxes: about "
        "n^1.1 measured on uniform tables, O(n^2 m) worst case) + O(n k)",
    ),
    Algorithm(
        name="factor-2",
        problem=NAME,
        kind="approximation",
        function=one_two_factor,
        guarantee=one_two_factor_guarantee,
        guarantee_text="1.5 (binary), 2 (suppression, any alphabet); k = 2 only",
        source=f"{_AGGARWAL}, §5 (minimum-weight [1,2]-factor)",
        complexity=_FACTOR_TIME,
        requires=needs_k(2),
    ),
    Algorithm(
        name="factor-3",
        problem=NAME,
        kind="approximation",
        function=two_factor,
        guarantee=two_factor_guarantee,
        guarantee_text="2 (binary); k = 3 only",
        source=f"{_AGGARWAL}, §6 (minimum-weight 2-factor + cycle decomposition)",
        complexity=_FACTOR_TIME + ", plus O(n) per cycle for the decomposition",
        requires=needs_k(3),
    ),
    Algorithm(
        name="samarati",
        problem=NAME,
        kind="heuristic",
        function=samarati,
        guarantee=no_guarantee,
        guarantee_text=_CLASSIC + "; k-minimal full-domain generalization",
        source=f"Samarati 2001; {_SURVEY}, §3.2.1 (binary search over lattice heights)",
        complexity="O(log H) lattice heights, each node a frequency-set check O(u m)",
        requires=_small_lattice,
    ),
    Algorithm(
        name="incognito",
        problem=NAME,
        kind="heuristic",
        function=incognito,
        guarantee=no_guarantee,
        guarantee_text=_CLASSIC + "; optimal full-domain generalization for the metric",
        source=f"LeFevre et al. 2005; {_SURVEY}, §3.2.2 (subset-lattice pruning)",
        complexity="worst case O(2^|Dom| u m); pruning checks a small fraction",
        requires=_small_lattice,
    ),
    Algorithm(
        name="flash",
        problem=NAME,
        kind="heuristic",
        function=flash,
        guarantee=no_guarantee,
        guarantee_text=_CLASSIC + "; optimal full-domain generalization for the metric",
        source="Kohlmayer et al. 2012 (Flash, ARX's algorithm: paths, binary search, tagging)",
        complexity="worst case O(u m) per lattice node; predictive tagging checks a fraction",
        requires=_small_lattice,
    ),
    Algorithm(
        name="datafly",
        problem=NAME,
        kind="heuristic",
        function=datafly,
        guarantee=no_guarantee,
        guarantee_text=_CLASSIC + "; greedy full-domain generalization",
        source="Sweeney 2002, §4.1 (Datafly)",
        complexity="at most sum_j l_j steps, each O(u m)",
    ),
    Algorithm(
        name="tds",
        problem=NAME,
        kind="heuristic",
        function=tds,
        guarantee=no_guarantee,
        guarantee_text="none; greedy single-dimensional global recoding (taxonomy cuts)",
        source="Fung, Wang and Yu, ICDE 2005 (Top-Down Specialization: best InfoGain / "
        "(AnonyLoss + 1), the sensitive attribute as the class; |T_v| without one)",
        complexity="at most one round per internal taxonomy node, each O(n m log n)",
    ),
    Algorithm(
        name="k-optimize",
        problem=NAME,
        kind="heuristic",
        function=k_optimize,
        guarantee=no_guarantee,
        guarantee_text=_CLASSIC + "; optimal for its own objective (discernibility, |D| per "
        "suppressed tuple) among single-dimensional interval recodings when its status is optimal",
        source="Bayardo and Agrawal, ICDE 2005; "
        f"{_SURVEY}, §4.1.1 (set-enumeration tree of interval cuts, branch and bound; anytime)",
        complexity="2^N tree nodes for N cut values, branch and bound; O(|T| u) per node and "
        "pruning pass (|T| tail values, u unique records)",
    ),
    Algorithm(
        name="mondrian",
        problem=NAME,
        kind="heuristic",
        function=mondrian,
        guarantee=no_guarantee,
        guarantee_text=_CLASSIC + "; strict multidimensional partitioning",
        source=f"LeFevre et al. 2006; {_SURVEY}, §4.1.2 (Mondrian, strict)",
        complexity="O(n (m + log n) log(n/k))",
    ),
    Algorithm(
        name="mondrian-relaxed",
        problem=NAME,
        kind="heuristic",
        function=mondrian_relaxed,
        guarantee=no_guarantee,
        guarantee_text=_CLASSIC + "; relaxed multidimensional partitioning",
        source=f"LeFevre et al. 2006; {_SURVEY}, §4.1.2 (Mondrian, relaxed)",
        complexity="O(n (m + log n) log(n/k))",
    ),
    Algorithm(
        name="alpha-k-topdown",
        problem=NAME,
        kind="heuristic",
        function=alpha_k_topdown,
        guarantee=no_guarantee,
        guarantee_text="none (a heuristic); every class is (alpha, k)-anonymous, alpha = 0.5 "
        "by default",
        source=f"Wong, Li, Fu and Wang, KDD 2006 (top-down local recoding); {_SURVEY}, §5",
        complexity="O(n m (m + sum_j l_j) sum_j l_j) without borrowing, plus O(D S^2) per "
        "borrowed record (D children, S sensitive values)",
        requires=alpha_k_requires,
    ),
    Algorithm(
        name="kanon-box-greedy",
        problem=NAME,
        kind="heuristic",
        function=box_greedy,
        guarantee=no_guarantee,
        guarantee_text="none (a heuristic)",
        source="greedy over the generalization lattice: from the cheapest node up, every box "
        "(generalized record) holding at least k free records becomes groups "
        "(anonratio.solvers.kanonymity.box_greedy)",
        complexity="O(N_L m u) for N_L lattice nodes, m attributes, u unique records",
        requires=box_greedy_unsupported,
    ),
    Algorithm(
        name="kanon-local-search",
        problem=NAME,
        kind="heuristic",
        function=local_search,
        guarantee=forest_guarantee,
        guarantee_text="max(2k-1, 3k-5) (inherited: never worse than FOREST, a start)",
        source=f"local search from FOREST ({_AGGARWAL}, §4) and from kanon-box-greedy, the cheaper "
        "first: relocations to neighbours' groups, splits, exact re-splits of neighbouring group "
        "pairs",
        complexity="FOREST and the box greedy, then rounds of O(n k) priced relocations, one cut "
        "per large group and O(n k) pair re-splits of O(2^s m) each (unions of s <= 18 records)",
    ),
    Algorithm(
        name="kanon-certified",
        problem=NAME,
        kind="heuristic",
        function=certified_search,
        guarantee=forest_guarantee,
        guarantee_text="max(2k-1, 3k-5) (inherited from FOREST, a start); reports a proven "
        "lower bound",
        source="local search from FOREST and from kanon-box-greedy, then "
        "nearest-neighbour prices and the LP relaxation: "
        "on small tables solved whole as a compact box model, else dual ascent and column "
        "generation or cutting planes over the generalization lattice, then subset-row cuts "
        "on small tables (anonratio.exact.kanonymity.lp_bound), then kanon-cpsat's "
        "reduced-cost rounds at those prices from the partition, then regions of up to 8 "
        "groups re-solved by CP-SAT, largest reduced cost first "
        "(anonratio.exact.kanonymity.region_search)",
        complexity="local search, then O(n_L u log u) per ascent round, pricing sweep or box "
        "sweep (n_L lattice nodes, u unique records) and an LP per round, then one "
        "set-partitioning program per round (exponential in the worst case), then one exact "
        "solve of at most 8 (2k - 1) records per region",
        gated=False,  # its partition depends on the time limit (regions solved until it ends)
    ),
    Algorithm(
        name="kanon-cpsat",
        function=solve_cpsat,
        source="CP-SAT set-partitioning model over groups of k..2k-1 records "
        "(anonratio.exact.kanonymity)",
        complexity="exponential (clause learning / branch and bound)",
        **_EXACT,
    ),
    Algorithm(
        name="kanon-highs",
        function=solve_highs,
        source="set-partitioning ILP solved by HiGHS through PuLP (anonratio.exact.kanonymity)",
        complexity="exponential (branch and bound)",
        **_EXACT,
    ),
    Algorithm(
        name="kanon-cbc",
        function=solve_cbc,
        source="set-partitioning ILP solved by CBC through PuLP (anonratio.exact.kanonymity)",
        complexity="exponential (branch and bound)",
        **_EXACT,
    ),
    Algorithm(
        name="kanon-bpc",
        function=solve_bpc,
        source="branch and price on SCIP: set-partitioning master, lattice pricing, Ryan-Foster "
        "branching on records sharing a group (anonratio.exact.kanonymity.bpc)",
        complexity="exponential (branch and price; one pricing sweep of O(n_L u log u) per round)",
        **_EXACT,
    ),
)

#: the small tables with hierarchies of the reference set
_GENERALIZATION: dict[str, Any] = {"n": 10, "m": 3, "cardinality": (4, 6), "levels": (2, 3)}

PROBLEM = Problem(
    name=NAME,
    prefix="kanon",
    n_label="records",
    size="k",
    families=FAMILIES,
    algorithms=ALGORITHMS,
    exact=("kanon-cpsat", "kanon-highs"),
    reference=(
        reference("binary-12x6-k2", "kanon-binary", n=12, m=6, k=2),
        reference("binary-12x6-k3", "kanon-binary", n=12, m=6, k=3),
        reference("binary-12x6-k4", "kanon-binary", n=12, m=6, k=4),
        reference("binary-12x6-k5", "kanon-binary", n=12, m=6, k=5),
        reference("binary-16x5-k2", "kanon-binary", n=16, m=5, k=2),
        reference("binary-16x5-k3", "kanon-binary", n=16, m=5, k=3),
        reference("binary-20x6-k2", "kanon-binary", n=20, m=6, k=2),
        reference("binary-20x6-k3", "kanon-binary", n=20, m=6, k=3),
        reference("binary-20x6-k5", "kanon-binary", n=20, m=6, k=5),
        reference("ternary-12x4-k2", "kanon-ternary", n=12, m=4, k=2),
        reference("ternary-12x4-k3", "kanon-ternary", n=12, m=4, k=3),
        reference("ternary-10x5-k4", "kanon-ternary", n=10, m=5, k=4),
        reference("generalization-10x3-k2", "kanon-random", k=2, **_GENERALIZATION),
        reference("generalization-10x3-k3", "kanon-random", k=3, **_GENERALIZATION),
        reference("planted-24x6-k2", "kanon-planted", n=24, m=6, n_groups=4, k=2),
        reference("planted-24x6-k3", "kanon-planted", n=24, m=6, n_groups=4, k=3),
        reference("planted-24x6-k5", "kanon-planted", n=24, m=6, n_groups=4, k=5),
        reference("triangles-3", "kanon-triangles", n_triangles=3, n_vertices=7),
    ),
    worst_found="forest",
    contract=("kanon-binary", {"n": 10, "m": 4, "k": 3}),
    # alpha-k-topdown needs a sensitive attribute: 3 balanced values (largest frequency 0.4)
    contract_alternatives=({"sensitive": 3},),
    asv_sizes={
        "small": (
            ("kanon-binary", {"n": 60, "m": 8, "k": 3}),
            ("kanon-binary", {"n": 60, "m": 8, "k": 2}),
        ),
        "large": (
            ("kanon-random", {"n": 2000, "m": 8, "k": 10}),
            ("kanon-binary", {"n": 400, "m": 10, "k": 3}),
            ("kanon-binary", {"n": 400, "m": 10, "k": 2}),
        ),
    },
    # alpha-k-topdown needs a sensitive attribute
    asv_overrides={
        "alpha-k-topdown": {
            "small": (("kanon-binary", {"n": 60, "m": 8, "k": 3, "sensitive": 3}),),
            "large": (("kanon-random", {"n": 2000, "m": 8, "k": 10, "sensitive": 4}),),
        },
    },
    # searches run to convergence: 10 s or more on the large instance
    asv_slow={
        "kanon-certified": ("large",),
        "kanon-local-search": ("large",),
        "kanon-box-greedy": ("large",),
        "samarati": ("large",),
    },
    # the worst-case hunter starts from small categorical tables (k = 3 by default) and replaces
    # cells, duplicates and deletes records
    hunt=Hunt(
        NAME,
        "kanon-categorical",
        "anonratio.instances.kanonymity.moves:MOVES",
        fixed={"m": 4, "alphabet": 3},
    ),
    strong_bound="anonratio.exact.kanonymity.lp_bound:lp_bound",
    publisher="anonratio.bench.publish.problems.kanonymity:PUBLISHER",
    utility="anonratio.instances.kanonymity.metrics:SOLUTION_METRICS",
)
