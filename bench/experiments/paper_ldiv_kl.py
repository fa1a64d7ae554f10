"""Xiao, Yi and Tao (EDBT 2010), §6.2: TP+ against TDS by the KL-divergence of what each
publishes (Figures 7-8), from a results frame.

:func:`kl_frame` keeps the verified TP+ and TDS (``ldiv-tds``) runs on SAL-like tables that
report a ``kl-divergence`` in their ``utility`` column (the `paper-ldiv` suite asks for it);
:func:`kl_means` averages it per l (SAL-7) or per d (l = 6, over the C(7, d) projections of SAL-d,
as the paper averages); :func:`check_kl_findings` tests the paper's four statements on those
means and :func:`write_kl` draws the two figures.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anonratio.bench.report.plots import algorithm_color, new_figure

__all__ = [
    "kl_frame",
    "kl_means",
    "kl_markdown",
    "check_kl_findings",
    "write_kl",
    "json_cell",
    "KL_ALGORITHMS",
]

#: the algorithms of Figures 7-8
KL_ALGORITHMS = ("tp-plus", "ldiv-tds")
_NAMES = {"tp-plus": "TP+", "ldiv-tds": "TDS"}
#: the fixed parameter of each sweep: Figure 7 varies l on SAL-7, Figure 8 varies d at l = 6
_FIXED = {"l": ("d", 7), "d": ("l", 6)}


def json_cell(text: Any) -> dict[str, Any]:
    """A JSON column's cell as a dict (``{}`` when empty or not JSON)."""
    try:
        return json.loads(text) if isinstance(text, str) else dict(text or {})
    except (TypeError, ValueError):
        return {}


def kl_frame(df: pd.DataFrame) -> pd.DataFrame:
    """The verified TP+ / TDS runs on ``ldiv-sal`` with a KL-divergence, one row each:
    ``algorithm``, ``n``, ``d``, ``l``, ``projection``, ``seed``, ``kl``."""
    needed = {"family", "algorithm", "family_params", "verified", "utility"}
    if not needed <= set(df.columns):
        return pd.DataFrame()
    d = df[(df["family"] == "ldiv-sal") & df["algorithm"].isin(KL_ALGORITHMS)]
    d = d[d["verified"].astype(str).str.lower().isin(["true", "1"])]
    kl = d["utility"].map(lambda u: json_cell(u).get("kl-divergence"))
    d, kl = d[kl.notna()], kl[kl.notna()]
    if d.empty:
        return pd.DataFrame()
    params = d["family_params"].map(json_cell)
    return pd.DataFrame(
        {
            "algorithm": d["algorithm"],
            "n": pd.to_numeric(d["n"]),
            "d": params.map(lambda p: p.get("d")),
            "l": params.map(lambda p: p.get("l")),
            "projection": params.map(lambda p: p.get("projection", 0)),
            "seed": d.get("instance_seed", pd.Series(0, d.index)),
            "kl": kl.astype(float),
        }
    )


def kl_means(frame: pd.DataFrame, x: str) -> pd.DataFrame:
    """Mean KL-divergence per value of ``x`` ("l" or "d", rows) and algorithm (columns) at the
    other's fixed value and the largest n, over the tables (projections, seeds) both algorithms
    ran on; a column ``tables`` counts them, ``attrs["n"]`` is the n."""
    if frame.empty:
        return pd.DataFrame()
    other, value = _FIXED[x]
    sel = frame[(frame[other] == value) & frame[x].notna()]
    if sel.empty:
        return pd.DataFrame()
    sel = sel[sel["n"] == sel["n"].max()]
    key = [x, "projection", "seed"]
    wide = sel.pivot_table(index=key, columns="algorithm", values="kl", aggfunc="first")
    wide = wide.reindex(columns=list(KL_ALGORITHMS)).dropna()
    if wide.empty:
        return pd.DataFrame()
    means = wide.groupby(level=x).mean()
    means["tables"] = wide.groupby(level=x).size()
    means.attrs["n"] = int(sel["n"].iloc[0])
    return means


