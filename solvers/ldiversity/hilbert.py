"""Hilbert: order the records along a Hilbert curve over the QI codes and cut the order into
consecutive l-eligible groups (Ghinita, Karras, Kalnis and Mamoulis, VLDB 2007; the baseline of
Xiao, Yi and Tao 2010, §6.1).

The curve is Skilling's transform ("Programming the Hilbert curve", AIP Conf. Proc. 707, 2004),
vectorized over the distinct QI points (no Hilbert library is installed). The cut is chosen by a
dynamic program over the order that is optimal for the instance's objective among cuts whose
groups hold at most ``window`` records, except that the first and the last group may be of any
length (so the one-group cut, feasible because the whole table is l-eligible, is always a
candidate).
"""

from __future__ import annotations

from time import perf_counter
from typing import Any

import numpy as np

from anonratio.instances import Solution, lower_bound
from anonratio.instances.ldiversity.instance import LDiversityInstance, qi_groups
from anonratio.instances.validation import check_instance, check_int, check_seed

from .metrics import suppression_counts

__all__ = ["hilbert", "hilbert_order", "hilbert_partition", "optimal_cuts", "skilling_transpose"]

_INF = np.iinfo(np.int64).max // 4


def skilling_transpose(x: np.ndarray, bits: int) -> np.ndarray:
    """Skilling's ``AxestoTranspose`` on the columns of ``x`` (shape ``(d, N)``, codes ``<
    2**bits``): the Hilbert index of each point in "transposed" form (its bits, most significant
    first, are bit ``bits-1`` of rows ``0..d-1``, then bit ``bits-2`` of rows ``0..d-1``, ...)."""
    x = np.array(x, dtype=np.int64, copy=True)
    d = x.shape[0]
    q = 1 << (bits - 1)
    while q > 1:  # inverse undo
        p = q - 1
        for i in range(d):
            hit = (x[i] & q) != 0
            x[0] ^= np.where(hit, p, 0)
            t = np.where(hit, 0, (x[0] ^ x[i]) & p)
            x[0] ^= t
            x[i] ^= t
        q >>= 1
    for i in range(1, d):  # Gray encode
        x[i] ^= x[i - 1]
    t = np.zeros(x.shape[1], dtype=np.int64)
    q = 1 << (bits - 1)
    while q > 1:
        t ^= np.where((x[d - 1] & q) != 0, q - 1, 0)
        q >>= 1
    x ^= t
    return x


def hilbert_order(codes: np.ndarray, sensitive: np.ndarray) -> np.ndarray:
    """Record indices in Hilbert order of their QI codes.

    Records at the same QI point are interleaved round-robin over their sensitive values (the
    first record of each value, then the second, ...), so short windows inside a run of
    identical points are as diverse as the run allows.
    """
    codes = np.asarray(codes, dtype=np.int64)
    s = np.asarray(sensitive, dtype=np.int64)
    n, d = codes.shape
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    point = qi_groups(codes)
    _, first = np.unique(point, return_index=True)
    rep = (codes[first] - codes.min(axis=0)).T  # (d, points)
    bits = max(1, int(rep.max(initial=0)).bit_length())
    if d:
        tr = skilling_transpose(rep, bits)
        rank = np.empty(rep.shape[1], dtype=np.int64)
        if d * bits <= 62:  # the whole index in one int64
            key = np.zeros(rep.shape[1], dtype=np.int64)
            for k in range(bits - 1, -1, -1):
                for i in range(d):
                    key = (key << 1) | ((tr[i] >> k) & 1)
            rank[np.argsort(key, kind="stable")] = np.arange(rep.shape[1])
        else:
            keys: list[np.ndarray] = []  # most significant first: bit level k of dims 0..d-1
            for k in range(bits - 1, -1, -1):
                keys.extend((tr[i] >> k) & 1 for i in range(d))
            rank[np.lexsort(keys[::-1])] = np.arange(rep.shape[1])
    else:
        rank = np.zeros(rep.shape[1], dtype=np.int64)
    by_pair = np.lexsort((s, point))  # occurrence index within (point, value)
    ps = point[by_pair] * (int(s.max()) + 1) + s[by_pair]
    starts = np.flatnonzero(np.r_[True, ps[1:] != ps[:-1]])
    occ = np.empty(n, dtype=np.int64)
    occ[by_pair] = np.arange(n) - np.repeat(starts, np.diff(np.r_[starts, n]))
    return np.lexsort((s, occ, rank[point]))


