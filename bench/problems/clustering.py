"""Anonymity via clustering (Aggarwal et al., PODS 2006): the instance families and algorithms of
its five problems, each declared once.

The problems share the points and the metric and differ in their constraint and objective:
``r-gather`` (§2.2), ``r-eps-gather`` (§2.3), ``kr-center`` (§2.4), ``cellular`` (§3) and
``r-cellular`` (§3.1). Each has its paper algorithm, exact CP-SAT / HiGHS / CBC models named
``<problem>-cpsat`` etc. (one formulation per problem in :mod:`anonratio.exact.clustering`,
started from the approximation's solution), and r-gather two baselines.

References
----------
G. Aggarwal, T. Feder, K. Kenthapadi, S. Khuller, R. Panigrahy, D. Thomas, A. Zhu. "Achieving
Anonymity via Clustering". PODS 2006.
"""

from functools import partial
from typing import Any

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
solve_cbc = lazy("anonratio.exact.clustering:solve_cbc")
solve_cpsat = lazy("anonratio.exact.clustering:solve_cpsat")
solve_highs = lazy("anonratio.exact.clustering:solve_highs")
certify = lazy("anonratio.exact.clustering.certified:certify")
greedy_gather = lazy("anonratio.solvers.clustering.greedy_gather:greedy_gather")
kr_center = lazy("anonratio.solvers.clustering.kr_center:kr_center")
min_size_kmeans = lazy("anonratio.solvers.clustering.min_size_kmeans:min_size_kmeans")
primal_dual = lazy("anonratio.solvers.clustering.primal_dual:primal_dual")
r_cellular = lazy("anonratio.solvers.clustering.r_cellular:r_cellular")
r_eps_gather = lazy("anonratio.solvers.clustering.r_eps_gather:r_eps_gather")
r_gather = lazy("anonratio.solvers.clustering.r_gather:r_gather")

__all__ = ["PROBLEMS", "PREFIX"]

#: the five problems of the paper, declared here together
NAMES = ("r-gather", "r-eps-gather", "kr-center", "cellular", "r-cellular")

#: problem -> family-name prefix
PREFIX = {
    "r-gather": "rgather",
    "r-eps-gather": "repsgather",
    "kr-center": "krcenter",
    "cellular": "cellular",
    "r-cellular": "rcellular",
}

#: problem -> its parameters with their defaults in every family
_PROBLEM_PARAMS: dict[str, dict[str, Any]] = {
    "r-gather": {"r": 5},
    "r-eps-gather": {"r": 5, "epsilon": 0.05},
    "kr-center": {"k": 6, "r": 5},
    "cellular": {"facility": "uniform", "facility_scale": 1.0},
    "r-cellular": {"r": 5, "facility": "zero", "facility_scale": 1.0},
}

_FACILITY_NOTE = "; setup costs by `facility` (zero, constant or uniform in [0, facility_scale])"


# ---------------------------------------------------------------------------------------------
# instance families
# ---------------------------------------------------------------------------------------------
#: the builders, in the instances layer, loaded on first use
_POINTS = lazy("anonratio.instances.clustering.families:points")
_PLANTED = lazy("anonratio.instances.clustering.families:planted")


def _points_family(problem, kind, description, defaults):
    problem_params = _PROBLEM_PARAMS[problem]
    note = _FACILITY_NOTE if "facility" in problem_params else ""
    return Family(
        f"{PREFIX[problem]}-{kind}",
        problem,
        f"{description}, {problem} (Aggarwal et al. 2006){note}",
        {**defaults, **problem_params},
        partial(_POINTS, problem=problem, kind=kind),
    )


_POINT_KINDS = (
    (
        "uniform",
        "n points uniform in the unit cube of dimension dim",
        {"n": 60, "dim": 2},
    ),
    (
        "gaussian",
        "n_clusters Gaussian clusters of cluster_size points (standard deviation spread)",
        {"n_clusters": 6, "cluster_size": 10, "dim": 2, "spread": 1.0},
    ),
    (
        "outliers",
        "n points: a dense cloud and n_outliers far outliers",
        {"n": 60, "n_outliers": 3, "dim": 2},
    ),
    (
        "heavy",
        "n points with heavy-tailed radii (tail index tail: smaller is heavier)",
        {"n": 60, "dim": 2, "tail": 1.5},
    ),
)


