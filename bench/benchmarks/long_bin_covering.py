"""asv benchmarks of Figure 7 (Du, Eppstein, Goodrich, Lueker 2009) on the LAST-1990 surnames.

* ``track_overfull_*``: Figure 7's overfull ratio (largest class / k) of Fold and simplified
  Spread on LAST-1990 (18839 items) for a few k, sorted and random order;
* ``time_*_last1990``: Fold and Spread on LAST-1990 at k = 5000.

The ratios of every bin-covering algorithm on the reference instances are tracked with the other
problems' in :mod:`.bench_ratios`, their timings in :mod:`.bench_times`. The data set is read
once, in ``setup_cache``; without it (``ANONRATIO_DATASETS``) these benchmarks are skipped.
They are in the long set: asv sees them only with ``ANONRATIO_ASV_LONG=1``
(:func:`~.common.long_benchmarks`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from anonratio.instances import census_instance
from anonratio.solvers import bin_cover

from .common import long_benchmarks

if TYPE_CHECKING:  # asv takes every class of the module for a benchmark: annotations only
    from anonratio.instances import BinCoveringInstance

#: k values of the overfull ratios: many classes, a few dozen, and three
LAST_K = [2_000, 5_000, 20_000]
ORDERS = ["sorted", "random"]
#: k of the timings
TIME_K = 5_000


def _overfull(instance: BinCoveringInstance, method: str, k: int) -> float:
    """Figure 7's overfull ratio of ``method`` (seed 0) on ``instance``: its objective / k."""
    objective = bin_cover(instance, method=method, seed=0).objective
    if objective is None:
        raise RuntimeError(f"{method} on LAST-1990 (k = {k}) returned no objective")
    return objective / k


def _last1990() -> dict[str, Any]:
    """The LAST-1990 instances and Figure 7's overfull ratios, computed once."""
    try:
        instances = {k: census_instance("LAST-1990", k=k) for k in LAST_K}
    except (OSError, ValueError) as exc:  # the data set is not installed
        return {"error": f"LAST-1990 unavailable: {exc}"}
    overfull = {
        (method, k, order): _overfull(instances[k], f"{method}-{order}", k)
        for method in ("fold", "simplified-spread")
        for k in LAST_K
        for order in ORDERS
    }
    return {"instances": instances, "overfull": overfull}


def _need(cache: dict[str, Any]) -> None:
    if "error" in cache:
        raise NotImplementedError(cache["error"])


class OverfullLast1990:
    """Figure 7's overfull ratio (largest class / k); bigger is worse."""

    params = (LAST_K, ORDERS)
    param_names = ["k", "order"]
    timeout = 300.0
    setup_cache = staticmethod(_last1990)

    def track_overfull_fold_last1990(self, cache: dict[str, Any], k: int, order: str) -> float:
        _need(cache)
        return cache["overfull"][("fold", k, order)]

    def track_overfull_spread_last1990(self, cache: dict[str, Any], k: int, order: str) -> float:
        _need(cache)
        return cache["overfull"][("simplified-spread", k, order)]

    # asv reads a benchmark's unit from an attribute of its function, which mypy cannot type
    track_overfull_fold_last1990.unit = "ratio"  # type: ignore[attr-defined]
    track_overfull_spread_last1990.unit = "ratio"  # type: ignore[attr-defined]


class TimeLast1990:
    """Fold and Spread on LAST-1990 at k = 5000, sorted and random order."""

    params = ORDERS
    param_names = ["order"]
    timeout = 300.0
    setup_cache = staticmethod(_last1990)

    def time_fold_last1990(self, cache: dict[str, Any], order: str) -> None:
        _need(cache)
        bin_cover(cache["instances"][TIME_K], method=f"fold-{order}", seed=0)

    def time_spread_last1990(self, cache: dict[str, Any], order: str) -> None:
        _need(cache)
        bin_cover(cache["instances"][TIME_K], method=f"spread-{order}", seed=0)


#: benchmark class name -> class: the long set, seen by asv only with ``ANONRATIO_ASV_LONG=1``
CLASSES = long_benchmarks(globals(), [OverfullLast1990, TimeLast1990])
