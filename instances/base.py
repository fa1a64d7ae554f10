"""Problem-independent entry points: ``verify``, ``cost``, ``lower_bound`` and serialization.

Each problem module registers its instance type with these single-dispatch functions, so the bench
layer can verify and bound any instance without knowing its problem.
"""

import copy
import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property, singledispatch
from typing import Any, ClassVar, TypeVar, cast

import numpy as np

from anonratio.instances.errors import InfeasibleSolutionError, InstanceFormatError
from anonratio.instances.solution import Solution

__all__ = [
    "Verification",
    "verify",
    "lower_bound",
    "fast_lower_bound",
    "register_problem",
    "instance_to_dict",
    "instance_from_dict",
    "instance_fields",
    "instance_id",
    "cold_copy",
    "PROBLEMS",
    "load_problems",
]

#: problem name -> instance class (filled by :func:`register_problem`)
PROBLEMS: dict[str, type[Any]] = {}

C = TypeVar("C", bound=type[Any])


@dataclass(frozen=True)
class Verification:
    """What the independent verifier found.

    ``cost`` is the objective recomputed from the partition alone (``None`` when infeasible).
    """

    feasible: bool
    cost: float | None
    violations: list[str] = field(default_factory=list)

    #: problem-specific fields that go into a result row (subclasses name theirs)
    COLUMNS: ClassVar[tuple[str, ...]] = ()

    def columns(self) -> dict[str, Any]:
        """The problem-specific result columns of this verification (``{}`` for most problems)."""
        return {name: getattr(self, name) for name in self.COLUMNS}


def _labels_of(solution: Any, n: int) -> tuple[np.ndarray | None, list[str]]:
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
def verify(instance: Any, solution: Any, *, strict: bool = True) -> Verification:
    """Recompute feasibility and the objective of ``solution`` from scratch.

    Parameters
    ----------
    instance : a registered instance type
    solution : Solution or array of labels (or None: no solution)
    strict : bool
        Raise :class:`InfeasibleSolutionError` on a violation (default); else return it.

    Returns
    -------
    Verification
    """
    raise TypeError(f"no verifier registered for {type(instance).__name__}")


@singledispatch
def lower_bound(instance: Any) -> tuple[float, str]:
    """A cheap valid lower bound on the optimum: ``(value, source)``."""
    raise TypeError(f"no lower bound registered for {type(instance).__name__}")


@singledispatch
def fast_lower_bound(instance: Any) -> tuple[float, str]:
    """The cheapest valid lower bound a problem offers, ``(value, source)``: linear or near it in
    the instance's size, for a run that must not spend more on its bound than on its solution.
    The problem's :func:`lower_bound` when it registers nothing cheaper."""
    return lower_bound(instance)


def finish_verification(violations: list[str], value: float | None, strict: bool) -> Verification:
    """Shared tail of every problem's verifier."""
    if violations:
        if strict:
            shown = "; ".join(violations[:5])
            more = f" (+{len(violations) - 5} more)" if len(violations) > 5 else ""
            raise InfeasibleSolutionError(f"infeasible solution: {shown}{more}", violations)
        return Verification(False, None, violations)
    # without violations the verifier has computed the cost
    return Verification(True, float(cast(float, value)), [])


def register_problem(name: str) -> Callable[[C], C]:
    """Class decorator: register an instance class under its problem name for (de)serialization.

    The class gets ``problem = name``; it must have ``to_dict()`` and a ``from_dict(d)``
    classmethod.
    """

    def deco(cls: C) -> C:
        PROBLEMS[name] = cls
        cls.problem = name
        return cls

    return deco


def instance_to_dict(instance: Any) -> dict[str, Any]:
    """``{"problem": ..., **instance.to_dict()}``: the JSON form of a registered instance."""
    return {"problem": instance.problem, **instance.to_dict()}


