"""Tests of instances/gadgets.py: the §3 triangle table and the §4 graph-representation pair."""

from math import ceil, log2

import networkx as nx
import numpy as np
import pytest
from bruteforce import kanonymity_optimum

from anonratio.instances import lower_bound, pairwise_distances, verify
from anonratio.instances.kanonymity.gadgets import (
    MAX_PAIR_K,
    graph_representation_pair,
    triangle_gadget,
    triangle_union_gadget,
    triangle_union_graph,
)


# -- §3 triangle gadget -------------------------------------------------------------------------
def test_triangle_table_follows_the_paper_construction():
    # The graph of Figure 2, edges ranked 1..5 as in the text: (3,4), (1,4), (1,2), (1,3), (2,3).
    order = [(3, 4), (1, 4), (1, 2), (1, 3), (2, 3)]
    g = nx.Graph()
    g.add_nodes_from([1, 2, 3, 4])
    g.add_edges_from(order)
    gad = triangle_gadget(g, edge_order=order)
    t = ceil(log2(5 + 1))
    codes = gad.instance.table.codes
    assert t == 3 and codes.shape == (5, 3 * 4)
    assert gad.instance.table.attributes[:5] == ("b0.1", "b0.2", "b0.3", "b0.4", "b1.1")
    col = {(i, v): i * 4 + (v - 1) for i in range(3) for v in range(1, 5)}
    for rank, (a, b) in enumerate(order, start=1):
        bits = [(rank >> (t - 1 - i)) & 1 for i in range(t)]  # e_1 .. e_t, e_1 most significant
        row = codes[rank - 1]
        assert np.count_nonzero(row) == 2 * t
        for i, e in enumerate(bits):
            # conf_0: 1 at a, 2 at b; conf_1: 2 at a, 1 at b
            assert (row[col[i, a]], row[col[i, b]]) == ((1, 2) if e == 0 else (2, 1))
    # rank 5 = (101)_2 for edge (2, 3): blocks conf_1, conf_0, conf_1
    assert [codes[4, col[i, 2]] for i in range(3)] == [2, 1, 2]
    assert gad.optimum is None and gad.info["m"] == 5 / 3
    assert gad.instance.table.values[0] == ("0", "1", "2") and gad.instance.model == "suppression"


def test_single_triangle_optimum_bykanonymity_optimum():
    gad = triangle_gadget(nx.complete_graph(3), triangles=[(0, 1, 2)])
    assert gad.info["t"] == 2 and gad.optimum == 9 * 1 * 2
    assert verify(gad.instance, gad.witness).cost == gad.optimum
    assert kanonymity_optimum(gad.instance) == gad.optimum


@pytest.mark.parametrize(("n_triangles", "n_vertices", "seed"), [(2, 5, 0), (2, 7, 1), (3, 6, 2)])
def test_triangle_union_optimum_is_9mt_bykanonymity_optimum(n_triangles, n_vertices, seed):
    gad = triangle_union_gadget(n_triangles, n_vertices, seed=seed)
    m, t = n_triangles, ceil(log2(3 * n_triangles + 1))
    assert (gad.info["m"], gad.info["t"]) == (m, t)
    assert gad.instance.n == 3 * m and gad.instance.table.n_attributes == t * n_vertices
    assert gad.optimum == 9 * m * t == gad.lower_bound
    assert verify(gad.instance, gad.witness).cost == gad.optimum
    assert kanonymity_optimum(gad.instance) == gad.optimum
    value, _ = lower_bound(gad.instance)
    assert value <= gad.optimum


def test_four_star_costs_more_than_9mt_but_not_in_preliminary_table():
    star = nx.star_graph(3)  # center 0, leaves 1, 2, 3: no triangle partition
    full = triangle_gadget(star)
    assert full.optimum is None and full.lower_bound == 9 * 1 * 2
    assert kanonymity_optimum(full.instance) > full.lower_bound  # the replicated columns bite
    pre = triangle_gadget(star, preliminary=True)
    assert pre.info["t"] == 1 and pre.instance.table.values[0] == ("0", "1")
    assert kanonymity_optimum(pre.instance) == 9  # T only forces triangles *or 4-stars*: 9m


def test_preliminary_triangle_union():
    gad = triangle_union_gadget(3, 7, seed=4, preliminary=True)
    assert gad.optimum == 9 * 3 and gad.instance.table.n_attributes == 7
    assert verify(gad.instance, gad.witness).cost == gad.optimum
    assert set(np.unique(gad.instance.table.codes)) == {0, 1}


def test_other_k_gives_bounds_only():
    g = triangle_union_graph(3, 7, seed=0)
    four = triangle_gadget(g, k=4)
    assert four.optimum is None and four.witness is None
    assert four.lower_bound == 3 * four.info["t"] * 9
    assert kanonymity_optimum(four.instance) >= four.lower_bound
    two = triangle_gadget(g, k=2)
    assert two.optimum is None and two.lower_bound is None


