"""Procedure 1 (Aggarwal et al., PODS 2006, §3) as an event simulation over growing neighbour rows.

The simulation of :mod:`.dual_growth` (same clusters, duals, events and tie rules) without any
structure of all the pairs within the largest radius: each point's neighbour row
(:class:`~.neighbour_rows.RowStore`) is lengthened only when an event needs it.

* A cluster ``(v, d)`` opens at ``d + (setup - F) / u`` (``u`` unassigned potential members,
  ``F`` the fixed payments of frozen ones), or at once when idle points alone pay its setup;
  always at a time ``>= d``. A heap holds one live key per center, a lower bound on its
  earliest opening (superseded entries are skipped); popping a key recomputes that center's
  earliest opening with a scan of its row, in order of radius, that stops at the first radius
  beyond the best time found.
* A row complete below ``bound[v]`` decides the center alone when its best time is below the
  bound. Otherwise the clusters not listed have radius ``d >= bound[v]``; when that exceeds the
  current time ``t`` the frozen points (duals ``<= t``) pay them nothing, so such a cluster
  opens no earlier than ``d + setup(d) / U(d)``, ``U(d)`` its unassigned potential members,
  counted among the nearest unassigned points of a KD-tree of them (rebuilt as they freeze; a
  stale tree only lowers the bound). The key becomes that bound, and the row is lengthened
  (its number of neighbours multiplied by 1.5) when the key comes up. A row complete only up
  to ``t`` or less cannot decide its center, so the rows of the next heap entries in that case
  are lengthened in the same batch.
* Most first keys (the bounds of first rows that cannot decide their centers) come up once the
  neighbourhood has mostly frozen; when one comes up, those of the next heap entries are
  tightened together in one numpy pass (:mod:`.event_scan`), superseding their heap entries.
* Opening a cluster kills its members; the rows of the points it kills and of the centers they
  touch are made complete up to ``t`` first (steps 7-12 of Procedure 1).

Every arithmetic step of the earliest-opening computation is the one :mod:`.dual_growth` does in
numpy (payments as a running sum of entering minus leaving duals), in the same order, so the
times, hence the clusters and the duals, are the same floating-point numbers.
"""

from __future__ import annotations

import heapq
from array import array
from bisect import bisect_left, bisect_right
from dataclasses import dataclass

import numpy as np
from scipy.spatial import cKDTree

from anonratio.instances.clustering.metric import PointMetric
from anonratio.solvers.clustering.dual_growth import TIME_TOL, growth_cap
from anonratio.solvers.clustering.event_scan import (
    MARGIN,
    first_keys,
    scan_rows,
    tightened_keys,
    unlisted_bounds,
)
from anonratio.solvers.clustering.neighbour_rows import SLACK, RowStore

__all__ = ["EventGrowth", "grow_duals_by_events"]

#: initial keys are computed for this many rows at a time
KEY_ROWS = 65536

#: the tree of unassigned points is rebuilt once this fraction of it is left unassigned
REBUILD = 0.8

#: unassigned points counted around a center to bound its clusters beyond its row
UNASSIGNED_K = 16

#: heap entries whose centers are asked for their nearest unassigned points in one query
NEAR_BATCH = 64

#: heap entries whose centers' rows are lengthened with a popped center's when they must be
AHEAD = 256

#: heap entries whose first keys (lower bounds from the first rows) are tightened together
#: when one of them comes up
REFRESH = 256

_UNASSIGNED, _IDLE, _DEAD = 0, 1, 2
_INF = float("inf")

#: what a center's heap key is: its earliest opening, a first lower bound, a tightened one
_EXACT, _FIRST, _TIGHTENED = 0, 1, 2


@dataclass(frozen=True)
class EventGrowth:
    """The outcome of :func:`grow_duals_by_events` (the fields of
    :class:`~.dual_growth.DualGrowth`, with the row store in place of the lists).

    ``labels[i]``: the opened cluster point ``i`` joined (in opening order); ``centers``,
    ``radii`` (opening radius), ``times`` per opened cluster; ``alpha`` the final duals;
    ``events`` (clusters opened), ``stale_pops`` (heap keys that were too early),
    ``extensions`` (rows lengthened), ``rows`` the final neighbour rows.
    """

    labels: np.ndarray
    centers: np.ndarray
    radii: np.ndarray
    times: np.ndarray
    alpha: np.ndarray
    events: int
    stale_pops: int
    extensions: int
    rows: RowStore

    @property
    def dual(self) -> float:
        """The dual objective ``sum alpha`` (a lower bound on the LP optimum)."""
        return float(self.alpha.sum())