def _planted_family(problem):
    defaults = {"groups": 6, "r": 5, "radius_low": 1.0, "radius_high": 3.0, "dim": 2}
    if problem == "r-eps-gather":
        defaults["n_outliers"] = 3
    if problem == "kr-center":
        defaults.pop("groups")
        defaults["k"] = 6

    return Family(
        f"{PREFIX[problem]}-planted",
        problem,
        f"planted {problem}: groups of exactly r points (a center and r-1 points at the group's "
        "radius, drawn in [radius_low, radius_high]) far apart"
        + (", plus n_outliers far outliers" if problem == "r-eps-gather" else "")
        + "; meta optimum by construction",
        defaults,
        partial(_PLANTED, problem=problem),
    )


FAMILIES = (
    *(
        _points_family(problem, kind, description, defaults)
        for problem in NAMES
        for kind, description, defaults in _POINT_KINDS
    ),
    *(_planted_family(problem) for problem in NAMES if problem != "cellular"),
    Family(
        "rgather-sat",
        "r-gather",
        "the 3-SAT gadget of §2.1 (Aggarwal et al. 2006): shortest-path metric of the formula "
        "graph, radius 1 iff the random formula (each variable in <= 3 clauses) is satisfiable; "
        "meta optimum 1 (satisfiable) or lower_bound 2",
        {"n_vars": 4, "n_clauses": 5, "satisfiable": True, "r": 7},
        lazy("anonratio.instances.clustering.families:sat"),
    ),
)


# ---------------------------------------------------------------------------------------------
# algorithms
# ---------------------------------------------------------------------------------------------
def _constant(value):
    def guarantee(instance, solution=None):
        return value

    guarantee.__name__ = f"ratio_{value:g}"
    return guarantee


_PAPER = "Aggarwal et al. 2006"

#: (function, problem, ratio, guarantee text, source, complexity)
_APPROXIMATIONS = (
    (
        r_gather,
        "r-gather",
        2.0,
        "2 (LB: the threshold R of the search, <= OPT)",
        f"{_PAPER}, §2.2 Theorem 2.2 (threshold + max-flow)",
        "O(log n) feasibility tests, each a greedy cover and a max-flow on the 2R-neighbourhoods",
    ),
    (
        r_eps_gather,
        "r-eps-gather",
        4.0,
        "4 (LB: the threshold R of the search, <= OPT)",
        f"{_PAPER}, §2.3 Theorem 2.3 (outliers by peeling)",
        "O(log n) peeling tests on the 2R-neighbourhoods",
    ),
    (
        kr_center,
        "kr-center",
        2.0,
        "2 (LB: the threshold R of the search, <= OPT)",
        f"{_PAPER}, §2.4 (threshold + max-flow with at most k centers)",
        "as r-gather",
    ),
    (
        primal_dual,
        "cellular",
        4.0,
        "4 (LB: the dual objective sum alpha)",
        f"{_PAPER}, §3 Procedure 1, Theorem 3.3 (primal-dual)",
        "event-driven dual growth over per-point neighbour lists grown on demand (KD-tree), "
        "lazy per-center events: O(n^2 log n) worst case, about n^1.2 measured on uniform "
        "points (10k-300k)",
    ),
    (
        r_cellular,
        "r-cellular",
        80.0,
        "80 (augment, share, unshare)",
        f"{_PAPER}, §3.1 Theorem 3.6",
        "the primal-dual on the augmented instance, then O(n log n) regrouping",
    ),
)

#: (function, problem, ratio or None, guarantee text, source, complexity)
_HEURISTICS = (
    (
        greedy_gather,
        "r-gather",
        4.0,
        "4 (derived here, not in the paper: cost <= 2 max d_{r-1} <= 4 OPT)",
        "baseline: clusters grown from the points with the smallest (r-1)-neighbourhood radius",
        "one k-nearest query per point, O(n log n) with a KD-tree",
    ),
    (
        min_size_kmeans,
        "r-gather",
        None,
        "none",
        "baseline: k-medoids alternation with a minimum cluster size r (k-means++ seeding)",
        "O(n^2 / r) distances per iteration, at most max_iter iterations",
    ),
)