def test_triangle_union_graph():
    g = triangle_union_graph(5, 9, seed=11)
    assert g.number_of_nodes() == 9 and g.number_of_edges() == 15
    tris = g.graph["triangles"]
    assert len(tris) == 5
    covered = [frozenset(e) for a, b, c in tris for e in ((a, b), (b, c), (a, c))]
    assert len(set(covered)) == 15 and set(covered) == {frozenset(e) for e in g.edges}
    same = triangle_union_graph(5, 9, seed=11)
    assert same.graph["triangles"] == tris
    assert nx.utils.graphs_equal(g, same)


def test_triangle_validation():
    with pytest.raises(ValueError, match=r"`n_triangles` must be at most .* = 2 for 4 vertices"):
        triangle_union_graph(3, 4)
    with pytest.raises(ValueError, match="`n_vertices` must be an integer >= 3, got 2"):
        triangle_union_graph(1, 2)
    with pytest.raises(ValueError, match="`n_triangles` must be an integer >= 1, got 0"):
        triangle_union_graph(0, 5)
    with pytest.raises(ValueError, match="could not place 2 edge-disjoint triangles on 4 vert"):
        triangle_union_graph(2, 4, seed=0)  # 6 edges fit by count, but K4 has no such pair
    with pytest.raises(ValueError, match="`graph` must be a simple undirected networkx.Graph"):
        triangle_gadget(nx.DiGraph([(0, 1), (1, 2), (2, 0)]))
    with pytest.raises(ValueError, match="`graph` must have at least 3 edges, got 2"):
        triangle_gadget(nx.path_graph(3))
    loop = nx.complete_graph(3)
    loop.add_edge(0, 0)
    with pytest.raises(ValueError, match="`graph` must be simple: it has self-loops"):
        triangle_gadget(loop)
    k4 = nx.complete_graph(4)
    with pytest.raises(ValueError, match="triangle 1 .* fails at edge"):
        triangle_gadget(k4, triangles=[(0, 1, 2), (0, 1, 3)])
    with pytest.raises(
        ValueError, match=r"`triangles` must hold vertex triples; entry 0 is \(0, 1\)"
    ):
        triangle_gadget(k4, triangles=[(0, 1)])
    with pytest.raises(ValueError, match="`triangles` cover 3 of the 6 edges"):
        triangle_gadget(k4, triangles=[(0, 1, 2)])
    with pytest.raises(ValueError, match="`edge_order` must list every edge of the graph"):
        triangle_gadget(k4, edge_order=[(0, 1), (1, 2)])
    with pytest.raises(ValueError, match=r"\(0, 5\) is not an edge"):
        triangle_gadget(k4, edge_order=[(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (0, 5)])
    with pytest.raises(ValueError, match=r"`k` must be an integer in \[2, 6\], got 7"):
        triangle_gadget(k4, k=7)


# -- §4 graph-representation pair ---------------------------------------------------------------
@pytest.mark.parametrize("k", [2, 3, 4, 5, 6, 8])
def test_graph_representation_pair(k):
    first, second = graph_representation_pair(k)
    ell = 2 ** (k - 2)
    assert first.instance.table.codes.shape == (k, k * ell)
    assert second.instance.table.codes.shape == (k, 4 * ell)
    assert first.optimum == k * k * ell
    assert second.optimum == k * (4 * ell - 2)
    assert first.optimum / second.optimum >= k / 4
    for gad in (first, second):
        inst = gad.instance
        assert inst.k == inst.n == k and inst.is_binary()
        # the only feasible partition is one group, so the witness cost is the optimum
        assert verify(inst, gad.witness).cost == gad.optimum
        d = pairwise_distances(inst, inst.table.codes)
        np.testing.assert_array_equal(d, 2 * ell * (1 - np.eye(k)))  # the same k-clique
        assert lower_bound(inst)[0] <= gad.optimum
    assert lower_bound(first.instance)[0] == lower_bound(second.instance)[0]


def test_graph_representation_pair_second_instance_blocks():
    _, second = graph_representation_pair(3)  # 8 columns; vector i has 2^i blocks
    np.testing.assert_array_equal(
        second.instance.table.codes,
        [[1, 1, 1, 1, 0, 0, 0, 0], [1, 1, 0, 0, 1, 1, 0, 0], [1, 0, 1, 0, 1, 0, 1, 0]],
    )


def test_graph_representation_pair_validation():
    with pytest.raises(ValueError, match=r"`k` must be an integer in \[2, 14\], got 1"):
        graph_representation_pair(1)
    with pytest.raises(ValueError, match=r"`k` must be an integer in \[2, 14\], got 15"):
        graph_representation_pair(MAX_PAIR_K + 1)
