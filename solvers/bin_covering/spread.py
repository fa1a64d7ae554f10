"""Spread: the 5/2-approximation for Min-Max Bin Covering (Du et al. 2009, Theorem 10).

The algorithm of the proof, in the paper's units (sizes divided by ``k``, so bins need level 1):

1. Items of size >= 1 get bins of their own (all small items join the lightest of them when the
   small items sum below 1).
2. The small items, in decreasing order, fill bins greedily (a bin closes at level >= 1, so every
   closed bin holds less than 2). If the last bin also reaches 1 the packing costs < 2.
3. Otherwise, with at least four bins, let ``f`` be the largest item of the last bin and ``r`` the
   rest of it. *Case 1* (``f <= 1/2``): Lemma 9 splits the last bin into three parts of at most
   1/2, added to three closed bins (<= 5/2). *Case 2* (``f > 1/2``; the last bin then holds the
   odd large item and every small one): *2.1* ``x_1 + r >= 1``: swap ``x_1`` and ``f`` (cost <= 2);
   *2.2* otherwise every optimum has a bin with three large items or a large item beside an
   item >= 1, so OPT >= 3/2 and Fold (< 3) is within 2.
4. With at most three bins the paper searches exhaustively (claimed O(n^4)).

Where this implementation adds to the proof (all choices keep the 5/2 bound):

* Step 4 is NP-hard in general (with ``S = 2k`` it contains Partition), so the exhaustive search
  runs under a node budget, starting from candidates whose ratio is proven here: without items
  >= k, ``S <= 5k - 5``; one bin (cost ``S``) is within 2 of OPT when ``S < 3k`` (OPT >=
  ``S / floor(S/k)``), and LPT into two bins (each item to the lighter bin; the loads never differ
  by more than ``max x < k``) covers both bins and costs at most ``(S + k - 1)/2`` — within 2.5 of
  OPT >= ``S/4`` when ``S >= 4k`` and within 2 of OPT >= ``S/3`` when ``3k <= S < 4k``.
  LPT into three and four bins and the best two-bin split (exact, by bitset subset sums over
  the distinct sizes: pseudo-polynomial, skipped beyond 2e8 bits) are further candidates; the
  exhaustive search (at most 400 items) then tries to beat the best of them.
* When items >= k exist, the leftover bin may also join the lightest of their bins: cost
  ``<= max(2k - 2, M + k - 1) <= 2 OPT`` (OPT >= ``max(k, M)``); the cheaper candidate is kept.
* With ``order="random"`` the greedy runs in random order; case 1 and the small case hold for
  any order (closed bins stay below ``2k``), but case 2 needs decreasing order, so it reruns
  with ``order="sorted"`` (``info["fallback"]``).
* Case 1 adds the largest part to the lightest closed bin, and so on (any three closed bins give
  the bound).
"""

from __future__ import annotations

from collections.abc import Sequence
from time import perf_counter

import numpy as np

from anonratio.instances import Solution
from anonratio.instances.bin_covering.instance import BinCoveringInstance
from anonratio.instances.validation import check_int
from anonratio.solvers.bin_covering.fold import (
    bin_solver_iv,
    finish,
    fold_labels,
    greedy_fill,
    item_order,
    loads_of,
)

__all__ = ["spread", "spread_guarantee", "lemma9_split"]

#: items above this count skip the exhaustive search of the small case (recursion depth)
_EXHAUSTIVE_MAX_ITEMS = 400


def spread_guarantee(instance: BinCoveringInstance, solution: Solution | None = None) -> float:
    """Theorem 10's ratio: 5/2, whatever the instance and the run's ``solution``."""
    return 2.5


