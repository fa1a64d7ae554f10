"""asv benchmarks of k-anonymity and cellular clustering at the scale of real data, in CPU seconds.

- ``ForestScale``: FOREST at k = 10 (its exact 9-nearest-neighbour search included) on
  generated tables of 8 attributes (:func:`~anonratio.instances.kanonymity.random_table`, seed 0)
  of 20k, 100k and 1M records, each timed on a cold copy of its instance, and its peak memory.
- ``BoxGreedyScale``: the box greedy at k = 10 on the same tables of 20k and 100k records (at
  1M it cannot finish within its timeout: 20k take about 50 s): its CPU time on a cold copy and
  its cost beside FOREST's (deterministic, so a change in either is a change in the code).
- ``BoundScale``: the instance lower bound of a generated table of 5,000 records, at the ``fast``
  and ``default`` efforts (what ``anonymize`` and sweeps report), on a cold copy.
- ``AdultAnonymize``: :func:`anonratio.anonymize` of UCI Adult (8 QIs, its ARX hierarchies) at
  k = 5 and 10, end to end (reading excluded). Skipped when ``ANONRATIO_DATASETS`` is unset.

- ``AdultBound``: the k-anonymity lower bound on Adult at k = 5 and 10: the time of one
  dual-ascent round over the generalization lattice and of one exact pricing sweep, and the
  bound after 10 ascent rounds from the nearest-neighbour prices (deterministic, so a change in
  it is a change in the code). Skipped when ``ANONRATIO_DATASETS`` is unset.
- ``AdultSampleLP``: the LP relaxation of k-anonymity (k = 5) on seeded Adult samples of 100 and
  200 records (the ``kanon-adult`` family, seed 0), solved whole by the compact box model and by
  column generation, and its value. Skipped likewise.
- ``AdultLocalSearch``: the best-known partition of Adult at k = 5 and 10 (``kanon-local-search``
  run to convergence: its cost, deterministic, and its CPU time). Skipped likewise.
- ``AdultFullDomain``: the optimal full-domain generalization of Adult with all 9 columns as
  quasi-identifiers at k = 5 and 4 % suppression (the setting of ARX's Flash benchmark: 27 ms
  there; target 3 times that) by Flash, Incognito and Samarati, CPU time and peak memory of one
  call on a cold copy. Skipped likewise.

- ``CellularScale``: the cellular primal-dual (Procedure 1, ``primal-dual``) on 100k, 300k and
  1M points uniform in the unit square (``cellular-uniform``, setup costs uniform in
  [0, 0.05], seed 0), on a cold copy: its CPU time, peak memory and cost (deterministic, so a
  change in it is a change in the code).

Targets: FOREST under 2 s, 20 s and 5 min at the three sizes, under 2 GB; anonymize under 2 s;
the cellular primal-dual under 60 s and 2 GB at 1M points.

These are the long set: asv sees them only with ``ANONRATIO_ASV_LONG=1``
(:func:`~.common.long_benchmarks`). Every solve has a finite budget (:data:`BUDGET`); a value
computed past it would be a different bound, so such a ``track_*`` fails instead of recording it.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from anonratio.bench.registry import generate
from anonratio.instances.base import cold_copy
from anonratio.instances.kanonymity import KAnonymityInstance, random_table
from anonratio.instances.loaders import ADULT_QI, load_adult
from anonratio.solvers.clustering.primal_dual import primal_dual
from anonratio.solvers.kanonymity.box_greedy import box_greedy
from anonratio.solvers.kanonymity.forest import forest

from .common import long_benchmarks

if TYPE_CHECKING:  # asv takes every class of the module for a benchmark: annotations only
    import numpy as np

    from anonratio.instances import Solution

#: seconds one bound, LP or local search may take; the timeouts leave room for the setup
BUDGET = 600.0


def deadline() -> float:
    """The ``perf_counter`` deadline of one solve, :data:`BUDGET` from now."""
    return time.perf_counter() + BUDGET


def finished(stop: float, what: str) -> None:
    """Refuse a value computed past its deadline: it stopped early, so it is not the tracked one."""
    if time.perf_counter() > stop:
        raise TimeoutError(f"{what}: not finished within the budget of {BUDGET:g} s")


def objective(solution: Solution) -> float:
    """The cost ``solution`` claims; a run that claims none fails its benchmark."""
    if solution.objective is None:
        raise RuntimeError(f"{solution.algorithm} returned no objective (status {solution.status})")
    return float(solution.objective)


class _GeneratedTables:
    """k = 10 on generated 8-attribute tables of 20k, 100k and 1M records, in CPU seconds."""

    params = [20_000, 100_000, 1_000_000]
    param_names = ["records"]
    timer = time.process_time
    timeout = 1800.0
    number = 1
    repeat = (1, 3, 600.0)

    def setup(self, records: int) -> None:
        self.instance = KAnonymityInstance(random_table(records, 8, seed=0), 10, "generalization")


class ForestScale(_GeneratedTables):
    """FOREST (k = 10) on generated 8-attribute tables."""

    def time_forest(self, records: int) -> None:
        forest(cold_copy(self.instance))

    def peakmem_forest(self, records: int) -> None:
        forest(cold_copy(self.instance))


class BoxGreedyScale(_GeneratedTables):
    """The box greedy (k = 10) on generated 8-attribute tables, and its cost against FOREST's."""

    params = [20_000, 100_000]

    def time_box_greedy(self, records: int) -> None:
        box_greedy(cold_copy(self.instance))

    def track_box_greedy_cost(self, records: int) -> float:
        return objective(box_greedy(cold_copy(self.instance)))

    track_box_greedy_cost.unit = "cost"  # type: ignore[attr-defined]

    def track_cost_over_forest(self, records: int) -> float:
        greedy = objective(box_greedy(cold_copy(self.instance)))
        return greedy / objective(forest(cold_copy(self.instance)))

    track_cost_over_forest.unit = "ratio"  # type: ignore[attr-defined]


