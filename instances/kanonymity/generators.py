"""Random tables for k-anonymity: binary, categorical, Adult-like with hierarchies, planted groups.

Every generator takes ``seed`` (an int ``>= 0``, a :class:`numpy.random.Generator` or ``None``),
converts it once with :func:`~anonratio.instances.validation.check_random_state` and touches no
global random state, so the same seed gives the same table. The generators return a
:class:`~anonratio.instances.Table` (or a :class:`~anonratio.instances.Hierarchy`); wrap it in
:class:`~anonratio.instances.KAnonymityInstance` to fix ``k``, the model and row deletion.
"""

from typing import Any, Literal, overload

import numpy as np

from anonratio.instances.table import SUPPRESSED, Hierarchy, Table
from anonratio.instances.validation import (
    SeedLike,
    check_int,
    check_number,
    check_probability,
    check_random_state,
)

__all__ = [
    "random_hierarchy",
    "random_table",
    "binary_table",
    "categorical_table",
    "planted_table",
]


# ---------------------------------------------------------------------------------------------
# validation helpers
# ---------------------------------------------------------------------------------------------
def _check_range(name: str, value: Any, low: int) -> tuple[int, int]:
    """An int or a ``(lo, hi)`` pair of ints with ``low <= lo <= hi``; returns ``(lo, hi)``."""
    try:
        lo, hi = (value, value) if np.ndim(value) == 0 else value
        lo = check_int(name, lo, low=low)
        return lo, check_int(name, hi, low=lo)
    except (TypeError, ValueError):
        raise ValueError(
            f"`{name}` must be an integer or a (low, high) pair of integers with "
            f"{low} <= low <= high, got {value!r}"
        ) from None


def _check_levels(n_values: int, n_levels: int) -> None:
    if n_levels > 1 and n_values < n_levels + 1:
        raise ValueError(
            f"`n_levels` must be 1 or at most n_values - 1 = {n_values - 1} (each level must "
            f"merge some groups), got {n_levels}"
        )


# ---------------------------------------------------------------------------------------------
# hierarchies
# ---------------------------------------------------------------------------------------------
def random_hierarchy(n_values: int, n_levels: int, *, seed: SeedLike = None) -> Hierarchy:
    """A random nested interval hierarchy on ``n_values`` ordered values with ``n_levels`` steps.

    Level 0 holds the values ``"0" .. "n_values-1"``; each level ``t`` in ``1 .. n_levels-1``
    merges runs of consecutive groups of level ``t-1`` into ranges labelled ``"[lo-hi]"`` (like
    ARX interval hierarchies), with strictly fewer groups at every level (about
    ``n_values ** (1 - t / n_levels)`` of them); level ``n_levels`` is the single group ``"*"``.
    So the result has ``height == n_levels`` and every level refines the next.

    Parameters
    ----------
    n_values : int
        Number of values (>= 1).
    n_levels : int
        Height ``l`` of the hierarchy (>= 1); 1 is plain suppression. Needs
        ``n_values >= n_levels + 1`` when ``n_levels > 1``.
    seed : int, numpy.random.Generator or None

    Returns
    -------
    Hierarchy

    Notes
    -----
    O(n_values · n_levels) time.

    References
    ----------
    Aggarwal et al., "Approximation Algorithms for k-Anonymity", 2005, §2 (generalization
    hierarchies, cost ``r / l_j`` for level ``r``).

    Examples
    --------
    >>> h = random_hierarchy(8, 3, seed=0)
    >>> h.height, h.labels[-1]
    (3, ('*',))
    """
    n_values = check_int("n_values", n_values, low=1)
    n_levels = check_int("n_levels", n_levels, low=1)
    _check_levels(n_values, n_levels)
    return _random_hierarchy(n_values, n_levels, check_random_state(seed))


def _level_counts(n: int, height: int, rng: np.random.Generator) -> list[int]:
    """Strictly decreasing group counts ``n = c_0 > c_1 > ... > c_height = 1``."""
    counts = [n]
    for t in range(1, height):
        target = n ** ((height - t) / height) * np.exp(rng.uniform(-0.3, 0.3))
        lo, hi = height - t + 1, counts[-1] - 1  # leave room for the levels above
        counts.append(int(np.clip(round(target), lo, hi)))
    counts.append(1)
    return counts


def _random_hierarchy(n: int, height: int, rng: np.random.Generator) -> Hierarchy:
    names = [str(v) for v in range(n)]
    columns, labels = [np.arange(n)], [tuple(names)]
    starts = np.arange(n)  # first value of every group of the current level
    for c in _level_counts(n, height, rng)[1:-1]:
        # c runs of consecutive groups, each of 1 + a multinomial share of the rest: random but
        # roughly balanced, like the interval hierarchies ARX builds
        sizes = 1 + rng.multinomial(len(starts) - c, np.full(c, 1.0 / c))
        cuts = np.cumsum(sizes)[:-1]
        starts = np.concatenate([[0], starts[cuts]])
        ends = np.append(starts[1:], n) - 1
        columns.append(np.searchsorted(starts, np.arange(n), side="right") - 1)
        labels.append(tuple(f"[{names[a]}-{names[b]}]" for a, b in zip(starts, ends, strict=True)))
    columns.append(np.zeros(n, dtype=np.int64))
    labels.append((SUPPRESSED,))
    return Hierarchy(np.column_stack(columns), tuple(labels))


