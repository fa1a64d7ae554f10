"""Exact k-anonymity as set partitioning over groups, shared by the CP-SAT and ILP solvers.

The exact model is a set-partitioning program over *groups*: multisets of the ``u`` unique records
(record ``i`` has ``c_i`` identical copies) with ``k .. 2k − 1`` copies. A group ``G`` costs
``|G| * sum_j w_j L_j(G) / l_j``; ``z_G`` counts how often it is used and ``del_i`` how many copies
of ``i`` are deleted (row deletion only, each at ``sum_j w_j``)::

    min  sum_G cost_G z_G + (sum_j w_j) sum_i del_i
    s.t. sum_G mult_G(i) z_G + del_i = c_i      for every unique record i
         z_G, del_i >= 0 integer

Why it is exact and why it is small enough:

1. *Groups never need more than 2k − 1 records*: a larger group splits into two groups of at least
   ``k`` records, and levels only drop in a subset.
2. *Levels are an ultrametric*: hierarchies refine, so ``H_j(a, b) <= max(H_j(a, r), H_j(r, b))``
   and ``L_j(G) = max_{i in G} H_j(r, i)`` for any member ``r``; groups are enumerated from their
   lowest-numbered member (the *representative*) upwards, each multiset exactly once.
3. *Reduced-cost filtering*: for row prices ``pi`` with ``cost_G >= sum_{i in G} pi_i`` for every
   group and ``pi_i <= sum_j w_j`` (dual feasible), every partition costs
   ``pi·c + sum_G rc_G z_G + sum_i (sum_j w_j − pi_i) del_i`` with all terms ``>= 0``
   (``rc_G = cost_G − pi(G)``). So ``pi·c`` is a lower bound, and a partition of cost ``<= U`` uses
   only groups with ``rc_G <= U − pi·c``. The nearest-neighbour prices ``pi_i = d_i`` (distance to
   the (k − c_i)-th nearest other record; Aggarwal et al. 2005, §4.1) are dual feasible; column
   generation on the LP relaxation, stabilized around them, raises ``pi·c`` to (near) the LP bound.

The solve loop that uses all this is in :mod:`anonratio.exact.kanonymity.set_partitioning`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from time import perf_counter
from typing import Any

import highspy
import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from anonratio.instances import KAnonymityInstance, lower_bound
from anonratio.instances.errors import UnsupportedInstanceError
from anonratio.instances.kanonymity.instance import nn_prices

__all__ = [
    "KAnonData",
    "fits",
    "Columns",
    "prepare",
    "enumerate_groups",
    "column_generation",
    "initial_pool",
]

_EPS = 1e-7  # reduced-cost tolerance, objective units
_CHUNK = 2_000_000  # children generated per vectorized step


#: memory allowed for the (u, u) level and distance tables (bytes)
MAX_PAIR_BYTES = 1.5e9


class Timeout(Exception):
    """The deadline passed during an enumeration."""


class TooLarge(Exception):
    """The instance has too many unique records for the pairwise tables."""


def _check_time(deadline):
    if deadline is not None and perf_counter() > deadline:
        raise Timeout


# ---------------------------------------------------------------------------------------------
# data
# ---------------------------------------------------------------------------------------------
def _integer_scale(values, max_den=10**6, max_scale=10**9):
    """Smallest ``D`` making every ``D * v`` an integer (``v`` read as a fraction), or None."""
    d = 1
    for v in values:
        f = Fraction(float(v)).limit_denominator(max_den)
        if abs(float(f) - v) > 1e-12 * max(1.0, abs(v)):
            return None
        d = math.lcm(d, f.denominator)
    return d if d <= max_scale else None


@dataclass
class KAnonData:
    """The instance collapsed to unique records, with costs in *objective units* (cost × scale)."""

    instance: KAnonymityInstance
    unique: np.ndarray  # (u, m) unique records
    counts: np.ndarray  # (u,) copies c_i
    records: list  # original row indices of each unique record
    levels: np.ndarray  # (u, u, m) int8: H_j(r, i)
    a: np.ndarray  # (m,) cost of one level of attribute j per record: scale * w_j / l_j
    scale: float
    integral: bool  # every cost is an integer in objective units
    del_coef: float  # scale * sum_j w_j
    nn: np.ndarray  # (u,) nearest-neighbour prices d_i, objective units
    lb_nn: float  # max(sum_i c_i d_i, lower_bound(instance)), objective units

    @property
    def k(self) -> int:
        return self.instance.k

    @property
    def u(self) -> int:
        return len(self.counts)

    @property
    def width(self) -> int:
        return 2 * self.instance.k - 1


def fits(instance: KAnonymityInstance) -> bool:
    """Whether :func:`prepare`'s pairwise tables fit in ``MAX_PAIR_BYTES``."""
    u, m = len(instance.unique_records[2]), instance.table.codes.shape[1]
    return u * u * (m + 16) <= MAX_PAIR_BYTES


