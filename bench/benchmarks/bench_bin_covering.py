"""asv benchmarks of the Min-Max Bin Covering algorithms (Du, Eppstein, Goodrich, Lueker 2009).

* ``track_ratio_*``: cost ÷ committed reference optimum (``results/reference_optima.json``) of
  Fold, Spread and simplified Spread (sorted and random order) on the fixed bin-covering
  instances of :mod:`anonratio.bench.reference`; bigger is worse. An instance whose content hash
  is not in the committed file (its generator changed) is skipped rather than compared against a
  stale optimum.
* ``track_overfull_*``: Figure 7's overfull ratio (largest class / k) on LAST-1990 for a few k.
* ``time_*``: Fold and Spread on the LAST-1990 surname list (18839 items) for a few k, and the
  exact models on small reference instances; instance construction happens in ``setup``.

Run from the repository root: ``asv run --python=same --quick`` (or ``asv dev``).
"""

from __future__ import annotations

from typing import Any

from anonratio.bench.reference import (
    BIN_COVERING_REFERENCE,
    load_reference,
    reference_instance,
)
from anonratio.exact import solve_bin_covering
from anonratio.instances import census_instance, instance_id, verify
from anonratio.solvers import bin_cover

#: k values of the LAST-1990 timings: many classes, a few dozen, and three
LAST_K = [2_000, 5_000, 20_000]

_NAMES = [r.name for r in BIN_COVERING_REFERENCE]


def _setup_reference(bench: Any, name: str) -> None:
    bench.instance, _ = reference_instance(name)
    entry = load_reference().get(instance_id(bench.instance))
    if entry is None:
        raise NotImplementedError(f"{name}: no committed reference optimum for this instance")
    bench.optimum = float(entry["optimum"])


def _ratio(bench: Any, method: str, order: str) -> float:
    solution = bin_cover(bench.instance, method=method, order=order, seed=0)
    return verify(bench.instance, solution).cost / bench.optimum


class TrackRatioBinCovering:
    """Cost / proven optimum; proven ratios: Fold < 3 (Thm 7), Spread 5/2 (Thm 10)."""

    params = (_NAMES, ["sorted", "random"])
    param_names = ["instance", "order"]
    unit = "ratio"

    def setup(self, name: str, order: str) -> None:
        _setup_reference(self, name)

    def track_ratio_fold(self, name: str, order: str) -> float:
        return _ratio(self, "fold", order)

    def track_ratio_spread(self, name: str, order: str) -> float:
        return _ratio(self, "spread", order)

    def track_ratio_simplified_spread(self, name: str, order: str) -> float:
        return _ratio(self, "simplified-spread", order)


class Last1990:
    """Fold and Spread on LAST-1990 (Figure 7's largest list), sorted and random order."""

    params = (LAST_K, ["sorted", "random"])
    param_names = ["k", "order"]
    timeout = 120

    def setup(self, k: int, order: str) -> None:
        self.instance = census_instance("LAST-1990", k=k)

    def time_fold_last1990(self, k: int, order: str) -> None:
        bin_cover(self.instance, method="fold", order=order, seed=0)

    def time_spread_last1990(self, k: int, order: str) -> None:
        bin_cover(self.instance, method="spread", order=order, seed=0)

    def time_simplified_spread_last1990(self, k: int, order: str) -> None:
        bin_cover(self.instance, method="simplified-spread", order=order, seed=0)

    def track_overfull_fold_last1990(self, k: int, order: str) -> float:
        return bin_cover(self.instance, method="fold", order=order, seed=0).objective / k

    def track_overfull_spread_last1990(self, k: int, order: str) -> float:
        return (
            bin_cover(self.instance, method="simplified-spread", order=order, seed=0).objective / k
        )

    track_overfull_fold_last1990.unit = "ratio"
    track_overfull_spread_last1990.unit = "ratio"


class ExactBinCovering:
    """CP-SAT and HiGHS (one thread) to a proven optimum on small reference instances."""

    params = ["bc-uniform-12-k50", "bc-3partition-no-6"]
    param_names = ["instance"]
    timeout = 300

    def setup(self, name: str) -> None:
        self.instance, _ = reference_instance(name)

    def time_bc_cpsat(self, name: str) -> None:
        solve_bin_covering(self.instance, method="cpsat", time_limit=120, seed=0, threads=1)

    def time_bc_highs(self, name: str) -> None:
        solve_bin_covering(self.instance, method="highs", time_limit=120, seed=0, threads=1)
