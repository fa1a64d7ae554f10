"""The relaxed approximation scheme for Min-Max Bin Covering (Du et al. 2009, Theorem 11).

In the paper's units (sizes divided by ``k``) and for a fixed ``0 < eps < 1/2``, it returns bins of
level at least ``1 - 2 eps`` (not 1: the solution may be *infeasible* for the true problem) whose
largest level is at most ``(1 + eps)(OPT + eps)``. In item units: every bin holds at least
``(1 - 2 eps) k`` and the cost is at most ``(1 + eps)(OPT + eps k)``. Its solutions carry
``info["relaxed"] = True``, so :func:`~anonratio.instances.verify` checks them against the relaxed
floor and reports how far below ``k`` the lightest bin is.

The algorithm of the proof:

* items ``>= eps k`` are *large*, the others *small* (total ``s``); a large item is rounded down
  to the grid ``eps k (1 + eps)^l``;
* a *type* is a packing of the rounded large items into bins, plus empty bins; it is *weakly
  feasible* when its ``(1 - eps) k``-gap (the sum over bins of ``max(0, (1 - eps) k - level)``) is
  at most ``s``;
* the *greedy completion* adds the small items one at a time to the lowest bin;
* among all weakly feasible types, pick one whose greedy completion has the smallest maximum
  level, and put the original large items back.

Implementation notes (the bound of the theorem is kept):

* Types are enumerated exactly, by a depth-first search that opens one bin per step around the
  largest remaining large item (each multiset of bin contents once), pruned by the best greedy
  completion so far and by the gap. The paper bounds bin levels by 3 after its reduction to
  OPT <= 3; here a bin's rounded level is bounded by a strict upper bound on OPT (Spread's cost),
  and the grid reaches the largest item, so the reduction's size shift is not needed. Its first
  case is kept: when the items below ``k`` sum to at least ``k`` and an item is ``>= 3k``, Fold is
  optimal and is returned (strictly feasible).
* The enumeration is exponential in ``1/eps`` (the theorem's polynomial has degree growing with
  ``1/eps``): after ``max_nodes`` search nodes or ``time_limit`` seconds it returns the best type
  so far with ``status="time_limit"`` (bins still >= ``(1 - 2 eps) k``, cost bound not
  guaranteed). Spread's packing gives the first type, so there always is one.
"""

from __future__ import annotations

import heapq
import math
from time import perf_counter
from typing import NamedTuple

import numpy as np

from anonratio.instances import Solution
from anonratio.instances.bin_covering.instance import (
    BinCoveringInstance,
    bin_covering_lower_bound,
    check_epsilon,
)
from anonratio.instances.errors import UnsupportedInstanceError
from anonratio.instances.validation import check_int, check_time_limit
from anonratio.solvers.bin_covering.fold import bin_solver_iv, finish, fold_labels, item_order
from anonratio.solvers.bin_covering.spread import spread

__all__ = ["relaxed_scheme", "relaxed_guarantee", "relaxed_bound"]

_TOL = 1e-9

#: most bin configurations the enumeration builds before giving up
MAX_CONFIGS = 200_000


def relaxed_bound(instance: BinCoveringInstance, optimum: float, *, epsilon: float) -> float:
    """Theorem 11's bound on the cost, in item units: ``(1 + eps)(OPT + eps k)``."""
    eps = check_epsilon(epsilon)
    return (1 + eps) * (optimum + eps * instance.k)


def relaxed_guarantee(
    instance: BinCoveringInstance, solution: Solution | None = None, *, epsilon: float = 0.2
) -> float:
    """Ratio to OPT implied by Theorem 11: ``(1 + eps)(1 + eps k / LB) <= (1 + eps)^2``.

    Holds for the cost only; the bins may hold as little as ``(1 - 2 eps) k``.
    ``solution`` is not needed: the ratio is known before the run.
    """
    eps = check_epsilon(epsilon)
    return (1 + eps) * (1 + eps * instance.k / bin_covering_lower_bound(instance)[0])


def _grid_class(x, unit, eps):
    """Index ``l`` of the largest grid value ``unit (1+eps)^l <= x`` (x >= unit)."""
    t = np.floor(np.log(x / unit) / math.log1p(eps)).astype(np.int64)
    t = np.maximum(t, 0)
    for _ in range(3):  # floating-point corrections at the grid points
        t = np.where(unit * (1 + eps) ** (t + 1) <= x, t + 1, t)
        t = np.where((unit * (1 + eps) ** t > x) & (t > 0), t - 1, t)
    return t