def prepare(
    instance: KAnonymityInstance, *, need_integral: bool = False, deadline: float | None = None
) -> KAnonData:
    """Collapse identical records and compute levels, scaled costs and nearest-neighbour prices;
    :class:`Timeout` when ``deadline`` (a ``perf_counter`` reading) passes first (checked after
    each attribute's pairwise levels, ``O(u^2)`` each)."""
    table = instance.table
    unique, inverse, counts = table.unique_records()
    records = np.split(np.argsort(inverse, kind="stable"), np.cumsum(counts)[:-1])
    u, m = unique.shape
    if not fits(instance):
        raise TooLarge(
            f"{u} unique records: the pairwise tables would exceed {MAX_PAIR_BYTES:.0e} B"
        )
    levels = np.zeros((u, u, m), dtype=np.int8)
    for j, h in enumerate(instance.hierarchies):
        _check_time(deadline)
        levels[:, :, j] = h.common_levels()[unique[:, j][:, None], unique[:, j][None, :]]
    _check_time(deadline)
    a = table.weights / instance.heights
    scale = _integer_scale([*a, instance.deletion_cost])
    if scale is None and need_integral:
        raise UnsupportedInstanceError(
            "CP-SAT needs integer objective coefficients: the weights w_j / l_j must be fractions "
            "with denominators <= 10^6 (use method='highs' for arbitrary weights)"
        )
    integral = scale is not None
    scale = float(scale or 1)
    nn = scale * nn_prices(instance)
    if integral:
        nn = np.rint(nn)
    lb_nn = max(float(nn @ counts), scale * lower_bound(instance)[0])
    return KAnonData(
        instance,
        unique,
        counts,
        records,
        levels,
        scale * a,
        scale,
        integral,
        scale * instance.deletion_cost,
        nn,
        lb_nn,
    )


def incidence(members: np.ndarray, u: int) -> sp.csr_matrix:
    """``A[i, G]`` = copies of record ``i`` in group ``G`` (CSR, u × N), for groups given as rows
    of unique-record ids padded with -1."""
    n, width = members.shape
    col = np.repeat(np.arange(n), width)
    row = members.reshape(-1)
    keep = row >= 0
    return sp.csr_matrix((np.ones(keep.sum()), (row[keep], col[keep])), shape=(u, n))


def cover_master(instance: KAnonymityInstance, counts: np.ndarray, seed: int) -> highspy.Highs:
    """A HiGHS LP with the cover rows ``= c_i`` and one slack column per row, ready for group
    columns: a deletion at its cost under row deletion, else an artificial at ``2k`` times it,
    so the master is always feasible (bounds come from pricing, never from its value)."""
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    h.setOptionValue("random_seed", int(seed))
    u, c = len(counts), np.asarray(counts, dtype=float)
    h.addRows(u, c, c, 0, np.zeros(u, np.int32), np.zeros(0, np.int32), np.zeros(0))
    slack = instance.deletion_cost * (1 if instance.row_deletion else 2 * instance.k)
    idx = np.arange(u, dtype=np.int32)
    h.addCols(
        u, np.full(u, slack), np.zeros(u), np.full(u, highspy.kHighsInf), u, idx, idx, np.ones(u)
    )
    return h