def _window_costs(codes: np.ndarray, s: np.ndarray, l: int, w: int, tuples: bool) -> np.ndarray:
    """``C[L - l, i]``: cost of the group ``[i, i + L)`` (``L = l..w``), ``_INF`` where it does
    not exist or is not l-eligible. O(n d w), vectorized per length."""
    n = s.size
    out = np.full((w - l + 1, n), _INF, dtype=np.int64)
    lo = codes.T.copy()
    hi = codes.T.copy()
    same = np.ones(n, dtype=np.int64)  # count of s[i] in [i, i + L)
    top = np.ones(n, dtype=np.int64)  # largest count in [i, i + L)
    for length in range(1, w + 1):
        if length > 1:
            lo = np.minimum(lo[:, :-1], codes.T[:, length - 1 :])
            hi = np.maximum(hi[:, :-1], codes.T[:, length - 1 :])
            same = same[:-1] + (s[length - 1 :] == s[: n - length + 1])
            top = np.maximum(same, top[1:])
        if length >= l:
            differ = (lo != hi).sum(axis=0)
            cost = length * (differ > 0) if tuples else length * differ
            out[length - l, : n - length + 1] = np.where(l * top <= length, cost, _INF)
    return out


def _run_costs(codes: np.ndarray, s: np.ndarray, l: int, tuples: bool) -> np.ndarray:
    """Cost of each prefix ``[0, j)`` (index ``j - 1``), ``_INF`` where not l-eligible."""
    n = s.size
    lo = np.minimum.accumulate(codes, axis=0)
    hi = np.maximum.accumulate(codes, axis=0)
    differ = (lo != hi).sum(axis=1)
    order = np.lexsort((np.arange(n), s))
    starts = np.flatnonzero(np.r_[True, s[order][1:] != s[order][:-1]])
    occ = np.empty(n, dtype=np.int64)
    occ[order] = np.arange(n) - np.repeat(starts, np.diff(np.r_[starts, n]))
    top = np.maximum.accumulate(occ + 1)
    size = np.arange(1, n + 1)
    cost = size * (differ > 0) if tuples else size * differ
    return np.where(l * top <= size, cost, _INF)


def optimal_cuts(
    codes: np.ndarray, s: np.ndarray, l: int, *, objective: str = "stars", window: int | None = None
) -> tuple[np.ndarray, int]:
    """Optimal cut of a sequence into consecutive l-eligible groups: ``(group id per position,
    cost)``.

    Minimizes total stars (or suppressed tuples) over cuts whose groups have at most ``window``
    records, the first and the last group excepted (any length). With ``window >= n`` it is
    optimal among all consecutive cuts. The whole sequence must be l-eligible.

    Notes
    -----
    O(n d w) time and O(n w) memory (``w = window``): the costs of all windows of each length
    are built by extending the windows one record at a time; the DP then runs in blocks of
    ``l`` positions, which depend only on earlier blocks (every group has at least ``l``
    records).
    """
    codes = np.asarray(codes, dtype=np.int64)
    s = np.asarray(s, dtype=np.int64)
    n = s.size
    tuples = objective == "tuples"
    w = n if window is None else max(l, min(int(window), n))
    costs = _window_costs(codes, s, l, w, tuples) if w >= l else np.zeros((0, n), np.int64)
    f = np.full(n + 1, _INF, dtype=np.int64)
    back = np.zeros(n + 1, dtype=np.int64)
    f[0] = 0
    f[1:] = _run_costs(codes, s, l, tuples)  # prefix groups [0, j)
    lengths = np.arange(l, w + 1)
    offs = np.arange(l)[None, :] - lengths[:, None]  # start - block begin, per (length, j)
    flat = costs.reshape(-1)
    row_base = ((lengths - l) * n)[:, None]
    cols = np.arange(l)
    for b in range(l, n + 1, l):
        js = np.arange(b, min(b + l, n + 1))
        k = js.size
        starts = b + offs[:, :k]
        if b < w:  # the first blocks: lengths reaching before position 0
            ok = starts >= 0
            st = np.where(ok, starts, 0)
            vals = np.where(ok, f[st] + flat[row_base + st], _INF)
        else:
            st = starts
            vals = f[st] + flat[row_base + st]
        best = vals.argmin(axis=0)
        cand = vals[best, cols[:k]]
        better = cand < f[js]
        if better.any():
            f[js[better]] = cand[better]
            back[js[better]] = st[best, cols[:k]][better]
    # suffix groups [i, n)
    suffix = _run_costs(codes[::-1], s[::-1], l, tuples)[::-1]  # index i: group [i, n)
    total = np.where(suffix < _INF, f[:n] + suffix, _INF)
    i_best = int(total.argmin())
    end_start, best_cost = n, int(f[n])
    if total[i_best] < best_cost:
        end_start, best_cost = i_best, int(total[i_best])
    if best_cost >= _INF:  # pragma: no cover - the whole sequence is l-eligible
        raise ValueError("the sequence is not l-eligible")
    cut = [n]
    j = end_start
    if j < n:
        cut.append(j)
    while j > 0:
        j = int(back[j])
        cut.append(j)
    bounds = np.asarray(cut[::-1], dtype=np.int64)
    labels = np.repeat(np.arange(bounds.size - 1), np.diff(bounds))
    return labels, best_cost


