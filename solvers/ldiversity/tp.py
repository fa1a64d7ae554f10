"""TP: the three-phase algorithm for l-diversity by suppression (Xiao, Yi and Tao 2010, §5).

QI-groups (records with identical QI values) lose records to a residue set ``R`` until every
QI-group and ``R`` are l-eligible; the partition publishes each non-empty QI-group unchanged and
``R`` as one group. Phase 1 is vectorized over all QI-groups; phases 2 and 3 loop over moves with
the inverted lists of §5.5 (per sensitive value the QI-groups holding it, per group the pillar
height and the number of pillars), lazily pruned.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping
from time import perf_counter
from typing import Any

import numpy as np

from anonratio.instances import Solution
from anonratio.instances.ldiversity.instance import (
    LDiversityInstance,
    group_stats,
    phase_one,
    qi_groups,
)
from anonratio.instances.validation import check_instance, check_seed

__all__ = [
    "tp",
    "tp_guarantee",
    "tp_partition",
    "tp_bound",
    "residue_stars",
]


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------


def residue_stars(codes: np.ndarray, rows: np.ndarray) -> int:
    """Stars of ``rows`` published as one group: ``|rows|`` x (QI attributes not constant)."""
    if rows.size == 0:
        return 0
    block = codes[rows]
    return int(rows.size * np.count_nonzero(block.min(axis=0) != block.max(axis=0)))


def _conflicting(vq: list, cq: list, hq: int, c_r: list, h_r: int) -> bool:
    return any(c == hq and c_r[v] == h_r for v, c in zip(vq, cq, strict=True))


class _State:
    """Phases 2-3 state: the non-empty QI-groups left by phase 1 and the residue counts."""

    def __init__(self, pg, pv, keep, removed, l, m):
        self.l = l
        live = keep > 0
        grp, val, cnt = pg[live], pv[live], keep[live]
        self.pair_ids = np.flatnonzero(live)
        ids, starts = np.unique(grp, return_index=True)
        bounds = np.r_[starts, grp.size].tolist()
        val_l, cnt_l = val.tolist(), cnt.tolist()
        self.vals = [val_l[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
        self.cnt = [cnt_l[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
        self.size = [sum(c) for c in self.cnt]
        self.h = [max(c) for c in self.cnt]
        self.npill = [c.count(h) for c, h in zip(self.cnt, self.h, strict=True)]
        self.offsets = bounds
        self.c_r = np.bincount(pv, weights=removed, minlength=m).astype(np.int64).tolist()
        self.n_r = int(sum(self.c_r))
        self.h_r = max(self.c_r)
        self.by_value: list[list[tuple[int, int]]] = [[] for _ in range(m)]
        for q, vq in enumerate(self.vals):
            for i, v in enumerate(vq):
                self.by_value[v].append((q, i))

    def done(self) -> bool:
        return self.l * self.h_r <= self.n_r

    def take(self, q: int, i: int) -> None:
        """Move one record of the ``i``-th value of group ``q`` to ``R`` (O(1) amortized)."""
        cq = self.cnt[q]
        c = cq[i]
        cq[i] = c - 1
        self.size[q] -= 1
        if c == self.h[q]:
            self.npill[q] -= 1
            if self.npill[q] == 0:
                self.h[q] = c - 1
                self.npill[q] = cq.count(c - 1) if c > 1 else 0
        v = self.vals[q][i]
        self.c_r[v] += 1
        self.n_r += 1
        if self.c_r[v] > self.h_r:
            self.h_r = self.c_r[v]

    def take_pillars(self, q: int) -> None:
        hq, cq = self.h[q], self.cnt[q]
        for i in [i for i, c in enumerate(cq) if c == hq]:
            self.take(q, i)

    def alive(self, q: int) -> bool:
        size, hq = self.size[q], self.h[q]
        if size == 0:
            return False
        if size > self.l * hq:
            return True
        return not _conflicting(self.vals[q], self.cnt[q], hq, self.c_r, self.h_r)

    def phase_two(self) -> bool:
        """Phase 2 (§5.3); ``True`` when ``R`` became l-eligible. Dead groups stay dead in this
        phase (R's pillar set only grows, Lemma 5.11), so they are pruned lazily for good."""
        dead = [False] * len(self.vals)
        c_r, by_value = self.c_r, self.by_value
        heap = [(c_r[v], v) for v in range(len(c_r)) if by_value[v]]
        heapq.heapify(heap)
        while heap:
            c, v = heap[0]
            if c != c_r[v]:
                heapq.heapreplace(heap, (c_r[v], v))
                continue
            lst = by_value[v]
            while lst:
                q, i = lst[-1]
                if dead[q] or self.cnt[q][i] == 0:
                    lst.pop()
                elif self.alive(q):
                    break
                else:
                    dead[q] = True
                    lst.pop()
            if not lst:  # v is no longer alive
                heapq.heappop(heap)
                continue
            if self.size[q] > self.l * self.h[q]:  # fat
                self.take(q, i)
            else:  # thin, not conflicting
                self.take_pillars(q)
            if self.done():
                return True
        return False

    def _revive(self, q: int) -> bool:
        """Phase 3 step 2 on group ``q``: move records until it is dead; ``True`` if R became
        l-eligible."""
        l, c_r = self.l, self.c_r
        while self.size[q]:
            vq, cq = self.vals[q], self.cnt[q]
            if self.size[q] > l * self.h[q]:  # fat: a value that is not a pillar of R
                h_r = self.h_r
                best, best_c = -1, None
                for i, (v, c) in enumerate(zip(vq, cq, strict=True)):
                    if c and c_r[v] < h_r and (best_c is None or c_r[v] < best_c):
                        best, best_c = i, c_r[v]
                if best < 0:  # pragma: no cover - impossible while R is not l-eligible
                    raise RuntimeError("phase 3: a fat group holds only pillars of R")
                self.take(q, best)
            elif _conflicting(vq, cq, self.h[q], c_r, self.h_r):
                return False
            else:
                self.take_pillars(q)
            if self.done():
                return True
        return False

    def phase_three(self) -> tuple[bool, int]:
        """Phase 3 rounds (§5.4); ``(finished, rounds)``. ``finished`` is ``False`` only if the
        greedy cover cannot progress (excluded by Lemma 5.14)."""
        rounds = 0
        groups = range(len(self.vals))
        while not self.done():
            rounds += 1
            c_r, h_r = self.c_r, self.h_r
            pillars_r = frozenset(v for v, c in enumerate(c_r) if c == h_r)
            by_cover: dict[frozenset, int] = {}
            for q in groups:  # one representative group per conflicting-pillar set C(Q)
                if self.size[q]:
                    hq = self.h[q]
                    cover = frozenset(
                        v
                        for v, c in zip(self.vals[q], self.cnt[q], strict=True)
                        if c == hq and v in pillars_r
                    )
                    by_cover.setdefault(cover, q)
            u, picked = set(pillars_r), []
            while u:
                cover, q = min(by_cover.items(), key=lambda kv: len(u & kv[0]))
                if len(u & cover) >= len(u):
                    return False, rounds
                picked.append(q)
                u &= cover
            for q in picked:  # step 1
                self.take_pillars(q)
                if self.done():
                    return True, rounds
            lost = [v for v in pillars_r if self.c_r[v] < self.h_r]
            todo = dict.fromkeys(picked)
            for v in lost:  # groups that may have stopped conflicting
                for q, _ in self.by_value[v]:
                    todo[q] = None
            for q in todo:  # step 2
                if self._revive(q):
                    return True, rounds
        return True, rounds

    def kept(self, n_pairs: int) -> np.ndarray:
        out = np.zeros(n_pairs, dtype=np.int64)
        flat = [c for cq in self.cnt for c in cq]
        out[self.pair_ids] = flat
        return out


def tp_partition(instance: LDiversityInstance) -> tuple[np.ndarray, dict[str, Any]]:
    """TP's partition: ``(labels, info)``; the residue ``R`` has the largest label when non-empty.

    ``info``: ``phase`` (1, 2 or 3: the phase TP ended in), ``moved`` (records moved to ``R``
    in each phase), ``residue`` (``|R|``), ``h1`` (pillar height of phase 1's residue),
    ``rounds`` (phase-3 rounds), ``lower_bound`` (``max(|R1|, l h1)``, Cor. 5.10: the
    instance's lower bound, computed from phase 1), ``fallback`` (``True`` only if phase 3
    could not progress and every remaining record joined ``R``; excluded by Lemma 5.14).
    """
    n, l = instance.n, instance.l
    s = np.asarray(instance.sensitive, dtype=np.int64)
    group = qi_groups(instance.table.codes)
    m = int(s.max()) + 1
    pg, pv, count, keep, pair_of_record = phase_one(group, s, l)
    removed = count - keep
    c_r1 = np.bincount(pv, weights=removed, minlength=m).astype(np.int64)
    moved1, h1 = int(c_r1.sum()), int(c_r1.max())
    info: dict[str, Any] = {"phase": 1, "moved": [moved1, 0, 0], "h1": h1, "rounds": 0}
    info["lower_bound"] = max(moved1, l * h1) if moved1 else 0  # Cor. 5.10
    info["fallback"] = False
    if l * h1 > moved1:
        st = _State(pg, pv, keep, removed, l, m)
        if st.phase_two():
            info["phase"] = 2
            info["moved"][1] = st.n_r - moved1
        else:
            n2 = st.n_r
            info["phase"] = 3
            info["moved"][1] = n2 - moved1
            finished, info["rounds"] = st.phase_three()
            if not finished:  # pragma: no cover - excluded by Lemma 5.14
                info["fallback"] = True
                for q in range(len(st.cnt)):
                    st.cnt[q] = [0] * len(st.cnt[q])
                st.n_r = n
            info["moved"][2] = st.n_r - n2
        keep = st.kept(count.size)
    # records: the first keep[p] records of each pair stay in their QI-group
    order = np.argsort(pair_of_record, kind="stable")
    sorted_pairs = pair_of_record[order]
    first = np.searchsorted(sorted_pairs, np.arange(count.size))
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n) - first[sorted_pairs]
    stay = rank < keep[pair_of_record]
    labels = np.empty(n, dtype=np.int64)
    _, compact = np.unique(group[stay], return_inverse=True)
    labels[stay] = compact.reshape(-1)
    labels[~stay] = int(compact.max(initial=-1)) + 1
    info["residue"] = int(n - np.count_nonzero(stay))
    return labels, info