@dataclass
class Columns:
    """Groups as rows of unique-record ids (ascending, padded with -1) with their costs."""

    members: np.ndarray  # (N, 2k - 1) int64
    cost: np.ndarray  # (N,) objective units

    def __len__(self):
        return len(self.cost)

    @classmethod
    def concat(cls, parts: Iterable[Columns], width: int) -> Columns:
        parts = [p for p in parts if len(p)]
        if not parts:
            return cls(np.zeros((0, width), np.int64), np.zeros(0))
        mem = np.concatenate([p.members for p in parts])
        cost = np.concatenate([p.cost for p in parts])
        mem, first = np.unique(mem, axis=0, return_index=True)
        return cls(mem, cost[first])

    def incidence(self, u: int) -> sp.csr_matrix:
        """``A[i, G]`` = copies of record ``i`` in group ``G`` (CSR, u × N)."""
        return incidence(self.members, u)

    def zmax(self, a: sp.spmatrix, counts: np.ndarray) -> np.ndarray:
        """How often each group can be used: ``min_i floor(c_i / mult_G(i))``."""
        a = a.tocsc()
        ratio = counts[a.indices] // a.data.astype(np.int64)
        return np.minimum.reduceat(ratio, a.indptr[:-1]) if len(self) else np.zeros(0, np.int64)


