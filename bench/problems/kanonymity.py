"""k-anonymity (Aggarwal, Feder, Kenthapadi, Motwani, Panigrahy, Thomas and Zhu 2005): its
instance families and its algorithms, each declared once.

Algorithms: FOREST + DECOMPOSE-COMPONENT (§4), the minimum-weight [1,2]-factor for k = 2 (§5) and
the minimum-weight 2-factor for k = 3 (§6), beside the exact set-partitioning model solved by
CP-SAT, HiGHS and CBC (``kanon-cpsat``, ``kanon-highs``, ``kanon-cbc``).

References
----------
G. Aggarwal, T. Feder, K. Kenthapadi, R. Motwani, R. Panigrahy, D. Thomas, A. Zhu.
"Approximation Algorithms for k-Anonymity". Journal of Privacy Technology, 2005.
"""

import numpy as np

from anonratio.bench.declarations import (
    Algorithm,
    Family,
    Hunt,
    certified_run,
    exact_guarantee,
    needs_k,
    no_guarantee,
)
from anonratio.bench.library import worst_found_family
from anonratio.exact.kanonymity import solve_cbc, solve_cpsat, solve_highs
from anonratio.exact.kanonymity.certified import certify
from anonratio.instances import verify
from anonratio.instances.kanonymity import (
    KAnonymityInstance,
    categorical_table,
    graph_representation_pair,
    planted_table,
    random_table,
    triangle_union_gadget,
)
from anonratio.instances.kanonymity.moves import MOVES
from anonratio.instances.loaders import ADULT_QI, load_adult
from anonratio.solvers.kanonymity.box_greedy import box_greedy
from anonratio.solvers.kanonymity.box_greedy import unsupported as box_greedy_unsupported
from anonratio.solvers.kanonymity.datafly import datafly
from anonratio.solvers.kanonymity.factor_2 import one_two_factor, one_two_factor_guarantee
from anonratio.solvers.kanonymity.factor_3 import two_factor, two_factor_guarantee
from anonratio.solvers.kanonymity.forest import forest, forest_guarantee
from anonratio.solvers.kanonymity.full_domain import MAX_NODES
from anonratio.solvers.kanonymity.incognito import incognito
from anonratio.solvers.kanonymity.local_search import local_search
from anonratio.solvers.kanonymity.mondrian import mondrian, mondrian_relaxed
from anonratio.solvers.kanonymity.samarati import samarati

__all__ = ["PROBLEM", "FAMILIES", "ALGORITHMS", "HUNTS"]

PROBLEM = "k-anonymity"


# ---------------------------------------------------------------------------------------------
# instance families
# ---------------------------------------------------------------------------------------------
def _kanon(table, p):
    return KAnonymityInstance(table, p["k"], p["model"], p["row_deletion"])


def _binary(rng, *, n, m, k, row_deletion):
    table = categorical_table(n, m, 2, seed=rng)
    return KAnonymityInstance(table, k, "suppression", row_deletion), {}


def _categorical(rng, **p):
    return _kanon(categorical_table(p["n"], p["m"], p["alphabet"], seed=rng), p), {}


def _ternary(rng, **p):
    return _kanon(categorical_table(p["n"], p["m"], 3, seed=rng), p), {}


def _random(rng, **p):
    zipf = p["zipf"] or None
    table = random_table(
        p["n"], p["m"], cardinality=p["cardinality"], levels=p["levels"], zipf=zipf, seed=rng
    )
    return _kanon(table, p), {}


def _planted(rng, **p):
    table, labels = planted_table(
        p["n"],
        p["m"],
        n_groups=p["n_groups"],
        noise=p["noise"],
        cardinality=p["cardinality"],
        levels=p["levels"] or None,
        seed=rng,
        return_labels=True,
    )
    instance = _kanon(table, p)
    extra = {}
    if np.bincount(labels).min() >= instance.k:  # the planted partition is feasible
        extra["upper_bound"] = verify(instance, labels).cost
    return instance, extra


