"""The degree-constrained factor ILP, driven through ``highspy`` directly.

One column ``x_e`` per candidate edge and two-sided degree rows; solved by HiGHS with relative gap
0 and an absolute gap at float resolution (:func:`_abs_gap`). The model is built in HiGHS' own
column format (no modelling layer, for speed on O(n²) edges), but its status is read through the
shared HiGHS status table and status decision of :mod:`anonratio.exact.run`
(:func:`~anonratio.exact.run.highs_claims`, :func:`~anonratio.exact.run.decide_status`), the same
as every exact model's. :mod:`anonratio.solvers.kanonymity.min_weight_factor` describes the method.
"""

import highspy
import numpy as np
import scipy.sparse as sp

from anonratio.exact.options import seconds_left
from anonratio.exact.run import HIGHS_PRESOLVE_RULES_OFF, decide_status, highs_claims

__all__ = []


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
    h.setOptionValue("presolve_rule_off", HIGHS_PRESOLVE_RULES_OFF)  # rules blind to the limit
    if deadline is not None:
        h.setOptionValue("time_limit", seconds_left(deadline))
    h.passModel(lp)
    return h


def _mip(ids, n, iu, ju, c, lower, upper, deadline, seed, start=None):
    """Solve the factor ILP on the edges ``ids``: ``(chosen edge ids or None, status, bound)``.

    ``start`` (edge ids of a known factor inside ``ids``) is passed to HiGHS as an incumbent.
    ``status`` is ``"optimal"`` (the dual bound is within the absolute gap of the incumbent),
    ``"time_limit"`` or ``"infeasible"``, as :func:`~anonratio.exact.run.decide_status` decides
    from HiGHS' claims; ``bound`` is HiGHS' dual bound (``-inf`` without one). Any other outcome
    (a solver failure, a claim its bound does not back) raises ``RuntimeError``.
    """
    h = _highs(n, iu, ju, c, ids, lower, upper, deadline, seed, integer=True)
    if start is not None:
        sol = highspy.HighsSolution()
        sol.col_value = np.isin(ids, start).astype(float)
        sol.value_valid = True
        h.setSolution(sol)
    h.run()
    claims = highs_claims(h)
    info = h.getInfo()
    objective = info.objective_function_value if claims["has_solution"] else None
    # the bound proves the incumbent within the MIP's own absolute gap (exact for the weights
    # the module docstring names); integrality is left to the caller
    status, _ = decide_status(
        objective=objective, bound=info.mip_dual_bound, abs_tol=_abs_gap(c), **claims
    )
    bound = info.mip_dual_bound if np.isfinite(info.mip_dual_bound) else -np.inf
    if status == "infeasible":
        return None, "infeasible", np.inf
    if status not in ("optimal", "time_limit"):
        name = h.modelStatusToString(h.getModelStatus())
        detail = "" if claims["has_solution"] else " without a solution"
        raise RuntimeError(f"HiGHS stopped with status {name!r}{detail} (run status {status!r})")
    if not claims["has_solution"]:
        return None, status, bound
    return ids[np.asarray(h.getSolution().col_value) > 0.5], status, bound