# ---------------------------------------------------------------------------------------------
# tables
# ---------------------------------------------------------------------------------------------
def _frequencies(c: int, zipf: float | None, rng: np.random.Generator) -> np.ndarray | None:
    if zipf is None or zipf == 0:
        return None
    ranks = rng.permutation(c) + 1.0
    p = ranks**-zipf
    return p / p.sum()


def random_table(
    n: int,
    m: int,
    *,
    cardinality: int | tuple[int, int] = (10, 40),
    levels: int | tuple[int, int] = (3, 5),
    zipf: float | None = None,
    seed: SeedLike = None,
) -> Table:
    """An Adult-like random table: ``m`` attributes with tens of values and 3–5 level hierarchies.

    Attribute ``j`` (named ``"a<j>"``) draws its cardinality ``c_j`` uniformly from
    ``cardinality`` and its height ``l_j`` uniformly from ``levels`` (capped at ``c_j - 1``), gets
    a :func:`random_hierarchy`, and each record draws its value independently: uniformly, or with
    Zipf-skewed frequencies ``p(v) ∝ rank(v) ** -zipf`` over a random ranking of the values.

    Parameters
    ----------
    n, m : int
        Records (>= 1) and attributes (>= 1).
    cardinality : int or (int, int)
        Values per attribute, or an inclusive range (>= 1). Adult's QIs have 2 to 100.
    levels : int or (int, int)
        Hierarchy heights, or an inclusive range (>= 1).
    zipf : float, optional
        Skew exponent (>= 0); ``None`` or 0 for uniform frequencies.
    seed : int, numpy.random.Generator or None

    Returns
    -------
    Table
        With a hierarchy for every attribute; use ``model="generalization"`` to use them.

    Notes
    -----
    O(n · m + Σ_j c_j · l_j) time.

    References
    ----------
    Aggarwal et al., "Approximation Algorithms for k-Anonymity", 2005, §2 (k-anonymity with
    generalization).

    Examples
    --------
    >>> t = random_table(50, 4, seed=1)
    >>> t.codes.shape, all(3 <= h.height <= 5 for h in t.hierarchies)
    ((50, 4), True)
    """
    n = check_int("n", n, low=1)
    m = check_int("m", m, low=1)
    c_lo, c_hi = _check_range("cardinality", cardinality, 1)
    l_lo, l_hi = _check_range("levels", levels, 1)
    zipf = check_number("zipf", zipf, low=0, allow_none=True)
    rng = check_random_state(seed)
    codes = np.empty((n, m), dtype=np.int32)
    values: list[tuple[str, ...]] = []
    hierarchies: list[Hierarchy] = []
    for j in range(m):
        c = int(rng.integers(c_lo, c_hi + 1))
        height = min(int(rng.integers(l_lo, l_hi + 1)), max(1, c - 1))
        h = _random_hierarchy(c, height, rng)
        codes[:, j] = rng.choice(c, size=n, p=_frequencies(c, zipf, rng))
        values.append(h.labels[0])
        hierarchies.append(h)
    return Table(codes, tuple(f"a{j}" for j in range(m)), tuple(values), tuple(hierarchies))


def categorical_table(n: int, m: int, alphabet: int, *, seed: SeedLike = None) -> Table:
    """A table of ``n`` × ``m`` i.i.d. uniform values in ``0 .. alphabet-1``.

    Every attribute (named ``"a<j>"``) has the value labels ``"0" .. "alphabet-1"`` (all of them,
    used or not) and no hierarchy, so generalization equals suppression. ``alphabet = 3`` gives
    the ternary tables of the NP-hardness result.

    Parameters
    ----------
    n, m : int
        Records and attributes (>= 1).
    alphabet : int
        Alphabet size (>= 2).
    seed : int, numpy.random.Generator or None

    Returns
    -------
    Table

    Notes
    -----
    O(n · m) time.

    References
    ----------
    Aggarwal et al., "Approximation Algorithms for k-Anonymity", 2005, §3 (ternary alphabet),
    §5–§6 (binary alphabet).

    Examples
    --------
    >>> categorical_table(4, 2, 3, seed=0).values[0]
    ('0', '1', '2')
    """
    n = check_int("n", n, low=1)
    m = check_int("m", m, low=1)
    alphabet = check_int("alphabet", alphabet, low=2)
    rng = check_random_state(seed)
    codes = rng.integers(0, alphabet, size=(n, m), dtype=np.int32)
    labels = tuple(str(v) for v in range(alphabet))
    return Table(codes, tuple(f"a{j}" for j in range(m)), (labels,) * m)


