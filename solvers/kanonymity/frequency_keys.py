"""Integer keys of generalized tuples, and the frequency-set cache of the lattice searches.

A tuple of group ids is keyed by one ``int64`` in mixed radix (:func:`mixed_key`); counting the
keys is a ``np.bincount`` while their span is small and a hash table otherwise
(:func:`factorize`). :func:`distinct_rows` gives the distinct rows of a code matrix in
lexicographic order, as ``np.unique(axis=0)`` does, from such keys. :func:`k_suppressed` is the
check of ``k``-anonymity alone on the rows of a frequency set: the tuples in classes of fewer
than ``k``, counted without building the set unless it is kept. :class:`BlockKeys` holds the keys
of blocks of attributes over the table's distinct rows, from which a node's key is combined;
:class:`SourceCache` holds computed sets for Samarati and Incognito to roll new ones up from.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

__all__ = [
    "mixed_key",
    "gathered_key",
    "factorize",
    "distinct_rows",
    "k_suppressed",
    "failing_within",
    "BlockKeys",
    "SourceCache",
]

#: keys below ``DENSE * rows + DENSE_MIN`` are counted by ``np.bincount``, others hashed
DENSE, DENSE_MIN = 4, 4096

#: the same for :func:`k_suppressed`, which counts without numbering the classes (measured on
#: Adult: 16 is about 10 % faster than 4)
DENSE_CHECK = 16

#: level combinations a block of :class:`BlockKeys` spans at most
BLOCK_COMBOS = 64

#: bytes of block keys :class:`BlockKeys` holds at most
BLOCK_BYTES = 32 * 2**20


def mixed_key(cols: list[np.ndarray], radix: list[int], n_rows: int) -> tuple[np.ndarray, int]:
    """One int64 key per row, equal exactly when the rows of ``cols`` are, and a bound on the
    keys (mixed radix: ``cols[0]`` most significant, so the keys sort as the rows do; compressed
    by factorizing whenever the next digit could overflow, which keeps the equality only)."""
    if not cols:
        return np.zeros(n_rows, dtype=np.int64), 1
    key = np.array(cols[0], dtype=np.int64)  # a copy: updated in place below
    bound = radix[0]
    for c, r in zip(cols[1:], radix[1:], strict=True):
        if bound * r >= 2**62:
            key, bound = factorize(key)
        key *= r
        key += c
        bound *= r
    return key, bound


def gathered_key(
    cols: list[np.ndarray], radix: list[int], rep: np.ndarray | None, n_rows: int
) -> tuple[np.ndarray, int]:
    """:func:`mixed_key` of the columns taken at rows ``rep`` (all rows when ``None``), gathered
    straight into the key (no copy of a column)."""
    if not cols:
        return np.zeros(n_rows, dtype=np.int64), 1
    key = cols[0][rep] if rep is not None else np.array(cols[0], dtype=np.int64)
    bound = radix[0]
    for c, r in zip(cols[1:], radix[1:], strict=True):
        if bound * r >= 2**62:
            key, bound = factorize(key)
        key *= r
        key += c[rep] if rep is not None else c
        bound *= r
    return key, bound


def factorize(key: np.ndarray, uniques: bool = False, span: int | None = None):
    """``(codes, number of distinct keys)``, or ``(codes, distinct keys)`` with ``uniques``.

    Keys below a small ``span`` are counted by ``np.bincount`` (codes in increasing key order);
    others are hashed (codes in order of first appearance).
    """
    if not uniques and span is not None and span <= DENSE * len(key) + DENSE_MIN:
        present = np.bincount(key, minlength=span) > 0
        rank = np.cumsum(present) - 1
        return rank[key], int(present.sum())
    codes, uniq = pd.factorize(key, sort=False)
    codes = codes.astype(np.int64, copy=False)
    return (codes, np.asarray(uniq, dtype=np.int64)) if uniques else (codes, len(uniq))


def distinct_rows(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``np.unique(codes, axis=0, return_inverse=True, return_counts=True)`` for a matrix of
    non-negative integers: the same rows in the same (lexicographic) order, sorted as one int64
    key per row when the radix product fits (else by ``np.unique`` itself)."""
    n, m = codes.shape
    radix = [int(c.max()) + 1 if n else 1 for c in codes.T]
    if m == 0 or math.prod(radix) >= 2**62:
        rows, inverse, counts = np.unique(codes, axis=0, return_inverse=True, return_counts=True)
        return rows, inverse.reshape(-1), counts
    key, _ = mixed_key(list(codes.T), radix, n)
    _, first, inverse, counts = np.unique(
        key, return_index=True, return_inverse=True, return_counts=True
    )
    return codes[first], inverse.reshape(-1), counts


def k_suppressed(
    key: np.ndarray,
    bound: int,
    weights: np.ndarray,
    k: int,
    keep: Callable[[int], float] | bool,
    rep: np.ndarray | None = None,
) -> tuple[int, np.ndarray | None, np.ndarray | None]:
    """The tuples in classes of fewer than ``k`` among rows keyed ``key < bound`` weighing
    ``weights``; and when ``keep`` is true, or ``keep(those tuples)`` is at least the number of
    classes, a row of each class (its position, or its entry of ``rep`` when given) and the
    class counts, else ``None`` twice.

    One ``np.bincount`` over the key span when it is small (the classes are then listed only
    when kept), else a hash of the keys.
    """
    if bound <= DENSE_CHECK * len(key) + DENSE_MIN:
        full = np.bincount(key, weights=weights, minlength=bound)
        small = int(weights[full[key] < k].sum())  # over the rows: fewer than the span
        limit = keep(small) if callable(keep) else (np.inf if keep else -1)
        if limit < 0:
            return small, None, None
        present = full > 0  # faster than testing the float counts themselves
        if limit < np.inf and np.count_nonzero(present) > limit:
            return small, None, None
        classes = np.flatnonzero(present)
        first = np.empty(bound, dtype=np.int64)  # a row of each class: any one serves
        first[key] = np.arange(len(key)) if rep is None else rep
        return small, first[classes], full[classes].astype(np.int64)
    codes, uniq = pd.factorize(key, sort=False)
    counts = np.bincount(codes, weights=weights, minlength=len(uniq))
    small = int(counts[counts < k].sum())
    if len(uniq) > (keep(small) if callable(keep) else (np.inf if keep else -1)):
        return small, None, None
    first = np.empty(len(uniq), dtype=np.int64)
    first[codes[::-1]] = np.arange(len(key) - 1, -1, -1) if rep is None else rep[::-1]
    return small, first, counts.astype(np.int64)


