"""GPS rectangles (Du, Eppstein, Goodrich and Lueker 2009, §3): axis-aligned rectangles of weight
>= k tiling the bounding box of weighted points. Its instance families and its algorithms, each
declared once.

Families: ``gps-uniform``, ``gps-clustered``, ``gps-cross`` (Theorem 4's worst case, optimum
``5k - 4``), ``gps-pinwheel`` (non-guillotine optimum ``k``). Algorithms: the kd-tree split
(Theorem 4), the best guillotine partition (a heuristic: an upper bound on the optimum) and the
exact CP-SAT and HiGHS models on the compressed grid.

References
----------
W. Du, D. Eppstein, M. T. Goodrich, G. S. Lueker. "On the Approximability of Geometric and
Geographic Generalization and the Min-Max Bin Covering Problem". WADS 2009.
"""

from anonratio.bench.declarations import Algorithm, Family, Hunt, exact_guarantee
from anonratio.bench.problem import Problem, lazy, reference

# the solvers and exact models load on first use, not when the problem is declared
solve_cpsat = lazy("anonratio.exact.gps_rectangles:solve_cpsat")
solve_highs = lazy("anonratio.exact.gps_rectangles:solve_highs")
guillotine = lazy("anonratio.solvers.gps_rectangles.guillotine:guillotine")
kdtree_split = lazy("anonratio.solvers.gps_rectangles.kdtree_split:kdtree_split")
kdtree_split_guarantee = lazy(
    "anonratio.solvers.gps_rectangles.kdtree_split:kdtree_split_guarantee"
)

__all__ = ["PROBLEM"]

NAME = "gps-rectangles"


_DU = "Du et al. 2009"

FAMILIES = (
    Family(
        "gps-uniform",
        "gps-rectangles",
        f"n points uniform in the unit square (grid > 0: on a grid x grid integer lattice, "
        f"duplicates merged), weights in [1, weight_max] ({_DU}, §3)",
        {"n": 10, "k": 5, "weight_max": 3, "grid": 0},
        lazy("anonratio.instances.gps_rectangles.families:uniform"),
    ),
    Family(
        "gps-clustered",
        "gps-rectangles",
        f"n points in n_clusters Gaussian clusters of standard deviation spread, weights in "
        f"[1, weight_max] ({_DU}, §3)",
        {"n": 12, "k": 5, "n_clusters": 3, "spread": 0.05, "weight_max": 3},
        lazy("anonratio.instances.gps_rectangles.families:clustered"),
    ),
    Family(
        "gps-cross",
        "gps-rectangles",
        f"Theorem 4's worst case ({_DU}, §3): multiplicity k with k-1 at N, S, E, W; no "
        f"admissible cut, kd-tree cost 5k-4; meta optimum = 5k-4",
        {"k": 3},
        lazy("anonratio.instances.gps_rectangles.families:cross"),
    ),
    Family(
        "gps-pinwheel",
        "gps-rectangles",
        f"the cross plus unit corner helpers ({_DU}, §3): the non-guillotine pinwheel has "
        f"optimum k, kd-tree and the best guillotine partition 2k-1; meta optimum = k",
        {"k": 3},
        lazy("anonratio.instances.gps_rectangles.families:pinwheel"),
    ),
)


# ---------------------------------------------------------------------------------------------
# algorithms
# ---------------------------------------------------------------------------------------------
_LB = "LB = max(k, max w, ceil(W / floor(W/k)))"
_KD_TEXT = f"(4(k-1) + max w) / LB < 5 ({_LB})"

ALGORITHMS = (
    Algorithm(
        name="kdtree-split",
        problem=NAME,
        kind="approximation",
        function=kdtree_split,
        guarantee=kdtree_split_guarantee,
        guarantee_text=_KD_TEXT,
        source=f"{_DU}, §3 Theorem 4 (kd-tree splitting)",
        complexity="O(n log^2 n) balanced, O(n^2 log n) worst case (sorting per tree level)",
    ),
    Algorithm(
        name="gps-cpsat",
        problem=NAME,
        kind="exact",
        function=solve_cpsat,
        guarantee=exact_guarantee,
        guarantee_text="1 (exact)",
        source=f"CP-SAT NoOverlap2D tiling of the compressed grid ({_DU}, §3; "
        "anonratio.exact.gps_rectangles)",
        complexity="exponential (clause learning / branch and bound)",
    ),
    Algorithm(
        name="gps-highs",
        problem=NAME,
        kind="exact",
        function=solve_highs,
        guarantee=exact_guarantee,
        guarantee_text="1 (exact)",
        source=f"set-partition ILP over candidate grid rectangles, HiGHS ({_DU}, §3; "
        "anonratio.exact.gps_rectangles)",
        complexity="O(nx^2 ny^2) candidates; exponential (branch and bound)",
    ),
    Algorithm(
        name="gps-guillotine",
        problem=NAME,
        kind="heuristic",
        function=guillotine,
        guarantee=kdtree_split_guarantee,
        guarantee_text=f"best guillotine partition <= kd-tree cost: {_KD_TEXT}; an upper "
        "bound on the optimum (optimal when it meets LB or W < 5k)",
        source=f"{_DU}, §3 (kd-tree cuts are guillotine cuts); dynamic programming over grid "
        "sub-rectangles",
        complexity="O(nx^2 ny^2 (nx + ny)) time, O(nx^2 ny^2) memory",
    ),
)

PROBLEM = Problem(
    name=NAME,
    prefix="gps",
    n_label="points",
    size="k",
    families=FAMILIES,
    algorithms=ALGORITHMS,
    exact=("gps-cpsat", "gps-highs"),
    # small instances whose optimum CP-SAT and HiGHS prove in seconds
    reference=(
        reference("gps-uniform-8-k3", "gps-uniform", n=8, k=3),
        reference("gps-uniform-10-k4-s1", "gps-uniform", seed=1, n=10, k=4),
        reference("gps-clustered-10-k4", "gps-clustered", n=10, k=4),
        reference("gps-cross-k3", "gps-cross", k=3),
        reference("gps-pinwheel-k3", "gps-pinwheel", k=3),
    ),
    worst_found="kdtree-split",
    contract=("gps-uniform", {"n": 8, "k": 3, "weight_max": 2}),
    asv_sizes={
        "small": (("gps-uniform", {"n": 2000, "k": 10}),),
        "large": (("gps-uniform", {"n": 20_000, "k": 10}),),
    },
    # the guillotine dynamic program's memory grows as n^4: its own sizes
    asv_overrides={
        "gps-guillotine": {
            "small": (("gps-uniform", {"n": 20, "k": 5}),),
            "large": (("gps-uniform", {"n": 30, "k": 5}),),
        },
    },
    # the worst-case hunter starts from a few uniform points (k = 3) and moves, reweighs and
    # deletes points
    hunt=Hunt(
        NAME, "gps-uniform", "anonratio.instances.gps_rectangles.moves:MOVES", fixed={"k": 3}
    ),
)