_HINTS = {
    "r-gather": r_gather,
    "r-eps-gather": r_eps_gather,
    "kr-center": kr_center,
    "cellular": primal_dual,
    "r-cellular": r_cellular,
}

_EXACT = (
    (solve_cpsat, "cpsat", "CP-SAT"),
    (solve_highs, "highs", "HiGHS"),
    (solve_cbc, "cbc", "CBC"),
)


def _certified(function, name):
    """``name``'s registry function: ``function``'s clustering, then the cluster LP's bound."""
    return certified_run(
        function,
        certify,
        name,
        f"""{name}: {function.__name__}'s clustering, then the strongest lower bound the rest of
    ``time_limit`` proves (:func:`~anonratio.exact.clustering.certified.certify`).""",
    )


#: (certified algorithm, problem, the approximation it certifies, its ratio and guarantee text)
_CERTIFIED = (
    ("cellular-certified", "cellular", primal_dual, 4.0, "4 (inherited from primal-dual)"),
    ("r-cellular-certified", "r-cellular", r_cellular, 80.0, "80 (inherited from r-cellular)"),
)


def _hint_from(function):
    def hint(instance, seed=None):
        return function(instance, seed=seed)

    hint.__name__ = f"hint_{function.__name__}"
    return hint


ALGORITHMS = (
    *(
        Algorithm(
            name=function.__name__.replace("_", "-"),
            problem=problem,
            kind="approximation",
            function=function,
            guarantee=_constant(ratio),
            guarantee_text=text,
            source=source,
            complexity=complexity,
        )
        for function, problem, ratio, text, source, complexity in _APPROXIMATIONS
    ),
    *(
        Algorithm(
            name=function.__name__.replace("_", "-"),
            problem=problem,
            kind="heuristic",
            function=function,
            guarantee=no_guarantee if ratio is None else _constant(ratio),
            guarantee_text=text,
            source=source,
            complexity=complexity,
        )
        for function, problem, ratio, text, source, complexity in _HEURISTICS
    ),
    *(
        Algorithm(
            name=name,
            problem=problem,
            kind="heuristic",
            function=_certified(function, name),
            guarantee=_constant(ratio),
            guarantee_text=f"{text}; reports a proven lower bound",
            source=f"{function.__name__.replace('_', '-')}, then column generation on the cluster "
            f"LP of {_PAPER}, §3, with a Lagrangian bound (anonratio.exact.clustering.lp_bound)",
            complexity=f"{function.__name__.replace('_', '-')}, then O(n^2 log n) per pricing "
            "round and the master LP",
            gated=False,  # its clustering is the approximation's, which the gate tracks
        )
        for name, problem, function, ratio, text in _CERTIFIED
    ),
    *(
        Algorithm(
            name=f"{problem}-{short}",
            problem=problem,
            kind="exact",
            function=function,
            guarantee=exact_guarantee,
            guarantee_text="1 (exact)",
            source=f"{solver} model over (center, radius) candidates (anonratio.exact.clustering)",
            complexity="exponential (branch and bound)",
            hint=_hint_from(_HINTS[problem]),
        )
        for problem in NAMES
        for function, short, solver in _EXACT
    ),
)

