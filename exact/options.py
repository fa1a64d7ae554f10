"""The checks every exact solver shares, built on :mod:`anonratio.instances.validation`.

Each solver's ``_solve_iv`` (or ``solve_iv``) checks the instance's class, then calls
:func:`check_run_options` for ``(time_limit, seed, threads)`` and, as its problem needs,
:func:`check_upper_bound` and :func:`check_hint_labels`; only what is specific to the problem
(how a hint is read, how an upper bound is rounded) stays with it.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from contextvars import ContextVar
from time import perf_counter
from typing import Any

import numpy as np

from anonratio.instances import Solution, verify
from anonratio.instances.validation import MAX_SEED, check_int, check_number, check_time_limit

__all__ = [
    "check_run_options",
    "check_upper_bound",
    "check_hint_labels",
    "run_params",
    "seconds_left",
    "run_deadline",
    "within_run",
]

#: the deadline of the run in progress (a ``perf_counter`` reading; inf outside any run)
_RUN_DEADLINE: ContextVar[float] = ContextVar("anonratio_run_deadline", default=math.inf)


def seconds_left(deadline: float) -> float:
    """Seconds left until ``deadline`` (a ``time.perf_counter`` reading), at least a millisecond:
    a solver's limit must be positive, even when the time ran out building its model."""
    return max(1e-3, deadline - perf_counter())


@contextlib.contextmanager
def run_deadline(deadline: float) -> Iterator[None]:
    """Within the block, every solver run ends by ``deadline`` (a ``perf_counter`` reading) or by
    an earlier one already set.

    The registry's run of an algorithm (:meth:`anonratio.bench.declarations.Algorithm.run`) sets
    its own deadline, so the time an exact model spends building itself, or a certified
    algorithm its start, counts against the run's one time limit: :func:`~anonratio.exact.run.
    run_cpsat` and :func:`~anonratio.exact.pulp_run.run_pulp` stop by :func:`within_run`.
    """
    token = _RUN_DEADLINE.set(min(float(deadline), _RUN_DEADLINE.get()))
    try:
        yield
    finally:
        _RUN_DEADLINE.reset(token)


def within_run(deadline: float) -> float:
    """``deadline``, or the enclosing :func:`run_deadline`'s when that comes first."""
    return min(deadline, _RUN_DEADLINE.get())


def check_run_options(time_limit: Any, seed: Any, threads: Any) -> tuple[float, int, int]:
    """Validate the options every exact solver takes; return ``(time_limit, seed, threads)``.

    ``time_limit`` is a positive finite number of seconds, ``threads`` an integer >= 1 and
    ``seed`` an integer in ``[0, MAX_SEED]`` (every solver here takes it) or ``None``. ``seed=None``
    becomes 0 (every solver here is deterministic for a fixed seed and one worker).

    Examples
    --------
    >>> check_run_options(5, None, 2)
    (5.0, 0, 2)
    """
    time_limit = check_time_limit(time_limit)
    threads = check_int("threads", threads, low=1)
    seed = check_int("seed", seed, low=0, high=MAX_SEED, allow_none=True)
    return time_limit, 0 if seed is None else seed, threads


def check_upper_bound(upper_bound: Any) -> float | None:
    """A known upper bound on the optimum: ``None`` or a number >= 0, as a float."""
    return check_number("upper_bound", upper_bound, low=0, finite=False, allow_none=True)


def check_hint_labels(instance: Any, hint: Any, **verify_kwargs: Any) -> np.ndarray | None:
    """The labels of a hint (a :class:`Solution` with labels, or a labels array) as int64.

    ``None`` for no hint. ``ValueError`` when the hint has no labels or is not a feasible solution
    of ``instance`` (``verify(instance, labels, strict=False, **verify_kwargs)``).
    """
    if hint is None:
        return None
    labels = hint.labels if isinstance(hint, Solution) else hint
    if labels is None:
        raise ValueError("`hint` must be a Solution with labels or a labels array, got none")
    labels = np.asarray(labels)
    check = verify(instance, labels, strict=False, **verify_kwargs)
    if not check.feasible:
        raise ValueError(f"`hint` must be a feasible solution: {'; '.join(check.violations[:3])}")
    return labels.astype(np.int64)


def run_params(
    instance: Any, time_limit: float, threads: int, upper_bound: Any, hint: Any
) -> dict[str, Any]:
    """The ``params`` of an exact run's :class:`~anonratio.instances.Solution`: the instance's
    plus the run options (``hint`` says only whether one was given)."""
    return {
        **instance.params,
        "time_limit": time_limit,
        "threads": threads,
        "upper_bound": upper_bound,
        "hint": hint is not None,
    }
