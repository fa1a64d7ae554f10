"""Zip codes (Du, Eppstein, Goodrich and Lueker 2009, §2): connected parts of weight >= k of a
node-weighted planar graph. Its instance families and its algorithms, each declared once.

Families: ``zip-delaunay``, ``zip-grid``, ``zip-planted`` (planted parts of weight exactly ``k``:
optimum ``k``). Algorithms: the spanning-tree split (Theorem 3; its guarantee depends on the
degree of the tree it finds, so it is read from the run's solution) and the CP-SAT model with
flow connectivity (``zip-cpsat``), started from the split.

References
----------
W. Du, D. Eppstein, M. T. Goodrich, G. S. Lueker. "On the Approximability of Geometric and
Geographic Generalization and the Min-Max Bin Covering Problem". WADS 2009.
"""

from anonratio.bench.declarations import Algorithm, Family, Hunt, exact_guarantee
from anonratio.bench.problem import Problem, lazy, reference

# the solvers and exact models load on first use, not when the problem is declared
solve_cpsat = lazy("anonratio.exact.zip_codes:solve_cpsat")
spanning_tree_split = lazy("anonratio.solvers.zip_codes.spanning_tree_split:spanning_tree_split")
spanning_tree_split_guarantee = lazy(
    "anonratio.solvers.zip_codes.spanning_tree_split:spanning_tree_split_guarantee"
)

__all__ = ["PROBLEM"]

NAME = "zip-codes"


_DU = "Du et al. 2009"

FAMILIES = (
    Family(
        "zip-delaunay",
        "zip-codes",
        f"Delaunay triangulation of n uniform points, node weights `weights` up to max_weight, "
        f"parts of weight >= k ({_DU}, §2); three_connected resamples until 3-connected",
        {"n": 20, "k": 15, "weights": "uniform", "max_weight": 10, "three_connected": False},
        lazy("anonratio.instances.zip_codes.families:delaunay"),
    ),
    Family(
        "zip-grid",
        "zip-codes",
        f"rows x cols grid graph (a Hamiltonian path: degree-2 spanning tree, ratio 3), node "
        f"weights `weights` up to max_weight ({_DU}, §2)",
        {"rows": 4, "cols": 5, "k": 15, "weights": "uniform", "max_weight": 10},
        lazy("anonratio.instances.zip_codes.families:grid"),
    ),
    Family(
        "zip-planted",
        "zip-codes",
        f"Delaunay graph with a planted partition into n_parts connected parts of weight exactly "
        f"k ({_DU}, §2); meta optimum = k",
        {"n": 20, "n_parts": 4, "k": 10},
        lazy("anonratio.instances.zip_codes.families:planted"),
    ),
)


# ---------------------------------------------------------------------------------------------
# algorithms
# ---------------------------------------------------------------------------------------------
ALGORITHMS = (
    Algorithm(
        name="spanning-tree-split",
        problem=NAME,
        kind="approximation",
        function=spanning_tree_split,
        guarantee=spanning_tree_split_guarantee,
        guarantee_text="(kappa + d(k-1)) / kappa <= d + 1, kappa = max(k, max w), d = max "
        "degree of the spanning tree found (3 for d = 2, 4 for d = 3); recorded per run",
        source=f"{_DU}, §2 (Lemmas 1-2, Theorem 3: spanning-tree splitting)",
        complexity="O(n S / k) splitting after the low-degree spanning-tree heuristic",
    ),
    Algorithm(
        name="zip-cpsat",
        problem=NAME,
        kind="exact",
        function=solve_cpsat,
        guarantee=exact_guarantee,
        guarantee_text="1 (exact)",
        source=f"CP-SAT rooted-tree flow model of the connected partition ({_DU}, §2; "
        "anonratio.exact.zip_codes)",
        complexity="exponential (clause learning / branch and bound)",
        # the split is a feasible partition in milliseconds: its cost caps the model's objective
        hint=spanning_tree_split,
    ),
)

PROBLEM = Problem(
    name=NAME,
    prefix="zip",
    n_label="nodes (zip codes)",
    size="k",
    families=FAMILIES,
    algorithms=ALGORITHMS,
    exact=("zip-cpsat",),
    # small instances whose optimum CP-SAT proves in seconds
    reference=(
        reference("zip-delaunay-12-k10", "zip-delaunay", n=12, k=10),
        reference("zip-delaunay-14-k12-s1", "zip-delaunay", seed=1, n=14, k=12),
        reference("zip-grid-3x4-k12", "zip-grid", rows=3, cols=4, k=12),
        reference("zip-planted-12-k8", "zip-planted", n=12, n_parts=3, k=8),
    ),
    worst_found="spanning-tree-split",
    contract=("zip-delaunay", {"n": 10, "k": 12, "max_weight": 6}),
    asv_sizes={
        "small": (("zip-delaunay", {"n": 500, "k": 30}),),
        "large": (("zip-delaunay", {"n": 5000, "k": 50}),),
    },
    # the worst-case hunter starts from small Delaunay maps (k = 8) and changes populations and
    # adjacencies
    hunt=Hunt(
        NAME,
        "zip-delaunay",
        "anonratio.instances.zip_codes.moves:MOVES",
        fixed={"k": 8, "max_weight": 5},
    ),
)