def lemma9_split(values: Sequence[int] | np.ndarray) -> list[np.ndarray]:
    """Lemma 9: split a list into three parts, each at most ``max(x_max, total / 2)``.

    The largest item alone, then Lemma 8 on the rest in its order: cut at the partial sum closest
    to half of it, so each part holds at most ``(s + m) / 2 <= total / 2`` (``s`` the rest's sum,
    ``m <= x_max`` its largest item). Returns three arrays of positions into ``values``.
    """
    values = np.asarray(values)
    first = int(np.argmax(values))
    rest = np.delete(np.arange(values.size), first)
    c = np.concatenate([[0], np.cumsum(values[rest])])
    cut = int(np.argmin(np.abs(2 * c - c[-1])))
    return [np.array([first]), rest[:cut], rest[cut:]]


def _lpt(sizes, items, j):
    """Each item (decreasing size) to the currently lightest of ``j`` bins (ties: the lowest bin
    number); returns ``(items in that order, labels 0..j-1)``.

    Runs of equal sizes are placed at once (:func:`_lpt_run`); shorter runs item by item on a
    Python list of ``j`` loads. O(j n) numpy work plus O(1) calls per distinct size; with all sizes
    distinct LPT is inherently sequential and the loop is per item (no heap: ``j <= 4``).
    """
    items = items[np.argsort(-sizes[items], kind="stable")]
    v = sizes[items]
    lab = np.empty(items.size, dtype=np.int64)
    loads = [0] * j
    bounds = np.append(np.flatnonzero(np.diff(v, prepend=v[:1] - 1)), v.size).tolist()
    for a, e in zip(bounds[:-1], bounds[1:], strict=True):
        size = int(v[a])
        if e - a < _RUN_MIN:
            for t in range(a, e):
                b = loads.index(min(loads))
                lab[t] = b
                loads[b] += size
        else:
            lab[a:e] = picks = _lpt_run(np.asarray(loads, dtype=np.int64), size, e - a)
            loads = (loads + size * np.bincount(picks, minlength=j)).tolist()
    return items, lab


#: runs of equal sizes at least this long are placed by :func:`_lpt_run`
_RUN_MIN = 32


def _lpt_run(loads, size, m):
    """Bins of ``m`` items of equal ``size > 0``, each to the lightest bin (ties: lowest number).

    While the run is placed, bin ``b`` offers the increasing loads ``L_b + i * size``, so taking
    the lightest ``(load, b)`` each time visits the pairs ``(L_b + i * size, b)`` in increasing
    order (a merge of ``j`` sorted lists). With ``L_b = q_b * size + r_b`` (``0 <= r_b < size``),
    the pair of index ``i`` lies in level ``q_b + i``; levels come in increasing order and inside
    a level the pairs sort by ``(r_b, b)``. The lightest bin has a pair in every level from
    ``min q``, so levels ``min q .. min q + m - 1`` hold the ``m`` picks. O(j m).
    """
    q, r = np.divmod(loads, size)
    cyc = np.argsort(r, kind="stable")  # the order of the bins inside every level
    levels = q.min() + np.arange(m)
    present = q[cyc][None, :] <= levels[:, None]  # (level, position in cyc)
    return cyc[np.flatnonzero(present)[:m] % loads.size]


class _Budget(Exception):
    pass


