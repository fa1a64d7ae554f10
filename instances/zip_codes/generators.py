"""Zip-code instances: Delaunay triangulations, grids and planted partitions.

Every generator takes ``seed`` (int ``>= 0``, :class:`numpy.random.Generator` or ``None``), converts
it once with :func:`~anonratio.instances.validation.check_random_state` and touches no global
random state. Graphs that are planar by construction skip the slow planarity test of
:class:`ZipCodesInstance`.

Node weights (``weights=``): ``"unit"`` (all 1), ``"uniform"`` (integers in ``[1, max_weight]``),
``"zero-uniform"`` (integers in ``[0, max_weight]``) and ``"lognormal"`` (``round(max_weight / 2 *
exp(N(0, 1)))``, heavy-tailed like zip-code populations, zeros possible).
"""

import networkx as nx
import numpy as np
from numpy.typing import ArrayLike
from scipy.spatial import ConvexHull, Delaunay

from anonratio.instances.validation import SeedLike, check_choice, check_int, check_random_state
from anonratio.instances.zip_codes.instance import ZipCodesInstance

__all__ = [
    "WEIGHT_KINDS",
    "random_weights",
    "delaunay_graph",
    "hull_chords",
    "delaunay_instance",
    "grid_instance",
    "planted_planar_instance",
]

WEIGHT_KINDS = ("unit", "uniform", "zero-uniform", "lognormal")


def random_weights(
    n: int, *, kind: str = "uniform", max_weight: int = 10, seed: SeedLike = None
) -> np.ndarray:
    """``n`` non-negative integer node weights of the given kind (module docstring)."""
    n = check_int("n", n, low=1)
    max_weight = check_int("max_weight", max_weight, low=1)
    check_choice("weights", kind, WEIGHT_KINDS)  # the generators' parameter is `weights`
    rng = check_random_state(seed)
    if kind == "unit":
        return np.ones(n, dtype=np.int64)
    if kind == "uniform":
        return rng.integers(1, max_weight, size=n, endpoint=True)
    if kind == "zero-uniform":
        return rng.integers(0, max_weight, size=n, endpoint=True)
    return np.rint(max_weight / 2 * rng.lognormal(0.0, 1.0, size=n)).astype(np.int64)


def delaunay_graph(points: ArrayLike) -> nx.Graph:
    """The Delaunay triangulation of ``points`` (shape ``(n, 2)``, ``n >= 3``, not collinear) as
    a graph on ``0..n-1``."""
    pts = np.asarray(points, dtype=float)
    tri = Delaunay(pts)
    s = tri.simplices
    e = np.concatenate([s[:, [0, 1]], s[:, [1, 2]], s[:, [0, 2]]])
    e = np.unique(np.sort(e, axis=1), axis=0)
    g = nx.Graph()
    g.add_nodes_from(range(len(pts)))
    g.add_edges_from(e.tolist())
    return g


def hull_chords(graph: nx.Graph, points: ArrayLike) -> list[tuple[int, int]]:
    """Edges joining two convex-hull vertices that are not consecutive on the hull.

    A triangulated disk (a Delaunay triangulation of points in general position) with ``n >= 4``
    nodes is 3-connected iff its outer cycle has no chord: a separating pair must lie on one face
    twice, and with triangular inner faces that can only be a chord of the outer cycle.
    """
    hull = ConvexHull(np.asarray(points, dtype=float)).vertices  # counter-clockwise
    pos = {int(v): i for i, v in enumerate(hull)}
    h = len(hull)
    out = []
    for u, v in graph.edges:
        if u in pos and v in pos and (pos[u] - pos[v]) % h not in (1, h - 1):
            out.append((u, v))
    return out


def delaunay_instance(
    n: int,
    k: int,
    *,
    weights: str = "uniform",
    max_weight: int = 10,
    three_connected: bool = False,
    seed: SeedLike = None,
) -> ZipCodesInstance:
    """Delaunay triangulation of ``n`` uniform random points in the unit square.

    Parameters
    ----------
    n : int
        Number of points (nodes), ``>= 3``.
    k : int
    weights : {"unit", "uniform", "zero-uniform", "lognormal"}
    max_weight : int
    three_connected : bool
        Resample the points (up to 1000 times) until the triangulation is 3-connected (no hull
        chord, :func:`hull_chords`; needs ``n >= 4``). Without it, most random triangulations are
        3-connected, but a hull "ear" makes one only 2-connected now and then.
    seed : int, numpy.random.Generator or None

    Returns
    -------
    ZipCodesInstance
        With ``positions`` set to the points.

    Examples
    --------
    >>> inst = delaunay_instance(20, 15, seed=0)
    >>> inst.n, inst.k
    (20, 15)
    """
    n = check_int("n", n, low=4 if three_connected else 3)
    rng = check_random_state(seed)
    for _ in range(1000):
        pts = rng.random((n, 2))
        g = delaunay_graph(pts)
        if not three_connected or not hull_chords(g, pts):
            break
    else:  # pragma: no cover - astronomically unlikely
        raise RuntimeError("no 3-connected Delaunay triangulation in 1000 samples")
    w = random_weights(n, kind=weights, max_weight=max_weight, seed=rng)
    return ZipCodesInstance(g, w, k, pts, check_planarity=False)


