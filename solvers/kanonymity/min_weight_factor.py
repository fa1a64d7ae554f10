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
limit is reported as ``"time_limit"`` with a valid dual bound, never as optimal. A Tutte-gadget
reduction to perfect matching with ``networkx.max_weight_matching`` (pure-Python blossom on Θ(n²)
gadget vertices) would be far slower.

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

import time
from dataclasses import dataclass
from numbers import Integral, Real

import highspy
import numpy as np
import scipy.sparse as sp
from anonratio.instances import KAnonymityInstance, UnsupportedInstanceError, pairwise_distances

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
def _time_limit_iv(time_limit):
    if time_limit is None:
        return None
    if isinstance(time_limit, bool) or not isinstance(time_limit, Real) or not time_limit > 0:
        raise ValueError(
            f"`time_limit` must be a positive number of seconds or None, got {time_limit!r}"
        )
    return None if np.isinf(time_limit) else float(time_limit)


def _seed_iv(seed):
    """Return the int seed to record in a Solution (None for None or a Generator)."""
    if seed is None or isinstance(seed, np.random.Generator):
        return None
    if isinstance(seed, bool) or not isinstance(seed, Integral) or seed < 0:
        raise ValueError(
            f"`seed` must be None, a non-negative integer or a numpy Generator, got {seed!r}"
        )
    return int(seed)


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
def min_weight_factor(cost, *, lower=1, upper=2, time_limit=None, seed=None):
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
    time_limit = _time_limit_iv(time_limit)
    rng = np.random.default_rng(seed)
    return _solve_factor(cost, lower, upper, time_limit, int(rng.integers(2**31 - 1)))


#: graphs with at most this many edges (complete graphs up to 64 vertices) are one model
_DIRECT_EDGES = 2_000
#: nearest neighbours per vertex in the first candidate edge set of the priced scheme
_NEIGHBOURS = 8
_LIMITS = (
    highspy.HighsModelStatus.kTimeLimit,
    highspy.HighsModelStatus.kInterrupt,
    highspy.HighsModelStatus.kIterationLimit,
    highspy.HighsModelStatus.kSolutionLimit,
    highspy.HighsModelStatus.kMemoryLimit,
)


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


def _abs_gap(c):
    """Absolute MIP gap: 1e-7, or float resolution of the largest possible objective."""
    finite = np.abs(c[np.isfinite(c)])
    return max(1e-7, 1e-12 * float(finite.max(initial=0.0)) * max(len(finite), 1) ** 0.5)


def _highs(n, iu, ju, c, ids, lower, upper, deadline, seed, integer):
    """A HiGHS model with one column x_e per edge in ``ids`` and the degree rows."""
    # x_e in [0, 1] (integer for the MIP): edge e = (iu[e], ju[e]) is in the factor
    # degree rows: lower <= sum of x_e over the edges at v <= upper, for every vertex v
    k = len(ids)
    cols = np.arange(k)
    a = sp.csc_matrix(
        (np.ones(2 * k), (np.concatenate([iu[ids], ju[ids]]), np.concatenate([cols, cols]))),
        shape=(n, k),
    )
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = k, n
    lp.col_cost_ = c[ids]
    lp.col_lower_ = np.zeros(k)
    lp.col_upper_ = np.ones(k)
    lp.row_lower_ = np.full(n, float(lower))
    lp.row_upper_ = np.full(n, float(upper))
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = a.indptr
    lp.a_matrix_.index_ = a.indices
    lp.a_matrix_.value_ = a.data
    if integer:
        lp.integrality_ = [highspy.HighsVarType.kInteger] * k
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    # prove optimality: no relative gap, an absolute one at float resolution only (a gap of
    # exactly 0 is never reached when float noise leaves the dual bound at z - 1e-13)
    h.setOptionValue("mip_rel_gap", 0.0)
    h.setOptionValue("mip_abs_gap", _abs_gap(c))
    h.setOptionValue("random_seed", seed)
    if deadline is not None:
        h.setOptionValue("time_limit", max(deadline - time.perf_counter(), 1e-3))
    h.passModel(lp)
    return h