# ---------------------------------------------------------------------------------------------
# guarantee
# ---------------------------------------------------------------------------------------------
def tp_bound(instance: LDiversityInstance, info: Mapping[str, Any]) -> float:
    """A-priori ratio bound of TP for the phase it ended in (``info`` of :func:`tp_partition`).

    Tuples (Problem 2), with ``h1 = h(R1)`` and ``OPT >= LB = max(|R1|, l h1)`` (Cor. 5.10):

    * phase 1: 1 (Cor. 5.9);
    * phase 2: ``|R| <= l h1 + l - 1`` (Lemmas 5.11-5.12: h(R) stays h1, a move ships at most
      ``l`` records — a thin l-eligible group has at most ``l`` pillars), so the ratio is at
      most ``(l h1 + l - 1) / LB <= 1 + (l - 1) / (l h1)``;
    * phase 3: each round picks ``k <= l - 1`` groups (R has at most ``l - 1`` pillars while
      not l-eligible; each greedy pick shrinks ``U``, Lemma 5.14), raises ``h(R)`` by at most
      ``k - 1 <= l - 2`` and ``|R|`` by at least ``k l``, so the gap ``l h(R) - |R| <= l h1``
      falls by at least ``l`` per round: at most ``h1`` rounds, ``h(R) <= (l - 1) h1`` and
      ``|R| <= l (l - 1) h1 + l - 1``; ratio at most ``(l (l-1) h1 + l - 1) / LB <= (l - 1)(1
      + 1/(l h1)) < l`` (our explicit constant for Theorem 5.19's O(l), whose constant is lost
      in the text).

    Stars (Problem 1): TP's stars are ``|R| d_R`` (``d_R`` <= d QI attributes not constant on
    R) and ``OPT_stars >= OPT_tuples`` (every suppressed tuple has a star), so the stars ratio is
    at most ``d_R`` times the tuples bound (Lemma 2's ``d`` factor, Theorem 5.19: O(l d)).
    """
    l, h1 = instance.l, int(info["h1"])
    r1 = int(info["moved"][0])
    if info.get("fallback"):  # every record in R (excluded by Lemma 5.14): n tuples at worst
        tuples = instance.n / max(r1, l * h1, 1)
    elif info["phase"] == 1 or r1 == 0:
        tuples = 1.0
    else:
        lb = max(r1, l * h1)
        top = l * h1 + l - 1 if info["phase"] == 2 else l * (l - 1) * h1 + l - 1
        tuples = top / lb
    if instance.objective == "tuples":
        return float(tuples)
    return float(max(int(info.get("residue_attributes", instance.d)), 1) * tuples)


