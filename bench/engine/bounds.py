"""The instance's lower bound of a run, at the effort the caller asks for, computed once.

A run reports its cost over a valid lower bound (the certified ratio); how much work that bound
may take is the caller's choice (:data:`BOUNDS`):

* ``none``: no bound (0, ``none``): the certified ratio is unknown;
* ``fast``: the problem's cheapest valid bound (:func:`~anonratio.instances.base.fast_lower_bound`:
  linear or near it, k-anonymity's forced generalization levels);
* ``default``: the problem's registered bound (:func:`~anonratio.instances.lower_bound`:
  k-anonymity's nearest-neighbour bound, which pays for a k-NN search), what sweeps use;
* ``strong``: the problem's strongest bound within a time budget (its declaration's
  ``strong_bound``, an LP relaxation evaluated as a Lagrangian bound, so it holds wherever it
  stops), or ``default`` when it declares none.

Every value is valid, and the record says which was computed and how long it took
(``lower_bound_source``, ``bound_time_s``). The ``fast`` and ``default`` bounds of an instance
are kept for the process, keyed by the instance's content hash: a second algorithm on the same
instance, in a sweep's batch or in one Python session, does not recompute them.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from typing import Any

from anonratio.instances.base import fast_lower_bound, lower_bound
from anonratio.instances.validation import check_choice

__all__ = ["BOUNDS", "STRONG_TIME_LIMIT", "instance_bound", "check_bound", "clear_cache"]

#: the efforts a caller may ask of the instance bound, cheapest first
BOUNDS = ("none", "fast", "default", "strong")

#: seconds the ``strong`` bound may take when the caller gives no budget
STRONG_TIME_LIMIT = 30.0

#: at most this many instances' bounds are kept
_CACHE_SIZE = 64
_CACHE: OrderedDict[tuple[str, str], tuple[float, str]] = OrderedDict()


def check_bound(bound: Any, name: str = "bound") -> str:
    """``bound`` if it is one of :data:`BOUNDS`; ``ValueError`` naming ``name`` otherwise."""
    return str(check_choice(name, bound, BOUNDS))


def clear_cache() -> None:
    """Forget the bounds kept for the process."""
    _CACHE.clear()


def _strong(instance: Any, time_limit: float, seed: int | None) -> tuple[float, str]:
    """The declaration's strongest bound within ``time_limit``, never below the default one."""
    from anonratio.bench.declarations import Lazy
    from anonratio.bench.registry import PROBLEMS

    problem = PROBLEMS.get(str(getattr(instance, "problem", "")))
    value, source = lower_bound(instance)
    target = None if problem is None else problem.strong_bound
    if target is None:
        return float(value), str(source)
    found = Lazy(target)(instance, time_limit=time_limit, seed=seed)
    if float(found.value) > float(value):
        return float(found.value), f"strong: {found.source}"
    return float(value), str(source)


def instance_bound(
    instance: Any,
    bound: str = "default",
    *,
    key: str | None = None,
    time_limit: float | None = None,
    seed: int | None = 0,
) -> tuple[float, str, float]:
    """``(value, source, seconds)``: the instance's valid lower bound at effort ``bound``.

    Parameters
    ----------
    instance : a registered instance
    bound : {"none", "fast", "default", "strong"}
        The effort (:data:`BOUNDS`).
    key : str, optional
        The instance's content hash (:func:`~anonratio.instances.instance_id`): the ``fast``
        and ``default`` bounds are then kept for the process under it.
    time_limit : float, optional
        The ``strong`` bound's budget in seconds (:data:`STRONG_TIME_LIMIT` when None).
    seed : int or None
        The ``strong`` bound's seed.

    Returns
    -------
    (float, str, float)
        The bound, what proves it, and the seconds spent computing it now (0 when kept).
    """
    bound = check_bound(bound)
    if bound == "none":
        return 0.0, "none", 0.0
    cached = None if key is None or bound == "strong" else _CACHE.get((key, bound))
    if cached is not None:
        _CACHE.move_to_end((key, bound))  # type: ignore[arg-type]
        return cached[0], cached[1], 0.0
    start = time.perf_counter()
    if bound == "fast":
        value, source = fast_lower_bound(instance)
    elif bound == "default":
        value, source = lower_bound(instance)
    else:
        budget = STRONG_TIME_LIMIT if time_limit is None else float(time_limit)
        value, source = _strong(instance, budget, seed)
    spent = time.perf_counter() - start
    if key is not None and bound != "strong":
        _CACHE[(key, bound)] = (float(value), str(source))
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return float(value), str(source), spent