def _mip(ids, n, iu, ju, c, lower, upper, deadline, seed, start=None):
    """Solve the factor ILP on the edges ``ids``: ``(chosen edge ids or None, status, bound)``.

    ``start`` (edge ids of a known factor inside ``ids``) is passed to HiGHS as an incumbent.
    """
    h = _highs(n, iu, ju, c, ids, lower, upper, deadline, seed, integer=True)
    if start is not None:
        sol = highspy.HighsSolution()
        sol.col_value = np.isin(ids, start).astype(float)
        sol.value_valid = True
        h.setSolution(sol)
    h.run()
    status = h.getModelStatus()
    info = h.getInfo()
    bound = info.mip_dual_bound if np.isfinite(info.mip_dual_bound) else -np.inf
    if status == highspy.HighsModelStatus.kInfeasible:
        return None, "infeasible", np.inf
    if status == highspy.HighsModelStatus.kOptimal:
        label = "optimal"
    elif status in _LIMITS:
        label = "time_limit"
    else:
        raise RuntimeError(f"HiGHS stopped with status {h.modelStatusToString(status)!r}")
    if info.primal_solution_status != 2:  # no feasible solution (kSolutionStatusFeasible)
        if label == "optimal":
            raise RuntimeError("HiGHS reported optimality without a solution")
        return None, label, bound
    return ids[np.asarray(h.getSolution().col_value) > 0.5], label, bound


def _priced(cost, finite, n, iu, ju, c, lower, upper, deadline, seed):
    """Exact factor through candidate edges S, proven optimal on all edges by pricing.

    For any duals y and any factor x with ``x_f = 1``, ``rc_f = c_f - y_u - y_v > 0``:
    ``c·x >= D(y) + rc_f`` with ``D(y) = sum_v min(y_v lower, y_v upper) + sum_e min(0, rc_e)``.
    So when every edge f outside S has ``D + rc_f >= z_S``, the optimum z_S over S is optimal.
    """
    sel = np.zeros(len(c), dtype=bool)
    q = min(_NEIGHBOURS, n - 1)
    nb = np.argpartition(np.where(np.eye(n, dtype=bool), np.inf, cost), q - 1, axis=1)[:, :q]
    rows = np.repeat(np.arange(n), nb.shape[1])
    sel[_edge_ids(n, rows, nb.ravel())] = True
    order = _greedy_tour(cost)
    tour = _edge_ids(n, order, np.roll(order, -1))
    sel[tour] = True
    sel &= finite
    # best known factor: the tour (a Hamiltonian cycle), when it is one
    best = tour if n >= 3 and lower <= 2 <= upper and np.all(finite[tour]) else None
    y = _lp_duals(sel, n, iu, ju, c, finite, lower, upper, deadline, seed)
    rc = np.where(finite, c - y[iu] - y[ju], np.inf)
    d_bound = float(np.sum(np.minimum(y * lower, y * upper)) + np.minimum(rc[finite], 0).sum())
    while True:
        ids, label, bound = _mip(
            np.flatnonzero(sel), n, iu, ju, c, lower, upper, deadline, seed, start=best
        )
        if ids is not None and (best is None or c[ids].sum() <= c[best].sum()):
            best = ids
        outside = finite & ~sel
        if label == "infeasible" and not outside.any():
            return None, "infeasible", np.inf
        if label == "infeasible":  # S holds no factor (missing edges): take every edge
            sel = finite.copy()
            continue
        # the best factor using an edge outside S costs at least d_bound + min rc+
        out_bound = d_bound + max(float(np.min(rc[outside], initial=np.inf)), 0.0)
        bound = max(d_bound, min(bound, out_bound))
        if label != "optimal":
            return best, label, bound
        z = float(c[ids].sum())
        bad = outside & (d_bound + rc < z - _abs_gap(c))
        if not bad.any():
            return ids, "optimal", min(z, bound)
        sel |= bad


def _edge_ids(n, a, b):
    """Index of edge {a, b} (a != b) in ``np.triu_indices(n, 1)`` order."""
    i, j = np.minimum(a, b), np.maximum(a, b)
    return i * n - i * (i + 1) // 2 + (j - i - 1)