def _triangles(rng, *, n_triangles, n_vertices, preliminary):
    g = triangle_union_gadget(n_triangles, n_vertices, seed=rng, preliminary=preliminary)
    extra = {
        "optimum": g.optimum,
        "lower_bound": g.lower_bound,
        "m": g.info["m"],
        "t": g.info["t"],
        "description": g.description,
    }
    return g.instance, extra


#: the eight 4-bit records of Aggarwal et al. 2005, §6: the optimal 2-factor is the 8-cycle
#: through them in this order, and the cycle decomposition pays 3 times its weight (case (f))
_CYCLE_8 = ("0000", "0001", "0011", "0111", "1111", "1110", "1100", "1000")


def _cycle_8(rng):
    codes = np.array([[int(b) for b in row] for row in _CYCLE_8])
    table = categorical_table(8, 4, 2, seed=0)
    table = type(table)(codes, table.attributes, table.values)
    return KAnonymityInstance(table, 3, "suppression"), {
        "description": "the tight example of the 2-factor step (2005 §6, case (f), x = 2)"
    }


def _gap_pair(rng, *, k, member):
    if member not in ("first", "second"):
        raise ValueError(f"parameter `member` must be 'first' or 'second', got {member!r}")
    first, second = graph_representation_pair(k)
    g, other = (first, second) if member == "first" else (second, first)
    extra = {
        "optimum": g.optimum,
        "other_optimum": other.optimum,
        "pair_distance": g.info["pair_distance"],
        "description": g.description,
    }
    return g.instance, extra


def _adult(rng, *, n, k, model, row_deletion, qi):
    table = load_adult(qi=qi).sample(n, rng)
    instance = KAnonymityInstance(table, k, model, row_deletion)
    return instance, {"dataset": "adult", "n_records": int(table.n_records)}


_COMMON = {"k": 3, "model": "suppression", "row_deletion": False}