class _Events:
    """The mutable state of one run: points' states and duals, the heap, the rows."""

    def __init__(
        self, metric: PointMetric, facility: np.ndarray, lam: float, m: int, t_max: float
    ) -> None:
        self.metric, self.lam, self.m = metric, float(lam), int(m)
        n = self.n = metric.n
        self.f = facility.tolist()
        self.facility = facility
        self.rows = RowStore(metric, t_max, m)
        self.state = bytearray(n)  # all _UNASSIGNED
        self.alpha = array("d", bytes(8 * n))
        self.label = array("q", [-1]) * n
        self.state_np = np.frombuffer(self.state, dtype=np.uint8)  # a view of the states
        self.t = 0.0
        self.n_unassigned = n
        self._utree: cKDTree | None = None
        self._utree_size = 0
        self._near: dict[int, list[float]] = {}  # per center, its distances on that tree
        #: per center, the key of its live heap entry (others are superseded) and its kind
        self.key_of = [_INF] * n
        self.kind = bytearray(n)
        self.heap = self._initial_keys(facility)

    def _initial_keys(self, facility: np.ndarray) -> list[tuple[float, int]]:
        """The heap of the first keys (:func:`~.event_scan.first_keys`), a slice of rows at a
        time."""
        heap: list[tuple[float, int]] = []
        for lo in range(0, self.n, KEY_ROWS):
            v = np.arange(lo, min(lo + KEY_ROWS, self.n))
            keys, decided = first_keys(self.rows, v, (facility, self.lam), self.m)
            heap += [(k, c) for c, k in zip(v.tolist(), keys.tolist(), strict=True) if k < _INF]
            self.key_of[lo : lo + v.size] = keys.tolist()
            kinds = np.where(decided, _EXACT, _FIRST).astype(np.uint8)
            self.kind[lo : lo + v.size] = kinds.tobytes()
        heapq.heapify(heap)
        return heap

    # -----------------------------------------------------------------------------------------
    def _scan(self, v: int) -> tuple[float, int, bool]:
        """``(best, k, decided)``: the earliest opening time ``>= t`` over ``v``'s listed live
        clusters and its row position; ``decided`` when a radius beyond ``best`` was reached.

        The payments follow dual_growth's numpy pass term by term: ``C`` the running sum of
        the duals of tight frozen points entering minus those leaving (their dual below the
        radius, summed in row order), ``paid = C - tight * d``.
        """
        nbr, dst, shut = self.rows.view(v)
        nb, ds, sh = nbr.tolist(), dst.tolist(), shut.tolist()
        state, alpha = self.state, self.alpha
        fv, lam, m, t = self.f[v], self.lam, self.m, self.t
        size = len(ds)
        best, best_k = _INF, -1
        u = tight = 0
        paid_sum = 0.0
        # position -> [sum of duals, count] of the tight frozen points whose dual is below the
        # radius from there on, summed in row order as they entered
        leave: dict[int, list] = {}
        for k in range(size):
            dk = ds[k]
            if dk > best * (1.0 + MARGIN):
                return best, best_k, True
            leaving = 0.0
            if leave:
                gone = leave.pop(k, None)
                if gone is not None:
                    leaving = gone[0]
                    tight -= gone[1]
            j = nb[k]
            entering = 0.0
            if state[j] == _UNASSIGNED:
                u += 1
            else:
                a = alpha[j]
                if a >= dk:
                    entering = a
                    tight += 1
                    stop = bisect_right(ds, a, k + 1)  # the first radius beyond its dual
                    gone = leave.get(stop)
                    if gone is None:
                        leave[stop] = [a, 1]
                    else:
                        gone[0] += a
                        gone[1] += 1
            paid_sum = paid_sum + (entering - leaving)
            if k + 1 < m or sh[k] or (k + 1 < size and ds[k + 1] == dk):
                continue  # not a live cluster
            setup = fv + lam * dk
            short = setup - (paid_sum - tight * dk)
            if u > 0:
                time = dk + short / u
            elif tight > 0 and short <= TIME_TOL * max(1.0, setup):
                time = t  # idle points alone already pay it
            else:
                continue
            if time < t:
                time = t
            if time < best:
                best, best_k = time, k
        return best, best_k, False

    def _unassigned_tree(self) -> cKDTree:
        """The KD-tree of the unassigned points, rebuilt once a fraction :data:`REBUILD` of
        its points is left unassigned (the points frozen since only lower the bounds)."""
        if self._utree is None or self.n_unassigned < REBUILD * self._utree_size:
            free = np.flatnonzero(self.state_np == _UNASSIGNED)
            self._utree = cKDTree(self.metric.points[free])
            self._utree_size = free.size
            self._near.clear()
        return self._utree

    def _unlisted_bound(self, v: int, bound: float) -> float:
        """A lower bound on the opening times of ``v``'s clusters of radius ``d >= bound > t``.

        Frozen points have duals ``<= t < d``: only the ``U(d)`` unassigned potential members
        pay, at most ``T - d`` each by time ``T``, so cluster ``(v, d)`` opens no earlier than
        ``d + setup(d) / U(d)`` (and never with ``U(d) = 0``). With ``e_1 <= e_2 <= ...`` the
        distances to the :data:`UNASSIGNED_K` nearest unassigned points (lowered by the slack;
        a stale tree has more points, so smaller ``e_j``), ``U(d) <= j`` for ``d < e_{j+1}``:
        the bound is ``min_j (d_j + setup(d_j) / j)``, ``d_j = max(bound, e_j)``, and
        ``max(bound, e_K)`` for the radii beyond.
        """
        if self.n_unassigned == 0:
            return _INF
        tree = self._unassigned_tree()
        near = self._near.get(v)
        if near is None:  # the same tree gives the same distances: asked once per tree
            self._ask_near(v, tree)
            near = self._near[v]
        fv, lam = self.f[v], self.lam
        low = max(bound, near[-1])
        for j, e in enumerate(near, start=1):
            d = max(bound, e)
            if d >= low:
                break
            low = min(low, d + (fv + lam * d) / j)
        return low

    def _ask_near(self, v: int, tree: cKDTree) -> None:
        """Fill :attr:`_near` for ``v`` and, in the same KD-tree query, for the centers of the
        first :data:`NEAR_BATCH` heap entries (the next to come up) whose rows may need it.

        A query point's distances do not depend on the other points of its batch, so asking
        ahead only saves the per-query overhead."""
        near, bound = self._near, self.rows.bound
        key_of = self.key_of
        live = np.array([c for k, c in self.heap[:NEAR_BATCH] if key_of[c] == k], dtype=np.int64)
        b = bound[live]
        ahead: list[int] = live[(b > self.t) & (b < _INF)].tolist()
        ask = list(dict.fromkeys([v, *(c for c in ahead if c not in near)]))
        k = min(UNASSIGNED_K, tree.n)
        dist, _ = tree.query(self.metric.points[ask], k=k, p=self.metric.p)
        dist = (np.asarray(dist).reshape(len(ask), k) * (1.0 - SLACK)).tolist()
        near.update(zip(ask, dist, strict=True))

    def earliest(self, v: int, floor: float) -> tuple[float, int]:
        """``(time, k)``: ``v``'s earliest opening and its row position, or ``(key, -1)`` with
        ``key`` a lower bound on it when the row does not reach far enough yet. ``floor``
        (``>= t``): the key just popped; a row whose bound is below it is lengthened."""
        rows = self.rows
        while True:
            best, k, decided = self._scan(v)
            bound = float(rows.bound[v])
            if decided or best * (1.0 + MARGIN) < bound or bound == _INF:
                return best, k
            target = floor  # lengthen the row past the key ...
            if bound > self.t:  # the unlisted radii exceed t: they need an unassigned member
                low = self._unlisted_bound(v, bound)
                if best * (1.0 + MARGIN) < low or low == _INF:
                    return best, k
                if low > floor:
                    if best > low:
                        return low, -1
                    target = best * (1.0 + MARGIN)  # ... or past a near tie at its end
            self._lengthen(v, target)

    def _lengthen(self, v: int, target: float) -> None:
        """Lengthen row ``v`` past ``target`` and, in the same batch, the rows of the centers of
        the first :data:`AHEAD` live heap entries that stop at or below the time ``t``: no such
        row can decide its center, so its pop would lengthen it past its key."""
        t, key_of = self.t, self.key_of
        ahead = [(k, c) for k, c in self.heap[:AHEAD] if key_of[c] == k and c != v]  # live
        centers = np.array([c for _, c in ahead], dtype=np.int64)
        due = self.rows.bound[centers] <= t
        floors = np.array([key for key, _ in ahead])[due]
        centers = np.append(centers[due], v)
        self.rows.ensure_each(centers, np.append(np.maximum(floors, t), target))

    # -----------------------------------------------------------------------------------------
    def open(self, v: int, k: int, cid: int) -> None:
        """Open cluster ``(v, k-th radius of v)`` as cluster ``cid`` at time ``t``."""
        rows, state, alpha, label, t = self.rows, self.state, self.alpha, self.label, self.t
        nbr, dst, shut = rows.view(v)
        radius = float(dst[k])
        members = nbr[: k + 1].tolist()
        v_u = [j for j in members if state[j] == _UNASSIGNED]
        v_i = [j for j in members if state[j] == _IDLE and alpha[j] >= radius]
        shut[k] = True  # opened: never again
        for j in v_u:
            state[j] = _DEAD
            alpha[j] = t
            label[j] = cid
        for j in v_i:
            state[j] = _DEAD
        self.n_unassigned -= len(v_u)
        v_iu = self._shut_down(v_u, v_i)
        for j in v_iu:
            state[j] = _IDLE
            alpha[j] = t
            label[j] = cid
        self.n_unassigned -= len(v_iu)

    def _shut_down(self, v_u: list[int], v_i: list[int]) -> list[int]:
        """Shut every cluster with a tight edge from ``v_u`` (dual ``t``) or ``v_i``; return the
        unassigned points with a tight edge to a shut cluster."""
        rows, alpha, t, m = self.rows, self.alpha, self.t, self.m
        rows.ensure(np.array(v_u + v_i, dtype=np.int64), t)
        spans: list[tuple[int, float, float]] = []  # (center, from radius, to radius)
        nearest: dict[int, float] = {}
        for p in v_u:
            nb, ds = rows.row(p)
            stop = int(np.searchsorted(ds, t, side="right"))
            for c, d in zip(nb[:stop].tolist(), ds[:stop].tolist(), strict=True):
                if d < nearest.get(c, _INF):
                    nearest[c] = d
        for p in v_i:
            a = alpha[p]
            nb, ds = rows.row(p)
            stop = int(np.searchsorted(ds, a, side="right"))
            pairs = zip(nb[:stop].tolist(), ds[:stop].tolist(), strict=True)
            spans += [(c, d, a) for c, d in pairs]
        spans += [(c, d, t) for c, d in nearest.items()]
        if not spans:
            return []
        rows.ensure(np.array([c for c, _, _ in spans], dtype=np.int64), t)
        reach: dict[int, int] = {}
        cache: dict[int, list[float]] = {}
        for c, lo_d, hi_d in spans:
            radii = cache.get(c)
            if radii is None:
                radii = cache[c] = rows.row(c)[1].tolist()
            lo = max(bisect_left(radii, lo_d), m - 1)  # eliminated radii are not clusters
            hi = bisect_right(radii, hi_d)
            if hi > lo:
                rows.view(c)[2][lo:hi] = True
                if hi > reach.get(c, -1):
                    reach[c] = hi
        state = self.state
        joined: set[int] = set()
        for c, hi in reach.items():
            joined.update(j for j in rows.view(c)[0][:hi].tolist() if state[j] == _UNASSIGNED)
        return sorted(joined)

    def _push(self, key: float, v: int, kind: int) -> None:
        """Make ``(key, v)`` the live heap entry of ``v``."""
        heapq.heappush(self.heap, (key, v))
        self.key_of[v] = key
        self.kind[v] = kind

    def _tighten_first_keys(self) -> None:
        """Tighten, in one pass, the first keys among the next :data:`REFRESH` heap entries:
        each center gets the key :meth:`earliest` would give it now, without lengthening its
        row (:func:`~.event_scan.tightened_keys`), when larger. Freezing only delays openings,
        so the keys stay lower bounds until they come up.
        """
        t, key_of, kind = self.t, self.key_of, self.kind
        ahead = [(k, c) for k, c in self.heap[:REFRESH] if kind[c] == _FIRST and key_of[c] == k]
        if not ahead:
            return
        centers = np.array([c for _, c in ahead], dtype=np.int64)
        floors = np.maximum(np.array([k for k, _ in ahead]), t)
        state = np.frombuffer(self.state, dtype=np.uint8)
        alpha = np.frombuffer(self.alpha, dtype=float)
        scan = scan_rows(self.rows, centers, state, alpha, (self.facility, self.lam), self.m, t)
        bound = self.rows.bound[centers]
        new, exact = tightened_keys(
            scan, bound, floors, t, lambda at: self._unlisted_bounds(centers[at], bound[at])
        )
        for c, key, done in zip(centers.tolist(), new.tolist(), exact.tolist(), strict=True):
            if done:
                if key == _INF:  # no cluster of it can ever open
                    key_of[c] = _INF
                elif key != key_of[c]:
                    self._push(key, c, _EXACT)
                else:
                    kind[c] = _EXACT
            elif key > key_of[c]:
                self._push(key, c, _TIGHTENED)
            else:
                kind[c] = _TIGHTENED

    def _unlisted_bounds(self, centers: np.ndarray, bound: np.ndarray) -> np.ndarray:
        """:meth:`_unlisted_bound` of many centers (the nearest unassigned points of those not
        asked yet in one KD-tree query)."""
        if self.n_unassigned == 0:
            return np.full(centers.size, _INF)
        tree = self._unassigned_tree()
        near = self._near
        ask = [c for c in dict.fromkeys(centers.tolist()) if c not in near]
        if ask:
            k = min(UNASSIGNED_K, tree.n)
            dist, _ = tree.query(self.metric.points[ask], k=k, p=self.metric.p)
            dist = (np.asarray(dist).reshape(len(ask), k) * (1.0 - SLACK)).tolist()
            near.update(zip(ask, dist, strict=True))
        table = np.array([near[c] for c in centers.tolist()])
        return unlisted_bounds(table, bound, self.facility[centers], self.lam)

    def run(self) -> tuple[list[int], list[float], list[float], int]:
        centers: list[int] = []
        radii: list[float] = []
        times: list[float] = []
        stale = 0
        heap = self.heap
        while self.n_unassigned > 0:
            if not heap:
                raise RuntimeError("dual growth ran out of clusters with points unassigned")
            key, v = heapq.heappop(heap)
            if key != self.key_of[v]:
                continue  # superseded by a tighter key
            if self.kind[v] == _FIRST:
                self._tighten_first_keys()
            when, k = self.earliest(v, max(key, self.t))
            if k < 0 or when > key + TIME_TOL * max(1.0, abs(key)):
                stale += 1
                if when < _INF:
                    self._push(when, v, _TIGHTENED if k < 0 else _EXACT)
                else:
                    self.key_of[v] = _INF
                continue
            self.t = max(self.t, when)
            centers.append(v)
            radii.append(float(self.rows.view(v)[1][k]))
            times.append(self.t)
            self.open(v, k, len(centers) - 1)
            when, k = self.earliest(v, self.t)
            if when < _INF:
                self._push(when, v, _TIGHTENED if k < 0 else _EXACT)
            else:
                self.key_of[v] = _INF
        return centers, radii, times, stale


