"""Spread and Fold without per-item loops give the same outputs as the loops they replaced.

The previous implementations (``greedy_fill``'s one binary search per bin, ``_lpt``'s heap,
``_two_bins``'s scans, ``_small_case``, ``_spread_labels`` and ``finish``'s ``np.unique``
relabelling) are copied below verbatim, renamed ``*_ref``; the vectorized code must reproduce
them exactly: same labels, same bins, same tie-breaking, same ``info``.
"""

import heapq
from contextlib import contextmanager

import numpy as np
import pytest
from bruteforce import bin_covering_instances
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.instances.bin_covering.generators import (
    census_instance,
    uniform_instance,
    zipf_instance,
)
from anonratio.instances.bin_covering.instance import BinCoveringInstance
from anonratio.solvers.bin_covering import fold as fold_mod
from anonratio.solvers.bin_covering import spread as spread_mod
from anonratio.solvers.bin_covering.fold import (
    compact_labels,
    fold,
    fold_labels,
    greedy_fill,
    loads_of,
)
from anonratio.solvers.bin_covering.spread import (
    _EXHAUSTIVE_MAX_ITEMS,
    _exhaustive,
    _lpt,
    _lpt_run,
    _positions,
    _two_bins,
    lemma9_split,
    spread,
)


# ---------------------------------------------------------------------------------------------
# references: the previous implementations (verbatim apart from the ``_ref`` names)
# ---------------------------------------------------------------------------------------------
def greedy_fill_ref(sizes: np.ndarray, items: np.ndarray, k: int) -> tuple[np.ndarray, int]:
    """Theorem 7's greedy: fill bins in the order ``items`` until each reaches ``k``.

    Returns
    -------
    bin_of : ndarray of int64, shape (len(items),)
        Bin number (0, 1, ...) of each item of ``items``; the last bin may stay below ``k``.
    n_full : int
        Number of bins that reach ``k``; a bin ``n_full`` exists iff some items are left over.
    """
    c = np.cumsum(sizes[items])
    ends = []
    base = 0
    while True:  # one searchsorted per bin
        j = int(np.searchsorted(c, base + k, side="left"))
        if j >= c.size:
            break
        ends.append(j)
        base = int(c[j])
    bin_of = np.searchsorted(np.asarray(ends, dtype=np.int64), np.arange(c.size), side="left")
    return bin_of.astype(np.int64), len(ends)


def _lpt_ref(sizes, items, j):
    """Each item (decreasing size) to the currently lightest of ``j`` bins; labels 0..j-1."""
    items = items[np.argsort(-sizes[items], kind="stable")]
    heap = [(0, b) for b in range(j)]
    lab = np.empty(items.size, dtype=np.int64)
    for t, i in enumerate(items):
        load, b = heapq.heappop(heap)
        lab[t] = b
        heapq.heappush(heap, (load + int(sizes[i]), b))
    return items, lab


