"""Exact (k−1)-nearest neighbours: every search path equals the canonical brute force, ties too."""

import os
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.instances import KAnonymityInstance, Table
from anonratio.instances.kanonymity import distance_terms as dt
from anonratio.instances.kanonymity import neighbor_boxes as nbx
from anonratio.instances.kanonymity import neighbors as nb
from anonratio.instances.kanonymity.gadgets import graph_representation_pair
from anonratio.instances.kanonymity.generators import categorical_table, random_table
from anonratio.instances.kanonymity.instance import kanonymity_lower_bound

SETTINGS = settings(max_examples=120, deadline=None, derandomize=True)

#: module settings that force one search path: (module, name, value)
PATHS = {
    "brute": [(nb, "_BRUTE_MAX", 10**9)],
    "scan": [(nb, "_BRUTE_MAX", 0), (nb, "_FORCE", "scan")],
    "balls": [(nb, "_BRUTE_MAX", 0), (nb, "_FORCE", "balls"), (nb, "_WORK_RATIO", np.inf)],
    "balls-wide": [
        (nb, "_BRUTE_MAX", 0),
        (nb, "_FORCE", "balls"),
        (nb, "_WORK_RATIO", np.inf),
        (dt, "_TABLE_CAP", 1),
    ],
    "scan-wide": [(nb, "_BRUTE_MAX", 0), (nb, "_FORCE", "scan"), (dt, "_TABLE_CAP", 1)],
    # the ball search past its work cap gives way to the scan
    "capped": [
        (nb, "_BRUTE_MAX", 0),
        (nb, "_FORCE", "balls"),
        (nb, "_VECTORS_MAX", 10**9),
        (nb, "_WORK_RATIO", 1e-6),
    ],
    # whichever the cost model picks
    "default": [(nb, "_BRUTE_MAX", 0)],
    "boxes": [(nb, "_BRUTE_MAX", 0), (nb, "_FORCE", "boxes")],
    # the smallest budget: most rows are left to round 2
    "boxes-round2": [(nb, "_BRUTE_MAX", 0), (nb, "_FORCE", "boxes"), (nbx, "_QUANTILES", [0.0])],
    # ... and their cell mates on one half, never the scan
    "boxes-mates": [
        (nb, "_BRUTE_MAX", 0),
        (nb, "_FORCE", "boxes"),
        (nbx, "_QUANTILES", [0.0]),
        (nbx, "_MATE_COST", 0.0),
        (nbx, "_BLOCK", 5),
    ],
    # the largest budget, small slices: most rows settled in round 1
    "boxes-round1": [
        (nb, "_BRUTE_MAX", 0),
        (nb, "_FORCE", "boxes"),
        (nbx, "_QUANTILES", [1.0]),
        (nbx, "_CHUNK", 7),
    ],
}


def _canonical_distances(instance, rows):
    """``sum_j (w_j * L_j) / l_j`` between every two rows, added in attribute order: ``L_j`` is
    the number of levels of attribute ``j``'s hierarchy at which the two rows' groups differ."""
    total = np.zeros((len(rows), len(rows)))
    for j, h in enumerate(instance.hierarchies):
        g = h.groups[rows[:, j], : h.height]  # (rows, levels): group id at each level
        level = (g[:, None, :] != g[None, :, :]).sum(axis=2)
        total += instance.table.weights[j] * level / h.height
    return total


#: the brute-force references computed so far, by instance content (every path sees the same
#: instances: the reference is computed once for all of them)
_REFERENCES = {}


def _reference(instance, rows, q):
    """Brute force: every row's ``q`` nearest other rows by ``(distance, index)``."""
    key = (
        instance.model,
        rows.shape,
        rows.tobytes(),
        np.asarray(instance.table.weights, dtype=float).tobytes(),
        tuple((h.groups.shape, h.groups.tobytes()) for h in instance.hierarchies),
        q,
    )
    if key not in _REFERENCES:
        _REFERENCES[key] = _brute_force(instance, rows, q)
    return _REFERENCES[key]


def _brute_force(instance, rows, q):
    u = len(rows)
    d = _canonical_distances(instance, rows)
    order = [sorted((j for j in range(u) if j != i), key=lambda j: (d[i, j], j)) for i in range(u)]
    index = np.array([o[:q] for o in order], dtype=np.int64).reshape(u, q)
    return index, np.take_along_axis(d, index, axis=1), d


