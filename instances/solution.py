"""The one result type every solver returns, exact ones included (docs/architecture.md)."""

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from time import perf_counter
from typing import Any, Self

import numpy as np

from anonratio.instances.validation import check_choice

__all__ = ["Solution", "STATUSES", "relative_gap"]

#: Run statuses, as in the results schema (the results schema: docs/architecture.md).
STATUSES = ("optimal", "feasible", "time_limit", "infeasible", "error", "memory_limit")


@dataclass(frozen=True, eq=False)
class Solution:
    """A solver's answer: a partition of the records plus what the run knows about it.

    Parameters
    ----------
    labels : ndarray of int64, shape (n,) or None
        Group id per record; ``-1`` marks a record that is deleted (row deletion) or left
        unclustered where the problem allows it. ``None`` when the run found no solution.
    algorithm : str
        Registry name of the algorithm that produced it.
    params : mapping
        The problem and algorithm parameters of the run (``{"k": 3}``).
    seed : int or None
        The run's seed.
    status : str
        One of :data:`STATUSES`.
    objective : float or None
        The solver's own claim about its cost. Never trusted: :func:`verify` recomputes it.
    lower_bound : float or None
        A valid lower bound on the optimum proven by this run (exact solvers: the best bound).
    gap : float or None
        Relative gap ``(objective - lower_bound) / objective`` of an exact run.
    time_s : float or None
        Wall time of the run in seconds.
    info : mapping
        Algorithm-specific details (phase reached, Steiner vertices used, published levels, ...).
    """

    labels: np.ndarray | None
    algorithm: str
    params: Mapping[str, Any] = field(default_factory=dict)
    seed: int | None = None
    status: str = "feasible"
    objective: float | None = None
    lower_bound: float | None = None
    gap: float | None = None
    time_s: float | None = None
    info: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_choice("status", self.status, STATUSES)
        if self.labels is not None:
            labels = np.array(self.labels, dtype=np.int64, copy=True).reshape(-1)
            labels.setflags(write=False)
            object.__setattr__(self, "labels", labels)

    @classmethod
    def with_bound(
        cls,
        labels: Any,
        algorithm: str,
        *,
        objective: float | None,
        bound: float | None,
        t0: float,
        **fields: Any,
    ) -> Self:
        """The solution of a run that proves a bound: ``lower_bound`` is ``bound`` as a float,
        ``gap`` its :func:`relative_gap` to ``objective`` and ``time_s`` the time since ``t0``
        (a ``time.perf_counter()`` reading); ``fields`` are the other fields."""
        return cls(
            labels=labels,
            algorithm=algorithm,
            objective=objective,
            lower_bound=None if bound is None else float(bound),
            gap=relative_gap(objective, bound),
            time_s=perf_counter() - t0,
            **fields,
        )

    def replace(self, **changes: Any) -> Self:
        """Return a copy with the given fields changed (``dataclasses.replace``)."""
        return replace(self, **changes)


def relative_gap(
    objective: float | None, bound: float | None, *, eps: float = 1e-9
) -> float | None:
    """``|objective - bound| / max(|objective|, eps)``; ``None`` when either is missing."""
    if objective is None or bound is None:
        return None
    return abs(objective - bound) / max(abs(objective), eps)