def _two_bins_ref(x, small, k, max_bits=200_000_000):
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
    bits = bin(reach[-1])[2:][::-1]  # bits[a] == "1": some subset sums to a
    lo, hi = k, s - k
    best = None
    for a in range(s // 2, lo - 1, -1):  # a <= S/2: the other bin is the heavier one
        if a <= hi and bits[a] == "1":
            best = a
            break
    if best is None:
        return None
    take = {}
    a = best
    for i in range(len(chunks) - 1, -1, -1):  # walk back through the bitsets
        if not (reach[i] >> a) & 1:
            v, c = chunks[i]
            take[v] = take.get(v, 0) + c
            a -= v * c
    lab = np.ones(small.size, dtype=np.int64)
    for v, c in take.items():
        lab[np.flatnonzero(x[small] == v)[:c]] = 0
    return s - best, lab


def _small_case_ref(x, k, small, node_limit):
    """At most three greedy bins and no item >= k: the candidates of the module docstring, then
    the budgeted exhaustive search. Returns ``(bin labels for small, case, info)``."""
    s = int(x[small].sum())
    cands = [(s, np.zeros(small.size, dtype=np.int64), "one-bin")]
    for j in range(2, min(4, s // k, small.size) + 1):
        items, lab = _lpt_ref(x, small, j)
        loads = loads_of(x[items], lab, j)
        if loads.min() >= k:
            full = np.empty(small.size, dtype=np.int64)
            full[_positions(small, items)] = lab
            cands.append((int(loads.max()), full, f"lpt-{j}"))
    if s // k >= 2:
        two = _two_bins_ref(x, small, k)
        if two is not None:
            cands.append((two[0], two[1], "two-bins"))
    cost, lab, case = min(cands, key=lambda c: c[0])
    lb = max(k, int(x[small].max()), -(-s // (s // k)))
    info = {"exhaustive": "not-needed", "small_candidates": {c[2]: c[0] for c in cands}}
    if cost > lb and node_limit > 0 and small.size <= _EXHAUSTIVE_MAX_ITEMS:
        order = small[np.argsort(-x[small], kind="stable")]
        best, found, proven = _exhaustive(x[order], k, cost, node_limit)
        info["exhaustive"] = "optimal" if proven else "node-limit"
        if found is not None and best < cost:
            lab = np.empty(small.size, dtype=np.int64)
            lab[_positions(small, order)] = found
            cost, case = best, "exhaustive"
    elif cost > lb:
        info["exhaustive"] = "skipped"
    return lab, case, info


def _spread_labels_ref(x, k, items, sorted_order, node_limit):
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
    bin_of, n_full = greedy_fill_ref(x, small, k)
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
            labels, info = _spread_labels_ref(x, k, sorted_items, True, node_limit)
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
        lab_small, case, info = _small_case_ref(x, k, small, node_limit)
        lab = labels.copy()
        lab[small] = lab_small
        cands.append((lab, case))
    best, best_cost, tried = None, None, {}
    for lab, case in cands:
        loads = np.bincount(np.unique(lab, return_inverse=True)[1].reshape(-1), weights=x)
        tried[case] = int(loads.max())
        if loads.min() >= k and (best_cost is None or loads.max() < best_cost):
            best, best_cost, info["case"] = lab, int(loads.max()), case
    info["candidates"] = tried
    return best, info


def compact_labels_ref(labels):
    """``finish``'s previous relabelling."""
    _, labels = np.unique(labels, return_inverse=True)
    return labels.reshape(-1)


@contextmanager
def reference_loops():
    """Run ``spread`` / ``fold`` with the previous implementations patched in."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(fold_mod, "greedy_fill", greedy_fill_ref)
        mp.setattr(fold_mod, "compact_labels", compact_labels_ref)
        mp.setattr(spread_mod, "greedy_fill", greedy_fill_ref)
        mp.setattr(spread_mod, "_spread_labels", _spread_labels_ref)
        yield


def assert_same(solver, inst, **kw):
    """``solver`` now and with the reference loops: identical labels, cost and info."""
    new = solver(inst, **kw)
    with reference_loops():
        old = solver(inst, **kw)
    np.testing.assert_array_equal(new.labels, old.labels)
    assert new.labels.dtype == old.labels.dtype
    assert new.objective == old.objective and new.info == old.info
    assert new.algorithm == old.algorithm
    return new


# ---------------------------------------------------------------------------------------------
# the replaced pieces, one by one
# ---------------------------------------------------------------------------------------------
# the parts: 100 examples each, as the whole solvers below (300 small instances, 100 random ones)
# run every part against its reference again
# small alphabets give long runs of equal sizes (the vectorized branch of _lpt needs >= 32)
tied_sizes = st.lists(st.integers(1, 6), min_size=1, max_size=400)
mixed_sizes = st.lists(
    st.one_of(st.integers(1, 4), st.integers(1, 10_000)), min_size=1, max_size=300
)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(st.one_of(tied_sizes, mixed_sizes), st.integers(1, 4), st.randoms(use_true_random=False))
def test_lpt_matches_heap(sizes, j, rnd):
    x = np.array(sizes, dtype=np.int64)
    items = np.array(rnd.sample(range(x.size), x.size), dtype=np.int64)
    new_items, new_lab = _lpt(x, items, j)
    old_items, old_lab = _lpt_ref(x, items, j)
    np.testing.assert_array_equal(new_items, old_items)
    np.testing.assert_array_equal(new_lab, old_lab)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(
    st.lists(st.integers(0, 10**6), min_size=1, max_size=4), st.integers(1, 50), st.integers(1, 300)
)
def test_lpt_run_is_the_heap_merge(loads, size, m):
    heap = [(load, b) for b, load in enumerate(loads)]
    heapq.heapify(heap)
    expect = []
    for _ in range(m):
        load, b = heapq.heappop(heap)
        expect.append(b)
        heapq.heappush(heap, (load + size, b))
    got = _lpt_run(np.array(loads, dtype=np.int64), size, m)
    assert got.tolist() == expect


def test_lpt_run_levels_by_hand():
    # loads 5, 3, 9 and size 2: levels q = 2, 1, 4 and remainders 1, 1, 1; bin 1 runs alone
    # at level 1, bins 0 and 1 alternate from level 2, and bin 2 joins at level 4
    got = _lpt_run(np.array([5, 3, 9]), 2, 9)
    assert got.tolist() == [1, 0, 1, 0, 1, 0, 1, 2, 0]


@settings(max_examples=100, deadline=None, derandomize=True)
@given(st.one_of(tied_sizes, mixed_sizes), st.integers(1, 3000))
def test_two_bins_matches_reference(sizes, k):
    x = np.array(sizes, dtype=np.int64)
    small = np.arange(x.size)[::-1]
    new, old = _two_bins(x, small, k), _two_bins_ref(x, small, k)
    if old is None:
        assert new is None
    else:
        assert new[0] == old[0]
        np.testing.assert_array_equal(new[1], old[1])


@settings(max_examples=100, deadline=None, derandomize=True)
@given(
    st.lists(st.integers(1, 50), min_size=0, max_size=500),
    st.integers(1, 200),
    st.randoms(use_true_random=False),
)
def test_greedy_fill_matches_reference(sizes, k, rnd):
    x = np.array(sizes, dtype=np.int64)
    items = np.array(rnd.sample(range(x.size), x.size), dtype=np.int64)
    bin_of, n_full = greedy_fill(x, items, k)
    ref_bin_of, ref_n_full = greedy_fill_ref(x, items, k)
    np.testing.assert_array_equal(bin_of, ref_bin_of)
    assert bin_of.dtype == ref_bin_of.dtype and n_full == ref_n_full


def test_greedy_fill_both_paths():
    x = np.ones(1000, dtype=np.int64)
    items = np.arange(1000)
    # 1000 // 20 = 50 possible bins: one binary search each; 1000 // 3 = 333: doubling
    for k, n_full in ((20, 50), (3, 333)):
        bin_of, got = greedy_fill(x, items, k)
        assert got == n_full and bin_of.tolist() == np.minimum(items // k, n_full).tolist()


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.integers(-5, 60), min_size=1, max_size=40))
def test_compact_labels_is_unique_inverse(labels):
    lab = np.array(labels, dtype=np.int64)
    got = compact_labels(lab)
    np.testing.assert_array_equal(got, compact_labels_ref(lab))
    assert got.dtype == np.intp


# ---------------------------------------------------------------------------------------------
# whole solvers
# ---------------------------------------------------------------------------------------------
@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    bin_covering_instances(max_n=40, max_k=60, spread=2),
    st.sampled_from(["sorted", "random", "input"]),
    st.integers(0, 3),
)
def test_small_instances_identical(inst, order, seed):
    assert_same(spread, inst, order=order, seed=seed)
    assert_same(fold, inst, order=order, seed=seed)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(
    st.sampled_from(["zipf", "uniform"]),
    st.integers(50, 3000),
    st.sampled_from([3, 10, 100, 1000]),  # k = total // divisor: from the small case to many bins
    st.integers(0, 2**16),
)
def test_random_instances_identical(kind, n, divisor, seed):
    if kind == "zipf":
        sizes = zipf_instance(n, k=1, seed=seed).sizes
    else:
        sizes = uniform_instance(n, k=1, high=50, seed=seed).sizes
    inst = BinCoveringInstance(sizes, max(1, int(sizes.sum()) // divisor))
    assert_same(spread, inst)
    assert_same(spread, inst, order="random", seed=seed)
    assert_same(fold, inst)


@pytest.mark.parametrize("dataset", ["FEMALE-1990", "MALE-1990", "LAST-1990"])
def test_census_figure7_sizes_identical(dataset):
    total = int(census_instance(dataset, k=1).total)
    ks = sorted({100, 1000, *(total // c + o for c in (2, 3, 4, 5, 8, 20) for o in (-1, 0, 1))})
    cases = set()
    for k in ks:
        inst = census_instance(dataset, k=k)
        cases.add(assert_same(spread, inst).info["case"])
        assert_same(fold, inst)
        assert_same(fold, inst, order="random", seed=k)
    assert {"lpt-2", "case-1"} <= cases or {"two-bins", "case-1"} <= cases


def test_large_zipf_small_case_identical():
    # 88,799 items (the length of the LAST-1990 list): long runs of equal sizes reach _lpt_run
    sizes = zipf_instance(88_799, k=1, seed=0).sizes
    total = int(sizes.sum())
    for k, case in ((10, "merge-into-big"), (total // 3, "lpt-3"), (total // 2, "lpt-2")):
        sol = assert_same(spread, BinCoveringInstance(sizes, k))
        assert sol.info["case"] == case
        assert_same(fold, BinCoveringInstance(sizes, k))