def _configs(values, counts, cap, max_configs, target):
    """All bin contents (count vectors) of level <= cap, grouped by their largest class.

    Per lead class: ``(A, levels)`` with one row of counts per configuration, ordered so that
    contents reaching the gap target ``(1 - eps) k`` come first, closest to it first (the search
    then meets good types early and prunes more).
    """
    m = values.size
    rows: list[list[tuple[list[int], int]]] = [[] for _ in range(m)]
    total = 0

    def rec(u, vec, level, lead):
        nonlocal total
        if u == m:
            rows[lead].append((list(vec), level))
            total += 1
            if total > max_configs:
                raise UnsupportedInstanceError(
                    f"more than {max_configs} bin configurations; use a larger `epsilon` "
                    "or a smaller instance"
                )
            return
        top = min(int(counts[u]), int((cap - level + _TOL) // values[u]))
        for a in range(top, -1, -1):
            vec[u] = a
            rec(u + 1, vec, level + a * values[u], lead)
        vec[u] = 0

    for t in range(m):
        vec = [0] * m
        for a in range(min(int(counts[t]), int((cap + _TOL) // values[t])), 0, -1):
            vec[t] = a
            rec(t + 1, vec, a * values[t], t)
    out = []
    for group in rows:
        group.sort(key=lambda r: (r[1] < target - _TOL, abs(r[1] - target)))
        A = np.array([r[0] for r in group], dtype=np.int64).reshape(len(group), m)
        out.append((A, np.array([r[1] for r in group], dtype=np.float64)))
    return out


def _greedy_completion(levels, small_vals):
    """Max level after adding each small value to the lowest bin; also the bin of each."""
    heap = [(v, b) for b, v in enumerate(levels)]
    heapq.heapify(heap)
    where = np.empty(len(small_vals), dtype=np.int64)
    for t, v in enumerate(small_vals):
        lv, b = heap[0]
        where[t] = b
        heapq.heapreplace(heap, (lv + v, b))
    return max(v for v, _ in heap), where


class _Stop(Exception):
    """The node budget or the time limit ran out."""


class _Search:
    """Depth-first enumeration of the types, keeping the best greedy completion."""

    def __init__(self, values, counts, small_vals, target, cap, max_nodes, max_configs, deadline):
        self.small_vals = small_vals
        self.s = float(sum(small_vals))
        self.target = target  # (1 - eps) k: the gap is measured against it
        self.tol = _TOL * max(1.0, target)
        self.by_lead = _configs(values, counts, cap, max_configs, target)
        self.gaps = [np.maximum(0.0, target - lev) for _, lev in self.by_lead]
        self.n_configs = sum(len(lev) for _, lev in self.by_lead)
        self.counts = np.asarray(counts, dtype=np.int64)
        self.max_nodes = max_nodes
        self.deadline = deadline
        self.stopped = None
        self.nodes = self.leaves = 0
        self.best = math.inf
        self.best_type = None

    def evaluate(self, chosen):
        """Try every admissible number of empty bins for the type ``chosen``."""
        self.leaves += 1
        levels = [lvl for _, lvl in chosen]
        room = self.s - sum(max(0.0, self.target - v) for v in levels)
        if room < -self.tol:
            return  # not weakly feasible
        e_max = int(math.floor(room / self.target + _TOL))
        for e in range(0 if levels else 1, e_max + 1):
            if self.best_type is not None and perf_counter() > self.deadline:
                self.stopped = "time_limit"
                raise _Stop
            top, _ = _greedy_completion(levels + [0.0] * e, self.small_vals)
            if top < self.best - self.tol:
                self.best, self.best_type = top, (list(chosen), e)

    def run(self):
        self._dfs(self.counts.copy(), 0, 0, [], 0.0)

    def _dfs(self, remaining, lead_from, start_from, chosen, gap_sum):
        self.nodes += 1
        if self.nodes > self.max_nodes:
            self.stopped = "max_nodes"
            raise _Stop
        if perf_counter() > self.deadline:
            self.stopped = "time_limit"
            raise _Stop
        nz = np.flatnonzero(remaining[lead_from:])
        if nz.size == 0:
            self.evaluate(chosen)
            return
        t = lead_from + int(nz[0])
        start = start_from if t == lead_from else 0
        A, lev = self.by_lead[t]
        A, lev, gaps = A[start:], lev[start:], self.gaps[t][start:]
        ok = (lev < self.best - self.tol) & (gap_sum + gaps <= self.s + self.tol)
        ok &= np.all(A <= remaining, axis=1)
        for idx in np.flatnonzero(ok):
            if lev[idx] >= self.best - self.tol:
                continue  # the incumbent improved meanwhile
            remaining -= A[idx]
            chosen.append((A[idx], float(lev[idx])))
            self._dfs(remaining, t, start + int(idx), chosen, gap_sum + gaps[idx])
            chosen.pop()
            remaining += A[idx]


def _type_of(labels, large, inverse, values):
    """The bins of a packing that hold large items: their rounded counts and levels."""
    _, lab = np.unique(labels, return_inverse=True)
    lab = lab.reshape(-1)
    vec = np.zeros((int(lab.max()) + 1, values.size), dtype=np.int64)
    np.add.at(vec, (lab[large], inverse), 1)
    return [(v, float(v @ values)) for v in vec[vec.sum(axis=1) > 0]]


def _relaxed_iv(instance, order, seed, epsilon, max_nodes, time_limit):
    rng, seed_rec = bin_solver_iv(instance, order, seed)
    eps = check_epsilon(epsilon)
    max_nodes = check_int("max_nodes", max_nodes, low=1)
    return rng, seed_rec, eps, max_nodes, check_time_limit(time_limit, allow_none=True)


def relaxed_scheme(
    instance: BinCoveringInstance,
    *,
    epsilon: float = 0.2,
    order: str = "sorted",
    seed: int | np.random.Generator | None = None,
    max_nodes: int = 200_000,
    time_limit: float | None = 60.0,
) -> Solution:
    """Theorem 11 (Du et al. 2009): bins of at least ``(1 - 2 eps) k`` and cost at most
    ``(1 + eps)(OPT + eps k)``, for a fixed ``0 < eps < 1/2``.

    The solution may violate the true constraint (bins below ``k``): it is marked
    ``info["relaxed"] = True`` and :func:`~anonratio.instances.verify` then checks it against
    ``(1 - 2 eps) k`` (relaxed mode), reporting ``min_load_ratio`` = lightest bin / k.

    Parameters
    ----------
    instance : BinCoveringInstance
    epsilon : float
        In (0, 1/2). Smaller values tighten both bounds but grow the enumeration steeply.
    order : {"sorted", "random", "input"}
        Order of the small items in the greedy completion (decreasing, random, as given).
    seed : int, numpy.random.Generator or None
        Used by ``order="random"``; recorded when an int.
    max_nodes : int
        Node budget of the type enumeration.
    time_limit : float or None
        Seconds for the enumeration (None: no limit). When the budget or the limit runs out,
        the best type found so far is returned with ``status="time_limit"`` and
        ``info["stopped"]``: its bins still reach ``(1 - 2 eps) k`` (every type tried is weakly
        feasible) but the cost bound is no longer guaranteed.

    Returns
    -------
    Solution
        ``info``: ``relaxed`` (True), ``epsilon``, ``floor`` = ``(1 - 2 eps) k``, ``case``
        (``fold-optimal`` or ``types``), ``stopped`` (None, ``max_nodes`` or ``time_limit``),
        ``n_large``, ``n_classes``, ``n_configs``, ``nodes``,
        ``types_evaluated``, ``rounded_level`` (best greedy completion, rounded sizes),
        ``empty_bins``, ``min_load``, ``min_load_ratio``, ``strictly_feasible``, ``n_bins``,
        ``overfull_ratio``.

    Raises
    ------
    ValueError
        ``epsilon`` outside (0, 1/2), a bad ``max_nodes``, ``time_limit``, ``order`` or ``seed``.
    UnsupportedInstanceError
        More than 200000 bin configurations (``epsilon`` too small for the instance).

    Notes
    -----
    Polynomial for fixed ``eps`` (Theorem 11), but of a degree growing with ``1/eps``: the number
    of configurations is exponential in the number of grid classes, ``O(log(max x / (eps k)) /
    eps)``, and the types in the number of large items. Each type costs one greedy completion per
    admissible number of empty bins, O(n log n) each. Practical for a few dozen large items.

    References
    ----------
    W. Du, D. Eppstein, M. T. Goodrich, G. S. Lueker, "On the Approximability of Geometric and
    Geographic Generalization and the Min-Max Bin Covering Problem", WADS 2009, §4, Theorem 11.

    Examples
    --------
    >>> from anonratio.instances.bin_covering.instance import BinCoveringInstance
    >>> sol = relaxed_scheme(BinCoveringInstance([7, 5, 4, 3, 2, 2, 1], k=8), epsilon=0.25)
    >>> sol.info["relaxed"], sol.info["min_load"] >= 4
    (True, True)
    """
    t0 = perf_counter()
    rng, seed_rec, eps, max_nodes, time_limit = _relaxed_iv(
        instance, order, seed, epsilon, max_nodes, time_limit
    )
    deadline = t0 + (math.inf if time_limit is None else time_limit)
    x, k = instance.sizes, instance.k
    params = {"order": order, "epsilon": eps}
    base = {"relaxed": True, "epsilon": eps, "floor": (1 - 2 * eps) * k, "order": order}
    if _fold_is_optimal(instance):  # Fold's cost is then max x = OPT (the proof's first reduction)
        labels, _ = fold_labels(x, k, np.argsort(-x, kind="stable"))
        return _finish(instance, labels, params, seed_rec, t0, {**base, "case": "fold-optimal"})
    r = _round_large(x, k, eps, order, rng)
    search = _search_types(instance, r, eps, max_nodes, deadline)
    chosen, e = search.best_type
    labels = _unround(x, r.large, r.inverse, r.counts, r.small, chosen, e, search.small_vals)
    info = {**base, **_search_info(r, search, e)}
    sol = _finish(instance, labels, params, seed_rec, t0, info)
    return sol.replace(status="time_limit") if search.stopped else sol


def _fold_is_optimal(instance):
    """The proof's first case: the items below ``k`` reach ``k`` and an item is ``>= 3k``."""
    x, k = instance.sizes, instance.k
    return int(x[x < k].sum()) >= k and instance.max_size >= 3 * k


class _Rounded(NamedTuple):
    """Large items (ids), small items (ids, in completion order) and the rounded classes:
    ``inverse`` maps each large item to its class, ``counts`` and ``values`` per class."""

    large: np.ndarray
    small: np.ndarray
    inverse: np.ndarray
    counts: np.ndarray
    values: np.ndarray


def _round_large(x, k, eps, order, rng):
    """Split the items at ``eps k`` and round the large ones down to the grid ``eps k (1+eps)^l``
    (classes by decreasing rounded size)."""
    unit = eps * k
    large = np.flatnonzero(x >= unit - _TOL * k)
    small = np.setdiff1d(np.arange(x.size), large)
    small = small[item_order(x[small], order, rng)]
    cls = _grid_class(x[large].astype(np.float64), unit, eps)
    uniq, inverse, counts = np.unique(-cls, return_inverse=True, return_counts=True)
    classes = -uniq  # decreasing grid index = decreasing rounded size
    values = unit * (1 + eps) ** classes.astype(np.float64)
    return _Rounded(large, small, inverse.reshape(-1), counts, values)


def _search_types(instance, r, eps, max_nodes, deadline):
    """The best weakly feasible type, from Spread's packing as the first incumbent."""
    # an incumbent: Spread's packing (strictly feasible, so its type is weakly feasible)
    start = spread(instance)
    assert start.objective is not None  # Spread always packs: its objective is set
    ub = float(start.objective)
    small_vals = instance.sizes[r.small].astype(np.float64).tolist()
    k = instance.k
    search = _Search(
        r.values, r.counts, small_vals, (1 - eps) * k, ub, max_nodes, MAX_CONFIGS, deadline
    )
    try:
        search.evaluate(_type_of(start.labels, r.large, r.inverse, r.values))
        search.run()
    except _Stop:
        pass
    return search


def _search_info(r, search, e):
    return {
        "case": "types",
        "stopped": search.stopped,
        "n_large": int(r.large.size),
        "n_classes": int(r.values.size),
        "n_configs": search.n_configs,
        "nodes": search.nodes,
        "types_evaluated": search.leaves,
        "rounded_level": float(search.best),
        "empty_bins": int(e),
    }


def _unround(x, large, inverse, counts, small, chosen, e, small_vals):
    """Labels of the greedy completion of ``chosen`` with the original large items put back."""
    labels = np.empty(x.size, dtype=np.int64)
    pools = [list(large[inverse == c]) for c in range(counts.size)]
    for b, (vec, _) in enumerate(chosen):
        for c, a in enumerate(vec):
            for _ in range(a):
                labels[pools[c].pop()] = b
    levels = [lvl for _, lvl in chosen] + [0.0] * e
    _, where = _greedy_completion(levels, small_vals)
    labels[small] = where
    return labels


def _finish(instance, labels, params, seed, t0, info):
    loads = np.bincount(
        np.unique(labels, return_inverse=True)[1].reshape(-1), weights=instance.sizes
    )
    info.update(
        min_load_ratio=float(loads.min() / instance.k),
        strictly_feasible=bool(loads.min() >= instance.k),
    )
    return finish(instance, labels, algorithm="relaxed", params=params, seed=seed, t0=t0, info=info)