def tp_guarantee(instance: LDiversityInstance, solution: Solution | None = None) -> float:
    """Proven ratio of TP's (or TP+'s) ``solution`` on ``instance`` (``cost <= ratio x OPT``):
    :func:`tp_bound`, the a-priori bound of the analysis for the phase TP reached (never the
    run's own cost over a lower bound: that is its certified ratio, reported apart). 1 when
    nothing is suppressed. Without ``solution``, TP's own.
    """
    if solution is None:
        solution = tp(instance)
    assert solution.objective is not None  # TP always ends with a feasible partition
    if float(solution.objective) == 0:
        return 1.0
    return float(tp_bound(instance, solution.info))


# ---------------------------------------------------------------------------------------------
# TP
# ---------------------------------------------------------------------------------------------
def tp(instance: LDiversityInstance, *, seed: int | np.random.Generator | None = None) -> Solution:
    """TP, the three-phase algorithm (Xiao, Yi and Tao 2010, §5): O(l d)-approximate.

    Phase 1 moves pillar records of each QI-group to the residue ``R`` until the group is
    l-eligible; phase 2 ships records of the alive value least frequent in ``R`` (from a fat
    group: one record of it; from a thin non-conflicting one: one record of each pillar); phase 3
    runs rounds of a greedy set cover of R's pillars followed by re-killing the revived groups.
    TP stops as soon as ``R`` is l-eligible. Each non-empty QI-group is published as its own group
    (no stars) and ``R`` as one group.

    Parameters
    ----------
    instance : LDiversityInstance
    seed : ignored
        TP is deterministic (ties broken by value and group order); recorded when an int.

    Returns
    -------
    Solution
        ``info``: ``phase`` (1, 2, 3), ``moved`` (per phase), ``residue`` (``|R|``), ``h1``,
        ``rounds``, ``residue_attributes`` (QI attributes not constant on R), ``stars``,
        ``suppressed_tuples``, ``guarantee``. ``lower_bound``: the instance's lower bound
        ``max(|R1|, l h(R1))`` (for tuples and phase 1 it equals the cost: optimal).

    Notes
    -----
    Guarantees (tuples; stars are at most ``d`` times these, Lemma 2): phase 1 optimal (Cor.
    5.9); phase 2 within ``l - 1`` tuples of the optimum (Lemma 5.12); phase 3 ratio below ``l``
    (see :func:`tp_bound`); ``m = 2`` always ends by phase 2 (Theorem 5.16).

    Phase 1 is vectorized, O(n log n) (sorting). Phase 2 is O(1) amortized per moved record plus
    O(k) per group check (``k`` its distinct values) and O(log m) heap work (§5.5). Phase 3 is
    O(g k) per round (``g`` QI-groups), at most ``h(R1)`` rounds.

    References
    ----------
    X. Xiao, K. Yi, Y. Tao, "The Hardness and Approximation Algorithms for L-Diversity", EDBT
    2010, §5 (Lemmas 5.8-5.18, Theorems 5.16, 5.19, 5.20).
    """
    t0 = perf_counter()
    check_instance(instance, LDiversityInstance)
    seed_rec = check_seed(seed)
    labels, info = tp_partition(instance)
    return _finish(instance, labels, info, "tp", seed_rec, t0)