def _run(monkeypatch, path, instance, q, rows=None, extra=()):
    for module, name, value in [*PATHS[path], *extra]:
        monkeypatch.setattr(module, name, value)
    return nb.nearest_neighbors(instance, q, rows)


@st.composite
def instances(draw, max_n=60):
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    n = draw(st.integers(2, max_n))
    m = draw(st.integers(1, 5))
    card = draw(st.integers(1, 9))
    table = random_table(n, m, cardinality=(1, card), levels=(1, 4), seed=seed)
    if draw(st.booleans()):  # random positive weights
        weights = rng.choice([0.1, 0.3, 1.0, 2.5, 1 / 3], size=m)
        table = Table(table.codes, table.attributes, table.values, table.hierarchies, weights)
    model = draw(st.sampled_from(["suppression", "generalization"]))
    return KAnonymityInstance(table, 2, model=model)


@SETTINGS
@given(inst=instances(), q=st.integers(1, 12))
def test_every_path_equals_the_brute_force(inst, q):
    # every path on each drawn instance: the instance and its brute force are made once
    rows = inst.unique_records[0]
    q_eff = min(q, len(rows) - 1)
    ref_index, ref_dist, full = _reference(inst, rows, q_eff)
    for path in sorted(PATHS):
        with pytest.MonkeyPatch.context() as mp:
            index, dist = _run(mp, path, inst, q, rows)
        assert index.shape == dist.shape == (len(rows), q_eff), path
        np.testing.assert_array_equal(dist, ref_dist, err_msg=path)  # bit for bit: one sum
        np.testing.assert_array_equal(index, ref_index, err_msg=path)  # ties by lower index
    np.testing.assert_array_equal(nb.pairwise_distances(inst, rows), full)


@pytest.mark.parametrize("path", sorted(PATHS))
@pytest.mark.parametrize("alphabet, m, n", [(2, 3, 200), (2, 6, 300), (3, 4, 400)])
def test_many_ties_and_duplicates(monkeypatch, path, alphabet, m, n):
    # tiny alphabets under suppression: integer distances, most pairs tie
    inst = KAnonymityInstance(categorical_table(n, m, alphabet, seed=n + m), 3)
    rows = inst.table.codes[:120]  # duplicates kept: identical rows are at distance 0
    index, dist = _run(monkeypatch, path, inst, 7, rows)
    ref_index, ref_dist, _ = _reference(inst, rows, 7)
    np.testing.assert_array_equal(dist, ref_dist)
    np.testing.assert_array_equal(index, ref_index)


@pytest.mark.parametrize("path, n", [("scan", 300), ("brute", 300), ("balls", 40), ("capped", 300)])
def test_all_distances_equal(monkeypatch, path, n):
    # every pair at distance 2: the first q other indices. The ball search enumerates the
    # C(n, 2) level vectors of cost 2 here (its worst case); capped, it gives way to the scan
    table = Table(np.eye(n, dtype=int), tuple(f"a{i}" for i in range(n)), (("0", "1"),) * n)
    index, dist = _run(monkeypatch, path, KAnonymityInstance(table, 2), 3)
    assert np.all(dist == 2.0)
    expected = np.array([[j for j in range(n) if j != i][:3] for i in range(n)])
    np.testing.assert_array_equal(index, expected)


@pytest.mark.slow
def test_default_paths_agree_on_a_larger_table(monkeypatch):
    inst = KAnonymityInstance(random_table(3000, 6, seed=3), 5, model="generalization")
    rows = inst.unique_records[0]
    results = {}
    paths = ("scan", "balls", "boxes", "boxes-round1", "boxes-round2", "boxes-mates")
    for path in paths:
        with monkeypatch.context() as mp:
            # slices and blocks of thousands, not of 7 and 5
            larger = [(nbx, "_CHUNK", 4096), (nbx, "_BLOCK", 4096)] if "boxes" in path else []
            results[path] = _run(mp, path, inst, 4, rows, larger)
    for path in paths[1:]:
        np.testing.assert_array_equal(results["scan"][0], results[path][0])
        np.testing.assert_array_equal(results["scan"][1], results[path][1])
    d = nb.pairwise_distances(inst, rows[:50], rows)
    d[np.arange(50), np.arange(50)] = np.inf
    np.testing.assert_array_equal(np.sort(d, axis=1)[:, :4], results["scan"][1][:50])


