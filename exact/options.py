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
    "work_limit",
    "work_limits",
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


#: the deterministic work limits of the solver runs in progress: CP-SAT's deterministic time (s)
#: and the branch-and-bound nodes of a HiGHS or CBC run (None: no such limit)
_WORK_LIMITS: ContextVar[tuple[float | None, int | None]] = ContextVar(
    "anonratio_work_limits", default=(None, None)
)


@contextlib.contextmanager
def work_limit(
    *, cpsat_deterministic_time: float | None = None, mip_nodes: int | None = None
) -> Iterator[None]:
    """Within the block, every CP-SAT run also stops after ``cpsat_deterministic_time`` seconds
    of CP-SAT's deterministic time (``max_deterministic_time``), and every HiGHS or CBC run of
    :func:`~anonratio.exact.pulp_run.run_pulp` after ``mip_nodes`` branch-and-bound nodes (HiGHS
    ``mip_max_nodes``, CBC ``maxNodes``); a smaller limit already set stays.

    These limits count work, not seconds: with one worker and a fixed seed, a run that proves its
    optimum within them proves it on an idle machine and on a loaded one alike, while the
    wall-clock ``time_limit`` (still in force) can be generous. A run stopped by one of them
    reports ``time_limit``, like a run stopped by the clock.

    Examples
    --------
    >>> with work_limit(cpsat_deterministic_time=5.0, mip_nodes=1000):
    ...     work_limits()
    (5.0, 1000)
    >>> work_limits()
    (None, None)
    """
    cpsat_deterministic_time = check_number(
        "cpsat_deterministic_time", cpsat_deterministic_time, low=0, closed="right", allow_none=True
    )
    mip_nodes = check_int("mip_nodes", mip_nodes, low=1, allow_none=True)
    old_time, old_nodes = _WORK_LIMITS.get()
    token = _WORK_LIMITS.set(
        (_smaller(old_time, cpsat_deterministic_time), _smaller(old_nodes, mip_nodes))
    )
    try:
        yield
    finally:
        _WORK_LIMITS.reset(token)


def _smaller(a: Any, b: Any) -> Any:
    """The smaller of two limits, None being no limit."""
    return b if a is None else a if b is None else min(a, b)


def work_limits() -> tuple[float | None, int | None]:
    """``(cpsat_deterministic_time, mip_nodes)`` of the enclosing :func:`work_limit` (None for a
    limit not set)."""
    return _WORK_LIMITS.get()


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
