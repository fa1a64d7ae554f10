"""Per-instance columns of a results frame: reference optimum, best valid bound, ratios.

Used by :func:`anonratio.bench.engine.runner.finalize` (re-exported there).

Rows of relaxed solutions (column ``relaxed`` true: the bicriteria scheme of Du et al. 2009,
Theorem 11, whose bins may hold only ``(1 - 2 eps) k``) are verified against the relaxed floor
only, so their cost is no valid upper bound: they never set the optimum, the best verified cost,
or veto a lower bound. They still get ``ratio`` / ``certified_ratio`` (cost over the optimum /
lower bound settled by the other rows), to be read with their ``min_load_ratio``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["RTOL", "finalize", "load_reference_optima"]

#: relative tolerance when comparing objective values (optima of two solvers, bound vs cost)
RTOL = 1e-6

_ROOT = Path(__file__).resolve().parents[2]


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=RTOL, abs_tol=RTOL)


def load_reference_optima(path: str | Path | None = None) -> dict[str, float]:
    """``{instance id: optimum}`` from ``results/reference_optima.json`` ({} when absent)."""
    path = Path(path) if path is not None else _ROOT / "results" / "reference_optima.json"
    if not path.exists():
        return {}
    data = json.loads(path.read_text())
    entries = data.get("instances", data)
    return {key: float(v["optimum"]) for key, v in entries.items() if "optimum" in v}


def _flag(col: pd.Series) -> pd.Series:
    """A boolean column that may hold bools, NaN/None, or strings read back from CSV."""
    if pd.api.types.is_bool_dtype(col):
        return col.fillna(False).astype(bool)
    return col.map(lambda v: str(v).strip().lower() in ("true", "1", "1.0", "yes"))


def _claimed_optimum(
    g: pd.DataFrame, verified: pd.DataFrame, best: float, reference: dict[str, float], notes: list
) -> tuple[float, str | None, bool | None]:
    """``(optimum, how, exact_agree)`` from exact rows, known and reference optima (NaN if none).

    Disagreements are appended to ``notes`` and leave the optimum NaN.
    """
    exact = verified[(verified["kind"] == "exact") & (verified["status"] == "optimal")]
    agree = None
    opt, how = math.nan, None
    if len(exact):
        lo, hi = float(exact["cost"].min()), float(exact["cost"].max())
        if len(exact["algorithm"].unique()) >= 2:
            agree = _close(lo, hi)
        if _close(lo, hi):
            opt, how = lo, "exact"
        else:
            pairs = zip(exact["algorithm"], exact["cost"], strict=True)
            listed = ", ".join(f"{a}={c:g}" for a, c in pairs)
            notes.append(f"exact optima disagree: {listed}")
    inst = g["instance"].iloc[0]
    known = [(float(v), "gadget") for v in g["known_optimum"].dropna().unique()]
    if inst in reference:
        known.append((float(reference[inst]), "reference"))
    for value, src in known:
        if math.isnan(opt):
            if not notes:  # never let a known value silently settle an exact disagreement
                opt, how = value, src
        elif not _close(opt, value):
            notes.append(f"{how} optimum {opt:g} != {src} optimum {value:g}")
            if how == "exact":
                agree = False
            opt = math.nan
    if not math.isnan(opt) and not math.isnan(best) and best < opt and not _close(best, opt):
        notes.append(f"verified cost {best:g} is below the claimed optimum {opt:g}")
        opt = math.nan
        if how == "exact":
            agree = False
    return opt, how, agree


def _valid_bound(g: pd.DataFrame, best: float, notes: list) -> tuple[float, str]:
    """The largest run bound no verified cost undercuts; exact ones only without ``notes``."""
    lb_col = "run_lower_bound" if "run_lower_bound" in g else "lower_bound"
    src_col = "run_lower_bound_source" if "run_lower_bound_source" in g else "lower_bound_source"
    lbs = g[[lb_col, src_col, "kind"]].dropna(subset=[lb_col])
    if notes:
        lbs = lbs[lbs["kind"] != "exact"]
    lb, lb_src = 0.0, "none"
    for value, src in zip(lbs[lb_col], lbs[src_col], strict=True):
        value = float(value)
        if not math.isnan(best) and value > best and not _close(value, best):
            notes.append(f"bound {value:g} from {src} exceeds a verified cost {best:g}; ignored")
            continue
        if value > lb:
            lb, lb_src = value, str(src)
    return lb, lb_src


def _finalize_group(g: pd.DataFrame, reference: dict[str, float]) -> dict[str, Any]:
    """Optimum, optimum status, agreement and best bound of one instance's rows."""
    relaxed = _flag(g["relaxed"]) if "relaxed" in g else pd.Series(False, index=g.index)
    # relaxed solutions may violate the true constraint: never an optimum or upper bound
    verified = g[g["verified"].fillna(False).astype(bool) & ~relaxed]
    best = float(verified["cost"].min()) if len(verified) else math.nan
    notes: list[str] = []
    opt, how, agree = _claimed_optimum(g, verified, best, reference, notes)
    lb, lb_src = _valid_bound(g, best, notes)
    if not math.isnan(opt):
        status = "opt"
    elif not notes and not math.isnan(best) and lb > 0 and _close(lb, best):
        opt, how, status = best, f"bound ({lb_src}) meets verified cost", "opt"
    elif not math.isnan(best):
        opt, status = best, "best"
    else:
        status = "unknown"
    if status == "opt":
        lb, lb_src = opt, f"optimum ({how})"
    return {
        "optimum": opt,
        "optimum_status": status,
        "exact_agree": agree,
        "optimum_note": "; ".join(notes) or None,
        "lower_bound": lb,
        "lower_bound_source": lb_src,
        "best_known": opt if status == "opt" else best,
    }