def test_graph_gadget_is_small_in_memory():
    # 8 records of 512 binary attributes: tables follow the values present (2 per attribute)
    first, _ = graph_representation_pair(8)
    inst = first.instance
    tracemalloc.start()
    index, dist = nb.nearest_neighbors(inst, 7)
    full = nb.pairwise_distances(inst, inst.table.codes)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 20e6
    assert np.all(dist == 128.0)  # every pair differs in 2l = 2^(k-1) positions
    np.testing.assert_array_equal(index, [[j for j in range(8) if j != i] for i in range(8)])
    assert np.all(full[~np.eye(8, dtype=bool)] == 128.0) and np.all(np.diag(full) == 0)


def test_neighbor_table_shared_with_the_lower_bound(monkeypatch):
    from anonratio.instances.kanonymity import instance as kanonymity_module

    inst = KAnonymityInstance(random_table(200, 4, seed=1), 4, model="generalization")
    calls = []
    real = kanonymity_module.nearest_neighbors
    monkeypatch.setattr(
        kanonymity_module, "nearest_neighbors", lambda *a: calls.append(a[1]) or real(*a)
    )
    table = inst.neighbor_table(3)
    assert inst.neighbor_table(3) is table
    bound = kanonymity_lower_bound(inst)
    assert calls == [3] and bound > 0
    assert table[0].flags.writeable is False


def test_no_neighbours():
    inst = KAnonymityInstance(random_table(10, 3, seed=0), 2)
    index, dist = nb.nearest_neighbors(inst, 5, inst.unique_records[0][:1])
    assert index.shape == dist.shape == (1, 0)
    index, dist = nb.nearest_neighbors(inst, 0)
    assert index.shape[1] == 0


@pytest.mark.skipif(not os.environ.get("ANONRATIO_DATASETS"), reason="ANONRATIO_DATASETS unset")
@pytest.mark.parametrize("path", ["scan", "balls", "boxes"])
def test_adult_sample(monkeypatch, path):
    from anonratio.instances.loaders import load_adult

    table = load_adult()
    keep = np.random.default_rng(0).choice(table.n_records, 2000, replace=False)
    sample = Table(
        table.codes[np.sort(keep)], table.attributes, table.values, table.hierarchies, table.weights
    )
    inst = KAnonymityInstance(sample, 10, model="generalization")
    rows = inst.unique_records[0]
    index, dist = _run(monkeypatch, path, inst, 9, rows)
    full = nb.pairwise_distances(inst, rows)
    np.fill_diagonal(full, np.inf)
    ref = np.lexsort((np.broadcast_to(np.arange(len(rows)), full.shape), full), axis=1)[:, :9]
    np.testing.assert_array_equal(index, ref)
    np.testing.assert_array_equal(dist, np.take_along_axis(full, ref, axis=1))


@SETTINGS
@given(inst=instances(), budget=st.floats(0, 6))
def test_boxes_are_the_maximal_vectors_within_budget(inst, budget):
    attrs = dt.attributes(inst, inst.unique_records[0])
    share = [np.ones(at.height + 1) for at in attrs]
    half = nbx._Half(attrs, tuple(range(len(attrs))), share)
    boxes = half.boxes(budget)
    grid, within = half.grid, half.cost <= budget
    dominated = (grid[:, None, :] <= grid[boxes][None, :, :]).all(axis=2)
    assert np.all(within[boxes])
    np.testing.assert_array_equal(dominated.any(axis=1), within)  # they cover the budget, only
    assert np.all(dominated[boxes].sum(axis=1) == 1)  # none dominates another
    first = half.first_box(boxes)
    np.testing.assert_array_equal(first[within], dominated[within].argmax(axis=1))
    assert np.all(first[~within] == len(boxes))


def test_box_plan_refuses_what_it_cannot_split():
    one = KAnonymityInstance(random_table(50, 1, seed=0), 2, model="generalization")
    attrs = dt.attributes(one, one.unique_records[0])
    assert nbx.plan_boxes(attrs, len(attrs[0].codes), 3, np.full(len(attrs[0].codes), 9.0)) is None
