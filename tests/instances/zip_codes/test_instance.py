"""Tests of instances/planar.py and instances/planar_data.py: validation, verifier, bounds, data."""

import networkx as nx
import numpy as np
import pytest
from bruteforce import planar_optimum as brute_force_opt
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.instances import (
    InfeasibleInstanceError,
    InfeasibleSolutionError,
    InstanceFormatError,
    Solution,
    instance_from_dict,
    instance_id,
    instance_to_dict,
    lower_bound,
    verify,
)
from anonratio.instances.zip_codes.generators import (
    delaunay_graph,
    delaunay_instance,
    grid_instance,
    hull_chords,
    planted_planar_instance,
    random_weights,
)
from anonratio.instances.zip_codes.instance import (
    ZipCodesInstance,
    part_weights,
    planar_lower_bound,
)


@st.composite
def tiny_planar(draw):
    n = draw(st.integers(3, 7))
    seed = draw(st.integers(0, 10_000))
    rng = np.random.default_rng(seed)
    g = delaunay_graph(rng.random((n, 2)))
    w = draw(st.lists(st.integers(0, 6), min_size=n, max_size=n))
    total = sum(w)
    if total == 0:
        w[0], total = 1, 1
    k = draw(st.integers(1, max(1, total)))
    return ZipCodesInstance(g, w, k)


# -- construction and validation --------------------------------------------------------------
def test_relabels_nodes_in_order_and_keeps_names():
    g = nx.Graph([("b", "a"), ("a", "c")])
    inst = ZipCodesInstance(g, {"a": 1, "b": 2, "c": 3}, 2, {"a": (0, 0), "b": (1, 0), "c": (2, 1)})
    assert inst.node_names == ("b", "a", "c")
    assert inst.weights.tolist() == [2, 1, 3]
    assert sorted(map(sorted, inst.graph.edges)) == [[0, 1], [1, 2]]
    assert inst.positions.tolist() == [[1, 0], [0, 0], [2, 1]]
    assert inst.n == 3 and inst.kappa == 3 and inst.total_weight == 6 and inst.params == {"k": 2}
    assert inst.edges.tolist() == [[0, 1], [1, 2]]
    assert not inst.weights.flags.writeable


def test_single_node_and_integral_floats():
    inst = ZipCodesInstance(nx.empty_graph(1), np.array([4.0]), 3)
    assert inst.n == 1 and inst.weights.tolist() == [4] and inst.edges.shape == (0, 2)
    assert verify(inst, [0]).cost == 4.0


@pytest.mark.parametrize(
    ("graph", "weights", "k", "err", "match"),
    [
        (nx.Graph([(0, 1), (2, 3)]), [1] * 4, 1, InstanceFormatError, "connected, it has 2"),
        (nx.complete_graph(5), [1] * 5, 1, InstanceFormatError, "planar"),
        (nx.complete_bipartite_graph(3, 3), [1] * 6, 1, InstanceFormatError, "planar"),
        (nx.complete_graph(6), [1] * 6, 1, InstanceFormatError, "more than 3n - 6"),
        (nx.path_graph(3), [1, -1, 2], 1, InstanceFormatError, "non-negative integers, got -1"),
        (nx.path_graph(3), [1, 1.5, 2], 1, InstanceFormatError, "non-negative integers, got 1.5"),
        (nx.path_graph(3), [1, "a", 2], 1, InstanceFormatError, "non-negative integers"),
        (nx.path_graph(3), [1, True, 2], 1, InstanceFormatError, "non-negative integers"),
        (nx.path_graph(3), [1, 2], 1, InstanceFormatError, "one entry per node \\(3\\)"),
        (nx.path_graph(3), {0: 1, 1: 1}, 1, InstanceFormatError, "no entry for node 2"),
        (nx.path_graph(3), [1, 1, 1], 4, InfeasibleInstanceError, "total node weight 3 is below"),
        (nx.path_graph(3), [1, 1, 1], 0, ValueError, "`k` must be an integer >= 1, got 0"),
        (nx.path_graph(3), [1, 1, 1], 2.5, ValueError, "`k` must be an integer >= 1"),
        (nx.Graph(), [], 1, InstanceFormatError, "at least one node"),
        (nx.DiGraph([(0, 1)]), [1, 1], 1, InstanceFormatError, "simple undirected"),
        (nx.MultiGraph([(0, 1)]), [1, 1], 1, InstanceFormatError, "simple undirected"),
    ],
)
def test_validation_errors(graph, weights, k, err, match):
    with pytest.raises(err, match=match):
        ZipCodesInstance(graph, weights, k)