def kl_markdown(means: pd.DataFrame, x: str) -> str:
    """:func:`kl_means` as a Markdown table."""
    other, value = _FIXED[x]
    head = (
        f"Mean KL-divergence against {x} ({other} = {value}, n = {means.attrs.get('n', 0):,}):\n\n"
    )
    rows = [f"| {x} | tables | TP+ | TDS |", "|---|---|---|---|"]
    for k, row in means.iterrows():
        rows.append(
            f"| {int(k)} | {int(row['tables'])} | {row['tp-plus']:.3f} | {row['ldiv-tds']:.3f} |"
        )
    return head + "\n".join(rows)


def _series(means: pd.DataFrame, algorithm: str, x: str) -> str:
    return ", ".join(f"{x}={int(k)}: {v:.2f}" for k, v in means[algorithm].items())


def check_kl_findings(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The statements of §6.2 (Figures 7-8), each ``{"text", "holds", "detail"}`` (holds None:
    no data): TP+ below TDS at every l and every d, TP+ rising with l, both rising with d."""
    out: list[dict[str, Any]] = []
    for x, figure in (("l", 7), ("d", 8)):
        means = kl_means(frame, x)
        below = f"TP+ has a smaller KL-divergence than TDS at every {x} (Figure {figure})"
        rising = (
            "TP+'s KL-divergence rises with l (Figure 7)"
            if x == "l"
            else "the KL-divergence of TP+ and of TDS rises with d (Figure 8)"
        )
        if len(means) < 2:
            out += [
                {"text": t, "holds": None, "detail": f"no runs over {x}"} for t in (below, rising)
            ]
            continue
        ratio = means["tp-plus"] / means["ldiv-tds"].replace(0, np.nan)
        other, value = _FIXED[x]
        where = f"{other} = {value}, n = {means.attrs['n']:,}; mean over the tables of each {x}"
        out.append(
            {
                "text": below,
                "holds": bool((means["tp-plus"] < means["ldiv-tds"]).all()),
                "detail": f"TP+ / TDS of the mean KL-divergence ({where}): "
                + ", ".join(f"{x}={int(k)}: {v:.2f}" for k, v in ratio.items()),
            }
        )
        algs = ("tp-plus",) if x == "l" else KL_ALGORITHMS
        holds = all(bool(means[a].is_monotonic_increasing) for a in algs)
        detail = "; ".join(f"{_NAMES[a]}: {_series(means, a, x)}" for a in algs)
        out.append({"text": rising, "holds": holds, "detail": detail})
    return out


def write_kl(frame: pd.DataFrame, out_dir: Path) -> list[Path]:
    """``ldiv_kl_vs_l.png`` (Figure 7) and ``ldiv_kl_vs_d.png`` (Figure 8) where the runs allow;
    the paths written."""
    written = []
    for x in ("l", "d"):
        means = kl_means(frame, x)
        if len(means) < 2:
            continue
        other, value = _FIXED[x]
        fig = new_figure(7.0, 4.2)
        ax = fig.subplots()
        for alg in KL_ALGORITHMS:
            ax.plot(
                means.index,
                means[alg].to_numpy(),
                marker="o",
                color=algorithm_color(alg),
                label=_NAMES[alg],
            )
        ax.set_xlabel(x)
        ax.set_ylabel("KL-divergence (nats, mean over the tables)")
        table = "SAL-7" if x == "l" else "SAL-d (all projections)"
        ax.set_title(
            f"{table}, {other} = {value}, n = {means.attrs['n']:,}: KL-divergence vs {x}",
            fontsize=10,
        )
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        path = Path(out_dir) / f"ldiv_kl_vs_{x}.png"
        fig.savefig(path, dpi=110, bbox_inches="tight")
        written.append(path)
    return written