# ---------------------------------------------------------------------------------------------
# enumeration of groups by reduced cost
# ---------------------------------------------------------------------------------------------
def enumerate_groups(
    d: KAnonData,
    pi: np.ndarray,
    threshold: float,
    *,
    max_partials: int = 2_000_000,
    max_columns: int = 1_000_000,
    deadline: float | None = None,
) -> tuple[Columns, np.ndarray, bool]:
    """Every group with reduced cost ``cost_G − pi(G) <= threshold``, grown from its representative.

    A partial group ``P`` (ascending members, ``s`` copies) grows only by records ``>= its last
    member``; its child ``C = P + {i}`` has ``rc_C = |C| p(C) − pi(C)`` (``p``: per-copy cost).
    A completion of ``C`` by ``t`` more copies ``j`` (each ``j >= i``) has
    ``rc >= rc_C + sum_j (p(G) − pi_j)`` with ``p(G) >= max(p(C), p(P + {j}))``, so each copy
    adds at least ``p(C) − max_{j >= i} pi_j`` and at least ``min_{j >= i} (p(P + {j}) − pi_j)``
    (a suffix minimum over the children of ``P``). Children whose best completion, with ``t`` in
    ``[max(0, k − |C|), 2k − 1 − |C|]``, exceeds ``threshold`` are not grown.

    Returns
    -------
    columns : Columns
    rc : ndarray — their reduced costs
    exhaustive : bool
        False when ``max_partials`` or ``max_columns`` cut the search (then ``columns`` holds the
        best ones found, by bound or reduced cost).

    Raises
    ------
    Timeout
        When ``deadline`` passes.
    """
    k, u, width, counts = d.k, d.u, d.width, d.counts
    pi = np.asarray(pi, dtype=float)
    smax = np.maximum.accumulate(pi[::-1])[::-1]  # largest price among records >= i
    thr = threshold + _EPS
    mem = np.arange(u)[:, None]
    lev = np.zeros((u, d.levels.shape[2]), dtype=np.int8)
    pis = pi.copy()
    run = np.ones(u, dtype=np.int64)  # copies of the last member already in the group
    out_mem: list[np.ndarray] = []
    out_cost: list[np.ndarray] = []
    out_rc: list[np.ndarray] = []
    exhaustive, n_out = True, 0
    for s in range(1, width):  # grow partial groups of s copies to s + 1
        size, keep_growing = s + 1, s + 1 < width
        tmin, tmax = max(0, k - size), width - size
        last = mem[:, -1]
        start = np.where(run < counts[last], last, last + 1)
        order = np.argsort(start, kind="stable")  # similar starts share a grid block
        nxt, lo = [], 0
        while lo < len(mem):
            _check_time(deadline)
            first = start[order[lo]]
            rows = max(1, _CHUNK // max(1, u - first))
            blk = order[lo : lo + rows]
            lo += len(blk)
            if first >= u:
                continue
            kids = _children(d, pi, mem, lev, pis, blk, first, start, size)
            if size >= k:  # the children are groups: keep those of reduced cost <= threshold
                n_out += _emit(kids, mem[blk], size, width, thr, out_mem, out_cost, out_rc)
            if keep_growing:
                nxt.append(_grown(d, pi, smax, kids, blk, mem, pis, last, run, tmin, tmax, thr))
            if n_out > max_columns:
                out_mem, out_cost, out_rc = _best(out_mem, out_cost, out_rc, max_columns)
                n_out, exhaustive = max_columns, False
            if sum(len(x[0]) for x in nxt) > 2 * max_partials:  # keep memory bounded
                nxt, exhaustive = [_best_partials(nxt, max_partials)], False
        if not keep_growing or not nxt:
            break
        mem, lev, pis, run, bound = _best_partials(nxt, max_partials)
        exhaustive = exhaustive and len(mem) < max_partials
        if len(mem) == 0:
            break
    if not out_mem:
        return Columns.concat([], width), np.zeros(0), exhaustive
    return (
        Columns(np.concatenate(out_mem), np.concatenate(out_cost)),
        np.concatenate(out_rc),
        exhaustive,
    )


@dataclass
class _Children:
    """The children ``P + {i}`` (``i`` in ``cand``) of a block of partial groups ``P``."""

    cand: np.ndarray  # (W,) the records i >= the block's first start
    valid: np.ndarray  # (B, W) i is a child of the partial (i >= its start)
    clev: np.ndarray  # (B, W, m) levels of each child
    p: np.ndarray  # (B, W) per-copy cost of each child
    rc: np.ndarray  # (B, W) reduced cost of each child (inf where not valid)


def _children(d, pi, mem, lev, pis, blk, first, start, size):
    """Levels, per-copy costs and reduced costs of the children of the partials ``blk``."""
    cand = np.arange(first, d.u)
    valid = cand[None, :] >= start[blk][:, None]  # (B, W) the children of each partial
    clev = np.maximum(lev[blk][:, None, :], d.levels[mem[blk, 0]][:, first:, :])
    p = clev @ d.a  # per-copy cost of each child
    rc = size * p - (pis[blk][:, None] + pi[cand][None, :])
    rc[~valid] = np.inf
    return _Children(cand, valid, clev, p, rc)


def _emit(kids, parents, size, width, thr, out_mem, out_cost, out_rc):
    """Append the children with ``rc <= thr`` (groups of ``size`` copies) to the outputs; count."""
    s = size - 1
    bi, ci = np.nonzero(kids.rc <= thr)
    if len(bi):
        grp = np.full((len(bi), width), -1, dtype=np.int64)
        grp[:, :s] = parents[bi]
        grp[:, s] = kids.cand[ci]
        out_mem.append(grp)
        out_cost.append(size * kids.p[bi, ci])
        out_rc.append(kids.rc[bi, ci])
    return len(bi)


def _grown(d, pi, smax, kids, blk, mem, pis, last, run, tmin, tmax, thr):
    """The children worth growing (best completion ``<= thr``), as a partial-groups tuple."""
    cand, valid, clev, p, rc = kids.cand, kids.valid, kids.clev, kids.p, kids.rc
    counts = d.counts
    # each further copy j >= i pays at least p(P + {j}) - pi_j: suffix minimum
    delta = np.where(valid, p - pi[cand][None, :], np.inf)
    suffix = np.minimum.accumulate(delta[:, ::-1], axis=1)[:, ::-1]
    after = np.concatenate([suffix[:, 1:], np.full((len(blk), 1), np.inf)], axis=1)
    crun = np.where(cand[None, :] == last[blk][:, None], run[blk][:, None] + 1, 1)
    m_new = np.where(crun < counts[cand][None, :], suffix, after)
    m_old = p - smax[cand][None, :]
    with np.errstate(invalid="ignore"):
        add_new = tmin * m_new + (tmax - tmin) * np.minimum(m_new, 0.0)
        add_old = np.where(m_old >= 0, tmin * m_old, tmax * m_old)
        bound = rc + np.maximum(np.nan_to_num(add_new, nan=0.0), add_old)
    bi, ci = np.nonzero(bound <= thr)
    return (
        np.column_stack([mem[blk[bi]], cand[ci]]),
        clev[bi, ci],
        pis[blk[bi]] + pi[cand[ci]],
        crun[bi, ci],
        bound[bi, ci],
    )


def _best_partials(parts, n):
    """Concatenate partial groups, keeping the ``n`` with the lowest completion bound."""
    mem, lev, pis, run, bound = (np.concatenate(x) for x in zip(*parts, strict=True))
    if len(mem) > n:
        best = np.argpartition(bound, n)[:n]
        mem, lev, pis, run, bound = mem[best], lev[best], pis[best], run[best], bound[best]
    return mem, lev, pis, run, bound


def _best(mem, cost, rc, n):
    mem, cost, rc = np.concatenate(mem), np.concatenate(cost), np.concatenate(rc)
    best = np.argpartition(rc, n)[:n]
    return [mem[best]], [cost[best]], [rc[best]]


# ---------------------------------------------------------------------------------------------
# column generation: a dual-feasible price vector with a high bound
# ---------------------------------------------------------------------------------------------
def _master_lp(d, cols, deadline):
    """LP relaxation of set partitioning over ``cols``; returns ``(value, row prices)`` or None.

    Every row gets a slack column: deletion at its cost, or (without row deletion) an artificial
    column at a high cost, so the LP is always feasible. Extra columns only lower the LP, and the
    prices are used only once checked dual feasible, so the cost of the artificials is a tuning
    choice, not a correctness one.
    """
    slack = d.del_coef if d.instance.row_deletion else d.width * d.del_coef
    a = sp.hstack([cols.incidence(d.u), sp.identity(d.u)]).tocsr()
    c = np.concatenate([cols.cost, np.full(d.u, slack)])
    left = max(0.1, deadline - perf_counter())
    res = linprog(
        c, A_eq=a, b_eq=d.counts, bounds=(0, None), method="highs", options={"time_limit": left}
    )
    if res.status != 0:
        return None
    return float(res.fun), np.asarray(res.eqlin.marginals, dtype=float)


def column_generation(
    d: KAnonData,
    pool: Columns,
    *,
    deadline: float,
    max_new: int | None = None,
    max_iter: int = 200,
) -> tuple[np.ndarray, float, Columns, dict[str, Any]]:
    """Raise the lower bound from the nearest-neighbour prices towards the LP bound.

    Wentges-stabilized column generation: price at ``alpha * center + (1 − alpha) * pi_LP``; when
    an exhaustive pricing finds no negative group, that point is dual feasible and becomes the
    center if its bound ``pi·c`` is higher. Returns ``(center, bound, pool, info)``; ``center`` is
    always dual feasible (it starts at the nearest-neighbour prices).
    """
    max_new = max_new or 20 * d.u
    center, bound = d.nn.astype(float), float(d.nn @ d.counts)
    alpha, info = 0.5, {"cg_iterations": 0, "cg_lp": None}
    roundup = (lambda x: math.ceil(x - 1e-6)) if d.integral else (lambda x: x)
    try:
        for it in range(max_iter):
            _check_time(deadline)
            lp = _master_lp(d, pool, deadline)
            if lp is None:
                break
            value, pi = lp
            info.update(cg_iterations=it + 1, cg_lp=value / d.scale)
            if roundup(bound) >= roundup(value) - 1e-9 * max(1.0, value):
                break  # the bound reached the LP value of the master
            for point in (alpha * center + (1 - alpha) * pi, pi):
                cols, rc, exhaustive = enumerate_groups(
                    d,
                    point,
                    -2 * _EPS,
                    max_partials=300_000,
                    max_columns=max_new,
                    deadline=deadline,
                )
                if len(cols):
                    pool = Columns.concat([pool, cols], d.width)
                    break
                if exhaustive:  # no group with negative reduced cost: the point is dual feasible
                    b = float(point @ d.counts) - _EPS * d.instance.n
                    if b > bound:
                        center, bound = point, b
                else:
                    alpha = min(0.9, alpha + 0.2)
                    break
            else:
                break  # the LP prices are dual feasible: the LP is solved
    except Timeout:
        pass
    return center, bound, pool, info


def initial_pool(
    d: KAnonData, *, deadline: float, target: int | None = None, max_columns: int = 50_000
) -> Columns:
    """Groups of small reduced cost at the nearest-neighbour prices (about ``10 u`` of them)."""
    target = target or 10 * d.u
    thr, cols = max(float(d.a.min()), 1e-9), Columns.concat([], d.width)
    try:
        for _ in range(12):
            more, _, exhaustive = enumerate_groups(
                d, d.nn, thr, max_columns=max_columns, deadline=deadline
            )
            cols = more
            if len(cols) >= target or not exhaustive:
                break
            thr *= 2
    except Timeout:
        pass
    return cols
