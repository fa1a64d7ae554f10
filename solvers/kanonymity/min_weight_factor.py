"""Exact minimum-weight [1,2]-factors and 2-factors, and the factor lower bounds.

A ``[lower, upper]``-factor is a spanning subgraph whose degrees lie in ``[lower, upper]``: a
[1,2]-factor is a disjoint union of paths (>= 1 edge) and cycles, a 2-factor one of cycles of
length >= 3. Aggarwal et al. (2005, §5–§6) build their 2- and 3-anonymity algorithms on a
*minimum-weight* factor of the complete graph weighted by ``w(a, b)``; their ratios hold only if
the factor is truly minimum, so :func:`min_weight_factor` solves it exactly.

Method. The degree-constrained ILP ``min sum_e w_e x_e`` s.t. ``lower <= sum_{e ∋ v} x_e <=
upper`` for every vertex, ``x_e in {0, 1}`` (binary, so the subgraph is simple and 2-factor cycles
have length >= 3), solved by HiGHS (``highspy``) with relative gap 0 and absolute gap 1e-7 (exact
whenever weights are multiples of some unit above that, e.g. integers or ``1/l_j`` fractions).
Graphs of up to ``_DIRECT_EDGES`` edges are one model. Larger complete graphs are solved on a
candidate edge set S (nearest neighbours, a greedy tour, LP column generation) and the optimum
over S is *proven* optimal on all edges by Lagrangian reduced costs: with the LP duals ``y``, any
factor using an edge ``f`` costs at least ``D(y) + rc_f`` (weak duality, valid for every ``y``);
edges failing ``D(y) + rc_f >= z_S`` join S and the ILP is solved again. A run stopped by the time
limit is reported as ``"time_limit"`` with a valid dual bound, never as optimal unless that bound
proves it: HiGHS statuses go through the status table and decision shared with the exact models
(:mod:`anonratio.exact.run`). A Tutte-gadget reduction to perfect matching with
``networkx.max_weight_matching`` (pure-Python blossom on Θ(n²) gadget vertices) would be far
slower. The ILP is in :mod:`~anonratio.solvers.kanonymity.factor_ilp`, the candidate edges and the
pricing in :mod:`~anonratio.solvers.kanonymity.factor_pricing`.

Duplicates. Identical records stay separate vertices joined by 0-weight edges: grouping ``k``
copies up front is not provably harmless (neither the minimum factor weight nor the optimal
k-anonymity cost is monotone under removing records: with ``x, x, y`` and ``k = 2``, removing the
copies leaves ``y`` alone). Only the distances are collapsed: :func:`record_distances` evaluates
``w`` on the unique rows and expands by index.

References
----------
Aggarwal, Feder, Kenthapadi, Motwani, Panigrahy, Thomas, Zhu. "Approximation Algorithms for
k-Anonymity". Journal of Privacy Technology, 2005, §5 (Lemma 9) and §6 (Lemma 10).
Cornuéjols, "General factors of graphs", JCTB 45, 1988 (polynomial-time factors).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from numbers import Integral

import numpy as np

from anonratio.instances import KAnonymityInstance, pairwise_distances
from anonratio.instances.validation import (
    check_instance,
    check_random_state,
    check_time_limit,
)
from anonratio.solvers.kanonymity.factor_ilp import _mip
from anonratio.solvers.kanonymity.factor_pricing import _priced

__all__ = [
    "Factor",
    "min_weight_factor",
    "factor_components",
    "record_distances",
    "factor_lower_bound",
]


@dataclass(frozen=True, eq=False)
class Factor:
    """A ``[lower, upper]``-factor found by :func:`min_weight_factor`.

    ``edges`` (int64, shape (e, 2), ``i < j``) is ``None`` when no factor was found; ``weight`` is
    their total cost; ``bound`` a proven lower bound on the minimum weight (``weight`` when
    optimal); ``status`` is ``"optimal"`` (proven), ``"time_limit"`` or ``"infeasible"``.
    """

    n: int
    lower: int
    upper: int
    edges: np.ndarray | None
    weight: float | None
    bound: float
    status: str
    time_s: float

    @property
    def optimal(self):
        return self.status == "optimal"


# ---------------------------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------------------------
def _factor_iv(cost, lower, upper):
    cost = np.asarray(cost, dtype=float)
    if cost.ndim != 2 or cost.shape[0] != cost.shape[1]:
        raise ValueError(f"`cost` must be a square matrix, got shape {cost.shape}")
    n = cost.shape[0]
    off = ~np.eye(n, dtype=bool)
    vals = cost[off]
    if np.any(np.isnan(vals)) or np.any(vals == -np.inf):
        raise ValueError("`cost` must hold real numbers or +inf (no edge) off the diagonal")
    if not np.array_equal(cost[off], cost.T[off]):
        raise ValueError("`cost` must be symmetric")
    for name, v in (("lower", lower), ("upper", upper)):
        if isinstance(v, bool) or not isinstance(v, Integral) or v < 0:
            raise ValueError(f"`{name}` must be a non-negative integer, got {v!r}")
    if not 1 <= upper or not lower <= upper:
        raise ValueError(
            f"`lower` and `upper` must satisfy 0 <= lower <= upper, upper >= 1, "
            f"got lower={lower!r}, upper={upper!r}"
        )
    return cost, int(lower), int(upper)


# ---------------------------------------------------------------------------------------------
# the factor ILP
# ---------------------------------------------------------------------------------------------
def min_weight_factor(
    cost: np.ndarray,
    *,
    lower: int = 1,
    upper: int = 2,
    time_limit: float | None = None,
    seed: int | np.random.Generator | None = None,
) -> Factor:
    """Minimum-weight ``[lower, upper]``-factor of a weighted simple graph, solved exactly.

    Returns the spanning subgraph of minimum total weight in which every vertex has degree in
    ``[lower, upper]`` — a [1,2]-factor for ``(1, 2)``, a 2-factor for ``(2, 2)`` — proven optimal
    by HiGHS (relative gap 0, absolute gap 1e-7; status ``"optimal"``), unless the time limit
    stops the search first.

    Parameters
    ----------
    cost : array_like, shape (n, n)
        Symmetric edge weights (any real numbers); ``+inf`` marks a missing edge. The diagonal is
        ignored.
    lower, upper : int
        Degree bounds, ``0 <= lower <= upper``, ``upper >= 1``.
    time_limit : float or None
        Seconds for HiGHS; ``None`` runs to optimality.
    seed : int, numpy.random.Generator or None
        Seeds HiGHS' internal randomness (tie-breaking among optimal factors).

    Returns
    -------
    Factor
        Status ``"optimal"``, ``"time_limit"`` (``edges`` is the best factor found, or ``None``)
        or ``"infeasible"`` (no such factor exists, e.g. a 2-factor on fewer than 3 vertices).

    Notes
    -----
    One binary variable per edge and n two-sided degree rows; graphs above ``_DIRECT_EDGES`` edges
    are solved on candidate edges with reduced-cost pricing (module docstring), so the ILP has
    O(n) columns in practice plus O(n²) numpy work. Worst case exponential (branch and bound); on
    random tables n = 600 takes a few seconds.

    References
    ----------
    Aggarwal et al., "Approximation Algorithms for k-Anonymity", 2005, §5–§6; Cornuéjols 1988.

    Examples
    --------
    >>> import numpy as np
    >>> cost = np.array([[0, 1, 4, 4], [1, 0, 4, 4], [4, 4, 0, 1], [4, 4, 1, 0]])
    >>> f = min_weight_factor(cost, lower=1, upper=2, seed=0)
    >>> f.status, f.weight, f.edges.tolist()
    ('optimal', 2.0, [[0, 1], [2, 3]])
    """
    cost, lower, upper = _factor_iv(cost, lower, upper)
    time_limit = check_time_limit(time_limit, allow_none=True)
    rng = check_random_state(seed)
    return _solve_factor(cost, lower, upper, time_limit, int(rng.integers(2**31 - 1)))


#: graphs with at most this many edges (complete graphs up to 64 vertices) are one model
_DIRECT_EDGES = 2_000


def _solve_factor(cost, lower, upper, time_limit, highs_seed, direct_edges=_DIRECT_EDGES):
    """Exact factor of a validated cost matrix: one model, or candidate edges + pricing."""
    start = time.perf_counter()
    deadline = None if time_limit is None else start + time_limit
    n = cost.shape[0]
    iu, ju = np.triu_indices(n, 1)
    c = cost[iu, ju]
    finite = np.isfinite(c)
    integral = bool(np.all(c[finite] == np.round(c[finite])))

    def done(ids, status, bound):
        edges = None if ids is None else np.column_stack([iu[ids], ju[ids]]).astype(np.int64)
        weight = None if ids is None else float(c[ids].sum())
        if edges is not None:
            deg = np.bincount(edges.ravel(), minlength=n)
            if np.any(deg < lower) or np.any(deg > upper):
                raise RuntimeError("HiGHS returned a subgraph that violates the degree bounds")
        if status == "optimal":
            bound = weight if not np.isfinite(bound) else min(weight, bound)
        if np.isfinite(bound) and integral:  # integer weights: the optimum is an integer
            bound = float(np.ceil(bound - 1e-6))
        return Factor(
            n, lower, upper, edges, weight, float(bound), status, time.perf_counter() - start
        )

    if n == 0 or not finite.any() or lower == 0 and np.all(c[finite] >= 0):
        # nothing to choose: the empty subgraph is optimal when it is feasible
        if lower == 0 or n == 0:
            return done(np.empty(0, dtype=np.int64), "optimal", 0.0)
        return done(None, "infeasible", np.inf)
    args = (n, iu, ju, c, lower, upper, deadline, highs_seed)
    if finite.sum() <= direct_edges:
        return done(*_mip(np.flatnonzero(finite), *args))
    return done(*_priced(cost, finite, *args))


# ---------------------------------------------------------------------------------------------
# components of a factor
# ---------------------------------------------------------------------------------------------
def factor_components(n: int, edges: np.ndarray) -> list[tuple[np.ndarray, bool]]:
    """The components of a subgraph of maximum degree 2, each in walk order.

    Parameters
    ----------
    n : int
    edges : ndarray of int, shape (e, 2)

    Returns
    -------
    list of (ndarray, bool)
        ``(vertices, is_cycle)`` per component: the vertices in the order of the path (from one
        end) or of the cycle; isolated vertices are paths of one vertex.
    """
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    src = np.concatenate([edges[:, 0], edges[:, 1]])
    dst = np.concatenate([edges[:, 1], edges[:, 0]])
    deg = np.bincount(src, minlength=n)
    if np.any(deg > 2):
        raise ValueError("`edges` must form a subgraph of maximum degree 2")
    order = np.argsort(src, kind="stable")
    src, dst = src[order], dst[order]
    first = np.searchsorted(src, src)
    nbr = np.full((n, 2), -1, dtype=np.int64)
    nbr[src, np.arange(len(src)) - first] = dst
    visited = np.zeros(n, dtype=bool)
    nbr_list = nbr.tolist()
    out = []
    # paths first (from an end vertex), then what is left is cycles, then isolated vertices
    starts = np.concatenate(
        [np.flatnonzero(deg == 1), np.flatnonzero(deg == 2), np.flatnonzero(deg == 0)]
    )
    for s in starts.tolist():
        if visited[s]:
            continue
        walk = [s]
        visited[s] = True
        cur = s
        while True:
            nxt = [v for v in nbr_list[cur] if v >= 0 and not visited[v]]
            if not nxt:
                break
            cur = nxt[0]
            visited[cur] = True
            walk.append(cur)
        cycle = deg[s] == 2  # every path start has degree <= 1, so a degree-2 start is a cycle
        out.append((np.array(walk, dtype=np.int64), bool(cycle)))
    return out


def component_histogram(components: list[tuple[np.ndarray, bool]]) -> dict[str, int]:
    """``{"path-3": 4, "cycle-5": 1, ...}``: component shapes (by vertex count) and counts."""
    hist: dict[str, int] = {}
    for verts, cyc in components:
        key = f"{'cycle' if cyc else 'path'}-{len(verts)}"
        hist[key] = hist.get(key, 0) + 1
    return dict(sorted(hist.items(), key=lambda kv: (kv[0][0], int(kv[0].split("-")[1]))))


# ---------------------------------------------------------------------------------------------
# k-anonymity helpers
# ---------------------------------------------------------------------------------------------
def record_distances(instance: KAnonymityInstance) -> np.ndarray:
    """``w(a, b)`` for every pair of records (n × n), computed on the unique rows only."""
    unique, inverse, _ = instance.table.unique_records()
    du = pairwise_distances(instance, unique)
    return du[np.ix_(inverse, inverse)]


def group_costs(instance: KAnonymityInstance, members: np.ndarray) -> np.ndarray:
    """Cost of each group ``members[g]`` (rows of a ``(G, z)`` int array): ``z sum_j w_j L/l_j``."""
    members = np.asarray(members, dtype=np.int64)
    g, z = members.shape
    total = np.zeros(g)
    if g == 0:
        return total
    codes = instance.table.codes[members]  # (G, z, m)
    weights = instance.table.weights
    for j, h in enumerate(instance.hierarchies):
        lv = h.groups[codes[:, :, j]]  # (G, z, height + 1): group id at each level
        differ = (lv.max(axis=1) != lv.min(axis=1)).sum(axis=1)  # levels refine: count = level
        total += weights[j] * differ / h.height
    return z * total


# ---------------------------------------------------------------------------------------------
# lower bounds (Lemma 9, §5 any alphabet, Lemma 10)
# ---------------------------------------------------------------------------------------------
_LB_SOURCES = {
    "lemma9": "[1,2]-factor x 2 (Aggarwal et al. 2005, §5, Lemma 9)",
    "sec5": "[1,2]-factor x 1.5 (Aggarwal et al. 2005, §5, any alphabet)",
    "lemma10": "2-factor x 1.5 (Aggarwal et al. 2005, §6, Lemma 10)",
}


def _bound_rule(instance):
    """``(multiplier, source)`` of the proven factor bound on this instance, or None."""
    if instance.row_deletion:
        return None  # the lemmas assume every record is clustered
    if instance.k == 2 and instance.is_binary():
        return 2.0, _LB_SOURCES["lemma9"]
    if instance.k == 2 and instance.is_suppression():
        return 1.5, _LB_SOURCES["sec5"]
    if instance.k == 3 and instance.is_binary():
        return 1.5, _LB_SOURCES["lemma10"]
    return None


def bound_from_factor(instance: KAnonymityInstance, factor: Factor) -> tuple[float, str] | None:
    """The proven bound ``(value, source)`` given a solved factor of the instance, or None."""
    rule = _bound_rule(instance)
    if rule is None or not np.isfinite(factor.bound):
        return None
    mult, source = rule
    return mult * max(factor.bound, 0.0), source


def factor_lower_bound(
    instance: KAnonymityInstance,
    *,
    time_limit: float | None = None,
    seed: int | np.random.Generator | None = None,
) -> tuple[float, str] | None:
    """Lower bound on the optimal k-anonymity cost from the minimum-weight factor.

    Returns ``(value, source)`` only where Aggarwal et al. (2005) prove it, else ``None``:

    - k = 2, binary alphabet: ``OPT >= 2 · c_OFAC`` ([1,2]-factor; §5, Lemma 9);
    - k = 2, suppression on any alphabet: ``OPT >= 1.5 · c_OFAC`` (§5, last paragraph);
    - k = 3, binary alphabet: ``OPT >= 1.5 · c_OFAC`` (2-factor; §6, Lemma 10).

    Not under row deletion (the lemmas assume every record is clustered), nor for generalization
    hierarchies of height > 1. If the time limit stops HiGHS, ``c_OFAC`` is replaced by HiGHS'
    proven dual bound, so the value stays valid.

    Parameters
    ----------
    instance : KAnonymityInstance
    time_limit : float or None
    seed : int, numpy.random.Generator or None

    Returns
    -------
    (float, str) or None

    Notes
    -----
    Solves the factor ILP of :func:`min_weight_factor` on all n records (same cost).

    References
    ----------
    Aggarwal et al., "Approximation Algorithms for k-Anonymity", 2005, §5 (Lemma 9) and §6
    (Lemma 10).

    Examples
    --------
    >>> import numpy as np
    >>> from anonratio.instances import KAnonymityInstance, Table
    >>> t = Table(np.array([[0, 0], [0, 1], [1, 1], [1, 1]]), ("a", "b"), (("0", "1"),) * 2)
    >>> factor_lower_bound(KAnonymityInstance(t, 2), seed=0)
    (2.0, '[1,2]-factor x 2 (Aggarwal et al. 2005, §5, Lemma 9)')
    """
    check_instance(instance, KAnonymityInstance)
    time_limit = check_time_limit(time_limit, allow_none=True)
    rng = check_random_state(seed)
    if _bound_rule(instance) is None:
        return None
    lower = 1 if instance.k == 2 else 2
    factor = _solve_factor(
        record_distances(instance), lower, 2, time_limit, int(rng.integers(2**31 - 1))
    )
    return bound_from_factor(instance, factor)