def binary_table(n: int, m: int, *, seed: SeedLike = None) -> Table:
    """A uniform random binary table: :func:`categorical_table` with ``alphabet=2``.

    On a binary alphabet suppression and generalization coincide, which is where the 1.5 and 2
    guarantees of the factor algorithms hold.

    Parameters
    ----------
    n, m : int
        Records and attributes (>= 1).
    seed : int, numpy.random.Generator or None

    Returns
    -------
    Table

    Notes
    -----
    O(n · m) time.

    References
    ----------
    Aggarwal et al., "Approximation Algorithms for k-Anonymity", 2005, §5–§6.

    Examples
    --------
    >>> bool(binary_table(3, 2, seed=0).codes.max() <= 1)
    True
    """
    return categorical_table(n, m, 2, seed=seed)


@overload
def planted_table(
    n: int,
    m: int,
    *,
    n_groups: int | None = ...,
    noise: float = ...,
    cardinality: int = ...,
    levels: int | tuple[int, int] | None = ...,
    seed: SeedLike = ...,
    return_labels: Literal[False] = ...,
) -> Table: ...
@overload
def planted_table(
    n: int,
    m: int,
    *,
    n_groups: int | None = ...,
    noise: float = ...,
    cardinality: int = ...,
    levels: int | tuple[int, int] | None = ...,
    seed: SeedLike = ...,
    return_labels: Literal[True],
) -> tuple[Table, np.ndarray]: ...
def planted_table(
    n: int,
    m: int,
    *,
    n_groups: int | None = None,
    noise: float = 0.1,
    cardinality: int = 10,
    levels: int | tuple[int, int] | None = None,
    seed: SeedLike = None,
    return_labels: bool = False,
) -> Table | tuple[Table, np.ndarray]:
    """Records around ``n_groups`` random prototypes: each cell is its prototype's w.p. 1 - noise.

    The records are split into ``n_groups`` groups of sizes differing by at most one (in random
    order); each group has a uniform random prototype over ``cardinality`` values per attribute,
    and each cell copies its group's prototype with probability ``1 - noise``, else takes a uniform
    random value. With small noise the planted partition is a good (cheap) k-anonymous partition
    whenever ``n / n_groups >= k``.

    Parameters
    ----------
    n, m : int
        Records and attributes (>= 1).
    n_groups : int, optional
        Number of prototypes, in ``[1, n]`` (default ``max(1, n // 10)``).
    noise : float
        Probability in ``[0, 1]`` that a cell is redrawn at random.
    cardinality : int
        Values per attribute (>= 2).
    levels : int or (int, int), optional
        If given, every attribute gets a :func:`random_hierarchy` of that height (capped at
        ``cardinality - 1``); otherwise no hierarchies.
    seed : int, numpy.random.Generator or None
    return_labels : bool
        Also return the planted group of every record.

    Returns
    -------
    Table, or (Table, ndarray of int64) with ``return_labels``

    Notes
    -----
    O(n · m) time.

    References
    ----------
    Aggarwal et al., "Approximation Algorithms for k-Anonymity", 2005 (the problem); planted
    partitions are this suite's own benchmark family.

    Examples
    --------
    >>> t, g = planted_table(12, 5, n_groups=3, noise=0.0, seed=0, return_labels=True)
    >>> len(set(map(tuple, t.codes)))
    3
    """
    n = check_int("n", n, low=1)
    m = check_int("m", m, low=1)
    n_groups = (
        max(1, n // 10) if n_groups is None else check_int("n_groups", n_groups, low=1, high=n)
    )
    cardinality = check_int("cardinality", cardinality, low=2)
    noise = check_probability("noise", noise)
    rng = check_random_state(seed)
    labels = rng.permutation(np.arange(n) % n_groups).astype(np.int64)
    prototypes = rng.integers(0, cardinality, size=(n_groups, m))
    codes = prototypes[labels]
    redraw = rng.random((n, m)) < noise
    codes[redraw] = rng.integers(0, cardinality, size=int(redraw.sum()))
    names = tuple(f"a{j}" for j in range(m))
    if levels is None:
        vals = tuple(str(v) for v in range(cardinality))
        table = Table(codes, names, (vals,) * m)
    else:
        l_lo, l_hi = _check_range("levels", levels, 1)
        hier: list[Hierarchy] = []
        for _ in range(m):
            height = min(int(rng.integers(l_lo, l_hi + 1)), cardinality - 1)
            hier.append(_random_hierarchy(cardinality, height, rng))
        table = Table(codes, names, tuple(h.labels[0] for h in hier), tuple(hier))
    return (table, labels) if return_labels else table
