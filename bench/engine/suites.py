"""Named benchmark suites: lists of sweep :class:`~anonratio.bench.engine.runner.Task` objects.

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
  in under 3 minutes on 2 cores. Plus small instances of the five clustering
  problems (Aggarwal et al. 2006) with their algorithms and CP-SAT / HiGHS.
* ``full``: larger tables (n up to 100), k up to 10, five seeds, larger gadgets; exact solvers
  at 120 s (they prove optimality only on the smaller instances; the rest get certified ratios).
  Likewise larger bin-covering, zip-code (up to 50 nodes), GPS (up to 20 points, gadgets up to
  k = 10) and ordered-label (up to 1000 labels) instances.
* ``exact-scaling``: random binary tables (m = 10) of growing n for k = 2, 3, 5 with CP-SAT and
  HiGHS at 60 s, to measure the largest n each solver still solves to optimality.
* ``clustering``: the five clustering problems of Aggarwal et al. (2006) on every point family
  with CP-SAT and HiGHS at 60 s where they prove optimality (n <= 40), then the approximation
  algorithms alone on 1,000-10,000 points.
* ``paper-ldiv``: the experiments of Xiao, Yi and Tao (2010, §6.1): TP, TP+ and Hilbert on
  SAL-like tables of 600,000 records, stars against l and against d (every projection of SAL-d,
  averaged per d), runtime against n, and small tables against the exact models
  (:mod:`anonratio.bench.experiments.paper_ldiv` tests the paper's findings);
  ``paper-ldiv-certified``: TP+ certified by the pattern model's LP bound against d.
* ``adult-certified``: k-anonymity on UCI Adult (needs ``ANONRATIO_DATASETS``): samples of
  100-400 records with CP-SAT at 120 s and the whole table at 600 s, k = 5 and 10; FOREST,
  Mondrian, Datafly, local search (the best-known partition) and ``kanon-certified`` (the
  strongest bound the time allows), so each ratio is an interval
  ``[ratio_at_least, certified_ratio]``.
* ``scale-certified``: k-anonymity on two generated tables of 100,000 records (``kanon-random``:
  eight attributes of 2-40 values, 1-3 level hierarchies, Zipf 1.0), k = 5, 600 s; the same
  algorithms as ``adult-certified`` without CP-SAT, each ratio as an interval.
* ``paper-fig7``: Figure 7 of Du et al. (2009, §5) — Fold, simplified Spread and Theorem 10's
  Spread, random and sorted order, on the 1990 Census lists FEMALE-1990, MALE-1990, LAST-1990
  for a few hundred k per list from the largest frequency to ``floor(S/2)``
  (:func:`anonratio.bench.experiments.fig7.fig7_tasks`); runs are batched a dozen k per worker
  process. No exact solvers (the lists have up to 18839 items).

Each suite is a study file, ``bench/studies/<name>.toml`` (shipped with the package; the format
and its checks: :mod:`anonratio.bench.engine.studies` and docs/suites.md);
:func:`get_suite` also takes the path of a user's own study file (``my-study.toml``).

A suite never holds a task its algorithm does not support (``factor-2`` needs k = 2,
``factor-3`` k = 3): :func:`expand` asks :meth:`Algorithm.supports` on the generated instance.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from anonratio.bench.engine.runner import Task
from anonratio.bench.engine.studies import STUDY_DIR, expand, load_study

__all__ = ["Suite", "SUITES", "BUILTIN", "get_suite", "suite_from_file", "expand"]

#: the built-in suites, in the order `anonratio list` shows them (bench/studies/<name>.toml)
BUILTIN = (
    "quick",
    "full",
    "exact-scaling",
    "paper-fig7",
    "clustering",
    "paper-ldiv",
    "paper-ldiv-certified",
    "adult-certified",
    "scale-certified",
)


@dataclass(frozen=True)
class Suite:
    """A named list of tasks (built on demand, since building generates the instances).

    ``memory_limit``: the study's default of ``anonratio run --memory-limit`` (MB, or None);
    ``path``: the study file it was read from.
    """

    name: str
    description: str
    tasks: Callable[[], list[Task]]
    memory_limit: float | None = None
    path: Path | None = None


def suite_from_file(path: str | Path) -> Suite:
    """The :class:`Suite` of a study file, checked now (``StudyError`` names file and line)."""
    study = load_study(path)
    return Suite(study.name, study.description, study.tasks, study.memory_limit, study.path)


SUITES = {name: suite_from_file(STUDY_DIR / f"{name}.toml") for name in BUILTIN}


def get_suite(name: str) -> Suite:
    """The built-in suite called ``name``, or the suite of the study file ``name`` (a path ending
    in ``.toml``, or an existing file); ``ValueError`` listing the known suites otherwise."""
    if isinstance(name, str | Path) and (str(name).endswith(".toml") or Path(name).is_file()):
        return suite_from_file(name)
    try:
        return SUITES[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown suite {name!r}; known suites: {sorted(SUITES)} (or a study file, FILE.toml)"
        ) from None
