"""Utility metrics of a run's published table, on request: the ``utility`` of a run.

A problem declares its metrics (:attr:`~anonratio.bench.problem.Problem.utility`: ``name ->
f(instance, solution) -> float`` of what the solution publishes: k-anonymity's recodings,
l-diversity's suppressed or generalized tables). They cost from a fraction of the run (the
discernibility) to several times it (the KL-divergence of a 600,000-record table: seconds), so a
run computes none unless asked: :func:`check_utility` reads the request (``"all"``, a list or a
comma-separated string of names) against the problem's metrics, and :func:`measure_utility` fills
the record's ``utility`` column (JSON: name -> value) and ``utility_time_s``.

``anonratio solve --utility``, ``run_record(utility=...)`` and a study's ``utility = [...]`` reach
these same two functions.
"""

from __future__ import annotations

import importlib
import math
import time
from collections.abc import Mapping, Sequence
from typing import Any

from anonratio.bench.engine.record import RunRecord, json_text
from anonratio.instances import Solution

__all__ = ["check_utility", "measure_utility", "problem_metrics"]


def problem_metrics(problem: str) -> Mapping[str, Any]:
    """The utility metrics ``problem`` declares (empty when it declares none)."""
    from anonratio.bench.registry import PROBLEMS

    declared = PROBLEMS.get(problem)
    if declared is None or declared.utility is None:
        return {}
    module, _, attribute = declared.utility.partition(":")
    metrics: Mapping[str, Any] = getattr(importlib.import_module(module), attribute)
    return metrics


def check_utility(problem: str, value: Any, name: str = "utility") -> tuple[str, ...]:
    """The metric names ``value`` asks ``problem``'s runs for.

    Parameters
    ----------
    problem : str
        A registered problem's name.
    value : None, "all", str or sequence of str
        None or empty: no metric; ``"all"``: every one the problem declares; else names, as a
        list or a comma-separated string.
    name : str
        How the option is spelled in messages (``--utility``).

    Returns
    -------
    tuple of str
        The names, deduplicated in the order given.

    Raises
    ------
    ValueError
        A value of the wrong type, or a name the problem does not declare (the message names the
        option, the value and the problem's metrics, or says it has none).
    """
    if value is None:
        return ()
    if isinstance(value, str):
        names: list[Any] = [v.strip() for v in value.split(",") if v.strip()]
    elif isinstance(value, Sequence):
        names = list(value)
    else:
        raise ValueError(
            f"`{name}` must be a metric name, a list of names or 'all', got {type(value).__name__}"
        )
    if not names:
        return ()
    known = problem_metrics(problem)
    if not known:
        raise ValueError(f"`{name}`: {problem} runs have no utility metrics, got {value!r}")
    if names == ["all"]:
        return tuple(known)
    for metric in names:
        if not isinstance(metric, str) or metric not in known:
            raise ValueError(
                f"`{name}` must name metrics of {problem} ({', '.join(known)}) or be 'all', "
                f"got {metric!r}"
            )
    return tuple(dict.fromkeys(names))


def measure_utility(
    record: RunRecord, instance: Any, solution: Solution | None, names: tuple[str, ...]
) -> None:
    """Fill ``record.utility`` (JSON) and ``record.utility_time_s`` with the metrics ``names`` of
    a verified solution; a metric that fails leaves the run's status alone and says why in
    ``error``. Nothing is measured for an unverified run."""
    if not names or solution is None or not record.verified:
        return
    metrics = problem_metrics(str(record.problem))
    values: dict[str, float] = {}
    t0 = time.perf_counter()
    try:
        for metric in names:
            values[metric] = float(metrics[metric](instance, solution))
    except Exception as exc:
        failed = f"utility {metric!r} failed: {type(exc).__name__}: {exc}"
        record.error = failed if record.error is None else f"{record.error}; {failed}"
    finally:
        record.utility_time_s = time.perf_counter() - t0
    # an infinite or undefined value is JSON null
    record.utility = json_text({k: v if math.isfinite(v) else None for k, v in values.items()})
