"""The shared shape of the problems' ``certify`` functions: a feasible solution, checked by the
verifier, returned with a proven lower bound.

Each problem proves its own bound (:mod:`anonratio.exact.kanonymity.certified`,
:mod:`anonratio.exact.ldiversity.certified`, :mod:`anonratio.exact.clustering.certified`); these
two helpers hold what they share: the boundary checks and the verification of the start
(:func:`check_start`), and the certified :class:`~anonratio.instances.Solution`
(:func:`certified_solution`), which also keeps the start's own proven bound when that is larger.
"""

from __future__ import annotations

from typing import Any

from anonratio.instances import Solution, verify
from anonratio.instances.validation import MAX_SEED, check_int, check_number

__all__ = ["check_start", "certified_solution"]


def check_start(
    instance: Any, solution: Any, *, time_limit: Any, seed: Any
) -> tuple[Any, float, int | None]:
    """``(verification, time_limit, seed)`` of a start to certify, checked.

    Raises
    ------
    ValueError
        Naming ``time_limit`` (< 0), ``seed`` (not None or an integer in ``[0, MAX_SEED]``: it
        seeds HiGHS), ``solution`` (not a Solution) or the start's first violations.
    """
    seed = check_int("seed", seed, low=0, high=MAX_SEED, allow_none=True)
    time_limit = check_number("time_limit", time_limit, low=0)
    if not isinstance(solution, Solution):
        raise ValueError(f"`solution` must be a Solution, got {type(solution).__name__}")
    check = verify(instance, solution, strict=False)
    if not check.feasible:
        raise ValueError(f"`solution` is not feasible: {'; '.join(check.violations[:3])}")
    return check, time_limit, seed


def certified_solution(
    instance: Any,
    solution: Solution,
    check: Any,
    *,
    bound: float,
    source: str,
    info: dict,
    algorithm: str,
    t0: float,
    labels: Any = None,
) -> Solution:
    """``solution`` (status ``"feasible"``, its verified cost) with the lower bound ``bound``.

    ``info`` is added to the solution's own, with ``lower_bound_source`` (``source``, or
    ``"<start algorithm>-bound"`` when the start's own proven bound is larger and kept),
    ``start_time_s`` and ``start_lower_bound``. The time is the start's plus the certificate's
    (from ``t0``, a ``perf_counter`` reading). ``labels`` replace the solution's when given.
    """
    start = solution.lower_bound  # a bound the start proved itself (e.g. primal-dual's sum alpha)
    if start is not None and float(start) > bound:
        bound, source = float(start), f"{solution.algorithm}-bound"
    merged = dict(solution.info or {})
    merged.update(info)
    merged.update(lower_bound_source=source, start_time_s=solution.time_s, start_lower_bound=start)
    out = Solution.with_bound(
        solution.labels if labels is None else labels,
        algorithm,
        objective=float(check.cost),
        bound=bound,
        t0=t0,
        params=instance.params,
        seed=solution.seed,
        status="feasible",
        info=merged,
    )
    return out.replace(time_s=(out.time_s or 0.0) + (solution.time_s or 0.0))
