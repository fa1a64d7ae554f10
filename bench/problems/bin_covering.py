"""Min-Max Bin Covering (Du, Eppstein, Goodrich and Lueker 2009, §4-§5): its instance families
and its algorithms, each declared once.

Fold, Spread and simplified Spread are declared once per item order, so the four curves of the
paper's Figure 7 are four algorithms: ``fold-random``, ``fold-sorted``,
``simplified-spread-random`` and ``simplified-spread-sorted`` (the paper's experimental "Spread"
is the simplified one), next to Theorem 10's full ``spread-random`` / ``spread-sorted``, the
relaxed scheme ``relaxed`` (a bicriteria guarantee: its bins may hold only ``(1 - 2 eps) k``, so
its rows carry ``relaxed=True`` and never count as an optimum or upper bound) and the exact models
``bc-cpsat``, ``bc-highs``, ``bc-cbc``.

``simplified-spread`` counts as an approximation: the paper proves no ratio for it, but Theorem
7's argument bounds its cost by Fold's ``max(k - 1 + max x, 3k - 3)`` for either order; see
:func:`anonratio.solvers.bin_covering.simplified_spread.simplified_spread_guarantee`.

References
----------
W. Du, D. Eppstein, M. T. Goodrich, G. S. Lueker. "On the Approximability of Geometric and
Geographic Generalization and the Min-Max Bin Covering Problem". WADS 2009, §4 (Theorems 7, 10,
11), §5 (experiments, Figure 7).
"""

from functools import partial

from anonratio.bench.declarations import Algorithm, Family, Hunt, exact_guarantee
from anonratio.bench.problem import Problem, lazy, reference

# the solvers and exact models load on first use, not when the problem is declared
solve_cbc = lazy("anonratio.exact.bin_covering:solve_cbc")
solve_cpsat = lazy("anonratio.exact.bin_covering:solve_cpsat")
solve_highs = lazy("anonratio.exact.bin_covering:solve_highs")
fold = lazy("anonratio.solvers.bin_covering.fold:fold")
fold_guarantee = lazy("anonratio.solvers.bin_covering.fold:fold_guarantee")
relaxed_guarantee = lazy("anonratio.solvers.bin_covering.relaxed_scheme:relaxed_guarantee")
relaxed_scheme = lazy("anonratio.solvers.bin_covering.relaxed_scheme:relaxed_scheme")
simplified_spread = lazy("anonratio.solvers.bin_covering.simplified_spread:simplified_spread")
simplified_spread_guarantee = lazy(
    "anonratio.solvers.bin_covering.simplified_spread:simplified_spread_guarantee"
)
spread = lazy("anonratio.solvers.bin_covering.spread:spread")
spread_guarantee = lazy("anonratio.solvers.bin_covering.spread:spread_guarantee")

__all__ = ["PROBLEM", "ORDERS", "RELAXED_EPSILON"]

NAME = "bin-covering"

#: item orders declared for Fold, Spread and simplified Spread (Figure 7: random and sorted)
ORDERS = ("random", "sorted")

#: epsilon of the declared relaxed scheme (Theorem 11)
RELAXED_EPSILON = 0.2


FAMILIES = (
    Family(
        "bc-uniform",
        "bin-covering",
        "n item sizes uniform in [low, high] (high = 0: k), Min-Max Bin Covering (Du et al. "
        "2009, §4)",
        {"n": 20, "k": 50, "low": 1, "high": 0},
        lazy("anonratio.instances.bin_covering.families:uniform"),
    ),
    Family(
        "bc-zipf",
        "bin-covering",
        "n Zipf-distributed item sizes P(x) ~ x^-exponent truncated to [1, max_size] "
        "(max_size = 0: max(k, 1000)), like name frequencies",
        {"n": 20, "k": 50, "exponent": 1.5, "max_size": 0},
        lazy("anonratio.instances.bin_covering.families:zipf"),
    ),
    Family(
        "bc-3partition-yes",
        "bin-covering",
        "planted 3-Partition yes-instance (Du et al. 2009, Theorem 5): 3m sizes in (B/4, B/2) "
        "forming m triples of sum B, k = B; meta optimum = B",
        {"m": 4, "B": 100},
        lazy("anonratio.instances.bin_covering.families:three_partition_yes"),
    ),
    Family(
        "bc-3partition-no",
        "bin-covering",
        "3-Partition no-instance (Theorem 5): 3m even sizes in (B/4, B/2) summing to mB, B odd, "
        "m even, k = B; meta lower_bound = ceil(mB / (m - 1)) > B",
        {"m": 4, "B": 101},
        lazy("anonratio.instances.bin_covering.families:three_partition_no"),
    ),
    Family(
        "bc-census",
        "bin-covering",
        "1990 U.S. Census name frequencies (Du et al. 2009, §5): dataset FEMALE-1990, MALE-1990 "
        "or LAST-1990, names with frequency >= min_frequency %, item size = frequency x 1000 "
        "(from the `names` package); deterministic (the seed is unused)",
        {"dataset": "LAST-1990", "k": 5000, "min_frequency": 0.001},
        lazy("anonratio.instances.bin_covering.families:census"),
    ),
)


