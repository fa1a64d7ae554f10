"""Random tables for t-closeness by suppression.

The generator takes ``seed`` (an int ``>= 0``, a :class:`numpy.random.Generator` or ``None``),
converts it once with :func:`~anonratio.instances.validation.check_random_state` and touches no
global random state, so the same seed gives the same instance. It returns
``(TClosenessInstance, meta)``; ``meta`` is a JSON-serializable dict of the generator's
parameters, ready for :func:`~anonratio.instances.io.save_instance`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from anonratio.instances.table import Table
from anonratio.instances.validation import (
    SeedLike,
    check_choice,
    check_int,
    check_number,
    check_random_state,
)

from .instance import GROUNDS, TClosenessInstance

__all__ = ["random_instance"]


def _zipf(c: int, skew: float, rng: np.random.Generator) -> np.ndarray:
    """Frequencies ``p(v) ∝ rank(v) ** -skew`` over a random ranking of the ``c`` values."""
    p = (rng.permutation(c) + 1.0) ** -skew
    return p / p.sum()


def random_instance(
    n: int,
    *,
    d: int,
    cardinality: int,
    m: int,
    t: float,
    k: int = 1,
    skew: float = 0.0,
    correlation: float = 0.0,
    ground: str = "equal",
    seed: SeedLike = None,
) -> tuple[TClosenessInstance, dict[str, Any]]:
    """A random table: uniform QI codes, Zipf-skewed sensitive values tied to the first column.

    Each record draws its ``d`` QI codes independently and uniformly (``cardinality`` values per
    column, named ``"a<j>"``). Its sensitive value (``m`` values, codes ``0 .. m-1``) is, with
    probability ``correlation``, the code of its first QI column modulo ``m``, else a draw with
    frequencies ``p(v) ∝ rank(v) ** -skew`` over a random ranking (``skew = 0``: uniform). With
    ``correlation > 0`` groups that agree on the first column are far from the table's
    distribution, so the closeness requirement binds.

    Parameters
    ----------
    n : int
        Records (>= 1).
    d : int
        QI columns (>= 1).
    cardinality : int
        Values per QI column (>= 1).
    m : int
        Sensitive values ``S`` (>= 1; values may end up absent when ``n`` is small).
    t : float
        Closeness threshold, in ``[0, 1]``.
    k : int
        Least group size, in ``[1, n]``.
    skew : float
        Zipf exponent of the sensitive values (>= 0).
    correlation : float
        Share of records whose sensitive value follows their first QI code, in ``[0, 1]``.
    ground : {"equal", "ordered"}
    seed : int, numpy.random.Generator or None

    Returns
    -------
    (TClosenessInstance, dict)
        The instance and ``meta`` (the parameters).

    Raises
    ------
    ValueError
        A parameter out of its range, naming it (``k`` above ``n`` included).

    Notes
    -----
    O(n d) time.

    Examples
    --------
    >>> inst, meta = random_instance(30, d=3, cardinality=3, m=4, t=0.3, k=2, seed=0)
    >>> inst.n, inst.d, inst.n_values, inst.k
    (30, 3, 4, 2)
    """
    n = check_int("n", n, low=1)
    d = check_int("d", d, low=1)
    cardinality = check_int("cardinality", cardinality, low=1)
    m = check_int("m", m, low=1)
    t = check_number("t", t, low=0, high=1)
    k = check_int("k", k, low=1, high=n, high_name="n")
    skew = check_number("skew", skew, low=0)
    correlation = check_number("correlation", correlation, low=0, high=1)
    ground = check_choice("ground", ground, GROUNDS)
    rng = check_random_state(seed)
    codes = rng.integers(0, cardinality, size=(n, d)).astype(np.int32)
    s = rng.choice(m, size=n, p=_zipf(m, skew, rng)).astype(np.int64)
    tied = rng.random(n) < correlation
    s[tied] = codes[tied, 0] % m
    table = Table(
        codes,
        tuple(f"a{j}" for j in range(d)),
        tuple(tuple(str(v) for v in range(cardinality)) for _ in range(d)),
        sensitive=s,
        sensitive_values=tuple(str(v) for v in range(m)),
    )
    meta = {
        "generator": "random_instance",
        "n": n,
        "d": d,
        "cardinality": cardinality,
        "m": m,
        "t": t,
        "k": k,
        "skew": skew,
        "correlation": correlation,
        "ground": ground,
    }
    return TClosenessInstance(table, t, k, ground), meta
