"""Tests of solvers/low_degree_tree.py: spanning trees, FR's Δ*+1, the witness lower bound."""

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.instances.zip_codes.generators import delaunay_graph, delaunay_instance
from anonratio.solvers.zip_codes.low_degree_tree import (
    degree_witness_bound,
    low_degree_spanning_tree,
)


def min_degree_brute_force(g):
    """Δ*: the least maximum degree over all spanning trees (tiny graphs)."""
    best = g.number_of_nodes()
    for t in nx.SpanningTreeIterator(g):
        best = min(best, max(d for _, d in t.degree))
        if best <= 2:
            break
    return best


def _is_spanning_tree_of(t, g):
    return (
        set(t.nodes) == set(g.nodes) and nx.is_tree(t) and all(g.has_edge(u, v) for u, v in t.edges)
    )


@st.composite
def delaunay(draw, low=3, high=30):
    n = draw(st.integers(low, high))
    rng = np.random.default_rng(draw(st.integers(0, 10_000)))
    return delaunay_graph(rng.random((n, 2)))


@settings(max_examples=30, deadline=None, derandomize=True)
@given(delaunay(), st.sampled_from(["fr", "warnsdorff", "dfs", "bfs"]), st.integers(0, 99))
def test_returns_a_spanning_tree(g, method, seed):
    t = low_degree_spanning_tree(g, method=method, seed=seed)
    assert _is_spanning_tree_of(t, g)
    d = max(dict(t.degree).values())
    assert t.graph["max_degree"] == d and t.graph["method"] == method
    assert t.graph["degree_lower_bound"] <= d


@settings(max_examples=25, deadline=None, derandomize=True)
@given(delaunay(4, 8), st.sampled_from(["bfs", "dfs", "warnsdorff"]), st.integers(0, 99))
def test_fr_within_one_of_optimal_and_witness_valid(g, start, seed):
    opt = min_degree_brute_force(g)
    t = low_degree_spanning_tree(g, method="fr", start=start, seed=seed)
    assert _is_spanning_tree_of(t, g)
    assert opt <= t.graph["max_degree"] <= opt + 1  # Fürer–Raghavachari
    assert t.graph["degree_lower_bound"] <= opt


@settings(max_examples=15, deadline=None, derandomize=True)
@given(delaunay(20, 60), st.integers(0, 99))
def test_fr_never_worse_than_its_start(g, seed):
    start = low_degree_spanning_tree(g, method="bfs", seed=seed)
    t = low_degree_spanning_tree(g, method="fr", start="bfs", seed=seed)
    assert t.graph["max_degree"] <= start.graph["max_degree"]
    assert t.graph["max_degree"] <= 4  # Δ* <= 3 (Barnette) and FR gives <= Δ* + 1


def test_fr_improves_a_bfs_tree():
    g = delaunay_instance(200, 5, seed=1).graph
    bfs = low_degree_spanning_tree(g, method="bfs", seed=0)
    fr = low_degree_spanning_tree(g, method="fr", start="bfs", seed=0)
    assert bfs.graph["max_degree"] >= 6
    assert fr.graph["max_degree"] <= 3 and fr.graph["swaps"] > 0


@pytest.mark.parametrize("seed", range(3))
def test_degree_three_on_three_connected_triangulations(seed):
    # Empirical regression check (FR only guarantees Δ* + 1 <= 4 here).
    g = delaunay_instance(300, 5, three_connected=True, seed=seed).graph
    assert low_degree_spanning_tree(g, seed=seed).graph["max_degree"] <= 3


def test_grids_get_hamiltonian_paths():
    g = nx.grid_2d_graph(12, 9)
    t = low_degree_spanning_tree(g, seed=0)
    assert _is_spanning_tree_of(t, g)  # node names (tuples) are kept
    assert t.graph["max_degree"] == 2 and t.graph["degree_lower_bound"] == 2


def test_witness_certifies_stars_and_bipartite():
    t = low_degree_spanning_tree(nx.star_graph(6), seed=0)
    assert t.graph["max_degree"] == 6 and t.graph["degree_lower_bound"] == 6
    k25 = nx.complete_bipartite_graph(2, 5)
    adj = [list(k25.adj[v]) for v in range(7)]
    assert degree_witness_bound(adj, [0, 1]) == 3 == min_degree_brute_force(k25)
    t = low_degree_spanning_tree(k25, method="fr", start="bfs", seed=0)
    assert t.graph["max_degree"] == 3 and t.graph["degree_lower_bound"] == 3


def test_restarts_and_phase_cap():
    g = delaunay_instance(150, 5, seed=4).graph
    one = low_degree_spanning_tree(g, seed=1)
    many = low_degree_spanning_tree(g, seed=1, restarts=8)
    assert many.graph["max_degree"] <= one.graph["max_degree"]
    capped = low_degree_spanning_tree(g, start="bfs", max_phases=0, seed=1)
    bfs = low_degree_spanning_tree(g, method="bfs", seed=1)
    assert capped.graph["swaps"] == 0
    assert capped.graph["max_degree"] == bfs.graph["max_degree"]


def test_tiny_graphs():
    t = low_degree_spanning_tree(nx.empty_graph(1), seed=0)
    assert t.number_of_nodes() == 1 and t.graph["max_degree"] == 0
    t = low_degree_spanning_tree(nx.path_graph(2), seed=0)
    assert t.number_of_edges() == 1 and t.graph["max_degree"] == 1


@pytest.mark.parametrize(
    ("graph", "kwargs", "err", "match"),
    [
        (nx.Graph([(0, 1), (2, 3)]), {}, ValueError, "non-empty and connected"),
        (nx.Graph(), {}, ValueError, "non-empty and connected"),
        (nx.DiGraph([(0, 1)]), {}, TypeError, "undirected networkx.Graph"),
        (nx.path_graph(3), {"method": "prim"}, ValueError, "`method` must be one of"),
        (nx.path_graph(3), {"start": "fr"}, ValueError, "`start` must be one of"),
        (nx.path_graph(3), {"restarts": 0}, ValueError, "`restarts` must be an integer >= 1"),
    ],
)
def test_errors(graph, kwargs, err, match):
    with pytest.raises(err, match=match):
        low_degree_spanning_tree(graph, **kwargs)
