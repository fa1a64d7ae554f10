"""A proven lower bound for l-diversity: the LP relaxation of the pattern model, tightened by
phase 1's integer bounds and certified by a Lagrangian bound computed from the LP's row duals.

The pattern model (:mod:`anonratio.exact.ldiversity.patterns`) has the problem's optimum. Its
LP relaxation, written with one auxiliary column ``Y_p`` (the records under pattern ``p``) per
pattern so that every column has at most ``m + 1`` nonzeros, is::

    min  sum_k cost(p_k) sum_v y[k, v]
    s.t. sum_{k: q_k = q} y[k, v]            = c_q(v)   for each (q, v) with c_q(v) > 0  (cover)
         sum_{k: p_k = p, v} y[k, v] − Y_p   = 0        for each pattern p                 (size)
         l sum_{k: p_k = p} y[k, v] − Y_p   <= 0        for each (p, v) the pattern holds  (elig.)
         0 <= y[k, v] <= u[k, v],   0 <= Y_p <= sum_{k: p_k = p} |q_k|

with ``u[k, v] = c_q(v)`` (implied by the cover rows), except on the cells of a QI-group's own
pattern (no star, cost 0, no other QI-group compatible), where ``u[k, v] = min(c_q(v), t_q)``:
the records a partition leaves intact in ``q`` form an l-eligible subset of ``q``, whose height
``h`` satisfies ``l h <= sum_v min(c_q(v), h)``, so ``h <= t_q``, the height phase 1 of TP
lowers ``q`` to (Xiao et al. 2010, §5.2). Every integer solution satisfies these bounds, so the
tightened relaxation still bounds the optimum from below; summing them shows it is at least
``max(|R1|, l h(R1))`` (each starred record costs at least 1, the starred records are at least
``|R1|``, and their union is fractionally l-eligible with at least ``h(R1)`` of one value).

**Validity at any stop.** For any row prices ``y`` with ``y_i <= 0`` on the ``<=`` rows (the
sign HiGHS reports for a minimization), every feasible ``x`` satisfies
``c·x = y·(A x) + d·x >= y·b + sum_j min(0, d_j) u_j`` with reduced costs ``d = c − Aᵀ y``,
bounds ``u`` and ``b`` the right-hand sides (the ``<=`` rows have ``b = 0`` and ``y_i A_i x >= 0``
there). So whatever HiGHS returns (optimal, stopped at a time or iteration limit, or nothing:
then ``y = 0``), the prices, clipped to the right sign, give a valid bound; it equals the LP's
value at an optimal dual. It is evaluated in floating point with an a-priori error bound
(Higham 2002, §3.1: a dot product of ``n`` terms is within ``gamma_n = n u / (1 − n u)`` of its
sum of magnitudes), subtracted with a margin before rounding up, as every cost is an integer.

References
----------
X. Xiao, K. Yi, Y. Tao. "The Hardness and Approximation Algorithms for L-Diversity". EDBT 2010,
§3 (the objectives), §5 (the instance bound ``max(|R1|, l h(R1))``, Lemma 5.2, Corollary 5.9).
N. J. Higham. *Accuracy and Stability of Numerical Algorithms*, 2nd ed., SIAM 2002, §3.1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from time import perf_counter

import highspy
import numpy as np
import scipy.sparse as sp

from anonratio.exact.ldiversity.patterns import LDivData, build_data
from anonratio.instances.ldiversity import LDiversityInstance, ldiversity_lower_bound
from anonratio.instances.ldiversity.instance import phase_one
from anonratio.instances.validation import MAX_SEED, check_instance, check_int, check_number

__all__ = ["LPBound", "PatternLP", "pattern_lp", "lagrangian_bound", "lp_bound"]

#: extra margin subtracted from the Lagrangian value (beyond its floating-point error bound)
#: before it is rounded up
MARGIN = 1e-6

#: LPs with more columns go to HiGHS's interior-point method (no crossover), smaller ones to the
#: dual simplex. Measured on SAL-like tables (n = 20000, l = 6, one thread): 66k columns, simplex
#: 4.3 s and IPM 6.4 s to optimal; 217k columns, IPM 46 s to optimal while the simplex had a
#: bound of 4877 (the instance bound is 7710, the LP 7798) after 60 s.
IPM_COLUMNS = 100_000

_U = np.finfo(np.float64).eps / 2  # unit roundoff


@dataclass
class LPBound:
    """The bound an :func:`lp_bound` run proved, and how.

    Attributes
    ----------
    value : float
        The proven lower bound on the optimum: the larger of the rounded-up Lagrangian bound
        and :func:`~anonratio.instances.ldiversity.ldiversity_lower_bound`.
    source : str
        ``"lp-relaxation"`` when the LP's Lagrangian bound is strictly larger, else the instance
        bound's source; when the model was too large, that source followed by
        ``" (pattern model too large)"``.
    instance_bound : float
        ``max(|R1|, l h(R1))``.
    lagrangian : float or None
        The Lagrangian bound (rounded up; None when no LP was built).
    lp_value : float or None
        HiGHS's objective value (not itself a proven bound: for information).
    solved : bool
        True when HiGHS reports the LP optimal.
    status : str
        HiGHS's model status, or why no LP ran (``"too large"``, ``"no time"``).
    seconds : float
        Wall time of the whole computation (the model's enumeration included).
    size : dict
        ``n_rows``, ``n_cols``, ``n_nonzeros`` of the LP and the model's ``n_pairs``,
        ``n_patterns``, ``n_qi_groups``, ``n_values`` (or the reason it was too large), and
        ``lp_method``: ``"simplex"`` or ``"ipm"``.
    """

    value: float
    source: str
    instance_bound: float
    lagrangian: float | None = None
    lp_value: float | None = None
    solved: bool = False
    status: str = ""
    seconds: float = 0.0
    size: dict = field(default_factory=dict)


@dataclass
class PatternLP:
    """The LP relaxation of the pattern model as arrays: ``min c x``, ``A x = b`` on the
    ``equal`` rows, ``A x <= b`` (``b = 0``) on the others, ``0 <= x <= upper``."""

    matrix: sp.csc_matrix
    rhs: np.ndarray
    equal: np.ndarray
    cost: np.ndarray
    upper: np.ndarray

    @property
    def shape(self) -> tuple[int, int]:
        return self.matrix.shape


def pattern_lp(data: LDivData) -> PatternLP:
    """The relaxation's rows (cover, size, eligibility) and columns (cells, then ``Y_p``), the
    own-pattern cells bounded by phase 1's kept counts (module docstring).

    Vectorized; ``O(N + P m)`` for ``N`` cells (pair, value held by its QI-group) and ``P``
    patterns.
    """
    ks, vs = data.cells()
    g, m = data.counts.shape
    n_cells, n_pat = ks.size, data.n_patterns
    qs, ps = data.pair_q[ks], data.pair_p[ks]
    cover, cover_row = np.unique(qs * m + vs, return_inverse=True)
    elig, elig_row = np.unique(ps * m + vs, return_inverse=True)
    n_cover, n_elig = cover.size, elig.size
    cells = np.arange(n_cells)
    y_col = n_cells + np.arange(n_pat)
    size_row = n_cover + np.arange(n_pat)
    elig_at = n_cover + n_pat + np.arange(n_elig)
    rows = np.concatenate(
        [
            cover_row.reshape(-1),
            n_cover + ps,
            n_cover + n_pat + elig_row.reshape(-1),
            size_row,
            elig_at,
        ]
    )
    cols = np.concatenate([cells, cells, cells, y_col, n_cells + elig // m])
    vals = np.concatenate(
        [np.ones(2 * n_cells), np.full(n_cells, float(data.l)), -np.ones(n_pat + n_elig)]
    )
    n_rows = n_cover + n_pat + n_elig
    matrix = sp.csc_matrix((vals, (rows, cols)), shape=(n_rows, n_cells + n_pat))
    rhs = np.zeros(n_rows)
    rhs[:n_cover] = data.counts.reshape(-1)[cover]
    equal = np.arange(n_rows) < n_cover + n_pat
    size_q = data.counts.sum(axis=1)
    y_upper = np.bincount(data.pair_p, weights=size_q[data.pair_q], minlength=n_pat)
    # phase 1 keeps min(c_q(v), t_q) records of (q, v): no integer solution keeps more intact
    pg, pv, _, keep, _ = phase_one(data.qi_group, data.value, data.l)
    kept = np.zeros_like(data.counts)
    kept[pg, pv] = keep
    cell_upper = np.where(data.cost[ps] == 0, kept[qs, vs], data.counts[qs, vs])
    upper = np.concatenate([cell_upper.astype(float), y_upper])
    cost = np.concatenate([data.cost[ps].astype(float), np.zeros(n_pat)])
    return PatternLP(matrix, rhs, equal, cost, upper)


def lagrangian_bound(lp: PatternLP, row_dual: np.ndarray) -> float:
    """A proven lower bound on the LP's (hence the model's) optimum from *any* row prices.

    ``row_dual`` is clipped to ``<= 0`` on the ``<=`` rows, non-finite entries become 0; then
    ``y·b + sum_j min(0, d_j) u_j`` (module docstring) minus a bound on its floating-point
    error: each ``d_j`` is within ``gamma_{K+1} (|c_j| + |A_j|ᵀ|y|)`` of its true value (``K``
    nonzeros per column), the sums use :func:`math.fsum`, and the whole error bound is doubled
    to cover its own evaluation. ``O(nnz)``.
    """
    y = np.asarray(row_dual, dtype=np.float64).copy()
    if y.shape != (lp.shape[0],):
        raise ValueError(f"`row_dual` must have shape ({lp.shape[0]},), got {y.shape}")
    y[~np.isfinite(y)] = 0.0
    y[~lp.equal] = np.minimum(y[~lp.equal], 0.0)
    d = lp.cost - lp.matrix.T @ y
    terms = np.minimum(d, 0.0) * lp.upper
    priced = y * lp.rhs
    value = math.fsum(priced) + math.fsum(terms)
    k = int(np.diff(lp.matrix.indptr).max(initial=0)) + 1
    gamma = k * _U / (1 - k * _U)
    spread = lp.upper @ (np.abs(lp.cost) + abs(lp.matrix).T @ np.abs(y))
    error = 2 * (gamma * spread + _U * (np.abs(terms).sum() + np.abs(priced).sum() + abs(value)))
    return value - float(error)


def _solve(
    lp: PatternLP, time_limit: float, seed: int, iteration_limit: int | None
) -> tuple[str, str, float | None, np.ndarray, bool]:
    """HiGHS on the relaxation: ``(method, status, objective or None, row duals, optimal)``.

    One thread, no presolve. Up to :data:`IPM_COLUMNS` columns the dual simplex: its prices are
    dual feasible at every iterate, so an early stop still leaves a bound close to the iterate's
    objective. Beyond, the interior-point method without crossover, much faster there but whose
    prices before convergence are far from dual feasible (then the bound is the instance's).
    """
    n_rows, n_cols = lp.shape
    model = highspy.HighsLp()
    model.num_col_, model.num_row_ = n_cols, n_rows
    model.col_cost_, model.col_lower_, model.col_upper_ = lp.cost, np.zeros(n_cols), lp.upper
    model.row_lower_ = np.where(lp.equal, lp.rhs, -highspy.kHighsInf)
    model.row_upper_ = lp.rhs
    model.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    model.a_matrix_.start_ = lp.matrix.indptr.astype(np.int32)
    model.a_matrix_.index_ = lp.matrix.indices.astype(np.int32)
    model.a_matrix_.value_ = lp.matrix.data
    method = "ipm" if n_cols > IPM_COLUMNS else "simplex"
    h = highspy.Highs()
    for name, value in (
        ("output_flag", False),
        ("threads", 1),
        ("random_seed", seed),
        ("presolve", "off"),
        ("solver", method),
        ("simplex_strategy", 1),
        ("run_crossover", "off"),
        ("time_limit", time_limit),
    ):
        h.setOptionValue(name, value)
    if iteration_limit is not None:
        h.setOptionValue("simplex_iteration_limit", iteration_limit)
        h.setOptionValue("ipm_iteration_limit", iteration_limit)
    h.passModel(model)
    h.run()
    status = h.getModelStatus()
    info = h.getInfo()
    duals = np.zeros(n_rows)
    if info.dual_solution_status != highspy.SolutionStatus.kSolutionStatusNone:
        duals = np.asarray(h.getSolution().row_dual, dtype=np.float64)
    objective = None
    if info.primal_solution_status == highspy.SolutionStatus.kSolutionStatusFeasible:
        objective = float(info.objective_function_value)
    optimal = status == highspy.HighsModelStatus.kOptimal
    return method, h.modelStatusToString(status), objective, duals, optimal


def lp_bound(
    instance: LDiversityInstance,
    *,
    time_limit: float = 60.0,
    seed: int | None = 0,
    iteration_limit: int | None = None,
) -> LPBound:
    """A proven lower bound on the optimum of ``instance`` (either objective): the Lagrangian
    bound of the pattern model's LP relaxation, or the instance bound when it is larger.

    Parameters
    ----------
    instance : LDiversityInstance
    time_limit : float
        Seconds (>= 0) for the whole computation; HiGHS gets what the model's construction
        leaves. 0 returns the instance bound.
    seed : int or None
        HiGHS's random seed (None means 0).
    iteration_limit : int, optional
        Simplex iterations at most (for tests of early stops).

    Returns
    -------
    LPBound

    Notes
    -----
    Valid however HiGHS ends (module docstring); rounded up since all costs are integers. The LP
    has about ``N + P`` columns and ``N`` cells ``(pair, value)``, ``N <= g 2^d m`` for stars
    (``2 g m`` for tuples); when :func:`~anonratio.exact.ldiversity.patterns.build_data` refuses
    the model (more than ``MAX_PAIRS`` pairs) the instance bound is returned.

    Examples
    --------
    >>> from anonratio.instances import Table
    >>> t = Table([[0], [0], [1], [1]], ["a"], [["x", "y"]], sensitive=[0, 0, 1, 1])
    >>> b = lp_bound(LDiversityInstance(t, 2, "stars"), time_limit=10)
    >>> b.value, b.solved
    (4.0, True)
    """
    t0 = perf_counter()
    check_instance(instance, LDiversityInstance)
    time_limit = check_number("time_limit", time_limit, low=0)
    seed = check_int("seed", seed, low=0, high=MAX_SEED, allow_none=True)
    iteration_limit = check_int("iteration_limit", iteration_limit, low=0, allow_none=True)
    base, base_source = ldiversity_lower_bound(instance)
    out = LPBound(value=base, source=base_source, instance_bound=base)
    if time_limit == 0:
        return _done(out, "no time", t0)
    data = build_data(instance)
    out.size = {
        k: data.info[k]
        for k in ("n_qi_groups", "n_values", "n_patterns", "n_pairs")
        if k in data.info
    }
    if data.too_large:
        out.size["reason"] = data.info.get("reason", "")
        out.source = f"{base_source} (pattern model too large)"
        return _done(out, "too large", t0)
    lp = pattern_lp(data)
    out.size.update(n_rows=lp.shape[0], n_cols=lp.shape[1], n_nonzeros=int(lp.matrix.nnz))
    left = time_limit - (perf_counter() - t0)
    if left <= 0:
        return _done(out, "no time", t0)
    method, status, out.lp_value, duals, out.solved = _solve(lp, left, seed or 0, iteration_limit)
    out.size["lp_method"] = method
    out.lagrangian = float(max(0, math.ceil(lagrangian_bound(lp, duals) - MARGIN)))
    if out.lagrangian > base:
        out.value, out.source = out.lagrangian, "lp-relaxation"
    return _done(out, status, t0)


def _done(out: LPBound, status: str, t0: float) -> LPBound:
    out.status, out.seconds = status, perf_counter() - t0
    return out
