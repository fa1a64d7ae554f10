"""The long set's ``time_*`` and ``peakmem_*`` benchmarks of every registered algorithm.

* ``SlowTime_<algorithm>.time_<algorithm>``: the sizes of :data:`~.common.SLOW_SIZES`, too slow
  for a commit comparison (the other sizes are timed in :mod:`.bench_times`);
* ``Memory_<algorithm>.peakmem_<algorithm>``: the peak memory of one run at both sizes.

asv sees them only with ``ANONRATIO_ASV_LONG=1`` (:func:`~.common.long_benchmarks`). The
instances come from the same shared ``setup_cache`` as the fast timings.
"""

from __future__ import annotations

from typing import Any

from anonratio.bench.registry import REGISTRY

from .bench_times import timing_class, timing_method
from .common import SIZE_NAMES, SLOW_SIZES, ident, long_benchmarks, run_timed


def _peakmem(name: str) -> Any:
    def peakmem(self: Any, cache: dict[str, Any], size: str) -> None:
        run_timed(name, cache[name][size])

    return peakmem


def _slow_class(alg: Any) -> type:
    cls = timing_class(alg, "SlowTime", list(SLOW_SIZES[alg.name]))
    cls.__module__ = __name__
    setattr(cls, f"time_{ident(alg.name)}", timing_method(alg.name))
    return cls


def _memory_class(alg: Any) -> type:
    cls = timing_class(alg, "Memory", list(SIZE_NAMES))
    cls.__module__ = __name__
    setattr(cls, f"peakmem_{ident(alg.name)}", _peakmem(alg.name))
    return cls


#: benchmark class name -> class: the long set, seen by asv only with ``ANONRATIO_ASV_LONG=1``
CLASSES = {
    cls.__name__: cls
    for cls in [_slow_class(REGISTRY[name]) for name in SLOW_SIZES]
    + [_memory_class(alg) for alg in REGISTRY.values()]
}
globals().update(CLASSES)
CLASSES = long_benchmarks(globals(), list(CLASSES.values()))
