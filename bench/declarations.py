"""How an algorithm and an instance family are declared: :class:`Algorithm` and :class:`Family`
(and a problem's worst-case :class:`Hunt`; the problem itself: :mod:`anonratio.bench.problem`).

Each problem declares its algorithms and families once, in its module under
:mod:`anonratio.bench.problems`, holding the function objects themselves; the registry
(:mod:`anonratio.bench.registry`) collects them. An :class:`Algorithm` knows how to call its
function (:meth:`Algorithm.run` passes only the options the function takes), its proven
guarantee as a function of the instance and the solution, its source and its running time.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from numbers import Integral
from typing import Any

import numpy as np

from anonratio.exact.options import run_deadline, seconds_left
from anonratio.instances import Solution
from anonratio.instances.validation import check_int, check_number, check_random_state

__all__ = [
    "Algorithm",
    "Lazy",
    "lazy",
    "Family",
    "Hunt",
    "KINDS",
    "coerce_param",
    "exact_guarantee",
    "no_guarantee",
    "needs_k",
    "certified_run",
    "WARM_START_SHARE",
]

#: the kinds of algorithm, as in the results' ``kind`` column
KINDS = ("approximation", "heuristic", "exact")

#: share of a run's time limit an exact model's warm start (its ``hint``) may take when the hint
#: takes a time limit; the model gets the rest (:meth:`Algorithm.run`)
WARM_START_SHARE = 0.3


class Lazy:
    """A function named by ``"module:attribute"`` (or made by a factory), loaded on first use.

    Calling it, asking its signature (:func:`inspect.signature`), its ``__doc__`` or its
    ``__module__`` imports the module; declaring it does not.

    Parameters
    ----------
    target : str
        ``"package.module:function"``.
    factory : callable, optional
        ``factory(resolved) -> callable``: the function is ``factory`` applied to the target
        (``certified_run`` builds a ``*-certified`` function from its parts this way).
    name : str, optional
        The function's ``__name__`` (default: the attribute's name).
    """

    def __init__(
        self,
        target: str,
        factory: Callable[[Any], Callable[..., Any]] | None = None,
        name: str | None = None,
    ) -> None:
        module, sep, attribute = target.partition(":")
        if not sep or not module or not attribute:
            raise ValueError(f"a lazy function is 'module:attribute', got {target!r}")
        self.target = target
        self._factory = factory
        self.__name__ = self.__qualname__ = name or attribute
        self._loaded: Callable[..., Any] | None = None

    def load(self) -> Callable[..., Any]:
        """The function itself (imports its module the first time)."""
        if self._loaded is None:
            module, _, attribute = self.target.partition(":")
            found = getattr(importlib.import_module(module), attribute)
            self._loaded = found if self._factory is None else self._factory(found)
        return self._loaded

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.load()(*args, **kwargs)

    @property
    def __signature__(self) -> inspect.Signature:
        return inspect.signature(self.load())

    @property
    def __doc__(self) -> str | None:  # type: ignore[override]
        return self.load().__doc__

    @property
    def __wrapped__(self) -> Callable[..., Any]:
        return self.load()

    def __repr__(self) -> str:
        return f"lazy({self.target!r})"


def lazy(target: str) -> Lazy:
    """The function ``"module:attribute"``, imported on first use (:class:`Lazy`)."""
    return Lazy(target)


def exact_guarantee(instance: Any, solution: Solution | None = None) -> float:
    """The guarantee of an exact method: ratio 1."""
    return 1.0


def no_guarantee(instance: Any, solution: Solution | None = None) -> None:
    """No proven ratio."""
    return None


def certified_run(
    start: Callable[..., Solution],
    certify: Callable[..., Solution],
    name: str,
    doc: str,
    *,
    start_share: float | None = None,
) -> Callable[..., Solution]:
    """The registry function of a ``*-certified`` algorithm: ``start``'s solution, then
    ``certify``'s proven lower bound in the rest of ``time_limit`` (one deadline from the call:
    the start's time counts).

    ``certify`` may be named lazily (:class:`Lazy`): the function is
    then built when first used, so declaring it imports no exact model.

    ``start`` gets ``start_share * time_limit`` as its own ``time_limit`` when ``start_share``
    is given (a local search), else runs to its end (an approximation). ``doc`` is the
    function's docstring. The function takes ``threads`` when ``certify`` does.
    """
    target = getattr(certify, "target", None)
    if target is not None:  # a lazy certify: build on first use

        def build(loaded: Callable[..., Solution]) -> Callable[..., Solution]:
            return certified_run(start, loaded, name, doc, start_share=start_share)

        return Lazy(target, factory=build, name=name.replace("-", "_"))

    def run(instance: Any, seed: Any = None, time_limit: float = 60.0, **options: Any) -> Solution:
        time_limit = check_number("time_limit", time_limit, low=0, closed="neither")
        t0 = time.perf_counter()
        if start_share is None:
            found = start(instance, seed=seed)
        else:
            found = start(instance, seed=seed, time_limit=start_share * time_limit)
        left = seconds_left(t0 + time_limit)
        return certify(instance, found, time_limit=left, seed=seed, algorithm=name, **options)

    def with_threads(
        instance: Any, seed: Any = None, time_limit: float = 60.0, threads: int = 1
    ) -> Solution:
        return run(instance, seed=seed, time_limit=time_limit, threads=threads)

    def one_thread(instance: Any, seed: Any = None, time_limit: float = 60.0) -> Solution:
        return run(instance, seed=seed, time_limit=time_limit)

    # the bound in a second process where certify can do it
    takes_threads = "threads" in inspect.signature(certify).parameters
    certified: Callable[..., Solution] = with_threads if takes_threads else one_thread
    certified.__name__ = certified.__qualname__ = name.replace("-", "_")
    certified.__doc__ = doc
    return certified


def needs_k(k: int) -> Callable[[Any], str | None]:
    """A ``requires`` check: the instance must have this ``k`` (the factor algorithms)."""

    def requires(instance: Any) -> str | None:
        return None if instance.k == k else f"needs k={k}, got k={instance.k}"

    requires.__name__ = f"needs_k{k}"
    return requires


@dataclass(frozen=True)
class Algorithm:
    """One registered algorithm.

    Parameters
    ----------
    name : str
        Registry name, unique across problems (``"forest"``, ``"fold-random"``,
        ``"kanon-cpsat"``); the ``algorithm`` column and ``Solution.algorithm``.
    problem : str
        The problem it solves (``"k-anonymity"``): instances of another problem are refused.
    kind : {"approximation", "heuristic", "exact"}
    function : callable
        The algorithm itself, ``function(instance, **options) -> Solution``.
    guarantee : callable
        ``guarantee(instance, solution=None) -> float | None``: the proven ratio on this
        instance, for this run's solution when it depends on it (the spanning-tree split's
        depends on the tree found); ``None`` when none is proven.
    guarantee_text : str
        The guarantee as a formula, for reports and the README table.
    source : str
        Paper and section.
    complexity : str
        Running time.
    options : mapping
        Fixed keyword options (``{"order": "random"}``).
    requires : callable, optional
        ``requires(instance) -> None | str``: a reason the algorithm cannot run on an instance of
        its problem (``factor-2`` needs ``k = 2``).
    hint : callable, optional
        ``hint(instance, seed=...) -> Solution``: a starting solution passed as ``hint=``
        (the zip-code CP-SAT model starts from the spanning-tree split), computed within the
        run's time limit (:meth:`run`); a hint that takes ``time_limit`` gets
        :data:`WARM_START_SHARE` of it.
    gated : bool
        Tracked by the quality gate (``anonratio gate``); False for an algorithm whose solution
        is another registered algorithm's (``kanon-certified`` returns ``kanon-local-search``'s
        partition with a bound), so the gate does not run it twice.
    """

    name: str
    problem: str
    kind: str
    function: Callable[..., Solution]
    guarantee: Callable[..., float | None]
    guarantee_text: str
    source: str
    complexity: str
    options: Mapping[str, Any] = field(default_factory=dict)
    requires: Callable[[Any], str | None] | None = None
    hint: Callable[..., Solution] | None = None
    gated: bool = True

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"`kind` must be one of {KINDS}, got {self.kind!r}")

    @cached_property
    def _accepts(self) -> frozenset[str]:
        return frozenset(inspect.signature(self.function).parameters)

    def supports(self, instance: Any) -> str | None:
        """``None`` if the algorithm can run on ``instance``, else the reason it cannot."""
        problem = getattr(instance, "problem", type(instance).__name__)
        if problem != self.problem:
            return f"needs a {self.problem} instance, got {problem}"
        reason = self.requires(instance) if self.requires is not None else None
        return None if reason is None else f"{self.name} {reason}"

    def with_options(self, options: Mapping[str, Any]) -> Algorithm:
        """This algorithm with more fixed options; ``ValueError`` naming an option its function
        does not take (and the pair: ``forest`` takes no ``privacy``)."""
        unknown = sorted(set(options) - self._accepts)
        if unknown:
            takes = sorted(self._accepts - {"instance", "seed", "time_limit", "threads", "hint"})
            raise ValueError(
                f"algorithm {self.name!r} does not take `{unknown[0]}`; its options: "
                f"{takes or 'none'}"
            )
        return dataclasses.replace(self, options={**self.options, **options})

    @cached_property
    def _hint_takes_time_limit(self) -> bool:
        return self.hint is not None and "time_limit" in inspect.signature(self.hint).parameters

    def run(
        self, instance: Any, *, seed: int | None = None, time_limit: float | None = None
    ) -> Solution:
        """Call the algorithm with its options and the run's seed, time limit and one thread.

        ``seed`` and ``time_limit`` are passed only to functions that take them (FOREST has no
        time limit; the kd-tree split is deterministic); exact models get ``threads=1``, since a
        sweep already runs its workers side by side.

        ``time_limit`` covers the whole run, warm start included: one deadline, ``time_limit``
        seconds from the call. A ``hint`` that takes a time limit gets
        :data:`WARM_START_SHARE` of it (a local search); one that does not (an approximation)
        runs to its end. The function then gets the time left until the deadline (at least a
        millisecond: a solver's limit must be positive), and every CP-SAT, HiGHS or CBC solve
        inside the run stops by the deadline, however long its model took to build
        (:func:`~anonratio.exact.options.run_deadline`).
        """
        t0 = time.perf_counter()
        deadline = math.inf if time_limit is None else t0 + time_limit
        kwargs = dict(self.options)
        if "seed" in self._accepts:
            kwargs["seed"] = seed
        if "threads" in self._accepts:
            kwargs.setdefault("threads", 1)
        with run_deadline(deadline):  # every solver inside stops by it
            if self.hint is not None:
                timed = {}
                if time_limit is not None and self._hint_takes_time_limit:
                    timed["time_limit"] = WARM_START_SHARE * time_limit
                kwargs["hint"] = self.hint(instance, seed=seed, **timed)
            if "time_limit" in self._accepts and time_limit is not None:
                kwargs["time_limit"] = seconds_left(deadline)
            return self.function(instance, **kwargs)


_TRUE = {"true", "1", "yes", "on", "y", "t"}
_FALSE = {"false", "0", "no", "off", "n", "f"}


def coerce_param(name: str, value: Any, default: Any) -> Any:
    """Coerce ``value`` (often a string from the command line) to the type of ``default``.

    bool from ``true/false/1/0/yes/no``; int and float by parsing; a tuple default from a
    comma-separated string (``"10,40"``); a ``None`` default takes ``"none"`` as None, else an
    int, a float or the string itself. A single number for a numeric tuple default is repeated
    (``"15"`` for ``(10, 40)`` gives ``(15, 15)``). Raises ``ValueError`` naming the parameter.

    Examples
    --------
    >>> coerce_param("k", "5", 3), coerce_param("row_deletion", "yes", False)
    (5, True)
    """
    try:
        if isinstance(default, bool):
            if isinstance(value, str):
                v = value.strip().lower()
                if v in _TRUE | _FALSE:
                    return v in _TRUE
                raise ValueError(value)
            if isinstance(value, bool | np.bool_) or value in (0, 1):
                return bool(value)
            raise ValueError(value)
        if isinstance(default, Integral):
            if isinstance(value, bool):
                raise ValueError(value)
            if isinstance(value, str):
                return int(value.strip())
            if isinstance(value, Integral) or (isinstance(value, float) and value.is_integer()):
                return int(value)
            raise ValueError(value)
        if isinstance(default, float):
            if isinstance(value, bool):
                raise ValueError(value)
            return float(value.strip() if isinstance(value, str) else value)
        if isinstance(default, tuple):
            parts: list[Any]
            if isinstance(value, str):
                parts = [x for x in value.split(",") if x.strip()]
            elif isinstance(value, Integral | float):
                parts = [value]
            else:
                parts = list(value)
            kind = default[0] if default else ""
            if not isinstance(kind, str) and len(parts) == 1:
                parts = parts * len(default)  # "15" for a (low, high) range means (15, 15)
            return tuple(coerce_param(name, p, kind) for p in parts)
        if default is None:
            if not isinstance(value, str):
                return value
            v = value.strip()
            if v.lower() in ("none", "null", ""):
                return None
            for conv in (int, float):
                try:
                    return conv(v)
                except ValueError:
                    pass
            return v
        if isinstance(default, str):
            if not isinstance(value, str):
                raise ValueError(value)
            return value.strip()
    except (ValueError, TypeError, AttributeError):
        pass
    raise ValueError(
        f"parameter `{name}` must be of type {type(default).__name__} like its default "
        f"{default!r}, got {value!r}"
    )


@dataclass(frozen=True)
class Family:
    """A named, seeded instance family.

    Parameters
    ----------
    name : str
    problem : str
        Problem name (``"k-anonymity"``).
    description : str
    defaults : mapping
        Every parameter with its default value (its type drives :func:`coerce_param`).
    build : callable
        ``build(rng, **params) -> (instance, extra_meta)``; ``extra_meta`` may hold
        ``"optimum"``, ``"lower_bound"``, ``"upper_bound"`` and construction notes.
    """

    name: str
    problem: str
    description: str
    defaults: Mapping[str, Any] = field(default_factory=dict)
    build: Callable[..., tuple[Any, dict[str, Any]]] | None = None

    def resolve(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """Defaults overridden by ``params`` (coerced); unknown names raise ``ValueError``."""
        unknown = sorted(set(params) - set(self.defaults))
        if unknown:
            raise ValueError(
                f"unknown parameter {unknown[0]!r} for family {self.name!r}; known parameters: "
                f"{sorted(self.defaults)}"
            )
        out = dict(self.defaults)
        for key, value in params.items():
            out[key] = coerce_param(key, value, self.defaults[key])
        return out

    def __call__(self, seed: int | None = None, **params: Any) -> tuple[Any, dict[str, Any]]:
        """``(instance, meta)`` for ``seed`` (an integer ``>= 0`` or None) and the overrides."""
        seed = check_int("seed", seed, low=0, allow_none=True)
        resolved = self.resolve(params)
        if self.build is None:
            raise TypeError(f"family {self.name!r} declares no `build` function")
        instance, extra = self.build(check_random_state(seed), **resolved)
        meta = {
            "family": self.name,
            "problem": self.problem,
            "params": {k: list(v) if isinstance(v, tuple) else v for k, v in resolved.items()},
            "seed": seed,
        }
        meta.update(extra)
        return instance, meta


@dataclass(frozen=True)
class Hunt:
    """How the worst-case hunter (:mod:`anonratio.bench.tracking.hunt`) searches one problem.

    Parameters
    ----------
    problem : str
    family : str
        The family the hunt's starting instances come from.
    moves : tuple of (name, callable), or str
        ``move(instance, rng) -> instance``, or ``ValueError`` when it does not apply; or the
        ``"module:attribute"`` of that tuple, imported on first use (:meth:`load_moves`).
    size_param : str
        The family parameter the hunt's ``size`` sets (``"n"``).
    fixed : mapping
        Family parameters that suit small instances (``{"r": 2}``); the user's win.
    """

    problem: str
    family: str
    moves: tuple[tuple[str, Callable[..., Any]], ...] | str
    size_param: str = "n"
    fixed: Mapping[str, Any] = field(default_factory=dict)

    def load_moves(self) -> tuple[tuple[str, Callable[..., Any]], ...]:
        """The moves (imported from their module the first time when named lazily)."""
        if not isinstance(self.moves, str):
            return self.moves
        module, sep, attribute = self.moves.partition(":")
        if not sep:
            raise ValueError(f"`moves` is a tuple or 'module:attribute', got {self.moves!r}")
        return tuple(getattr(importlib.import_module(module), attribute))
