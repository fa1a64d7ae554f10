"""asv ``track_*`` benchmarks: the approximation ratios of every registered algorithm.

One class per registered algorithm that is not exact (approximations and heuristics, every
problem), generated from the registry: a new algorithm is tracked without editing this file.

* ``track_ratio_<algorithm>``: cost ÷ committed reference optimum over the reference instances of
  its problem whose status is ``opt`` (``results/reference_optima.json``, written by
  ``anonratio reference update``);
* ``track_certified_ratio_<algorithm>``: cost ÷ the best valid lower bound (the proven optimum,
  else the recorded bound or this commit's ``lower_bound``) over all of them;

each with the parameter ``stat``: ``worst`` (largest) or ``mean``. Bigger is worse. The runs
happen once, in the shared ``setup_cache`` (:func:`~.common.ratio_cache`); an algorithm whose run
fails or whose solution the verifier rejects fails its own benchmarks only.
"""

from __future__ import annotations

from typing import Any

from .common import STATS, ident, ratio_cache, statistic, tracked_algorithms


def _tracker(name: str, column: str) -> Any:
    def track(self: Any, cache: dict[str, Any], stat: str) -> float:
        result = cache[name]
        if result["errors"]:
            raise RuntimeError("; ".join(result["errors"]))
        return statistic(result[column], stat)

    # asv reads a benchmark's unit from an attribute of its function, which mypy cannot type
    track.unit = "ratio"  # type: ignore[attr-defined]
    return track


def _ratio_class(alg: Any) -> type:
    key = ident(alg.name)
    attrs = {
        "__doc__": f"{alg.name} ({alg.problem}): guarantee {alg.guarantee_text}; {alg.source}",
        "__module__": __name__,
        "params": STATS,
        "param_names": ["stat"],
        "timeout": 600.0,
        "setup_cache": staticmethod(ratio_cache),
        f"track_ratio_{key}": _tracker(alg.name, "ratio"),
        f"track_certified_ratio_{key}": _tracker(alg.name, "certified_ratio"),
    }
    return type(f"Ratio_{key}", (), attrs)


#: benchmark class name -> class, one per tracked algorithm
CLASSES = {cls.__name__: cls for cls in map(_ratio_class, tracked_algorithms())}
globals().update(CLASSES)