#: problem -> its declaration's own entries: the size recorded in the ``k`` column (None:
#: cellular clustering has none), the algorithm of its ``worst-found`` family (results/
#: hard_instances), the contract test's small instance, the asv sizes and the hunt's fixed
#: parameters (clusters of r = 2, k = 2 centers)
_OWN: dict[str, dict[str, Any]] = {
    "r-gather": dict(
        size="r",
        worst_found="r-gather",
        contract=("rgather-uniform", {"n": 9, "r": 3}),
        publisher="anonratio.bench.publish.problems.clustering:PUBLISHER",
        asv_sizes={
            "small": (("rgather-uniform", {"n": 1000, "r": 5}),),
            "large": (("rgather-uniform", {"n": 10_000, "r": 5}),),
        },
        reference=(
            reference("rgather-uniform-30-r4", "rgather-uniform", n=30, r=4),
            reference(
                "rgather-gaussian-6x5-r4", "rgather-gaussian", n_clusters=6, cluster_size=5, r=4
            ),
            reference("rgather-heavy-30-r3", "rgather-heavy", seed=1, n=30, r=3),
            reference("rgather-sat-4-r7", "rgather-sat", n_vars=4, n_clauses=5, r=7),
            reference(
                "rgather-unsat-4-r7",
                "rgather-sat",
                n_vars=4,
                n_clauses=5,
                satisfiable=False,
                r=7,
            ),
        ),
        hunt={"r": 2},
    ),
    "r-eps-gather": dict(
        size="r",
        worst_found="r-eps-gather",
        contract=("repsgather-outliers", {"n": 9, "n_outliers": 1, "r": 3, "epsilon": 0.12}),
        asv_sizes={
            "small": (("repsgather-outliers", {"n": 1000, "n_outliers": 20, "r": 5}),),
            "large": (("repsgather-outliers", {"n": 10_000, "n_outliers": 200, "r": 5}),),
        },
        reference=(
            reference(
                "repsgather-outliers-30-r4",
                "repsgather-outliers",
                n=30,
                n_outliers=3,
                r=4,
                epsilon=0.1,
            ),
        ),
        hunt={"r": 2},
    ),
    "kr-center": dict(
        size="r",
        worst_found="kr-center",
        contract=("krcenter-uniform", {"n": 9, "k": 2, "r": 3}),
        asv_sizes={
            "small": (("krcenter-uniform", {"n": 1000, "k": 50, "r": 5}),),
            "large": (("krcenter-uniform", {"n": 10_000, "k": 200, "r": 5}),),
        },
        reference=(reference("krcenter-uniform-30-k4-r5", "krcenter-uniform", n=30, k=4, r=5),),
        hunt={"k": 2, "r": 2},
    ),
    "cellular": dict(
        size=None,
        worst_found="primal-dual",
        contract=("cellular-uniform", {"n": 8, "facility_scale": 0.3}),
        strong_bound="anonratio.exact.clustering.lp_bound:lp_bound",
        asv_sizes={
            "small": (("cellular-uniform", {"n": 500, "facility_scale": 0.1}),),
            "large": (("cellular-uniform", {"n": 5000, "facility_scale": 0.05}),),
        },
        reference=(
            reference("cellular-uniform-16", "cellular-uniform", n=16, facility_scale=0.5),
            reference("cellular-gaussian-4x4", "cellular-gaussian", n_clusters=4, cluster_size=4),
        ),
        hunt={},
    ),
    "r-cellular": dict(
        size="r",
        worst_found="r-cellular",
        contract=("rcellular-uniform", {"n": 9, "r": 3}),
        publisher="anonratio.bench.publish.problems.clustering:PUBLISHER",
        asv_sizes={
            "small": (("rcellular-uniform", {"n": 500, "r": 5}),),
            "large": (("rcellular-uniform", {"n": 5000, "r": 5}),),
        },
        # the bound's column generation takes 10 s or more at both sizes
        asv_slow={"r-cellular-certified": ("small", "large")},
        strong_bound="anonratio.exact.clustering.lp_bound:lp_bound",
        reference=(
            reference("rcellular-uniform-16-r3", "rcellular-uniform", n=16, r=3),
            reference("rcellular-heavy-14-r2", "rcellular-heavy", n=14, r=2),
        ),
        hunt={"r": 2},
    ),
}


def _problem(name):
    own = dict(_OWN[name])
    fixed = own.pop("hunt")
    return Problem(
        name=name,
        prefix=PREFIX[name],
        n_label="points",
        families=tuple(f for f in FAMILIES if f.problem == name),
        algorithms=tuple(a for a in ALGORITHMS if a.problem == name),
        exact=(f"{name}-cpsat", f"{name}-highs"),
        # the worst-case hunter starts from a few uniform points in the plane and moves,
        # duplicates and deletes points
        hunt=Hunt(
            name,
            f"{PREFIX[name]}-uniform",
            "anonratio.instances.clustering.moves:MOVES",
            fixed=fixed,
        ),
        **own,
    )


PROBLEMS = tuple(_problem(name) for name in NAMES)
