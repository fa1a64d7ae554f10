"""Registry entries of zip codes, GPS rectangles and ordered labels (Du et al. 2009, §2–§4).

Added to :data:`anonratio.bench.registry.REGISTRY` by that module (kept apart for size).

* ``spanning-tree-split`` (zip codes, §2): its ratio ``(kappa + d (k - 1)) / kappa`` depends on
  the maximum degree ``d`` of the spanning tree the run finds, so the static guarantee is
  ``None`` and the runner records the run's own ``info["guarantee"]``.
* ``zip-cpsat``: CP-SAT connected-partition model, seeded with the spanning-tree split as hint.
* ``kdtree-split`` (GPS, §3 Theorem 4): ratio ``(4 (k - 1) + max w) / LB < 5``.
* ``gps-cpsat`` / ``gps-highs``: exact rectangle-partition models.
* ``gps-guillotine``: the best *guillotine* partition (dynamic programming). A kd-tree partition
  is guillotine, so it inherits the kd-tree bound; it is an upper bound on the optimum only
  (kind ``"heuristic"``). When the DP proves its result optimal for the general problem
  (``status="optimal"``: it meets the lower bound, or ``W < 5k``) the run's lower bound is set to
  its cost, so :func:`~anonratio.bench.runner.finalize` may use it; a ``feasible`` result never
  sets the optimum.
* ``ordered-greedy`` (ordered labels, §4): provably optimal, kind ``"exact"``.
"""

__all__ = ["paper004_algorithms", "ZIP", "GPS", "ORDERED"]

ZIP, GPS, ORDERED = "zip-codes", "gps-rectangles", "ordered-labels"

_DU = "Du et al. 2009"


def _supports(problem):
    def supports(instance):
        got = getattr(instance, "problem", type(instance).__name__)
        if got != problem:
            return f"needs a {problem} instance, got {got}"
        return None

    supports.__name__ = f"supports_{problem.replace('-', '_')}"
    return supports


def _no_guarantee(instance):
    return None


def _exact_guarantee(instance):
    return 1.0


def _kdtree_guarantee(instance):
    from anonratio.solvers.kdtree_split import kdtree_split_guarantee

    return kdtree_split_guarantee(instance)


def _run_spanning_tree_split(instance, *, seed=None, time_limit=None):
    from anonratio.solvers import partition_planar

    return partition_planar(instance, method="spanning-tree-split", seed=seed)


def _run_zip_cpsat(instance, *, seed=None, time_limit=60.0):
    from anonratio.exact import solve_planar
    from anonratio.solvers import partition_planar

    # the split is a feasible partition in milliseconds: its cost caps the model's objective
    hint = partition_planar(instance, method="spanning-tree-split", seed=seed)
    return solve_planar(
        instance, method="cpsat", time_limit=time_limit, seed=seed, threads=1, hint=hint
    )


def _run_kdtree_split(instance, *, seed=None, time_limit=None):
    from anonratio.solvers import partition_rectangles

    return partition_rectangles(instance, method="kdtree-split")  # deterministic: no seed


def _run_gps_exact(method):
    def run(instance, *, seed=None, time_limit=60.0):
        from anonratio.exact import solve_rectangles

        return solve_rectangles(
            instance, method=method, time_limit=time_limit, seed=seed, threads=1
        )

    run.__name__ = f"run_gps_{method}"
    return run


def _run_gps_guillotine(instance, *, seed=None, time_limit=60.0):
    from anonratio.exact import solve_rectangles

    sol = solve_rectangles(instance, method="guillotine", time_limit=time_limit)
    if sol.status == "optimal" and sol.objective is not None:
        # proven optimal for the general problem: its cost is a valid lower bound
        sol = sol.replace(lower_bound=float(sol.objective), gap=0.0)
    return sol


def _run_ordered_greedy(instance, *, seed=None, time_limit=None):
    from anonratio.solvers import partition_ordered

    return partition_ordered(instance, method="ordered-greedy", seed=seed)