def _greedy_tour(cost):
    """A nearest-neighbour Hamiltonian tour (vertex order); O(n²)."""
    n = cost.shape[0]
    free = np.ones(n, dtype=bool)
    tour = np.empty(n, dtype=np.int64)
    cur = 0
    for t in range(n):
        tour[t] = cur
        free[cur] = False
        if t + 1 < n:
            cand = np.flatnonzero(free)
            cur = cand[np.argmin(cost[cur, cand])]
    return tour


def _lp_duals(sel, n, iu, ju, c, finite, lower, upper, deadline, seed):
    """Row duals of the LP relaxation on all edges, by column generation from ``sel``.

    Adds to ``sel`` (in place) the edges of most negative reduced cost, at most ``2n`` a round,
    until none is negative (or the deadline passes: any duals still give valid bounds).
    """
    ids = np.flatnonzero(sel)
    h = _highs(n, iu, ju, c, ids, lower, upper, deadline, seed, integer=False)
    while True:
        h.run()
        y = np.asarray(h.getSolution().row_dual, dtype=float)
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal or len(y) != n:
            return np.zeros(n)
        rc = np.where(finite & ~sel, c - y[iu] - y[ju], np.inf)
        new = np.flatnonzero(rc < -1e-9)
        if len(new) == 0 or deadline is not None and time.perf_counter() > deadline:
            return y
        new = new[np.argsort(rc[new], kind="stable")[: 2 * n]]
        sel[new] = True
        k = len(new)
        h.addCols(
            k, c[new], np.zeros(k), np.ones(k), 2 * k,
            np.arange(0, 2 * k, 2, dtype=np.int32),
            np.column_stack([iu[new], ju[new]]).ravel().astype(np.int32),
            np.ones(2 * k),
        )  # fmt: skip


# ---------------------------------------------------------------------------------------------
# components of a factor
# ---------------------------------------------------------------------------------------------
def factor_components(n, edges):
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


def component_histogram(components):
    """``{"path-3": 4, "cycle-5": 1, ...}``: component shapes (by vertex count) and counts."""
    hist = {}
    for verts, cyc in components:
        key = f"{'cycle' if cyc else 'path'}-{len(verts)}"
        hist[key] = hist.get(key, 0) + 1
    return dict(sorted(hist.items(), key=lambda kv: (kv[0][0], int(kv[0].split("-")[1]))))


# ---------------------------------------------------------------------------------------------
# k-anonymity helpers
# ---------------------------------------------------------------------------------------------
def record_distances(instance):
    """``w(a, b)`` for every pair of records (n × n), computed on the unique rows only."""
    unique, inverse, _ = instance.table.unique_records()
    du = pairwise_distances(instance, unique)
    return du[np.ix_(inverse, inverse)]


def group_costs(instance, members):
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


def _remaining(time_limit, start):
    """What is left of ``time_limit`` seconds since ``start`` (``perf_counter``); None: no limit."""
    return None if time_limit is None else max(time_limit - (time.perf_counter() - start), 1e-3)


def _run_iv(instance, *, k, algorithm, seed, time_limit):
    """Shared boundary validation of the factor algorithms; returns ``(seed_int, time_limit)``."""
    if not isinstance(instance, KAnonymityInstance):
        raise TypeError(f"`instance` must be a KAnonymityInstance, got {type(instance).__name__}")
    if instance.k != k:
        raise UnsupportedInstanceError(f"`k` must be {k} for {algorithm}, got {instance.k}")
    return _seed_iv(seed), _time_limit_iv(time_limit)


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


def bound_from_factor(instance, factor):
    """The proven bound ``(value, source)`` given a solved factor of the instance, or None."""
    rule = _bound_rule(instance)
    if rule is None or not np.isfinite(factor.bound):
        return None
    mult, source = rule
    return mult * max(factor.bound, 0.0), source


def factor_lower_bound(instance, *, time_limit=None, seed=None):
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
    if not isinstance(instance, KAnonymityInstance):
        raise TypeError(f"`instance` must be a KAnonymityInstance, got {type(instance).__name__}")
    time_limit = _time_limit_iv(time_limit)
    _seed_iv(seed)
    if _bound_rule(instance) is None:
        return None
    lower = 1 if instance.k == 2 else 2
    rng = np.random.default_rng(seed)
    factor = _solve_factor(
        record_distances(instance), lower, 2, time_limit, int(rng.integers(2**31 - 1))
    )
    return bound_from_factor(instance, factor)
