"""Brute-force optima shared by the tests (on ``pythonpath``: ``from bruteforce import ...``)."""

import itertools
from functools import cache

import numpy as np
from hypothesis import strategies as st
from scipy.optimize import linprog

from anonratio.exact.kanonymity.box_pricing import BoxLattice
from anonratio.instances.bin_covering.instance import BinCoveringInstance


@cache
def bin_covering_optimum(sizes, k):
    """Exact Min-Max Bin Covering optimum by a DP over subsets (``n <= 10``; ``sizes`` a tuple).

    ``best[m]`` is the smallest possible largest bin when the items of mask ``m`` form bins of
    load ``>= k``; the bin holding the lowest item of ``m`` is enumerated over the subsets of the
    rest.
    """
    n = len(sizes)
    sums = [0] * (1 << n)
    for m in range(1, 1 << n):
        low = (m & -m).bit_length() - 1
        sums[m] = sums[m & (m - 1)] + sizes[low]
    best = [float("inf")] * (1 << n)
    best[0] = 0
    for m in range(1, 1 << n):
        low = m & -m
        rest = m ^ low
        s = rest
        while True:
            b = s | low
            if sums[b] >= k and best[m ^ b] < float("inf"):
                best[m] = min(best[m], max(sums[b], best[m ^ b]))
            if s == 0:
                break
            s = (s - 1) & rest
    return best[(1 << n) - 1]


@st.composite
def bin_covering_instances(draw, max_n=9, max_k=40, spread=2):
    """Small feasible instances: k <= max_k, sizes up to ``spread * k + 2``."""
    k = draw(st.integers(1, max_k))
    top = draw(st.integers(1, spread * k + 2))
    sizes = draw(st.lists(st.integers(1, top), min_size=1, max_size=max_n))
    if sum(sizes) < k:
        sizes.append(k)
    return BinCoveringInstance(sizes, k)


def small_kanonymity_instance(seed, n, m, k, model, weighted, deletion=False, n_values=None):
    """A k-anonymity instance of ``max(n, k)`` records for the brute forces: random hierarchies
    of 1-3 levels over 2..``n_values`` values (generalization; default 4) or ``n_values`` values
    (suppression; default 3), random weights if ``weighted``. ``seed``: an int or a Generator."""
    from anonratio.instances import KAnonymityInstance, Table
    from anonratio.instances.kanonymity import categorical_table, random_table

    n = max(n, k)
    rng = np.random.default_rng(seed)
    if model == "generalization":
        table = random_table(n, m, cardinality=(2, n_values or 4), levels=(1, 3), seed=rng)
    else:
        table = categorical_table(n, m, n_values or 3, seed=rng)
    if weighted:
        w = rng.uniform(0.5, 3.0, m)
        table = Table(table.codes, table.attributes, table.values, table.hierarchies, w)
    return KAnonymityInstance(table, k, model, deletion)


def small_kanonymity_instances(max_n, *, deletion):
    """Hypothesis strategy of :func:`small_kanonymity_instance`: 2..``max_n`` records, 1-3
    attributes, k in {2, 3}, either model, weighted or not; row deletion drawn if ``deletion``."""
    return st.builds(
        small_kanonymity_instance,
        seed=st.integers(0, 2**32 - 1),
        n=st.integers(2, max_n),
        m=st.integers(1, 3),
        k=st.integers(2, 3),
        model=st.sampled_from(["suppression", "generalization"]),
        weighted=st.booleans(),
        deletion=st.booleans() if deletion else st.just(False),
    )


def _subset_costs(instance):
    """Every subset of the records (bit ``i`` of the mask: record ``i``): its size and its group
    cost ``|g| * sum_j w_j L_j / l_j``, recomputed here from the hierarchies (not through the
    verifier under test). The masks of highest bit ``b`` extend those below ``2**b`` by record
    ``b``: each attribute's least and greatest group id per level, one numpy step per record."""
    n = instance.n
    size = np.zeros(1 << n, dtype=np.int64)
    for b in range(n):
        size[1 << b : 2 << b] = size[: 1 << b] + 1
    total = np.zeros(1 << n)
    for j, h in enumerate(instance.hierarchies):
        g = h.groups[instance.table.codes[:, j]]  # (records, levels): group id per level
        lo = np.empty((1 << n, g.shape[1]), dtype=np.int64)
        hi = np.empty_like(lo)
        lo[0], hi[0] = np.iinfo(np.int64).max, np.iinfo(np.int64).min
        for b in range(n):
            lo[1 << b : 2 << b] = np.minimum(lo[: 1 << b], g[b])
            hi[1 << b : 2 << b] = np.maximum(hi[: 1 << b], g[b])
        total += instance.table.weights[j] * (lo != hi).sum(axis=1) / h.height
    return size, size * total


