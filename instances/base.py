"""Problem-independent entry points: ``verify``, ``cost``, ``lower_bound`` and serialization.

Each problem module registers its instance type with these single-dispatch functions, so the bench
layer can verify and bound any instance without knowing its problem.
"""

import hashlib
import json
from dataclasses import dataclass, field
from functools import singledispatch
from typing import Any, ClassVar

import numpy as np
from anonratio.instances.errors import InfeasibleSolutionError, InstanceFormatError
from anonratio.instances.solution import Solution

__all__ = [
    "Verification",
    "verify",
    "cost",
    "lower_bound",
    "register_problem",
    "instance_to_dict",
    "instance_from_dict",
    "instance_id",
    "PROBLEMS",
]

#: problem name -> instance class (filled by :func:`register_problem`)
PROBLEMS = {}


@dataclass(frozen=True)
class Verification:
    """What the independent verifier found.

    ``cost`` is the objective recomputed from the partition alone (``None`` when infeasible).
    """

    feasible: bool
    cost: float | None
    violations: list = field(default_factory=list)

    #: problem-specific fields that go into a result row (subclasses name theirs)
    COLUMNS: ClassVar[tuple[str, ...]] = ()

    def columns(self) -> dict[str, Any]:
        """The problem-specific result columns of this verification (``{}`` for most problems)."""
        return {name: getattr(self, name) for name in self.COLUMNS}


def _labels_of(solution, n):
    labels = solution.labels if isinstance(solution, Solution) else solution
    if labels is None:
        return None, ["the run returned no solution"]
    labels = np.asarray(labels)
    if labels.shape != (n,):
        return None, [f"labels must have one entry per record ({n}), got shape {labels.shape}"]
    if not np.issubdtype(labels.dtype, np.integer):
        return None, [f"labels must be integers, got dtype {labels.dtype}"]
    return labels.astype(np.int64), []


@singledispatch
def verify(instance, solution, *, strict=True):
    """Recompute feasibility and the objective of ``solution`` from scratch.

    Parameters
    ----------
    instance : a registered instance type
    solution : Solution or array of labels
    strict : bool
        Raise :class:`InfeasibleSolutionError` on a violation (default); else return it.

    Returns
    -------
    Verification
    """
    raise TypeError(f"no verifier registered for {type(instance).__name__}")


@singledispatch
def cost(instance, labels):
    """The objective of a feasible partition (raises when it is infeasible)."""
    return verify(instance, labels, strict=True).cost


@singledispatch
def lower_bound(instance):
    """A cheap valid lower bound on the optimum: ``(value, source)``."""
    raise TypeError(f"no lower bound registered for {type(instance).__name__}")


def finish_verification(violations, value, strict):
    """Shared tail of every problem's verifier."""
    if violations:
        if strict:
            shown = "; ".join(violations[:5])
            more = f" (+{len(violations) - 5} more)" if len(violations) > 5 else ""
            raise InfeasibleSolutionError(f"infeasible solution: {shown}{more}", violations)
        return Verification(False, None, violations)
    return Verification(True, float(value), [])


def register_problem(name):
    """Class decorator: register an instance class under its problem name for (de)serialization."""

    def deco(cls):
        PROBLEMS[name] = cls
        cls.problem = name
        return cls

    return deco


def instance_to_dict(instance):
    return {"problem": instance.problem, **instance.to_dict()}


def instance_from_dict(d):
    if not isinstance(d, dict) or "problem" not in d:
        raise InstanceFormatError("an instance object needs a 'problem' field")
    cls = PROBLEMS.get(d["problem"])
    if cls is None:
        raise InstanceFormatError(
            f"unknown problem {d['problem']!r}; known problems: {sorted(PROBLEMS)}"
        )
    body = {k: v for k, v in d.items() if k not in ("problem", "id", "family", "meta")}
    return cls.from_dict(body)


def instance_id(instance):
    """Content hash of an instance: SHA-256 (first 16 hex digits) of its canonical JSON."""
    blob = json.dumps(instance_to_dict(instance), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()[:16]