# ---------------------------------------------------------------------------------------------
# algorithms
# ---------------------------------------------------------------------------------------------
_DU = "Du et al. 2009"
_LB = "LB = max(k, max x, ceil(S / floor(S/k)))"

#: (function, guarantee, guarantee text, source, complexity) of the order-dependent algorithms
_BY_ORDER = (
    (
        fold,
        fold_guarantee,
        f"max(k-1+max x, 3k-3) / LB < 3 ({_LB})",
        f"{_DU}, §4 Theorem 7 (Fold)",
        "O(n) after the O(n log n) sort",
    ),
    (
        spread,
        spread_guarantee,
        "5/2",
        f"{_DU}, §4 Theorem 10 (Spread, with its exhaustive small case)",
        "O(n log n); the small case (<= 3 bins) adds a budgeted exhaustive search",
    ),
    (
        simplified_spread,
        simplified_spread_guarantee,
        f"max(k-1+max x, 3k-3) / LB < 3 (Theorem 7's argument, derived here; the paper "
        f"proves no ratio for it; {_LB})",
        f"{_DU}, §5 (the experiments' simplified Spread, Figure 7)",
        "O(n log n)",
    ),
)

_EXACT = (
    (solve_cpsat, "cpsat", "CP-SAT"),
    (solve_highs, "highs", "HiGHS"),
    (solve_cbc, "cbc", "CBC"),
)

ALGORITHMS = (
    *(
        Algorithm(
            name=f"{function.__name__.replace('_', '-')}-{order}",
            problem=NAME,
            kind="approximation",
            function=function,
            guarantee=guarantee,
            guarantee_text=text,
            source=f"{source}; items in {order} order",
            complexity=complexity,
            options={"order": order},
        )
        for function, guarantee, text, source, complexity in _BY_ORDER
        for order in ORDERS
    ),
    Algorithm(
        name="relaxed",
        problem=NAME,
        kind="approximation",
        function=relaxed_scheme,
        guarantee=partial(relaxed_guarantee, epsilon=RELAXED_EPSILON),
        guarantee_text=f"bicriteria, eps = {RELAXED_EPSILON:g}: cost <= (1+eps)(OPT + eps k), "
        "ratio <= (1+eps)(1 + eps k/LB) <= (1+eps)^2; bins only >= (1-2eps)k (relaxed rows)",
        source=f"{_DU}, §4 Theorem 11 (relaxed approximation scheme)",
        complexity="polynomial for fixed eps, of degree growing with 1/eps (type enumeration)",
        options={"order": "sorted", "epsilon": RELAXED_EPSILON},
    ),
    *(
        Algorithm(
            name=f"bc-{short}",
            problem=NAME,
            kind="exact",
            function=function,
            guarantee=exact_guarantee,
            guarantee_text="1 (exact)",
            source=f"{solver} model over aggregated sizes (anonratio.exact.bin_covering)",
            complexity="exponential (branch and bound)",
        )
        for function, short, solver in _EXACT
    ),
)

PROBLEM = Problem(
    name=NAME,
    prefix="bc",
    n_label="items",
    size="k",
    families=FAMILIES,
    algorithms=ALGORITHMS,
    exact=("bc-cpsat", "bc-highs"),
    reference=(
        reference("bc-uniform-10-k20", "bc-uniform", n=10, k=20),
        reference("bc-uniform-12-k50", "bc-uniform", n=12, k=50),
        reference("bc-uniform-12-k50-s1", "bc-uniform", seed=1, n=12, k=50),
        reference("bc-zipf-20-k50", "bc-zipf", n=20, k=50),
        reference("bc-zipf-30-k100", "bc-zipf", seed=1, n=30, k=100),
        reference("bc-3partition-yes-4", "bc-3partition-yes", m=4),
        reference("bc-3partition-no-4", "bc-3partition-no", m=4),
        reference("bc-3partition-no-6", "bc-3partition-no", m=6),
    ),
    worst_found="fold-sorted",
    contract=("bc-uniform", {"n": 9, "k": 20, "low": 1, "high": 15}),
    asv_sizes={
        "small": (("bc-zipf", {"n": 5000, "k": 500}),),
        "large": (("bc-zipf", {"n": 100_000, "k": 5000}),),
    },
    # the relaxed scheme's configuration search would take minutes at the problem's sizes
    asv_overrides={
        "relaxed": {
            "small": (("bc-uniform", {"n": 30, "k": 50}),),
            "large": (("bc-zipf", {"n": 5000, "k": 500}),),
        },
    },
    # the worst-case hunter starts from a few uniform items (k = 10) and resizes, duplicates and
    # deletes items
    hunt=Hunt(
        NAME,
        "bc-uniform",
        "anonratio.instances.bin_covering.moves:MOVES",
        fixed={"k": 10, "low": 1, "high": 12},
    ),
)