def instance_fields(
    d: Any, problem: str, *, required: tuple[str, ...], optional: tuple[str, ...] = ()
) -> Mapping[str, Any]:
    """``d`` if it is a JSON object with every ``required`` field and no unknown one.

    The ``from_dict`` of every problem starts here, then hands the raw values to its constructor,
    so a file goes through the same validation as a call (nothing is coerced before it).

    Raises
    ------
    InstanceFormatError
        Not an object, a missing field or an unknown one (a misspelt field is never ignored).
    """
    what = f"malformed {problem} instance"
    if not isinstance(d, Mapping):
        raise InstanceFormatError(f"{what}: expected a JSON object, got {type(d).__name__}")
    missing = [f for f in required if f not in d]
    if missing:
        raise InstanceFormatError(f"{what}: missing field {missing[0]!r}")
    known = (*required, *optional)
    unknown = [f for f in d if f not in known]
    if unknown:
        raise InstanceFormatError(
            f"{what}: unknown field {unknown[0]!r}; known fields: {list(known)}"
        )
    return d


def load_problems() -> dict[str, type[Any]]:
    """Import every problem subpackage of :mod:`anonratio.instances`, so that :data:`PROBLEMS`
    holds every instance type (they register when imported, and the package imports none of
    them by itself); returns :data:`PROBLEMS`."""
    import pkgutil
    from importlib import import_module

    package = import_module("anonratio.instances")
    for found in pkgutil.iter_modules(package.__path__):
        if found.ispkg:
            import_module(f"anonratio.instances.{found.name}")
    return PROBLEMS


def instance_from_dict(d: dict[str, Any]) -> Any:
    """The instance of :func:`instance_to_dict`'s output (``id``, ``family``, ``meta`` ignored).

    The fields go to the problem's ``from_dict`` and from there, unconverted, to its constructor:
    one validation path for calls and files.

    Raises
    ------
    InstanceFormatError
        A non-dict, a missing or unknown ``problem``, a missing or unknown field, or a field the
        constructor rejects: ``malformed bin-covering instance: `k` must be an integer >= 1, got
        3.9`` (the constructor's message, which names the field and the value).
    """
    if not isinstance(d, Mapping):
        raise InstanceFormatError(f"an instance must be a JSON object, got {type(d).__name__}")
    if "problem" not in d:
        raise InstanceFormatError("missing field 'problem'")
    problem = d["problem"]
    if isinstance(problem, str) and problem not in PROBLEMS:
        load_problems()  # the problem's module may not be imported yet
    cls = PROBLEMS.get(problem) if isinstance(problem, str) else None
    if cls is None:
        raise InstanceFormatError(
            f"unknown problem {problem!r}; known problems: {sorted(PROBLEMS)}"
        )
    body = {k: v for k, v in d.items() if k not in ("problem", "id", "family", "meta")}
    what = f"malformed {problem} instance"
    try:
        return cls.from_dict(body)
    except (ValueError, TypeError, KeyError, OverflowError) as exc:
        text = f"missing field {exc}" if isinstance(exc, KeyError) else str(exc)
        if text.startswith(what):
            raise InstanceFormatError(text) from None
        raise InstanceFormatError(f"{what}: {text}") from None


def cold_copy(instance: Any) -> Any:
    """A copy of ``instance`` without what earlier computations cached on it.

    Instances cache derived data (``functools.cached_property`` values such as unique records or
    a point metric, and k-anonymity's nearest-neighbour tables). A run that finds them filled by
    an earlier run or by the lower bound would not pay for them, and its time would be too low;
    the runner gives every run a cold copy (the arrays are shared, nothing is recomputed until
    asked for).
    """
    new = copy.copy(instance)
    kind = type(instance)
    for name in list(getattr(new, "__dict__", {})):
        if name == "_neighbor_tables" or isinstance(getattr(kind, name, None), cached_property):
            del new.__dict__[name]
    return new


def instance_id(instance: Any) -> str:
    """Content hash of an instance: SHA-256 (first 16 hex digits) of its canonical JSON."""
    blob = json.dumps(instance_to_dict(instance), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()[:16]