def grid_instance(
    rows: int,
    cols: int,
    k: int,
    *,
    weights: str = "uniform",
    max_weight: int = 10,
    seed: SeedLike = None,
) -> ZipCodesInstance:
    """The ``rows × cols`` grid graph; node ``i * cols + j`` sits at ``(j, i)``.

    Grids are planar and 2-connected (not 3-connected: corners have degree 2); they always have a
    Hamiltonian path (row by row, alternating direction), so a degree-2 spanning tree exists.

    Examples
    --------
    >>> grid_instance(3, 4, 2, weights="unit").n
    12
    """
    rows = check_int("rows", rows, low=1)
    cols = check_int("cols", cols, low=1)
    g = nx.Graph()
    g.add_nodes_from(range(rows * cols))
    idx = np.arange(rows * cols).reshape(rows, cols)
    g.add_edges_from(np.stack([idx[:, :-1].ravel(), idx[:, 1:].ravel()], axis=1).tolist())
    g.add_edges_from(np.stack([idx[:-1, :].ravel(), idx[1:, :].ravel()], axis=1).tolist())
    pos = np.stack(np.meshgrid(np.arange(cols), np.arange(rows)), axis=-1).reshape(-1, 2)
    w = random_weights(rows * cols, kind=weights, max_weight=max_weight, seed=seed)
    return ZipCodesInstance(g, w, k, pos.astype(float), check_planarity=False)


def planted_planar_instance(
    n: int, n_parts: int, k: int, *, seed: SeedLike = None
) -> tuple[ZipCodesInstance, np.ndarray]:
    """A Delaunay instance with a planted partition into ``n_parts`` parts of weight exactly ``k``.

    Random seeds grow connected regions by randomized breadth-first search; each region's ``k``
    units of weight are spread over its nodes uniformly at random (zeros allowed). Every part of any
    solution weighs at least ``k``, and the planted one has all parts at exactly ``k``, so the
    optimum is ``k``.

    Parameters
    ----------
    n : int
        Nodes, ``>= max(3, n_parts)``.
    n_parts : int
        ``>= 1``.
    k : int
        ``>= 1``.
    seed : int, numpy.random.Generator or None

    Returns
    -------
    instance : ZipCodesInstance
    planted : ndarray of int64
        The planted labels (an optimal solution).

    Examples
    --------
    >>> inst, planted = planted_planar_instance(12, 3, 4, seed=1)
    >>> sorted(np.bincount(planted, weights=inst.weights).tolist())
    [4.0, 4.0, 4.0]
    """
    n_parts = check_int("n_parts", n_parts, low=1)
    n = check_int("n", n, low=max(3, n_parts))
    k = check_int("k", k, low=1)
    rng = check_random_state(seed)
    pts = rng.random((n, 2))
    g = delaunay_graph(pts)
    labels = np.full(n, -1, dtype=np.int64)
    seeds = rng.choice(n, size=n_parts, replace=False)
    labels[seeds] = np.arange(n_parts)
    frontier = [(int(s), int(v)) for s in seeds for v in g.adj[int(s)]]
    while frontier:
        i = int(rng.integers(len(frontier)))
        frontier[i], frontier[-1] = frontier[-1], frontier[i]
        u, v = frontier.pop()
        if labels[v] < 0:
            labels[v] = labels[u]
            frontier.extend((v, x) for x in g.adj[v] if labels[x] < 0)
    w = np.zeros(n, dtype=np.int64)
    for p in range(n_parts):
        members = np.flatnonzero(labels == p)
        w[members] = rng.multinomial(k, np.full(len(members), 1 / len(members)))
    return ZipCodesInstance(g, w, k, pts, check_planarity=False), labels
