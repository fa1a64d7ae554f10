"""Exact ``q``-nearest neighbours by pigeonhole boxes: two halves of the attributes, cell by cell.

The distance is ``w(a, b) = sum_j t_j(L_j(a, b))`` (:mod:`.distance_terms`). Split the
attributes into halves ``A`` and ``B``: the terms are non-negative, so ``w(a, b) <= 2θ``
implies ``w_A(a, b) <= θ`` or ``w_B(a, b) <= θ``. Within a half ``H``, ``w_H(a, b) <= θ``
holds exactly when the level vector ``L_H(a, b)`` is within budget, that is, dominated by one
of the *maximal* level vectors ``λ`` within budget: when ``a`` and ``b`` share their group at
level ``λ_j`` on every attribute ``j`` of ``H``, the same *cell* of the *box* ``λ``.

1. *Round 1* evaluates every pair of rows sharing a cell of a box of either half. With the
   rows sorted by cell, largest cells first, the pairs ``(i, i + o)`` of sorted positions are
   contiguous slices, offset by offset. A float32 filter on the other half's terms, then on
   the half's own (:func:`~.distance_terms.joint_tables`), keeps the pairs within
   ``max(tau_a, tau_b)`` plus the rounding margin; those are evaluated canonically and kept
   once, in the first box (of ``A``, then of ``B``) that holds them, which the level vectors
   decide exactly. As pairs accrue, every row's bound ``tau`` shrinks to the ``q``-th smallest
   distance found. At the end every pair within ``2θ`` has been evaluated, so a row with
   ``tau <= 2θ`` has its answer: its kept pairs are all the rows within ``tau``, ties included.
2. *Round 2* finishes the other rows, with the bounds round 1 tightened. A pair round 1 did
   not evaluate has ``w_A > θ`` and ``w_B > θ``, so ``w_A < tau_a − θ``: the cell mates of
   ``a`` in the boxes of one half within ``tau_a − θ`` (rows grouped by that budget) hold every
   missing neighbour. A group whose boxes hold too many pairs is scanned against every row
   instead (:func:`~.distance_terms.scan`).

Budgets are compared with a margin ``1e-9 (1 + sum_j w_j)`` against the rounding of sums taken
in another order; membership of a vector in a box is decided on the integer level vectors.

The split and ``θ`` come from a cost model: round 1 evaluates about ``u² Σ_λ Π_j p_j(λ_j)``
ordered pairs if the attributes were independent (``p_j(l)`` the share of ordered pairs of rows
sharing their group at level ``l``), and round 2 costs at most a scan of ``u`` rows for each row
whose ``q``-th nearest distance exceeds ``2θ``, a share estimated on a seeded sample of rows.
(Counting round 2 by its cell mates instead picked budgets that left three rows in four to it
on a million uniform records, with loose bounds, and took longer.)
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from anonratio.instances.kanonymity.distance_terms import (
    Attribute,
    canonical,
    joint_tables,
    scale,
    scan,
    select,
)

__all__ = ["BoxPlan", "plan_boxes", "box_search"]

#: largest number of level vectors of a half (the product of its heights plus one)
_GRID_CAP = 20_000
#: slice length of the box scan (cache-sized)
_CHUNK = 1 << 16
#: rows sampled to estimate the share of rows round 2 scans
_SAMPLE = 256
#: cost of one evaluated position of a box, in pairs of the dense scan
_BOX_COST = 2.0
#: cost of a pair of round 2's cell mates, in pairs of the dense scan
_MATE_COST = 4.0
#: groups of rows, by budget, of round 2
_GROUPS = 4
#: pairs evaluated per block in round 2
_BLOCK = 1 << 21
#: candidate budgets: these quantiles of the sampled q-th nearest distances, halved
_QUANTILES = np.linspace(0.3, 1.0, 15)


class _Half:
    """The level vectors of one half of the attributes: costs, pair shares, first boxes."""

    def __init__(self, attrs: list[Attribute], js: tuple[int, ...], share: list[np.ndarray]):
        self.js = js
        self.radix = np.array([attrs[j].height + 1 for j in js], dtype=np.int64)
        self.grid = np.array(list(itertools.product(*[range(r) for r in self.radix])))
        self.grid = self.grid.reshape(-1, len(js))
        self.cost = np.zeros(len(self.grid))
        self.share = np.ones(len(self.grid))
        for t, j in enumerate(js):
            self.cost += attrs[j].terms[self.grid[:, t]]
            self.share *= share[j][self.grid[:, t]]
        self.stride = np.cumprod(np.r_[self.radix[1:], 1][::-1])[::-1]
        self.sorted_cost = np.sort(self.cost)
        self.cache: dict[int, float] = {}

    def boxes(self, budget: float) -> np.ndarray:
        """The maximal level vectors within ``budget`` (rows of :attr:`grid`, grid order)."""
        within = self.cost <= budget
        maximal = within.copy()
        for t, r in enumerate(self.radix):
            up = self.grid[:, t] < r - 1
            maximal[up] &= ~within[np.flatnonzero(up) + self.stride[t]]
        return np.flatnonzero(maximal)

    def pairs(self, budget: float) -> float:
        """Share of ordered row pairs the boxes within ``budget`` hold (independent attributes,
        with repeats); cached by the vectors within budget."""
        key = int(np.searchsorted(self.sorted_cost, budget, side="right"))
        if key not in self.cache:
            self.cache[key] = float(self.share[self.boxes(budget)].sum())
        return self.cache[key]

    def first_box(self, boxes: np.ndarray) -> np.ndarray:
        """For every level vector, the first of ``boxes`` dominating it (``len(boxes)``: none)."""
        dom = (self.grid[:, None, :] <= self.grid[boxes][None, :, :]).all(axis=2)
        return np.where(dom.any(axis=1), dom.argmax(axis=1), len(boxes))

    def index(self, attrs: list[Attribute], a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Grid index of the level vectors ``L_H(a, b)``."""
        idx = np.zeros(len(a), dtype=np.int64)
        for t, j in enumerate(self.js):
            at = attrs[j]
            idx += self.stride[t] * at.level(at.codes[a], at.codes[b])
        return idx