def failing_within(rows: float) -> Callable[[bool], float]:
    """The ``keep`` rule of :meth:`~anonratio.solvers.kanonymity.full_domain.Lattice.check`
    that keeps a failing node's set of at most ``rows`` rows and no satisfying node's (the
    nodes above a satisfying node satisfy: a pruning search never rolls one up)."""
    return lambda ok: -1.0 if ok else rows


class BlockKeys:
    """The mixed-radix keys of the base rows over blocks of consecutive attributes, held per
    block and levels: a node's key is then combined from a few block keys instead of one column
    per attribute, the same key (mixed radix is associative).

    Parameters
    ----------
    cols : list of list of numpy.ndarray
        ``cols[j][t]``: the base rows' group ids of attribute ``j`` at level ``t``.
    radix : list of list of int
        ``radix[j][t]``: the number of groups of attribute ``j`` at level ``t``.

    Notes
    -----
    A block spans at most :data:`BLOCK_COMBOS` level combinations and a radix product below
    ``2**62``; at most :data:`BLOCK_BYTES` of keys are held (the others are computed on each
    call).
    """

    def __init__(self, cols: list[list[np.ndarray]], radix: list[list[int]]) -> None:
        self.cols, self.radix = cols, radix
        self.blocks: list[tuple[int, int]] = []
        start = 0
        for j in range(1, len(cols) + 1):
            span = math.prod(len(c) for c in cols[start : j + 1])
            wide = math.prod(r[0] for r in radix[start : j + 1])
            if j == len(cols) or span > BLOCK_COMBOS or wide >= 2**62:
                self.blocks.append((start, j))
                start = j
        self.held: dict[tuple[tuple[int, int], ...], tuple[np.ndarray, int]] = {}
        self.room = BLOCK_BYTES

    def columns(
        self, attrs: tuple[int, ...], levels: tuple[int, ...]
    ) -> tuple[list[np.ndarray], list[int]]:
        """The block keys of the base rows for attributes ``attrs`` at ``levels``, and their
        bounds: :func:`mixed_key` of them equals that of the attributes' columns taken in
        increasing attribute order (rows have equal keys in both exactly when they agree)."""
        full = len(attrs) == len(self.cols)  # then attrs is 0 .. m - 1
        at = None if full else dict(zip(attrs, levels, strict=True))
        cols, radix = [], []
        for a, b in self.blocks:
            if at is None:
                sub = tuple(zip(range(a, b), levels[a:b], strict=True))
            else:
                sub = tuple((j, at[j]) for j in range(a, b) if j in at)
            if len(sub) == 1:
                cols.append(self.cols[sub[0][0]][sub[0][1]])
                radix.append(self.radix[sub[0][0]][sub[0][1]])
                continue
            got = self.held.get(sub) if sub else (None, 1)
            if got is None:
                got = mixed_key(
                    [self.cols[j][t] for j, t in sub],
                    [self.radix[j][t] for j, t in sub],
                    len(self.cols[a][0]),
                )
                if got[0].nbytes <= self.room:
                    self.held[sub] = got
                    self.room -= got[0].nbytes
            if got[0] is not None:
                cols.append(got[0])
                radix.append(got[1])
        return cols, radix


class SourceCache:
    """Frequency sets of nodes already computed, to roll new ones up from the smallest below.

    Holds at most ``capacity`` sets (the largest are dropped first).
    """

    def __init__(self, width: int, capacity: int = 512) -> None:
        self.nodes = np.zeros((capacity + 1, width), dtype=np.int8)
        self.sizes = np.zeros(capacity + 1, dtype=np.int64)
        self.sets: list = []
        self.capacity = capacity

    def add(self, node: Sequence[int], fs) -> None:
        i = len(self.sets)
        self.nodes[i], self.sizes[i] = np.asarray(node, dtype=np.int8), len(fs.counts)
        self.sets.append(fs)
        if len(self.sets) > self.capacity:
            drop = int(np.argmax(self.sizes[: len(self.sets)]))
            self.nodes[drop : self.capacity] = self.nodes[drop + 1 : self.capacity + 1]
            self.sizes[drop : self.capacity] = self.sizes[drop + 1 : self.capacity + 1]
            del self.sets[drop]

    def room(self) -> float:
        """The most rows a set added now may have and stay held (when full, the largest set
        goes: a set larger than every held one would go at once)."""
        if len(self.sets) < self.capacity:
            return math.inf
        return float(self.sizes[: len(self.sets)].max())

    def below(self, node: Sequence[int]):
        """The cached set with the fewest rows among the nodes at or below ``node`` (the first
        held of them on a tie)."""
        if not self.sets:
            return None
        held = len(self.sets)
        ok = np.all(self.nodes[:held] <= np.asarray(node, dtype=np.int8), axis=1)
        if not ok.any():
            return None
        return self.sets[int(np.argmin(np.where(ok, self.sizes[:held], np.iinfo(np.int64).max)))]
