"""Named benchmark suites: lists of sweep :class:`~anonratio.bench.runner.Task` objects.

* ``quick`` (default): small binary, ternary, generalization and planted tables (n = 10–30),
  k in {2, 3, 4, 5}, two seeds, the triangle and graph-representation gadgets; every
  approximation algorithm plus CP-SAT and HiGHS at 15 s, so most instances get a proven optimum.
  Plus small Min-Max Bin Covering instances (uniform, Zipf, 3-Partition yes/no, 10–30 items)
  with Fold, Spread and simplified Spread in both orders, the relaxed scheme and ``bc-cpsat`` /
  ``bc-highs`` (all proven optimal within seconds). Plus small zip-code (Delaunay, grid,
  planted; 15–20 nodes), GPS-rectangle (uniform, grid, clustered; 10–12 points; the cross and
  pinwheel gadgets) and ordered-label (30 labels) instances of Du et al. (2009, §2–§4) with
  ``spanning-tree-split`` / ``zip-cpsat``, ``kdtree-split`` / ``gps-guillotine`` / ``gps-cpsat``
  / ``gps-highs`` and ``ordered-greedy`` (all proven optimal within about a second). Finishes
  in under 3 minutes on 2 cores.
* ``full``: larger tables (n up to 100), k up to 10, five seeds, larger gadgets; exact solvers
  at 120 s (they prove optimality only on the smaller instances; the rest get certified ratios).
  Likewise larger bin-covering, zip-code (up to 50 nodes), GPS (up to 20 points, gadgets up to
  k = 10) and ordered-label (up to 1000 labels) instances.
* ``exact-scaling``: random binary tables (m = 10) of growing n for k = 2, 3, 5 with CP-SAT and
  HiGHS at 60 s, to measure the largest n each solver still solves to optimality.
* ``paper-fig7``: Figure 7 of Du et al. (2009, §5) — Fold, simplified Spread and Theorem 10's
  Spread, random and sorted order, on the 1990 Census lists FEMALE-1990, MALE-1990, LAST-1990
  for a few hundred k per list from the largest frequency to ``floor(S/2)``
  (:func:`anonratio.bench.fig7.fig7_tasks`); runs are batched a dozen k per worker process. No
  exact solvers (the lists have up to 18839 items).

A suite never holds a task its algorithm does not support (``factor-2`` needs k = 2,
``factor-3`` k = 3): :func:`expand` asks :meth:`Algorithm.supports` on the generated instance.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from itertools import product
from typing import Any

from anonratio.bench.registry import get_algorithm
from anonratio.bench.runner import Task
from anonratio.instances.validation import check_time_limit

__all__ = ["Suite", "SUITES", "get_suite", "expand"]

APPROXIMATION = ("forest", "factor-2", "factor-3")
EXACT = ("kanon-cpsat", "kanon-highs")

#: Min-Max Bin Covering algorithms of the quick and full suites
BIN_COVERING = (
    "fold-random",
    "fold-sorted",
    "spread-random",
    "spread-sorted",
    "simplified-spread-random",
    "simplified-spread-sorted",
    "relaxed",
)
BIN_COVERING_EXACT = ("bc-cpsat", "bc-highs")

#: zip codes, GPS rectangles and ordered labels (Du et al. 2009, §2-§4): (approximations and
#: heuristics, exact models) per problem
ZIP_CODES = (("spanning-tree-split",), ("zip-cpsat",))
GPS_RECTANGLES = (("kdtree-split", "gps-guillotine"), ("gps-cpsat", "gps-highs"))
ORDERED_LABELS = ((), ("ordered-greedy",))


@dataclass(frozen=True)
class Suite:
    """A named list of tasks (built on demand, since building generates the instances)."""

    name: str
    description: str
    tasks: Callable[[], list[Task]]


@cache
def _generated(family: str, params_key: tuple, seed: int) -> Any:
    from anonratio.bench.registry import generate

    return generate(family, seed=seed, **dict(params_key))[0]


def _supported(task: Task) -> bool:
    """True when the task's algorithm supports the task's instance."""
    instance = _generated(task.family, tuple(sorted(task.family_params.items())), task.seed)
    return get_algorithm(task.algorithm).supports(instance) is None


def expand(
    instances: Iterable[tuple[str, dict[str, Any], int]],
    algorithms: Iterable[str],
    *,
    time_limit: float,
) -> list[Task]:
    """Tasks for every (family, params, seed) × algorithm, dropping unsupported combinations.

    Parameters
    ----------
    instances : iterable of (family, params, seed)
    algorithms : iterable of str
        Registry names.
    time_limit : float
        Seconds per run (exact solvers and the factor ILPs stop there; the sweep kills a run a
        grace period later).

    Returns
    -------
    list of Task
    """
    time_limit = check_time_limit(time_limit)
    algorithms = list(algorithms)
    for name in algorithms:
        get_algorithm(name)  # unknown names fail here, with the known ones listed
    tasks = []
    for family, params, seed in instances:
        for algorithm in algorithms:
            task = Task(family, dict(params), int(seed), algorithm, float(time_limit))
            if _supported(task):
                tasks.append(task)
    return tasks


def _grid(family: str, seeds: Iterable[int], **axes: list) -> list[tuple[str, dict, int]]:
    """(family, params, seed) for the product of the listed parameter values."""
    keys = list(axes)
    out = []
    for values in product(*(axes[k] for k in keys)):
        for seed in seeds:
            out.append((family, dict(zip(keys, values, strict=True)), seed))
    return out


def _quick():
    inst = []
    inst += _grid("kanon-binary", (0, 1), n=[12, 20], m=[6], k=[2, 3, 4, 5])
    inst += _grid("kanon-ternary", (0, 1), n=[10], m=[5], k=[2, 3, 4, 5])
    inst += _grid("kanon-ternary", (0,), n=[15], m=[5], k=[2, 3, 5])
    inst += _grid(
        "kanon-random",
        (0, 1),
        n=[10],
        m=[3],
        k=[2, 3, 4, 5],
        cardinality=[(4, 6)],
        levels=[(2, 3)],
    )
    inst += _grid("kanon-planted", (0, 1), n=[24], m=[6], n_groups=[4], k=[2, 3, 5])
    inst += _grid("kanon-planted", (0,), n=[30], m=[8], n_groups=[5], k=[2, 3, 5])
    inst += _grid("kanon-triangles", (0, 1), n_triangles=[3], n_vertices=[7])
    inst += _grid("kanon-gap-pair", (0,), k=[4], member=["first", "second"])
    tasks = expand(inst, APPROXIMATION + EXACT, time_limit=15.0) + _quick_bin_covering()
    return tasks + _quick_paper004()


def _quick_bin_covering():
    # sizes chosen so bc-cpsat and bc-highs prove optimality in about a second each
    inst = []
    inst += _grid("bc-uniform", (0, 1), n=[10], k=[20])
    inst += _grid("bc-uniform", (0, 1), n=[12], k=[50])
    inst += _grid("bc-zipf", (0, 1), n=[20], k=[50])
    inst += _grid("bc-zipf", (0, 1), n=[30], k=[100])
    inst += _grid("bc-3partition-yes", (0, 1), m=[4])
    inst += _grid("bc-3partition-yes", (0,), m=[5])
    inst += _grid("bc-3partition-no", (0, 1), m=[4])
    inst += _grid("bc-3partition-no", (0,), m=[6])
    return expand(inst, BIN_COVERING + BIN_COVERING_EXACT, time_limit=15.0)


def _paper004_tasks(zips, gps, ordered, *, time_limit):
    """Tasks of zip-code, GPS-rectangle and ordered-label instances, each with its algorithms."""
    tasks = []
    for inst, (algs, exact) in (
        (zips, ZIP_CODES),
        (gps, GPS_RECTANGLES),
        (ordered, ORDERED_LABELS),
    ):
        tasks += expand(inst, algs + exact, time_limit=time_limit)
    return tasks


def _quick_paper004():
    # sizes chosen so zip-cpsat, gps-cpsat and gps-highs prove optimality in about a second
    zips = []
    zips += _grid("zip-delaunay", (0, 1), n=[15, 20], k=[15])
    zips += _grid("zip-grid", (0, 1), rows=[4], cols=[5], k=[15])
    zips += _grid("zip-planted", (0, 1), n=[20], n_parts=[4], k=[10])
    gps = []
    gps += _grid("gps-uniform", (0, 1), n=[10], k=[5], weight_max=[3])
    gps += _grid("gps-uniform", (0, 1), n=[12], k=[4], weight_max=[3], grid=[5])
    gps += _grid("gps-clustered", (0, 1), n=[12], k=[5], weight_max=[3])
    gps += _grid("gps-cross", (0,), k=[3, 5])
    gps += _grid("gps-pinwheel", (0,), k=[3, 5])
    ordered = _grid("ordered-random", (0, 1, 2), n=[30], k=[10])
    return _paper004_tasks(zips, gps, ordered, time_limit=15.0)


def _full_paper004(seeds):
    zips = []
    zips += _grid("zip-delaunay", seeds, n=[20, 30, 50], k=[15, 30])
    zips += _grid("zip-delaunay", seeds, n=[30], k=[20], weights=["lognormal"])
    zips += _grid("zip-grid", seeds, rows=[4, 6], cols=[5, 8], k=[15, 30])
    zips += _grid("zip-planted", seeds, n=[30, 50], n_parts=[5], k=[10, 20])
    gps = []
    gps += _grid("gps-uniform", seeds, n=[10, 15, 20], k=[5, 10], weight_max=[3])
    gps += _grid("gps-uniform", seeds, n=[20], k=[5], weight_max=[3], grid=[6])
    gps += _grid("gps-clustered", seeds, n=[15, 20], k=[5, 10], weight_max=[3])
    gps += _grid("gps-cross", (0,), k=[2, 3, 5, 8, 10])
    gps += _grid("gps-pinwheel", (0,), k=[2, 3, 5, 8, 10])
    ordered = _grid("ordered-random", seeds, n=[30, 100, 1000], k=[10, 50])
    return _paper004_tasks(zips, gps, ordered, time_limit=120.0)


def _full():
    seeds = tuple(range(5))
    bc = []
    bc += _grid("bc-uniform", seeds, n=[12, 16, 20], k=[20, 50, 100])
    bc += _grid("bc-zipf", seeds, n=[30, 60], k=[50, 100])
    bc += _grid("bc-3partition-yes", seeds, m=[4, 6, 8])
    bc += _grid("bc-3partition-no", seeds, m=[4, 6, 8])
    ks = [2, 3, 4, 5, 7, 10]
    inst = []
    inst += _grid("kanon-binary", seeds, n=[20, 30, 50, 100], m=[8], k=ks)
    inst += _grid("kanon-ternary", seeds, n=[20, 30, 50], m=[6], k=ks)
    inst += _grid("kanon-categorical", seeds, n=[30, 60], m=[6], alphabet=[5], k=ks)
    inst += _grid("kanon-random", seeds, n=[30, 60, 100], m=[5], k=ks)
    inst += _grid("kanon-random", seeds, n=[60], m=[5], k=[3, 5], zipf=[1.2])
    inst += _grid("kanon-planted", seeds, n=[60, 100], m=[8], n_groups=[10], k=[2, 3, 5])
    inst += _grid("kanon-triangles", seeds, n_triangles=[3, 4, 5], n_vertices=[8])
    inst += _grid("kanon-gap-pair", (0,), k=[3, 4, 5, 6, 7, 8], member=["first", "second"])
    tasks = expand(inst, APPROXIMATION + EXACT, time_limit=120.0)
    tasks += expand(bc, BIN_COVERING + BIN_COVERING_EXACT, time_limit=120.0)
    return tasks + _full_paper004(seeds)


#: n values of the exact-scaling suite
SCALING_N = (10, 15, 20, 30, 40, 60, 80, 100, 150, 200)


def _exact_scaling():
    # m = 10 attributes: up to 1024 distinct records, so growing n grows the model (with m = 6
    # the 64 possible records collapse every large table to a small one)
    inst = _grid("kanon-binary", (0, 1, 2), n=list(SCALING_N), m=[10], k=[2, 3, 5])
    inst = [(f, p, s) for f, p, s in inst if p["n"] >= p["k"]]
    return expand(inst, EXACT, time_limit=60.0)


def _paper_fig7():
    from anonratio.bench.fig7 import fig7_tasks

    return fig7_tasks()


SUITES = {
    s.name: s
    for s in (
        Suite(
            "quick",
            "small binary/ternary/generalization/planted tables (n 10-30, k 2-5, 1-2 seeds) and "
            "the §3/§4 gadgets; forest, factor-2, factor-3, cpsat, highs at 15 s; small "
            "bin-covering, zip-code, GPS-rectangle and ordered-label instances with their "
            "algorithms and exact models; < 3 min on 2 cores",
            _quick,
        ),
        Suite(
            "full",
            "binary/ternary/categorical/generalization/planted tables up to n = 100, k up to 10, "
            "5 seeds, larger gadgets; approximations + cpsat + highs at 120 s; larger "
            "bin-covering, zip-code, GPS and ordered-label instances (hours)",
            _full,
        ),
        Suite(
            "exact-scaling",
            f"random binary tables, n in {list(SCALING_N)}, m = 10, k = 2, 3, 5, 3 seeds; "
            "cpsat and highs at 60 s: the largest n each solves to optimality",
            _exact_scaling,
        ),
        Suite(
            "paper-fig7",
            "Du et al. 2009 Figure 7: Fold, simplified Spread and Spread (random and sorted "
            "order) on the 1990 Census name lists, a few hundred k per list from the largest "
            "frequency to floor(S/2); overfull and certified ratios; < 2 min on 2 cores",
            _paper_fig7,
        ),
    )
}


def get_suite(name: str) -> Suite:
    """The :class:`Suite` called ``name`` (``ValueError`` listing the known suites)."""
    try:
        return SUITES[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown suite {name!r}; known suites: {sorted(SUITES)}") from None