def _certified_bound(instance: LDiversityInstance, info: dict[str, Any]) -> int:
    """``max(|R1|, l h1)``, and after phases 1-2 also ``|R| - (l - 1)``: TP's tuples are then
    within ``l - 1`` of the optimum (Lemma 5.12), and ``OPT_stars >= OPT_tuples``."""
    bound = int(info["lower_bound"])
    if info["phase"] <= 2 and not info.get("fallback"):
        bound = max(bound, int(info["residue"]) - (instance.l - 1))
    return bound


def _finish(instance, labels, info, algorithm, seed_rec, t0) -> Solution:
    """Cost, bound and guarantee of a TP-family partition (``info`` of :func:`tp_partition`)."""
    _, sizes, differ, _ = group_stats(instance, labels)
    stars, tuples, top = int(sizes @ differ), int(sizes[differ > 0].sum()), int(differ.max())
    cost = stars if instance.objective == "stars" else tuples
    info.setdefault("residue_attributes", top)
    info["stars"], info["suppressed_tuples"] = stars, tuples
    sol = Solution.with_bound(
        labels,
        algorithm,
        params=instance.params,
        seed=seed_rec,
        status="feasible",
        objective=float(cost),
        bound=float(_certified_bound(instance, info)),
        t0=t0,
        info=info,
    )
    info["guarantee"] = tp_guarantee(instance, sol)
    return sol