def hilbert_partition(
    instance: LDiversityInstance, records: np.ndarray | None = None, *, window: int | None = None
) -> tuple[np.ndarray, dict[str, Any]]:
    """Hilbert's groups of ``records`` (default: all): ``(labels of records, info)``, groups
    numbered ``0..G-1``. ``records`` must form an l-eligible set."""
    rows = np.arange(instance.n) if records is None else np.asarray(records, dtype=np.int64)
    l = instance.l
    w = 4 * l if window is None else check_int("window", window, low=l)
    codes = np.asarray(instance.table.codes, dtype=np.int64)[rows]
    s = np.asarray(instance.sensitive, dtype=np.int64)[rows]
    if rows.size == 0:
        return np.zeros(0, dtype=np.int64), {"window": w, "cost": 0, "n_groups": 0}
    order = hilbert_order(codes, s)
    cut, cost = optimal_cuts(codes[order], s[order], l, objective=instance.objective, window=w)
    labels = np.empty(rows.size, dtype=np.int64)
    labels[order] = cut
    return labels, {"window": w, "cost": cost, "n_groups": int(cut.max()) + 1}


def hilbert(
    instance: LDiversityInstance,
    *,
    seed: int | np.random.Generator | None = None,
    records: np.ndarray | None = None,
    window: int | None = None,
) -> Solution:
    """Hilbert heuristic (Ghinita et al. 2007): consecutive l-eligible groups of the Hilbert
    order, cut optimally for the objective by dynamic programming. No proven ratio.

    Parameters
    ----------
    instance : LDiversityInstance
    seed : ignored
        The algorithm is deterministic; recorded when an int.
    records : array of int, optional
        Restrict to these records (an l-eligible set; used by TP+). The labels of the other
        records are then ``-1``: a partial answer, which :func:`~anonratio.instances.verify`
        rejects; ``objective`` is the cost of the subset's groups.
    window : int, optional
        Largest group of the DP except the first and last (default ``4 l``; ``>= n`` makes the
        cut optimal among all consecutive cuts).

    Returns
    -------
    Solution
        ``info``: ``window``, ``n_groups``, ``stars``, ``suppressed_tuples`` (of the whole
        labelling when ``records`` is None).

    Notes
    -----
    O(n log n + n d w + n b d) (sort, window costs, Skilling over ``b`` bits); O(n w) memory.

    References
    ----------
    G. Ghinita, P. Karras, P. Kalnis, N. Mamoulis, "Fast data anonymization with low
    information loss", VLDB 2007; J. Skilling, "Programming the Hilbert curve", AIP Conf. Proc.
    707 (2004); Xiao, Yi and Tao, EDBT 2010, §6.1 (the baseline).
    """
    t0 = perf_counter()
    check_instance(instance, LDiversityInstance)
    seed_rec = check_seed(seed)
    sub, info = hilbert_partition(instance, records, window=window)
    if records is None:
        labels = sub
        counts = suppression_counts(instance, labels)
        info["stars"], info["suppressed_tuples"] = counts["stars"], counts["suppressed_tuples"]
        bound = float(lower_bound(instance)[0])
    else:
        labels = np.full(instance.n, -1, dtype=np.int64)
        labels[np.asarray(records, dtype=np.int64)] = sub
        info["partial"] = True
        bound = None
    return Solution.with_bound(
        labels,
        "hilbert",
        params={**instance.params, "window": info["window"]},
        seed=seed_rec,
        status="feasible",
        objective=float(info["cost"]),
        bound=bound,
        t0=t0,
        info=info,
    )
