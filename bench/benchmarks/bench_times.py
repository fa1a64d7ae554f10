"""asv ``time_*`` benchmarks of every registered algorithm at two sizes: the fast set's timings.

One class per registered algorithm (every kind, every problem), generated from the registry.
``time_<algorithm>`` runs it once on the ``small`` and the ``large`` instance of its problem's
declaration (``asv_sizes``, or the algorithm's own ``asv_overrides``) or, for the other exact
models, on the smallest and the largest reference instance of their problem (one thread by
default, :data:`~.common.EXACT_TIME_LIMIT` seconds). The sizes of :data:`~.common.SLOW_SIZES`
are timed in the long set instead, with every ``peakmem_*`` (:mod:`.long_times`). The instances
are built once, in the shared ``setup_cache`` (:func:`~.common.size_cache`); a size without an
instance the algorithm supports is skipped.
"""

from __future__ import annotations

from typing import Any

from anonratio.bench.registry import REGISTRY

from .common import fast_sizes, ident, run_timed, size_cache


def timing_method(name: str) -> Any:
    """The ``time_*`` method of the algorithm ``name`` (one run on a cold copy)."""

    def time_(self: Any, cache: dict[str, Any], size: str) -> None:
        run_timed(name, cache[name][size])

    return time_


def timing_class(alg: Any, prefix: str, sizes: list[str]) -> type:
    """A timing class of ``alg`` at ``sizes``: one run per sample, up to 2 samples in 5 s, in
    each of asv's two rounds (``asv continuous`` interleaves the commits' rounds, so a drift of
    the machine's speed falls on both), and no warmup run (every run starts from a cold copy)."""
    key = ident(alg.name)
    attrs = {
        "__doc__": f"{alg.name} ({alg.problem}, {alg.kind}): {alg.complexity}",
        "__module__": __name__,
        "params": sizes,
        "param_names": ["size"],
        "timeout": 300.0,
        "number": 1,
        "repeat": (1, 2, 5.0),
        "warmup_time": 0.0,
        "setup_cache": staticmethod(size_cache),
    }
    return type(f"{prefix}_{key}", (), attrs)


def _fast_class(alg: Any) -> type | None:
    """The timing class of ``alg`` at its fast sizes (None: it has none)."""
    sizes = fast_sizes(alg.name)
    if not sizes:
        return None
    cls = timing_class(alg, "Time", sizes)
    setattr(cls, f"time_{ident(alg.name)}", timing_method(alg.name))
    return cls


#: benchmark class name -> class, one per registered algorithm with a fast size
CLASSES = {cls.__name__: cls for cls in map(_fast_class, REGISTRY.values()) if cls is not None}
globals().update(CLASSES)