@dataclass
class BoxPlan:
    """A split of the attributes into two halves, the budget ``theta`` and the model's costs
    (in pairs of the dense scan)."""

    halves: tuple[_Half, _Half]
    theta: float
    cost: float
    dense_cost: float
    q: int


def _splits(m: int) -> list[tuple[int, ...]]:
    """Every half ``A`` holding attribute 0 with ``m // 2`` attributes (up to m = 12), or the
    alternate split."""
    if m > 12:
        return [tuple(range(0, m, 2))]
    return [c for c in itertools.combinations(range(m), m // 2) if 0 in c]


def plan_boxes(
    attrs: list[Attribute], u: int, q: int, tau: np.ndarray, seed: int = 0
) -> BoxPlan | None:
    """The cheapest split and budget by the cost model, or ``None`` (fewer than two attributes,
    an attribute too wide for a table, halves with more than ``_GRID_CAP`` level vectors)."""
    m = len(attrs)
    if m < 2 or any(at.table is None for at in attrs):
        return None
    heights = np.array([at.height + 1 for at in attrs], dtype=float)
    share = [np.array([at.collision(t) for t in range(at.height + 1)]) for at in attrs]
    rng = np.random.default_rng(seed)
    sample = np.sort(rng.choice(u, size=min(u, _SAMPLE), replace=False))
    dq = scan(attrs, u, q, tau, sample)[1][:, -1]
    budgets = np.unique(np.quantile(dq, _QUANTILES)) / 2
    eps = 1e-9 * scale(attrs)
    best: BoxPlan | None = None
    for js in _splits(m):
        rest = tuple(j for j in range(m) if j not in js)
        if max(np.prod(heights[list(js)]), np.prod(heights[list(rest)])) > _GRID_CAP:
            continue
        halves = (_Half(attrs, js, share), _Half(attrs, rest, share))
        for theta in budgets:
            pairs = sum(h.pairs(theta + eps) for h in halves)
            cost = float(u) * u * (_BOX_COST * pairs + float(np.mean(dq > 2 * theta - eps)))
            if best is None or cost < best.cost:
                best = BoxPlan(halves, float(theta), cost, float(u) * u, q)
    return best


def _cell_keys(attrs: list[Attribute], half: _Half, box: int) -> np.ndarray:
    """Every row's cell in ``box``: its groups at the box's levels, as one integer."""
    key = np.zeros(len(attrs[0].codes), dtype=np.int64)
    for t, j in enumerate(half.js):
        g = attrs[j].group_key(int(half.grid[box, t]))
        radix = int(g.max()) + 1
        if int(key.max()) >= (1 << 62) // radix:
            key = np.unique(key, return_inverse=True)[1].reshape(-1).astype(np.int64)
        key = key * radix + g
    return key


def _cell_order(attrs: list[Attribute], half: _Half, box: int) -> tuple[np.ndarray, ...]:
    """Rows of the cells of ``box`` holding two rows or more, largest cells first; each
    position's count of positions to the end of its cell (itself included), and its cell's
    size (non-increasing)."""
    u = len(attrs[0].codes)
    key = _cell_keys(attrs, half, box)
    o = np.argsort(key, kind="stable")
    ks = key[o]
    start = np.flatnonzero(np.r_[True, ks[1:] != ks[:-1]])
    size = np.diff(np.r_[start, u])
    cells = np.flatnonzero(size >= 2)
    cells = cells[np.argsort(-size[cells], kind="stable")]
    size = size[cells]
    first = np.cumsum(size) - size
    pos = np.arange(int(size.sum()))
    cell_of = np.repeat(np.arange(len(cells)), size)
    rows = o[start[cells][cell_of] + pos - first[cell_of]]
    remaining = (first + size)[cell_of] - pos
    return rows, remaining, size[cell_of]


def _gathered(tables: list[tuple[np.ndarray, np.ndarray]], rows: np.ndarray) -> list[tuple]:
    """Each table flattened, with the rows' codes premultiplied by its width, and plain."""
    out = []
    for tab, code in tables:
        c = code[rows].astype(np.int32)
        out.append((tab.ravel(), c * np.int32(tab.shape[0]), c))
    return out


def _scan_box(
    cells: tuple[np.ndarray, ...], other: list, own: list, thr32: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Pairs of rows sharing a cell (:func:`_cell_order`) whose float32 distance, the tables
    ``other`` first, then ``own``, is within the larger of their bounds ``thr32``."""
    rows, remaining, size = cells
    empty = np.empty(0, dtype=np.int64)
    if len(rows) == 0:
        return empty, empty
    (tab0, pre0, code0), *more = _gathered(other, rows)
    second, th = _gathered(own, rows), thr32[rows]
    out_a, out_b = [], []
    neg_size = -size
    idx = np.empty(_CHUNK, dtype=np.int32)
    tmp = np.empty(_CHUNK, dtype=np.float32)
    lim = np.empty(_CHUNK, dtype=np.float32)
    for o in range(1, int(size[0])):
        # the positions of cells larger than o are a prefix; pairs (i, i + o) with i < n
        n = int(np.searchsorted(neg_size, -o, side="left")) - o
        for lo in range(0, n, _CHUNK):
            hi = min(n, lo + _CHUNK)
            k = hi - lo
            part = np.take(tab0, np.add(pre0[lo:hi], code0[lo + o : hi + o], out=idx[:k]))
            for tab, pre, code in more:
                part += np.take(
                    tab, np.add(pre[lo:hi], code[lo + o : hi + o], out=idx[:k]), out=tmp[:k]
                )
            np.maximum(th[lo:hi], th[lo + o : hi + o], out=lim[:k])
            i = np.flatnonzero(part <= lim[:k])
            i = i[remaining[lo + i] > o]  # the partner is in the same cell
            if len(i) == 0:
                continue
            p, ia = part[i], i + lo
            for tab, pre, code in second:
                p += tab[pre[ia] + code[ia + o]]
            keep = p <= lim[i]
            out_a.append(rows[ia[keep]])
            out_b.append(rows[ia[keep] + o])
    if not out_a:
        return empty, empty
    return np.concatenate(out_a), np.concatenate(out_b)


class _Found:
    """Distinct neighbour pairs found, one entry per direction ``a -> b`` within ``tau[a]``.

    ``best[a]`` holds the distances of ``q`` distinct rows found for ``a`` (the nearest by
    their float32 value), so ``tau[a]`` shrinks to ``max(best[a])``: a distance to ``q`` real
    rows, hence still at least ``a``'s ``q``-th nearest distance.
    """

    def __init__(self, tau: np.ndarray, q: int) -> None:
        self.tau, self.q = tau, q
        self.best = np.full((len(tau), q), np.inf)
        self.parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.size = self.compacted = 0

    def add(self, a: np.ndarray, b: np.ndarray, d: np.ndarray) -> None:
        x, y, dd = np.r_[a, b], np.r_[b, a], np.r_[d, d]
        k = dd <= self.tau[x]
        x, y, dd = x[k], y[k], dd[k]
        self.parts.append((x, y, dd))
        self.size += len(x)
        if len(x) == 0:
            return
        # the q smallest new distances of every row, merged into best
        o = np.argsort((x << 32) | dd.astype(np.float32).view(np.uint32).astype(np.int64))
        xs, ds = x[o], dd[o]
        head = np.flatnonzero(np.r_[True, xs[1:] != xs[:-1]])
        group = np.repeat(np.arange(len(head)), np.diff(np.r_[head, len(xs)]))
        rank = np.arange(len(xs)) - head[group]
        top = rank < self.q
        new = np.full((len(head), self.q), np.inf)
        new[group[top], rank[top]] = ds[top]
        rows = xs[head]
        merged = np.sort(np.concatenate([self.best[rows], new], axis=1), axis=1)[:, : self.q]
        self.best[rows] = merged
        self.tau[rows] = np.minimum(self.tau[rows], merged[:, -1])
        if self.size > max(4 * len(self.tau), 2 * self.compacted):
            self.entries()

    def entries(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The entries within the current bounds."""
        a, b, d = (np.concatenate([p[i] for p in self.parts]) for i in range(3))
        k = d <= self.tau[a]
        self.parts = [(a[k], b[k], d[k])]
        self.size = self.compacted = int(k.sum())
        return self.parts[0]


def box_search(
    attrs: list[Attribute], u: int, q: int, tau: np.ndarray, plan: BoxPlan
) -> tuple[np.ndarray, np.ndarray]:
    """The exact ``q`` nearest other rows of every row, ties by index (module docstring).

    ``tau[a]`` must be at least ``a``'s ``q``-th nearest distance. O(P + u (q + log u) B) for
    ``P`` pairs sharing a cell of one of ``B`` boxes, plus ``u`` pairs for each row left to
    round 2; memory O(u) per box plus the pairs kept.
    """
    tau = tau.copy()
    eps = 1e-9 * scale(attrs)
    margin = 1e-5 * scale(attrs)  # float32 sums: error below 1e-6
    found = _Found(tau, q)
    halves = plan.halves
    tables = [joint_tables([attrs[j] for j in h.js]) for h in halves]
    boxes = [h.boxes(plan.theta + eps) for h in halves]
    first = [h.first_box(bx) for h, bx in zip(halves, boxes, strict=True)]
    for s, half in enumerate(halves):
        for n, box in enumerate(boxes[s]):
            cells = _cell_order(attrs, half, int(box))
            thr32 = (tau + margin).astype(np.float32)
            a, b = _scan_box(cells, tables[1 - s], tables[s], thr32)
            # keep a pair in the first box that holds it: of half 0, then of half 1
            keep = first[s][half.index(attrs, a, b)] == n
            if s == 1:
                keep &= first[0][halves[0].index(attrs, a, b)] == len(boxes[0])
            a, b = a[keep], b[keep]
            found.add(a, b, canonical(attrs, a, b))
    a, b, d = found.entries()
    done = tau <= 2 * plan.theta
    index = np.empty((u, q), dtype=np.int64)
    dist = np.empty((u, q))
    mine = done[a]
    local = np.cumsum(done) - 1
    index[done], dist[done] = select(local[a[mine]], b[mine], d[mine], int(done.sum()), q)
    rest = np.flatnonzero(~done)
    if len(rest):
        keep = ~mine
        index[rest], dist[rest] = _round2(attrs, plan, tau, rest, (a[keep], b[keep], d[keep]))
    return index, dist


def _round2(
    attrs: list[Attribute], plan: BoxPlan, tau: np.ndarray, rest: np.ndarray, known: tuple
) -> tuple[np.ndarray, np.ndarray]:
    """The rows ``rest`` (``tau > 2θ``): the pairs round 1 kept (``known``), and those with
    ``w_H <= tau - θ`` on one half ``H``, in groups of rows by that budget; or the scan for a
    group where the cost model prefers it."""
    u, q = len(tau), plan.q
    eps = 1e-9 * scale(attrs)
    margin = 1e-5 * scale(attrs)
    rest = rest[np.argsort(tau[rest], kind="stable")]
    budget = tau[rest] - plan.theta + eps
    half = min(plan.halves, key=lambda h: h.pairs(float(budget[-1])))
    tables = joint_tables(attrs)
    pairs: list[tuple[np.ndarray, np.ndarray]] = []
    index = np.empty((len(rest), q), dtype=np.int64)
    dist = np.empty((len(rest), q))
    dense = np.zeros(len(rest), dtype=bool)
    for group in np.array_split(np.arange(len(rest)), min(len(rest), _GROUPS)):
        boxes = half.boxes(float(budget[group[-1]]))
        if _MATE_COST * half.pairs(float(budget[group[-1]])) >= 1.0:
            dense[group] = True
            continue
        for box in boxes:
            key = _cell_keys(attrs, half, int(box))
            step = max(1, int(_BLOCK / (1.0 + u * float(half.share[box]))))
            for lo in range(0, len(group), step):
                x, y = _cell_mates(key, rest[group[lo : lo + step]])
                approx = np.zeros(len(x), dtype=np.float32)
                for tab, code in tables:
                    approx += tab[code[x], code[y]]
                k = (approx <= tau[x] + margin) & (x != y)
                pairs.append((x[k], y[k]))
    if dense.any():
        index[dense], dist[dense] = scan(attrs, u, q, tau, rest[dense])
    if not dense.all():
        a = np.concatenate([known[0], *(p[0] for p in pairs)])
        b = np.concatenate([known[1], *(p[1] for p in pairs)])
        local = np.full(u, -1)
        local[rest[~dense]] = np.arange(int((~dense).sum()))
        k = local[a] >= 0
        key = np.unique(local[a[k]] * u + b[k])  # distinct pairs
        a, b = key // u, key % u
        d = canonical(attrs, rest[~dense][a], b)
        k = d <= tau[rest[~dense][a]]
        index[~dense], dist[~dense] = select(a[k], b[k], d[k], int((~dense).sum()), q)
    order = np.argsort(rest)
    return index[order], dist[order]


def _cell_mates(key: np.ndarray, queries: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pairs ``(a, b)``: ``a`` in ``queries``, ``b`` any row sharing its cell (``key``)."""
    cells, cell_of = np.unique(key[queries], return_inverse=True)
    pos = np.clip(np.searchsorted(cells, key), 0, len(cells) - 1)
    members = np.flatnonzero(cells[pos] == key)
    members = members[np.argsort(pos[members], kind="stable")]
    start = np.searchsorted(pos[members], np.arange(len(cells)))
    count = np.diff(np.r_[start, len(members)])[cell_of.reshape(-1)]
    a = np.repeat(queries, count)
    offset = np.arange(len(a)) - np.repeat(np.cumsum(count) - count, count)
    return a, members[np.repeat(start[cell_of.reshape(-1)], count) + offset]