def kanonymity_optimum(instance):
    """Optimal k-anonymity cost by a DP over subsets (``n <= ~12``), deletions included, over
    the group costs of :func:`_subset_costs`."""
    n, k = instance.n, instance.k
    size, cost = _subset_costs(instance)
    cost = np.where(size >= k, cost, np.inf).tolist()

    @cache
    def best(mask):
        if mask == 0:
            return 0.0
        low = mask & -mask
        rest = mask ^ low
        out = instance.deletion_cost + best(rest) if instance.row_deletion else np.inf
        sub = rest
        while True:  # every group holding the lowest record
            group = sub | low
            if cost[group] < np.inf:
                out = min(out, cost[group] + best(mask ^ group))
            if sub == 0:
                break
            sub = (sub - 1) & rest
        return out

    return best((1 << n) - 1)


def kanonymity_dual_feasible(inst, prices, tol=1e-7):
    """Every group of k .. n records costs at least its members' prices (and, with row
    deletion, no price exceeds the cost of deleting a row)."""
    inverse = inst.unique_records[1]
    lat = BoxLattice(inst)
    for size in range(inst.k, inst.n + 1):
        for rows in itertools.combinations(range(inst.n), size):
            ids = np.sort(inverse[list(rows)])
            row = np.full((1, inst.n), -1)
            row[0, :size] = ids
            assert prices[ids].sum() <= lat.cost(row)[0] + tol
    if inst.row_deletion:
        assert np.all(prices <= inst.deletion_cost + tol)


def kanonymity_full_lp(inst):
    """The LP relaxation over every group of k .. 2k − 1 records (scipy's HiGHS)."""
    inverse, counts = inst.unique_records[1], inst.unique_records[2]
    lat = BoxLattice(inst)
    cols, costs = [], []
    for size in range(inst.k, min(inst.n, 2 * inst.k - 1) + 1):
        for rows in itertools.combinations(range(inst.n), size):
            ids = np.sort(inverse[list(rows)])
            row = np.full((1, size), -1)
            row[0] = ids
            cols.append(np.bincount(ids, minlength=len(counts)))
            costs.append(lat.cost(row)[0])
    a = np.array(cols, dtype=float).T
    if inst.row_deletion:
        a = np.hstack([a, np.eye(len(counts))])
        costs += [inst.deletion_cost] * len(counts)
    res = linprog(costs, A_eq=a, b_eq=counts, bounds=(0, None), method="highs")
    assert res.status == 0
    return res.fun


def planar_optimum(inst):
    """Optimum over all set partitions into connected parts (tiny graphs only)."""
    n, w, k = inst.n, inst.weights.tolist(), inst.k
    adj = [set(inst.graph.adj[v]) for v in range(n)]
    best = [np.inf]

    def connected(block):
        seen, stack = {block[0]}, [block[0]]
        while stack:
            for v in adj[stack.pop()]:
                if v in block and v not in seen:
                    seen.add(v)
                    stack.append(v)
        return len(seen) == len(block)

    def rec(i, blocks, loads):
        if max(loads, default=0) >= best[0]:
            return
        if i == n:
            if min(loads) >= k and all(connected(b) for b in blocks):
                best[0] = max(loads)
            return
        for j in range(len(blocks)):
            blocks[j].append(i)
            loads[j] += w[i]
            rec(i + 1, blocks, loads)
            loads[j] -= w[i]
            blocks[j].pop()
        blocks.append([i])
        loads.append(w[i])
        rec(i + 1, blocks, loads)
        blocks.pop()
        loads.pop()

    rec(0, [], [])
    return best[0]


def rectangle_optimum(inst):
    """Optimum over all tilings of the compressed grid (branch and bound; tiny grids only)."""
    nx, ny = inst.grid_shape
    g = np.zeros((nx, ny), dtype=np.int64)
    g[inst.ix, inst.iy] = inst.weights
    free = np.ones((nx, ny), dtype=bool)
    best = [float(inst.total_weight) + 1]

    def go(worst):
        if worst >= best[0]:
            return
        left = np.argwhere(free)
        if left.size == 0:
            best[0] = worst
            return
        i0, j0 = left[np.lexsort((left[:, 0], left[:, 1]))[0]]  # lowest row, then column
        for i1 in range(i0, nx):
            if not free[i1, j0]:
                break
            for j1 in range(j0, ny):
                if not free[i0 : i1 + 1, j1].all():
                    break
                w = int(g[i0 : i1 + 1, j0 : j1 + 1].sum())
                if w < inst.k:
                    continue
                free[i0 : i1 + 1, j0 : j1 + 1] = False
                go(max(worst, w))
                free[i0 : i1 + 1, j0 : j1 + 1] = True

    go(0)
    return best[0]