class CellularScale:
    """The cellular primal-dual on uniform points (setup costs uniform in [0, 0.05])."""

    params = [100_000, 300_000, 1_000_000]
    param_names = ["points"]
    timer = time.process_time
    timeout = 1800.0
    number = 1
    repeat = (1, 3, 600.0)

    def setup(self, points: int) -> None:
        self.instance, _ = generate("cellular-uniform", seed=0, n=points, facility_scale=0.05)

    def time_primal_dual(self, points: int) -> None:
        primal_dual(cold_copy(self.instance))

    def peakmem_primal_dual(self, points: int) -> None:
        primal_dual(cold_copy(self.instance))

    def track_primal_dual_cost(self, points: int) -> float:
        return objective(primal_dual(cold_copy(self.instance)))

    track_primal_dual_cost.unit = "cost"  # type: ignore[attr-defined]


class AdultAnonymize:
    """``anonratio.anonymize`` of Adult with FOREST."""

    params = [5, 10]
    param_names = ["k"]
    timer = time.process_time
    timeout = 600.0

    def setup(self, k: int) -> None:
        import pandas as pd

        root = os.environ.get("ANONRATIO_DATASETS")
        if not root or not (Path(root) / "adult" / "adult.csv").is_file():
            raise NotImplementedError("ANONRATIO_DATASETS unset: Adult is not available")
        self.folder = Path(root) / "adult"
        self.data = pd.read_csv(self.folder / "adult.csv", sep=";", dtype=str)

    def time_anonymize(self, k: int) -> None:
        import anonratio

        anonratio.anonymize(self.data, list(ADULT_QI), k, hierarchies=self.folder)


def _need_adult() -> None:
    """asv skips the benchmark (NotImplementedError) without the datasets."""
    if not os.environ.get("ANONRATIO_DATASETS"):
        raise NotImplementedError("ANONRATIO_DATASETS unset: Adult is not available")


def _adult(k: int) -> KAnonymityInstance:
    """Adult (8 QIs, generalization) at ``k``; asv skips the benchmark without the datasets."""
    _need_adult()
    return KAnonymityInstance(load_adult(), k, "generalization")


class _OneRunPerSample:
    """CPU time, one run per sample, up to three samples within 300 s."""

    timer = time.process_time
    timeout = 2 * BUDGET + 300.0
    number = 1
    repeat = (1, 3, 300.0)


class _AdultK(_OneRunPerSample):
    """Adult (generalization, 8 QIs) at k = 5 and 10."""

    params = [5, 10]
    param_names = ["k"]

    def setup(self, k: int) -> None:
        self.instance = _adult(k)


class AdultBound(_AdultK):
    """The lattice bound of k-anonymity on Adult (generalization, 8 QIs)."""

    def setup(self, k: int) -> None:
        from anonratio.exact.kanonymity.box_pricing import BoxLattice
        from anonratio.instances.kanonymity.instance import nn_prices

        super().setup(k)
        self.lattice = BoxLattice(self.instance)
        self.prices = nn_prices(self.instance)

    def time_ascent_round(self, k: int) -> None:
        self.lattice.slack(self.prices)

    def time_pricing_sweep(self, k: int) -> None:
        self.lattice.price(1.3 * self.prices, max_columns=self.lattice.u)

    def _ascended(self) -> np.ndarray:
        """The prices after ten ascent rounds."""
        from anonratio.exact.kanonymity.box_lp import ascend

        stop = deadline()
        prices, _ = ascend(self.lattice, self.prices, deadline=stop, max_iter=10, rtol=0.0)
        finished(stop, "ten ascent rounds")
        return prices

    def track_ascent_bound(self, k: int) -> float:
        return float(self._ascended() @ self.lattice.counts)

    track_ascent_bound.unit = "cost"  # type: ignore[attr-defined]

    def track_box_lp_bound(self, k: int) -> float:
        from anonratio.exact.kanonymity.box_lp import box_lp

        prices = self._ascended()
        stop = deadline()
        out = box_lp(self.lattice, prices, deadline=stop, max_rounds=2)
        finished(stop, "two rounds of box-lp")
        return out.value

    track_box_lp_bound.unit = "cost"  # type: ignore[attr-defined]