def grow_duals_by_events(
    metric: PointMetric, facility: np.ndarray, *, lam: float = 0.0, min_members: int = 1
) -> EventGrowth:
    """Run Procedure 1 on the clusters ``(v, d)`` with setup ``f(v) + lam d`` and at least
    ``min_members`` potential members; the result of
    :func:`~anonratio.solvers.clustering.dual_growth.grow_duals`, with memory proportional to
    the pairs each point's events need rather than to all pairs within the largest radius.

    Parameters
    ----------
    metric : PointMetric
        The distances (assumed to satisfy the triangle inequality for the guarantees).
    facility : ndarray, shape (n,)
        Setup cost ``f(v) >= 0`` of each potential center.
    lam : float
        Setup cost per unit of radius (``r`` in the augmented instance of §3.1).
    min_members : int
        Clusters with fewer potential members do not exist (``1``: all exist).

    Returns
    -------
    EventGrowth
        The clusters opened, each point's cluster and the final duals.

    Notes
    -----
    Per heap pop one Python pass over the center's row up to the best time; per opening a
    pass over the rows of the points it kills. The first rows come from one KD-tree query of
    :data:`~.neighbour_rows.START_NEIGHBOURS` neighbours; a row doubles its neighbours when an
    event needs more, so the memory is ``O(sum_v |row v|)``, about the points within each
    point's own dual rather than within the largest dual. Radii beyond ``T_max``
    (:func:`~.dual_growth.growth_cap`) never matter.
    """
    facility = np.asarray(facility, dtype=float)
    t_max = growth_cap(metric, facility, lam, min_members)
    state = _Events(metric, facility, lam, min_members, t_max)
    centers, radii, times, stale = state.run()
    return EventGrowth(
        labels=np.frombuffer(state.label, dtype=np.int64).copy(),
        centers=np.asarray(centers, dtype=np.int64),
        radii=np.asarray(radii, dtype=float),
        times=np.asarray(times, dtype=float),
        alpha=np.frombuffer(state.alpha, dtype=float).copy(),
        events=len(centers),
        stale_pops=stale,
        extensions=state.rows.extensions,
        rows=state.rows,
    )
