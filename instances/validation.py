"""One validation vocabulary for every public boundary (after scikit-learn's ``check_*``).

Every public function validates its arguments once, in a private ``_…_iv`` helper built from these
checks, and its private core assumes valid input. Each check returns the value in canonical form
(``int``, ``float``, a ``numpy.random.Generator``) or raises ``ValueError`` (``TypeError`` for an
instance of the wrong class) with one line that names the parameter, the rule and the value::

    `k` must be an integer in [2, 12], got 1

A bound that stands for another quantity can be named (``high_name="n_records"`` reads
``[2, n_records=20]``), and ``allow_none=True`` lets ``None`` through (the rule then ends in
``or None``). Rules that relate several parameters or inspect array contents stay with the
problem that owns them, written in the same style.

Examples
--------
>>> check_int("k", 3, low=2)
3
>>> check_number("epsilon", 0.2, low=0, high=0.5, closed="neither")
0.2
>>> check_choice("order", "sorted", ("random", "sorted"))
'sorted'
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from numbers import Integral, Real
from typing import Any, Literal, TypeVar, overload

import numpy as np

__all__ = [
    "check_int",
    "check_number",
    "check_probability",
    "check_choice",
    "check_instance",
    "check_random_state",
    "check_seed",
    "check_time_limit",
    "dispatch",
    "as_array",
    "check_counts",
    "SeedLike",
    "MAX_COUNT",
]

T = TypeVar("T")

#: what a ``seed`` parameter may be (:func:`check_random_state` turns it into a Generator)
SeedLike = int | np.integer | np.random.Generator | None

#: which ends of ``[low, high]`` :func:`check_number` includes
Closed = Literal["both", "left", "right", "neither"]

#: the largest seed every solver accepts (CP-SAT and HiGHS take 31-bit seeds)
MAX_SEED = 2**31 - 2

#: the largest count (item size, node or point weight) and sum of counts: exact in float64
MAX_COUNT = 2**53


def _is_int(value: Any) -> bool:
    return isinstance(value, Integral) and not isinstance(value, bool | np.bool_)


def _is_real(value: Any) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool | np.bool_)


def _bound(value: float | None, name: str | None) -> str:
    return f"{value}" if name is None else f"{name}={value}"


def _int_rule(
    low: int | None, high: int | None, low_name: str | None, high_name: str | None
) -> str:
    lo, hi = _bound(low, low_name), _bound(high, high_name)
    if low is not None and high is not None:
        return f"an integer in [{lo}, {hi}]"
    if low is not None:
        return f"an integer >= {lo}"
    if high is not None:
        return f"an integer <= {hi}"
    return "an integer"


@overload
def check_int(
    name: str,
    value: Any,
    *,
    low: int | None = ...,
    high: int | None = ...,
    low_name: str | None = ...,
    high_name: str | None = ...,
    allow_none: Literal[False] = ...,
) -> int: ...
@overload
def check_int(
    name: str,
    value: Any,
    *,
    low: int | None = ...,
    high: int | None = ...,
    low_name: str | None = ...,
    high_name: str | None = ...,
    allow_none: bool,
) -> int | None: ...
def check_int(
    name: str,
    value: Any,
    *,
    low: int | None = None,
    high: int | None = None,
    low_name: str | None = None,
    high_name: str | None = None,
    allow_none: bool = False,
) -> int | None:
    """``value`` as an ``int`` in ``[low, high]`` (either end may be open-ended with ``None``).

    Booleans and non-integral numbers are refused (``3.0`` too: an integer parameter given as a
    float is usually a mistake upstream); numpy integers are accepted.

    Parameters
    ----------
    name : str
        The parameter's name, for the message.
    value : object
    low, high : int, optional
        Inclusive bounds.
    low_name, high_name : str, optional
        What a bound stands for: ``high_name="n_records"`` shows ``[2, n_records=20]``.
    allow_none : bool
        Return ``None`` for ``None`` (the rule then reads ``... or None``).

    Examples
    --------
    >>> check_int("n", 5, low=1)
    5
    >>> check_int("k", 1, low=2, high=12)
    Traceback (most recent call last):
    ...
    ValueError: `k` must be an integer in [2, 12], got 1
    >>> check_int("k", 21, low=2, high=20, high_name="n_records")
    Traceback (most recent call last):
    ...
    ValueError: `k` must be an integer in [2, n_records=20], got 21
    """
    if value is None and allow_none:
        return None
    if (
        not _is_int(value)
        or (low is not None and value < low)
        or (high is not None and value > high)
    ):
        rule = _int_rule(low, high, low_name, high_name) + (" or None" if allow_none else "")
        raise ValueError(f"`{name}` must be {rule}, got {value!r}")
    return int(value)


def _number_rule(low: float | None, high: float | None, closed: str, finite: bool) -> str:
    lo_br = "[" if closed in ("both", "left") else "("
    hi_br = "]" if closed in ("both", "right") else ")"
    if low is not None and high is not None:
        return f"a number in {lo_br}{low}, {high}{hi_br}"
    if low is not None:
        op = ">=" if lo_br == "[" else ">"
        if low == 0 and op == ">":
            return "a positive finite number" if finite else "a positive number"
        return f"a {'finite ' if finite else ''}number {op} {low}"
    if high is not None:
        op = "<=" if hi_br == "]" else "<"
        return f"a {'finite ' if finite else ''}number {op} {high}"
    return "a finite number" if finite else "a number"


@overload
def check_number(
    name: str,
    value: Any,
    *,
    low: float | None = ...,
    high: float | None = ...,
    closed: Closed = ...,
    finite: bool = ...,
    allow_none: Literal[False] = ...,
) -> float: ...
@overload
def check_number(
    name: str,
    value: Any,
    *,
    low: float | None = ...,
    high: float | None = ...,
    closed: Closed = ...,
    finite: bool = ...,
    allow_none: bool,
) -> float | None: ...
def check_number(
    name: str,
    value: Any,
    *,
    low: float | None = None,
    high: float | None = None,
    closed: Closed = "both",
    finite: bool = True,
    allow_none: bool = False,
) -> float | None:
    """``value`` as a ``float`` between ``low`` and ``high`` (``closed`` says which ends count).

    NaN and booleans are refused; so are infinities unless ``finite=False``. With
    ``allow_none=True``, ``None`` is returned as is (the rule then reads ``... or None``).

    Examples
    --------
    >>> check_number("noise", 0.1, low=0, high=1)
    0.1
    >>> check_number("spread", 0, low=0, closed="neither")
    Traceback (most recent call last):
    ...
    ValueError: `spread` must be a positive finite number, got 0
    """
    if value is None and allow_none:
        return None
    ok = _is_real(value) and not math.isnan(value) and (not finite or math.isfinite(value))
    if ok and low is not None:
        ok = value >= low if closed in ("both", "left") else value > low
    if ok and high is not None:
        ok = value <= high if closed in ("both", "right") else value < high
    if not ok:
        rule = _number_rule(low, high, closed, finite) + (" or None" if allow_none else "")
        raise ValueError(f"`{name}` must be {rule}, got {value!r}")
    return float(value)


def check_probability(name: str, value: Any) -> float:
    """A probability: a number in ``[0, 1]``, as a ``float``.

    Examples
    --------
    >>> check_probability("noise", 0.25)
    0.25
    >>> check_probability("noise", 1.5)
    Traceback (most recent call last):
    ...
    ValueError: `noise` must be a probability in [0, 1], got 1.5
    """
    try:
        return check_number(name, value, low=0, high=1)
    except ValueError:
        raise ValueError(f"`{name}` must be a probability in [0, 1], got {value!r}") from None


def check_choice(name: str, value: Any, choices: Collection[T]) -> T:
    """``value`` if it is one of ``choices`` (a tuple, a set or a mapping's keys).

    Examples
    --------
    >>> check_choice("model", "stars", ("suppression", "generalization"))
    Traceback (most recent call last):
    ...
    ValueError: `model` must be one of ['generalization', 'suppression'], got 'stars'
    """
    try:
        known = value in choices
    except TypeError:  # an unhashable value for a set or a mapping
        known = False
    if not known:
        shown = sorted(choices, key=str)
        raise ValueError(f"`{name}` must be one of {shown}, got {value!r}")
    return value


def _class_name(cls: type) -> str:
    """``Table``, ``list``; a class of another library with its package: ``networkx.Graph``."""
    package = cls.__module__.split(".")[0]
    return cls.__name__ if package in ("builtins", "anonratio") else f"{package}.{cls.__name__}"


def check_instance(instance: Any, cls: type[T], name: str = "instance") -> T:
    """``instance`` if it is a ``cls``; ``TypeError`` naming both classes otherwise.

    A class of another library is named with its package (``pandas.DataFrame``).

    Examples
    --------
    >>> check_instance([], dict, "meta")
    Traceback (most recent call last):
    ...
    TypeError: `meta` must be a dict, got list
    """
    if not isinstance(instance, cls):
        raise TypeError(f"`{name}` must be a {_class_name(cls)}, got {type(instance).__name__}")
    return instance


def check_random_state(seed: Any, name: str = "seed") -> np.random.Generator:
    """A ``numpy.random.Generator`` from ``None``, an integer ``>= 0`` or a Generator.

    The one place a seed becomes a generator (``np.random.default_rng``); no global state.
    """
    if seed is None or isinstance(seed, np.random.Generator):
        return np.random.default_rng(seed)
    if not _is_int(seed) or seed < 0:
        raise ValueError(
            f"`{name}` must be None, a non-negative integer or a numpy Generator, got {seed!r}"
        )
    return np.random.default_rng(int(seed))


def check_seed(seed: Any, name: str = "seed") -> int | None:
    """The seed to *record* in a Solution: the integer, or ``None`` for ``None`` / a Generator.

    Validates like :func:`check_random_state`.

    Examples
    --------
    >>> check_seed(7), check_seed(None)
    (7, None)
    """
    check_random_state(seed, name)
    return None if seed is None or isinstance(seed, np.random.Generator) else int(seed)


@overload
def check_time_limit(
    time_limit: Any, *, allow_none: Literal[False] = ..., name: str = ...
) -> float: ...
@overload
def check_time_limit(time_limit: Any, *, allow_none: bool, name: str = ...) -> float | None: ...
def check_time_limit(
    time_limit: Any, *, allow_none: bool = False, name: str = "time_limit"
) -> float | None:
    """A positive number of seconds (``None``, or infinity, means no limit when allowed).

    Examples
    --------
    >>> check_time_limit(30), check_time_limit(None, allow_none=True)
    (30.0, None)
    """
    if allow_none and (time_limit is None or (_is_real(time_limit) and time_limit == math.inf)):
        return None
    if not _is_real(time_limit) or not math.isfinite(time_limit) or time_limit <= 0:
        rule = "a positive finite number of seconds" + (" or None" if allow_none else "")
        raise ValueError(f"`{name}` must be {rule}, got {time_limit!r}")
    return float(time_limit)


def dispatch(methods: Mapping[str, Any], method: Any, instance: Any, **kwargs: Any) -> Any:
    """Call ``method(instance, **kwargs)`` (networkx ``flow/maxflow.py`` style).

    ``method`` is the algorithm itself (a callable) or its registry name, a key of ``methods``
    (``"kanon-cpsat"``); ``ValueError`` naming ``method`` and the known names when the name is
    unknown.
    """
    if callable(method):
        return method(instance, **kwargs)
    return methods[check_choice("method", method, methods)](instance, **kwargs)


def as_array(name: str, values: Any, *, error: type[Exception] = ValueError) -> np.ndarray:
    """``numpy.asarray(values)``, but a ragged nested sequence raises ``error`` naming ``name``.

    A ragged sequence (``[1, [2]]``) becomes a 1-D object array when its first level is regular,
    so that :func:`check_counts` can name the offending entry.

    Examples
    --------
    >>> as_array("sizes", [1, [2, 3]]).tolist()
    [1, [2, 3]]
    """
    try:
        return np.asarray(values)
    except (ValueError, TypeError):
        pass
    try:
        out = np.empty(len(values), dtype=object)
        out[:] = list(values)
        return out
    except (ValueError, TypeError):
        raise error(
            f"`{name}` must be a sequence of numbers, got a ragged nested sequence"
        ) from None


def _count_ok(x: Any, low: int) -> bool:
    if _is_int(x):
        return low <= x <= MAX_COUNT
    return _is_real(x) and math.isfinite(x) and float(x).is_integer() and low <= x <= MAX_COUNT


def check_counts(
    name: str,
    values: Any,
    *,
    low: int = 0,
    where: str = "index",
    labels: Any = None,
    error: type[Exception] = ValueError,
) -> np.ndarray:
    """``values`` (a 1-D sequence) as an int64 array of counts in ``[low, 2**53]``.

    The one rule of every count of an instance (item sizes, node and point weights): an integer,
    or a float with an integral value (``30.0``, as a float array holds it); never a boolean, a
    string, ``None``, NaN, an infinity, a fraction or a nested sequence; at most
    :data:`MAX_COUNT` = 2**53 each and in total (so that loads stay exact). The message names
    the first offending entry by its position (``where`` and ``labels`` name it: ``at node 'a'``).

    Examples
    --------
    >>> check_counts("sizes", [3, 2.0], low=1).tolist()
    [3, 2]
    >>> check_counts("sizes", [3, 1.5], low=1)
    Traceback (most recent call last):
    ...
    ValueError: `sizes` must be positive integers, got 1.5 at index 1
    >>> check_counts("sizes", [3, True])
    Traceback (most recent call last):
    ...
    ValueError: `sizes` must be non-negative integers, got True at index 1
    """
    rule = "positive integers" if low == 1 else f"integers >= {low}"
    if low == 0:
        rule = "non-negative integers"

    def fail(i: int, x: Any, prefix: str = "") -> None:
        place = f"{where} {labels[i]!r}" if labels is not None else f"{where} {i}"
        if _is_real(x) and math.isfinite(x) and float(x).is_integer() and x > MAX_COUNT:
            raise error(f"`{name}` must be {rule} <= 2**53, got {x!r} at {place}")
        raise error(f"`{name}` must be {rule}, got {prefix}{x!r} at {place}")

    arr = as_array(name, values, error=error).reshape(-1)
    if arr.dtype.kind == "b":
        raise error(f"`{name}` must be {rule}, got dtype bool")
    if arr.dtype.kind in "iuf" and not isinstance(values, np.ndarray):
        # numpy reads [True, 2] as [1, 2]: find a boolean the conversion hid
        for i, x in enumerate(np.asarray(values, dtype=object).reshape(-1)):
            if isinstance(x, bool | np.bool_):
                fail(i, x)
    if arr.dtype.kind in "iu":
        bad = np.flatnonzero((arr < low) | (arr > MAX_COUNT))
    elif arr.dtype.kind == "f":
        ok = np.isfinite(arr)
        ok[ok] = (arr[ok] == np.round(arr[ok])) & (arr[ok] >= low) & (arr[ok] <= MAX_COUNT)
        bad = np.flatnonzero(~ok)
    else:  # strings, objects (None, nested lists, integers beyond int64): one by one
        items = arr.tolist()
        if arr.dtype != object and not isinstance(values, np.ndarray):  # [1, "a"]: not "1"
            items = np.asarray(values, dtype=object).reshape(-1).tolist()
        for i, x in enumerate(items):
            if not _count_ok(x, low):
                fail(i, x, "" if arr.dtype == object else f"dtype {arr.dtype}: ")
        bad = np.empty(0, dtype=np.intp)
        arr = np.array([int(x) for x in items], dtype=np.int64)
    if bad.size:
        i = int(bad[0])
        fail(i, arr[i].item())
    out = arr.astype(np.int64)
    if out.size and float(out.sum(dtype=np.float64)) > MAX_COUNT:
        total = sum(int(x) for x in out.tolist())
        raise error(f"`{name}` must sum to at most 2**53, got {total}")
    return out
