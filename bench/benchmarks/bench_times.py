"""asv ``time_*`` and ``peakmem_*`` benchmarks of every registered algorithm at two sizes.

One class per registered algorithm (every kind, every problem), generated from the registry.
``time_<algorithm>`` and ``peakmem_<algorithm>`` run it once on the ``small`` and the ``large``
instance of :data:`~.common.SIZES` (approximations; :data:`~.common.SIZE_OVERRIDES` for a few)
or, for the exact models, on the smallest and the largest reference instance of their problem
(one thread by default, :data:`~.common.EXACT_TIME_LIMIT` seconds). The instances are built once,
in the shared ``setup_cache`` (:func:`~.common.size_cache`); a size without an instance the
algorithm supports is skipped.
"""

from __future__ import annotations

from typing import Any

from anonratio.bench.registry import REGISTRY

from .common import SIZE_NAMES, ident, run_timed, size_cache


def _timer(name: str) -> Any:
    def time_(self: Any, cache: dict[str, Any], size: str) -> None:
        run_timed(name, cache[name][size])

    return time_


def _peakmem(name: str) -> Any:
    def peakmem(self: Any, cache: dict[str, Any], size: str) -> None:
        run_timed(name, cache[name][size])

    return peakmem


def _time_class(alg: Any) -> type:
    key = ident(alg.name)
    attrs = {
        "__doc__": f"{alg.name} ({alg.problem}, {alg.kind}): {alg.complexity}",
        "__module__": __name__,
        "params": SIZE_NAMES,
        "param_names": ["size"],
        "timeout": 300.0,
        "number": 1,
        "repeat": (1, 3, 10.0),
        "setup_cache": staticmethod(size_cache),
        f"time_{key}": _timer(alg.name),
        f"peakmem_{key}": _peakmem(alg.name),
    }
    return type(f"Time_{key}", (), attrs)


#: benchmark class name -> class, one per registered algorithm
CLASSES = {cls.__name__: cls for cls in map(_time_class, REGISTRY.values())}
globals().update(CLASSES)