def paper004_algorithms():
    """The :class:`~anonratio.bench.registry.Algorithm` entries of the three problems."""
    from .registry import Algorithm  # here: registry imports this module at its end

    gps_lb = "LB = max(k, max w, ceil(W / floor(W/k)))"
    kd_text = f"(4(k-1) + max w) / LB < 5 ({gps_lb})"
    exact = "1 (exact)"
    return [
        Algorithm(
            name="spanning-tree-split",
            problem=ZIP,
            kind="approximation",
            run=_run_spanning_tree_split,
            guarantee=_no_guarantee,
            guarantee_text="(kappa + d(k-1)) / kappa <= d + 1, kappa = max(k, max w), d = max "
            "degree of the spanning tree found (3 for d = 2, 4 for d = 3); recorded per run",
            source=f"{_DU}, §2 (Lemmas 1-2, Theorem 3: spanning-tree splitting)",
            complexity="O(n S / k) splitting after the low-degree spanning-tree heuristic",
            supports=_supports(ZIP),
        ),
        Algorithm(
            name="zip-cpsat",
            problem=ZIP,
            kind="exact",
            run=_run_zip_cpsat,
            guarantee=_exact_guarantee,
            guarantee_text=exact,
            source=f"CP-SAT rooted-tree flow model of the connected partition ({_DU}, §2; "
            "DESIGN §3.4)",
            complexity="exponential (clause learning / branch and bound)",
            supports=_supports(ZIP),
        ),
        Algorithm(
            name="kdtree-split",
            problem=GPS,
            kind="approximation",
            run=_run_kdtree_split,
            guarantee=_kdtree_guarantee,
            guarantee_text=kd_text,
            source=f"{_DU}, §3 Theorem 4 (kd-tree splitting)",
            complexity="O(n log^2 n) balanced, O(n^2 log n) worst case (sorting per tree level)",
            supports=_supports(GPS),
        ),
        Algorithm(
            name="gps-cpsat",
            problem=GPS,
            kind="exact",
            run=_run_gps_exact("cpsat"),
            guarantee=_exact_guarantee,
            guarantee_text=exact,
            source=f"CP-SAT NoOverlap2D tiling of the compressed grid ({_DU}, §3; DESIGN §3.4)",
            complexity="exponential (clause learning / branch and bound)",
            supports=_supports(GPS),
        ),
        Algorithm(
            name="gps-highs",
            problem=GPS,
            kind="exact",
            run=_run_gps_exact("highs"),
            guarantee=_exact_guarantee,
            guarantee_text=exact,
            source=f"set-partition ILP over candidate grid rectangles, HiGHS ({_DU}, §3; "
            "DESIGN §3.4)",
            complexity="O(nx^2 ny^2) candidates; exponential (branch and bound)",
            supports=_supports(GPS),
        ),
        Algorithm(
            name="gps-guillotine",
            problem=GPS,
            kind="heuristic",
            run=_run_gps_guillotine,
            guarantee=_kdtree_guarantee,
            guarantee_text=f"best guillotine partition <= kd-tree cost: {kd_text}; an upper "
            "bound on the optimum (optimal when it meets LB or W < 5k)",
            source=f"{_DU}, §3 (kd-tree cuts are guillotine cuts); dynamic programming over grid "
            "sub-rectangles",
            complexity="O(nx^2 ny^2 (nx + ny)) time, O(nx^2 ny^2) memory",
            supports=_supports(GPS),
        ),
        Algorithm(
            name="ordered-greedy",
            problem=ORDERED,
            kind="exact",
            run=_run_ordered_greedy,
            guarantee=_exact_guarantee,
            guarantee_text="1 (provably optimal)",
            source=f"{_DU}, §4 (ordered labels: greedy feasibility test + binary search)",
            complexity="O(n log S)",
            supports=_supports(ORDERED),
        ),
    ]