def finalize(
    df: pd.DataFrame, *, reference: dict[str, float] | str | Path | None = None
) -> pd.DataFrame:
    """Fill the per-instance columns of a results frame.

    Per instance id: ``optimum`` is the cost of the verified exact rows with status
    ``optimal`` (when CP-SAT and the ILP differ beyond a relative 1e-6, ``exact_agree`` is
    False, the optimum falls back to ``best`` and ``optimum_note`` says why), a gadget's known
    optimum (``known_optimum``) or the committed reference optimum; ``optimum_status`` is
    ``opt`` for these (and when a valid bound meets a verified cost), ``best`` (the best verified
    cost) without a proof, ``unknown`` without any verified solution. ``lower_bound`` is the
    largest valid bound (nearest-neighbour bound, exact bounds, proven factor bounds, the
    optimum itself when ``opt``) with ``lower_bound_source``. Rows with ``relaxed`` true
    (Theorem 11's bicriteria scheme) never count as an optimum, best cost or upper bound.
    ``ratio = cost / optimum`` only
    when ``optimum_status == "opt"``; ``certified_ratio = cost / lower_bound`` (empty when the
    bound is 0, except cost 0 → 1). A zero optimum gives ratio 1 for cost 0 and inf otherwise.
    ``best_known`` is the optimum when proven, else the least verified cost, and
    ``ratio_at_least = cost / best_known``: every run's true ratio lies in
    ``[ratio_at_least, certified_ratio]``.

    Parameters
    ----------
    df : DataFrame
        Rows from :func:`run_instance` / :func:`sweep` (or :func:`~anonratio.bench.engine.store.
        read_results`).
    reference : dict or path, optional
        ``{instance id: optimum}`` or a reference-optima JSON file (default
        ``results/reference_optima.json`` when it exists).

    Returns
    -------
    DataFrame
        A copy with ``optimum``, ``optimum_status``, ``exact_agree``, ``optimum_note``,
        ``lower_bound``, ``lower_bound_source``, ``best_known``, ``ratio``,
        ``certified_ratio`` and ``ratio_at_least`` filled.
    """
    if not isinstance(reference, dict):
        reference = load_reference_optima(reference)
    out = df.copy()
    for col, default in [("kind", None), ("known_optimum", math.nan), ("status", "error")]:
        if col not in out:
            out[col] = default
    per = {}
    for inst, g in out[out["instance"].notna()].groupby("instance", sort=False):
        per[inst] = _finalize_group(g, reference)
    cols = ["optimum", "optimum_status", "exact_agree", "optimum_note"]
    cols += ["lower_bound", "lower_bound_source", "best_known"]
    for col in cols:
        missing = {"optimum_status": "unknown", "lower_bound": 0.0}.get(col)
        values = [per.get(i, {}).get(col, missing) for i in out["instance"]]
        out[col] = pd.Series(values, index=out.index, dtype=object)
    out["optimum"] = pd.to_numeric(out["optimum"], errors="coerce").astype(float)
    out["lower_bound"] = pd.to_numeric(out["lower_bound"], errors="coerce").astype(float)
    out["best_known"] = pd.to_numeric(out["best_known"], errors="coerce").astype(float)
    out["exact_agree"] = out["exact_agree"].astype("boolean")
    cost = out["cost"].astype(float)
    ok = out["verified"].fillna(False).astype(bool) & cost.notna()
    opt = out["optimum"].where(out["optimum_status"] == "opt")
    lb = out["lower_bound"]
    out["ratio"] = _ratio(cost, opt, ok)
    out["certified_ratio"] = _ratio(cost, lb, ok, zero_den_inf=False)
    out["ratio_at_least"] = _ratio(cost, out["best_known"], ok)
    from anonratio.bench.engine.store import order_columns

    return order_columns(out)


def _ratio(cost: pd.Series, den: pd.Series, ok: pd.Series, zero_den_inf: bool = True) -> pd.Series:
    with np.errstate(divide="ignore", invalid="ignore"):
        r = cost / den
    r = r.where(den > 0, np.nan)
    zero = (den == 0) & ok
    r = r.mask(zero & (cost.abs() <= RTOL), 1.0)
    if zero_den_inf:
        r = r.mask(zero & (cost.abs() > RTOL), np.inf)
    return r.where(ok & den.notna(), np.nan).astype(float)