def test_graph_type_and_positions_errors():
    with pytest.raises(TypeError, match="`graph` must be a networkx.Graph"):
        ZipCodesInstance([(0, 1)], [1, 1], 1)
    with pytest.raises(InstanceFormatError, match="`positions` must be finite"):
        ZipCodesInstance(nx.path_graph(2), [1, 1], 1, [[0, 0]])
    with pytest.raises(InstanceFormatError, match="`positions` must be finite"):
        ZipCodesInstance(nx.path_graph(2), [1, 1], 1, [[0, 0], [np.nan, 1]])


def test_self_loops_dropped():
    g = nx.path_graph(3)
    g.add_edge(1, 1)
    inst = ZipCodesInstance(g, [1, 1, 1], 1)
    assert inst.graph.number_of_edges() == 2


def test_planarity_check_can_be_skipped_for_trusted_graphs():
    k33 = nx.complete_bipartite_graph(3, 3)
    inst = ZipCodesInstance(k33, [1] * 6, 1, check_planarity=False)
    assert inst.n == 6
    with pytest.raises(InstanceFormatError, match="planar"):
        instance_from_dict(instance_to_dict(inst))  # files are always checked


def test_roundtrip_and_id():
    inst = delaunay_instance(12, 9, seed=3)
    d = instance_to_dict(inst)
    assert d["problem"] == "zip-codes" and len(d["positions"]) == 12
    back = instance_from_dict(d)
    assert isinstance(back, ZipCodesInstance)
    assert back.edges.tolist() == inst.edges.tolist()
    assert back.weights.tolist() == inst.weights.tolist() and back.k == inst.k
    assert instance_id(back) == instance_id(inst)
    plain = ZipCodesInstance(nx.path_graph(3), [1, 2, 3], 2)
    assert "positions" not in plain.to_dict()
    assert instance_from_dict(instance_to_dict(plain)).weights.tolist() == [1, 2, 3]


def test_from_dict_errors():
    with pytest.raises(InstanceFormatError, match="malformed zip-codes"):
        ZipCodesInstance.from_dict({"n": 2, "weights": [1, 1], "k": 1})
    with pytest.raises(InstanceFormatError, match="outside 0..1"):
        ZipCodesInstance.from_dict({"n": 2, "edges": [[0, 5]], "weights": [1, 1], "k": 1})


# -- verifier ---------------------------------------------------------------------------------
def _path5():
    return ZipCodesInstance(nx.path_graph(5), [2, 1, 1, 2, 1], 3)


def test_verify_feasible_cost():
    inst = _path5()
    v = verify(inst, [0, 0, 1, 1, 1])
    assert v.feasible and v.cost == 4.0 and v.violations == []
    sol = Solution(labels=np.array([7, 7, 3, 3, 3]), algorithm="x")
    assert verify(inst, sol).cost == 4.0
    parts, weights = part_weights(inst, [7, 7, 3, 3, 3])
    assert parts.tolist() == [3, 7] and weights.tolist() == [4, 3]


@pytest.mark.parametrize(
    ("labels", "match"),
    [
        ([0, 1, 0, 1, 1], "part 0 is not connected \\(2 components\\)"),
        ([0, 0, 1, 1, 2], "part 2 weighs 1, less than k=3"),
        ([0, 0, -1, 1, 1], "node 2 has -1"),
        ([0, 0, 1], "one entry per record \\(5\\)"),
        ([0.0, 0.0, 1.0, 1.0, 1.0], "must be integers"),
    ],
)
def test_verify_violations(labels, match):
    inst = _path5()
    v = verify(inst, np.array(labels), strict=False)
    assert not v.feasible and v.cost is None
    assert any(__import__("re").search(match, x) for x in v.violations)
    with pytest.raises(InfeasibleSolutionError, match=match):
        verify(inst, np.array(labels))


def test_verify_no_labels():
    with pytest.raises(InfeasibleSolutionError, match="no solution"):
        verify(_path5(), Solution(labels=None, algorithm="x", status="error"))


# -- lower bounds -----------------------------------------------------------------------------
@settings(max_examples=40, deadline=None, derandomize=True)
@given(tiny_planar())
def test_lower_bound_valid_against_brute_force(inst):
    opt = brute_force_opt(inst)
    value, source = lower_bound(inst)
    assert inst.kappa <= value <= opt
    assert source in ("k", "max-weight", "subset-sum", "part-count", "neighbour")