def _exhaustive(values, k, best, node_limit):
    """Exact min-max cover of ``values`` (decreasing) cheaper than ``best``; branch and bound.

    Returns ``(cost, bins, proven)``: ``bins`` the bin per value of the best cover found below
    ``best`` (None if none), ``proven`` False when the node budget ran out.
    """
    n, s = values.size, int(values.sum())
    global_lb = max(k, int(values[0]), -(-s // (s // k)))
    rem = np.concatenate([np.cumsum(values[::-1])[::-1], [0]]).tolist()
    vals = values.tolist()
    found = None
    nodes = 0
    state = {"best": best}

    def dfs(i, loads, assign, top):
        nonlocal nodes, found
        nodes += 1
        if nodes > node_limit:
            raise _Budget
        if sum(max(0, k - v) for v in loads) > rem[i]:
            return
        if i == n:
            state["best"], found = top, list(assign)
            return
        seen = set()
        for b in sorted(range(len(loads)), key=loads.__getitem__):
            load = loads[b]
            if load in seen:
                continue  # bins with equal loads are interchangeable
            seen.add(load)
            new = load + vals[i]
            if new >= state["best"]:
                break  # loads are tried in increasing order
            loads[b] = new
            assign.append(b)
            dfs(i + 1, loads, assign, max(top, new))
            assign.pop()
            loads[b] = load
            if state["best"] <= lb_j:
                return

    proven = True
    try:
        for j in range(min(s // k, n), 0, -1):
            lb_j = max(global_lb, -(-s // j))
            if lb_j >= state["best"]:
                continue
            dfs(0, [0] * j, [], 0)
            if state["best"] <= global_lb:
                break
    except _Budget:
        proven = False
    return state["best"], found, proven


def _two_bins(x, small, k, max_bits=200_000_000):
    """Best split of ``small`` into two bins of load >= k (exact, by subset sums), or None.

    Bitset subset-sum over the distinct sizes, each split into binary chunks of copies; the
    achievable sum in ``[k, S - k]`` closest to ``S / 2`` is optimal for two bins. Skipped (None)
    when the bitsets would exceed ``max_bits`` bits in total.
    """
    s = int(x[small].sum())
    values, counts = np.unique(x[small], return_counts=True)
    chunks = []  # (value, copies) with copies 1, 2, 4, ... (binary splitting)
    for v, c in zip(values.tolist(), counts.tolist(), strict=True):
        step = 1
        while c > 0:
            take = min(step, c)
            chunks.append((v, take))
            c -= take
            step *= 2
    if len(chunks) * (s + 1) > max_bits:
        return None
    reach = [1]
    for v, c in chunks:
        reach.append(reach[-1] | (reach[-1] << (v * c)))
    lo, hi = k, min(s // 2, s - k)  # a <= S/2: the other bin is the heavier one
    window = (reach[-1] >> lo) & ((1 << max(hi - lo + 1, 0)) - 1)  # bit a - lo: sum a reachable
    if window == 0:
        return None
    best = lo + window.bit_length() - 1  # the largest reachable sum in [lo, hi]
    take = np.zeros(values.size, dtype=np.int64)  # copies of each distinct size in bin 0
    a = best
    for i in range(len(chunks) - 1, -1, -1):  # walk back through the bitsets
        if not (reach[i] >> a) & 1:
            v, c = chunks[i]
            take[np.searchsorted(values, v)] += c
            a -= v * c
    return s - best, _first_copies(x[small], values, take)


def _first_copies(xs, values, take):
    """Label 0 for the first ``take[t]`` items (in order) of size ``values[t]``, 1 for the rest.

    ``values`` sorted increasing and holding every size of ``xs``. O(n log n).
    """
    vid = np.searchsorted(values, xs)
    order = np.argsort(vid, kind="stable")
    counts = np.bincount(vid, minlength=values.size)
    rank = np.empty(xs.size, dtype=np.int64)  # position among the items of the same size
    rank[order] = np.arange(xs.size) - np.repeat(np.cumsum(counts) - counts, counts)
    return np.where(rank < take[vid], 0, 1).astype(np.int64)


def _small_case(x, k, small, node_limit):
    """At most three greedy bins and no item >= k: the candidates of the module docstring, then
    the budgeted exhaustive search. Returns ``(bin labels for small, case, info)``."""
    s = int(x[small].sum())
    cands = [(s, np.zeros(small.size, dtype=np.int64), "one-bin")]
    order = small[np.argsort(-x[small], kind="stable")]  # _lpt's order: sorted once here
    pos = _positions(small, order)
    for j in range(2, min(4, s // k, small.size) + 1):
        _, lab = _lpt(x, order, j)  # the stable sort inside keeps ``order``
        loads = loads_of(x[order], lab, j)
        if loads.min() >= k:
            full = np.empty(small.size, dtype=np.int64)
            full[pos] = lab
            cands.append((int(loads.max()), full, f"lpt-{j}"))
    if s // k >= 2:
        two = _two_bins(x, small, k)
        if two is not None:
            cands.append((two[0], two[1], "two-bins"))
    cost, lab, case = min(cands, key=lambda c: c[0])
    lb = max(k, int(x[small].max()), -(-s // (s // k)))
    info = {"exhaustive": "not-needed", "small_candidates": {c[2]: c[0] for c in cands}}
    if cost > lb and node_limit > 0 and small.size <= _EXHAUSTIVE_MAX_ITEMS:
        best, found, proven = _exhaustive(x[order], k, cost, node_limit)
        info["exhaustive"] = "optimal" if proven else "node-limit"
        if found is not None and best < cost:
            lab = np.empty(small.size, dtype=np.int64)
            lab[pos] = found
            cost, case = best, "exhaustive"
    elif cost > lb:
        info["exhaustive"] = "skipped"
    return lab, case, info


def _positions(small, items):
    """Positions in ``small`` of the item ids ``items`` (a permutation of ``small``)."""
    where = np.empty(int(small.max()) + 1, dtype=np.int64)
    where[small] = np.arange(small.size)
    return where[items]


def _spread_labels(x, k, items, sorted_order, node_limit):
    """Theorem 10 on the items in the given order; returns ``(labels, info)``."""
    n = x.size
    labels = np.empty(n, dtype=np.int64)
    is_big = x[items] >= k
    big, small = items[is_big], items[~is_big]
    nb = big.size
    labels[big] = np.arange(nb)
    if small.size == 0:
        return labels, {"case": "all-big"}
    if int(x[small].sum()) < k:  # the small items join the lightest big bin
        labels[small] = labels[big[np.argmin(x[big])]]
        return labels, {"case": "small-below-k"}
    bin_of, n_full = greedy_fill(x, small, k)
    labels[small] = nb + bin_of
    if bin_of[-1] < n_full:
        return labels, {"case": "greedy"}
    part = small[bin_of == n_full]  # the leftover bin, in greedy order
    last = nb + n_full
    cands, info = [], {}
    if nb:
        lab = labels.copy()
        lab[part] = labels[big[np.argmin(x[big])]]
        cands.append((lab, "merge-into-big"))
    if n_full >= 3:
        f_pos = int(np.argmax(x[part]))
        f = int(x[part][f_pos])
        if 2 * f <= k:  # case 1: Lemma 9's three parts onto the three lightest closed bins
            lab = labels.copy()
            full_loads = loads_of(x, labels, last + 1)[nb:last]
            targets = nb + np.argsort(full_loads, kind="stable")[:3]
            parts = [part[p] for p in lemma9_split(x[part])]
            parts.sort(key=lambda p: -int(x[p].sum()))
            for p, t in zip(parts, targets, strict=True):
                lab[p] = t
            cands.append((lab, "case-1"))
        elif not sorted_order:  # case 2 needs decreasing order
            sorted_items = items[np.argsort(-x[items], kind="stable")]
            labels, info = _spread_labels(x, k, sorted_items, True, node_limit)
            return labels, {**info, "fallback": "sorted"}
        else:
            r = int(x[part].sum()) - f
            x1 = small[0]  # the largest small item, in the first greedy bin
            if int(x[x1]) + r >= k:  # case 2.1: swap x1 and f
                lab = labels.copy()
                lab[x1], lab[part[f_pos]] = last, nb
                cands.append((lab, "case-2.1"))
            else:  # case 2.2: OPT >= 3k/2, Fold (< 3k) is within 2
                lab, _ = fold_labels(x, k, items)
                cands.append((lab, "case-2.2"))
    elif nb == 0:
        lab_small, case, info = _small_case(x, k, small, node_limit)
        lab = labels.copy()
        lab[small] = lab_small
        cands.append((lab, case))
    best, best_cost, tried = None, None, {}
    for lab, case in cands:
        loads = np.bincount(lab, weights=x)[np.bincount(lab) > 0]  # the non-empty bins
        tried[case] = int(loads.max())
        if loads.min() >= k and (best_cost is None or loads.max() < best_cost):
            best, best_cost, info["case"] = lab, int(loads.max()), case
    info["candidates"] = tried
    return best, info


def _spread_iv(instance, order, seed, node_limit):
    rng, seed_rec = bin_solver_iv(instance, order, seed)
    return rng, seed_rec, check_int("node_limit", node_limit, low=0)


def spread(
    instance: BinCoveringInstance,
    *,
    order: str = "sorted",
    seed: int | np.random.Generator | None = None,
    node_limit: int = 50_000,
) -> Solution:
    """Spread (Du et al. 2009, Theorem 10): cost at most 5/2 times the optimum.

    The full algorithm of the proof of Theorem 10 (module docstring): items ``>= k`` alone, a
    greedy fill of the rest in decreasing order, then case 1 (Lemma 9 spreads the leftover bin
    over three bins), case 2.1 (a swap) or case 2.2 (Fold, when OPT >= 3k/2), and the small case
    of at most three bins (proven candidates plus an exhaustive search under ``node_limit``).

    Parameters
    ----------
    instance : BinCoveringInstance
    order : {"sorted", "random", "input"}
        Order of the greedy fill. The proof assumes ``"sorted"`` (decreasing sizes); with another
        order, case 2 falls back to the sorted order (``info["fallback"]``) and the bound holds.
    seed : int, numpy.random.Generator or None
        Used by ``order="random"``; recorded when an int.
    node_limit : int
        Node budget of the exhaustive search of the small case (0 disables it; the bound holds
        regardless).

    Returns
    -------
    Solution
        ``info``: ``case`` (``all-big``, ``small-below-k``, ``greedy``, ``case-1``, ``case-2.1``,
        ``case-2.2``, ``merge-into-big``, ``one-bin``, ``lpt-2``..``lpt-4``, ``two-bins``,
        ``exhaustive``), ``small_candidates`` (their costs in the small case),
        ``candidates`` (cost of every candidate built), ``exhaustive`` (``optimal``,
        ``node-limit``, ``skipped``, ``not-needed``) in the small case, ``n_bins``,
        ``overfull_ratio``, ``order``.

    Notes
    -----
    O(n log n) for the sort and the greedy fill (as Fold); the small case adds O(n log n) for
    LPT (runs of equal sizes placed at once; with all sizes distinct LPT is sequential), the
    subset-sum bitsets of ``two-bins`` and at most ``node_limit`` search nodes (only with at most
    400 items).

    References
    ----------
    W. Du, D. Eppstein, M. T. Goodrich, G. S. Lueker, "On the Approximability of Geometric and
    Geographic Generalization and the Min-Max Bin Covering Problem", WADS 2009, §4, Lemmas 8-9,
    Theorem 10.

    Examples
    --------
    >>> from anonratio.instances.bin_covering.instance import BinCoveringInstance
    >>> sol = spread(BinCoveringInstance([9, 6, 6, 6, 6, 6, 6, 2, 1], k=10))
    >>> sol.objective, sol.info["case"]
    (12.0, 'case-2.1')
    """
    t0 = perf_counter()
    rng, seed_rec, node_limit = _spread_iv(instance, order, seed, node_limit)
    items = item_order(instance.sizes, order, rng)
    labels, info = _spread_labels(instance.sizes, instance.k, items, order == "sorted", node_limit)
    info["order"] = order
    return finish(
        instance,
        labels,
        algorithm=f"spread-{order}",
        params={"order": order},
        seed=seed_rec,
        t0=t0,
        info=info,
    )