FAMILIES = (
    Family(
        "kanon-binary",
        "k-anonymity",
        "uniform random binary table (suppression = generalization), Aggarwal et al. 2005 §5-§6",
        {"n": 20, "m": 6, "k": 3, "row_deletion": False},
        _binary,
    ),
    Family(
        "kanon-ternary",
        "k-anonymity",
        "uniform random ternary table (the alphabet of the NP-hardness proof, 2005 §3)",
        {"n": 20, "m": 6, **_COMMON},
        _ternary,
    ),
    Family(
        "kanon-categorical",
        "k-anonymity",
        "uniform random table over an alphabet of `alphabet` values, no hierarchies",
        {"n": 20, "m": 6, "alphabet": 4, **_COMMON},
        _categorical,
    ),
    Family(
        "kanon-random",
        "k-anonymity",
        "Adult-like table: 10-40 values and 3-5 level interval hierarchies per attribute, "
        "optionally Zipf-skewed (zipf > 0); generalization model",
        {
            "n": 100,
            "m": 6,
            "k": 3,
            "model": "generalization",
            "row_deletion": False,
            "cardinality": (10, 40),
            "levels": (3, 5),
            "zipf": 0.0,
        },
        _random,
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
        _planted,
    ),
    Family(
        "kanon-triangles",
        "k-anonymity",
        "edge-partition-into-triangles gadget (2005 §3) of a random union of n_triangles "
        "edge-disjoint triangles, k = 3: optimum 9mt with m = n_triangles, t = ceil(log2(3m+1))",
        {"n_triangles": 3, "n_vertices": 7, "preliminary": False},
        _triangles,
    ),
    Family(
        "kanon-gap-pair",
        "k-anonymity",
        "one member ('first' or 'second') of the graph-representation pair (2005 §4): same "
        "k-clique graph, optima k^2 2^(k-2) and k(2^k - 2)",
        {"k": 4, "member": "first"},
        _gap_pair,
    ),
    Family(
        "kanon-2factor-tight",
        "k-anonymity",
        "the eight 4-bit records 0000, 0001, 0011, 0111, 1111, 1110, 1100, 1000 at k = 3 "
        "(2005 §6): the cycle decomposition of the optimal 2-factor pays 3 times its weight",
        {},
        _cycle_8,
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
        _adult,
    ),
    worst_found_family(PROBLEM, "forest"),  # results/hard_instances
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


def _small_lattice(instance):
    """Samarati and Incognito enumerate the generalization lattice: refuse a huge one."""
    size = float(np.prod(instance.heights + 1.0))
    if size > MAX_NODES:
        return f"the generalization lattice has {size:.3g} nodes, more than {MAX_NODES:,}"
    return None


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
        problem=PROBLEM,
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
        problem=PROBLEM,
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
        problem=PROBLEM,
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
        problem=PROBLEM,
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
        problem=PROBLEM,
        kind="heuristic",
        function=incognito,
        guarantee=no_guarantee,
        guarantee_text=_CLASSIC + "; optimal full-domain generalization for the metric",
        source=f"LeFevre et al. 2005; {_SURVEY}, §3.2.2 (subset-lattice pruning)",
        complexity="worst case O(2^|Dom| u m); pruning checks a small fraction",
        requires=_small_lattice,
    ),
    Algorithm(
        name="datafly",
        problem=PROBLEM,
        kind="heuristic",
        function=datafly,
        guarantee=no_guarantee,
        guarantee_text=_CLASSIC + "; greedy full-domain generalization",
        source="Sweeney 2002, §4.1 (Datafly)",
        complexity="at most sum_j l_j steps, each O(u m)",
    ),
    Algorithm(
        name="mondrian",
        problem=PROBLEM,
        kind="heuristic",
        function=mondrian,
        guarantee=no_guarantee,
        guarantee_text=_CLASSIC + "; strict multidimensional partitioning",
        source=f"LeFevre et al. 2006; {_SURVEY}, §4.1.2 (Mondrian, strict)",
        complexity="O(n (m + log n) log(n/k))",
    ),
    Algorithm(
        name="mondrian-relaxed",
        problem=PROBLEM,
        kind="heuristic",
        function=mondrian_relaxed,
        guarantee=no_guarantee,
        guarantee_text=_CLASSIC + "; relaxed multidimensional partitioning",
        source=f"LeFevre et al. 2006; {_SURVEY}, §4.1.2 (Mondrian, relaxed)",
        complexity="O(n (m + log n) log(n/k))",
    ),
    Algorithm(
        name="kanon-box-greedy",
        problem=PROBLEM,
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
        problem=PROBLEM,
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
        problem=PROBLEM,
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
        problem=PROBLEM,
        kind="exact",
        function=solve_cpsat,
        guarantee=exact_guarantee,
        guarantee_text="1 (exact)",
        source="CP-SAT set-partitioning model over groups of k..2k-1 records "
        "(anonratio.exact.kanonymity)",
        complexity="exponential (clause learning / branch and bound)",
        hint=_best_known_hint,
    ),
    Algorithm(
        name="kanon-highs",
        problem=PROBLEM,
        kind="exact",
        function=solve_highs,
        guarantee=exact_guarantee,
        guarantee_text="1 (exact)",
        source="set-partitioning ILP solved by HiGHS through PuLP (anonratio.exact.kanonymity)",
        complexity="exponential (branch and bound)",
        hint=_best_known_hint,
    ),
    Algorithm(
        name="kanon-cbc",
        problem=PROBLEM,
        kind="exact",
        function=solve_cbc,
        guarantee=exact_guarantee,
        guarantee_text="1 (exact)",
        source="set-partitioning ILP solved by CBC through PuLP (anonratio.exact.kanonymity)",
        complexity="exponential (branch and bound)",
        hint=_best_known_hint,
    ),
)

#: the worst-case hunter starts from small categorical tables (k = 3 by default) and replaces
#: cells, duplicates and deletes records
HUNTS = (Hunt(PROBLEM, "kanon-categorical", MOVES, fixed={"m": 4, "alphabet": 3}),)