def test_lower_bound_beats_kappa():
    # all weights 5, k = 7: every part holds >= 2 nodes, so >= 10 (subset sums)
    inst = ZipCodesInstance(nx.cycle_graph(6), [5] * 6, 7)
    assert planar_lower_bound(inst) == (10, "subset-sum")
    assert brute_force_opt(inst) == 10
    # node 0 (weight 1) must join one of its heavy neighbours: 1 + 10
    g = nx.Graph([(0, 1), (0, 2), (2, 3), (3, 4), (4, 5), (5, 6)])
    light = ZipCodesInstance(g, [1, 10, 10, 1, 1, 1, 1], 2)
    assert planar_lower_bound(light) == (11, "neighbour") and brute_force_opt(light) == 11
    # S = 30, k = 8: at most 3 parts, so one weighs >= 10
    path = ZipCodesInstance(nx.path_graph(6), [5] * 6, 8)
    assert planar_lower_bound(path) == (10, "subset-sum")
    many = ZipCodesInstance(nx.path_graph(7), [3, 3, 3, 3, 3, 3, 3], 5)
    value, source = lower_bound(many)
    assert value == 9.0 and source == "part-count"  # 21 / floor(21 / 6) = 7 -> ss(7) = 9


# -- generators -------------------------------------------------------------------------------
def test_delaunay_instance_is_planar_triangulation():
    inst = delaunay_instance(30, 10, weights="lognormal", seed=1)
    assert nx.check_planarity(inst.graph)[0]
    assert inst.graph.number_of_edges() <= 3 * 30 - 6
    assert inst.positions.shape == (30, 2)
    assert inst.weights.min() >= 0
    same = delaunay_instance(30, 10, weights="lognormal", seed=1)
    assert same.edges.tolist() == inst.edges.tolist()
    assert same.weights.tolist() == inst.weights.tolist()


@pytest.mark.parametrize("seed", range(6))
def test_delaunay_three_connected_option(seed):
    inst = delaunay_instance(9, 3, three_connected=True, seed=seed)
    assert nx.node_connectivity(inst.graph) >= 3


def test_hull_chords_detect_two_connectivity():
    for seed in range(40):
        rng = np.random.default_rng(seed)
        pts = rng.random((6, 2))
        g = delaunay_graph(pts)
        assert (nx.node_connectivity(g) >= 3) == (not hull_chords(g, pts))


def test_grid_instance():
    inst = grid_instance(3, 4, 2, weights="unit")
    assert inst.n == 12 and inst.graph.number_of_edges() == 3 * 3 + 2 * 4
    assert inst.weights.tolist() == [1] * 12
    assert inst.positions[5].tolist() == [1.0, 1.0]
    assert nx.is_isomorphic(inst.graph, nx.grid_2d_graph(3, 4))


@pytest.mark.parametrize("seed", range(5))
def test_planted_partition_weighs_exactly_k(seed):
    inst, planted = planted_planar_instance(15, 4, 6, seed=seed)
    parts, weights = part_weights(inst, planted)
    assert len(parts) == 4 and weights.tolist() == [6] * 4
    assert verify(inst, planted).cost == 6.0
    assert lower_bound(inst)[0] == 6.0  # optimum = k, certified by the bound


def test_random_weights_kinds():
    assert random_weights(4, kind="unit").tolist() == [1] * 4
    u = random_weights(500, kind="uniform", max_weight=3, seed=0)
    assert set(u.tolist()) == {1, 2, 3}
    z = random_weights(500, kind="zero-uniform", max_weight=2, seed=0)
    assert set(z.tolist()) == {0, 1, 2}
    ln = random_weights(500, kind="lognormal", max_weight=10, seed=0)
    assert ln.min() >= 0 and ln.dtype == np.int64


@pytest.mark.parametrize(
    ("call", "err", "match"),
    [
        (lambda: random_weights(3, kind="zipf"), ValueError, "`weights` must be one of"),
        (lambda: random_weights(0), ValueError, "`n` must be an integer >= 1, got 0"),
        (lambda: random_weights(3, max_weight=0), ValueError, "`max_weight` must be"),
        (lambda: delaunay_instance(2, 1), ValueError, "`n` must be an integer >= 3, got 2"),
        (lambda: delaunay_instance(3, 1, three_connected=True), ValueError, ">= 4, got 3"),
        (lambda: delaunay_instance(5, 100, weights="unit"), InfeasibleInstanceError, "below"),
        (lambda: grid_instance(0, 3, 1), ValueError, "`rows` must be an integer >= 1"),
        (lambda: planted_planar_instance(5, 6, 2), ValueError, "`n` must be an integer >= 6"),
        (lambda: planted_planar_instance(5, 0, 2), ValueError, "`n_parts` must be"),
        (lambda: planted_planar_instance(5, 2, 0), ValueError, "`k` must be an integer >= 1"),
    ],
)
def test_generator_errors(call, err, match):
    with pytest.raises(err, match=match):
        call()