class AdultLocalSearch(_AdultK):
    """The local search from FOREST and the box greedy on Adult, run until no move improves."""

    def _run(self) -> Solution:
        from anonratio.solvers.kanonymity.local_search import local_search

        stop = deadline()
        out = local_search(cold_copy(self.instance), seed=0, time_limit=BUDGET)
        finished(stop, "the local search")
        return out

    def time_local_search(self, k: int) -> None:
        self._run()

    def track_local_search_cost(self, k: int) -> float:
        return objective(self._run())

    track_local_search_cost.unit = "cost"  # type: ignore[attr-defined]


class AdultSampleLP(_OneRunPerSample):
    """The LP relaxation on Adult samples (k = 5): the compact model against column generation;
    then the subset-row cuts above it."""

    params = [100, 200]
    param_names = ["records"]

    def setup(self, records: int) -> None:
        from anonratio.bench.registry import generate
        from anonratio.exact.kanonymity.box_pricing import BoxLattice

        _need_adult()
        self.instance, _ = generate("kanon-adult", seed=0, n=records, k=5)
        self.lattice = BoxLattice(self.instance)

    def _compact(self) -> tuple[float, np.ndarray]:
        """The compact LP's value and cover-row prices."""
        from anonratio.exact.kanonymity.compact_lp import closed_boxes, compact_lp

        stop = deadline()
        found = closed_boxes(self.lattice)
        if found is None:
            raise RuntimeError("the compact LP: more closed boxes than closed_boxes() enumerates")
        solved = compact_lp(self.lattice, found, deadline=stop)
        finished(stop, "the compact LP")
        if solved is None:
            raise RuntimeError("the compact LP: HiGHS stopped without an optimal basis")
        return solved

    def _subset_row(self) -> float:
        from anonratio.exact.kanonymity.subset_row import subset_row_bound

        value, prices = self._compact()
        stop = deadline()
        out = subset_row_bound(self.lattice, prices, value, deadline=stop).value
        finished(stop, "the subset-row cuts")
        return out

    def time_compact_lp(self, records: int) -> None:
        self._compact()

    def time_column_generation(self, records: int) -> None:
        from anonratio.exact.kanonymity.lp_bound import lp_bound

        lp_bound(self.instance, time_limit=BUDGET, lattice=self.lattice, max_pairs=0, cuts=False)

    def time_subset_row(self, records: int) -> None:
        self._subset_row()

    def track_lp_value(self, records: int) -> float:
        return self._compact()[0]

    track_lp_value.unit = "cost"  # type: ignore[attr-defined]

    def track_subset_row_bound(self, records: int) -> float:
        return self._subset_row()

    track_subset_row_bound.unit = "cost"  # type: ignore[attr-defined]


class AdultFullDomain:
    """Flash, Incognito and Samarati on Adult, 9 QIs (``salary-class`` too), k = 5, 4 %
    suppression."""

    timer = time.process_time
    timeout = 300.0
    params = [["flash", "incognito", "samarati"]]
    param_names = ["algorithm"]

    def setup(self, algorithm: str) -> None:
        import importlib

        _need_adult()
        table = load_adult(qi=(*ADULT_QI, "salary-class"), sensitive=None)
        self.instance = KAnonymityInstance(table, 5, "generalization", True)
        module = importlib.import_module(f"anonratio.solvers.kanonymity.{algorithm}")
        self.search = getattr(module, algorithm)

    def time_search(self, algorithm: str) -> None:
        self.search(cold_copy(self.instance), max_suppression=0.04)

    def peakmem_search(self, algorithm: str) -> None:
        self.search(cold_copy(self.instance), max_suppression=0.04)


class BoundScale:
    """The instance lower bound of a generated table of 5,000 records (8 attributes, k = 5), on a
    cold copy: ``fast`` (the forced generalization levels, what ``anonymize`` reports by default)
    and ``default`` (the nearest-neighbour bound sweeps use). A commit without the fast bound
    skips its parameter."""

    timeout = 300.0
    params = [["fast", "default"]]
    param_names = ["bound"]

    def setup(self, bound: str) -> None:
        from anonratio.bench.registry import generate
        from anonratio.instances import base

        if bound == "fast" and not hasattr(base, "fast_lower_bound"):
            raise NotImplementedError("no fast bound at this commit")
        self.instance: Any = generate("kanon-random", seed=0, n=5000, m=8, k=5)[0]

    def time_bound(self, bound: str) -> None:
        from anonratio.instances import base

        work = base.cold_copy(self.instance)  # nothing the setup computed is reused
        function = base.fast_lower_bound if bound == "fast" else base.lower_bound
        function(work)


#: benchmark class name -> class: the long set, seen by asv only with ``ANONRATIO_ASV_LONG=1``
CLASSES = long_benchmarks(
    globals(),
    [
        ForestScale,
        BoxGreedyScale,
        AdultAnonymize,
        AdultBound,
        AdultLocalSearch,
        AdultSampleLP,
        AdultFullDomain,
        BoundScale,
        CellularScale,
    ],
)
