"""The experiments of Xiao, Yi and Tao (EDBT 2010, §6.1) from a results frame: figures and the
paper's findings tested on the data.

:func:`ldiv_frame` keeps the TP, TP+ and Hilbert runs on SAL-like (``ldiv-sal``) and Adult
(``ldiv-adult``) tables with their ``d``, ``l``, ``n``, stars and TP's phase;
:func:`check_findings` tests the paper's statements; :func:`write_ldiv` draws stars against l
(d = 7), stars against d (l = 6) and runtime against n, and writes ``ldiv_findings.json`` /
``.md``; :func:`report_findings` is the report's hook
(:mod:`anonratio.bench.report.findings`), which calls them when such runs are present.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anonratio.bench.report.findings import Findings
from anonratio.bench.report.plots import algorithm_color, new_figure
from anonratio.instances.io import atomic_write

__all__ = [
    "ldiv_frame",
    "check_findings",
    "write_ldiv",
    "findings_markdown",
    "report_findings",
    "ALGORITHMS",
]

#: the algorithms of the paper's Figures 2-4
ALGORITHMS = ("tp", "tp-plus", "hilbert")
_FAMILIES = ("ldiv-sal", "ldiv-adult")


def _json(text: Any) -> dict[str, Any]:
    try:
        return json.loads(text) if isinstance(text, str) else dict(text or {})
    except (TypeError, ValueError):
        return {}


def ldiv_frame(df: pd.DataFrame) -> pd.DataFrame:
    """The verified TP / TP+ / Hilbert runs on SAL-like or Adult tables, one row each."""
    needed = {"family", "algorithm", "family_params", "verified", "stars"}
    if not needed <= set(df.columns):
        return pd.DataFrame()
    d = df[df["family"].isin(_FAMILIES) & df["algorithm"].isin(ALGORITHMS)]
    d = d[d["verified"].astype(str).str.lower().isin(["true", "1"])]
    if d.empty:
        return pd.DataFrame()
    params = d["family_params"].map(_json)
    info = d["info"].map(_json) if "info" in d.columns else pd.Series([{}] * len(d), d.index)
    return pd.DataFrame(
        {
            "family": d["family"],
            "algorithm": d["algorithm"],
            "seed": d.get("instance_seed", pd.Series(0, d.index)),
            "n": pd.to_numeric(d["n"]),
            "d": params.map(lambda p: p.get("d")),
            "l": params.map(lambda p: p.get("l")),
            "stars": pd.to_numeric(d["stars"]),
            "phase": info.map(lambda i: i.get("phase")),
            "time_s": pd.to_numeric(d["time_s"]),
        }
    )


def _paired(frame: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    """Stars of ``a`` and ``b`` on the same instances (family, n, d, l, seed)."""
    key = ["family", "n", "d", "l", "seed"]
    left = frame[frame["algorithm"] == a].set_index(key)["stars"]
    right = frame[frame["algorithm"] == b].set_index(key)["stars"]
    both = pd.concat([left.rename(a), right.rename(b)], axis=1).dropna()
    return both.reset_index()


def _exponent(frame: pd.DataFrame, algorithm: str) -> float | None:
    t = frame[(frame["algorithm"] == algorithm) & (frame["n"] >= 50_000)]
    t = t.groupby("n")["time_s"].median()
    if len(t) < 3:
        return None
    return float(np.polyfit(np.log(t.index.to_numpy(float)), np.log(t.to_numpy(float)), 1)[0])


def check_findings(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The paper's findings (§6.1), each ``{"text", "holds", "detail"}`` (holds None: no data)."""
    out: list[dict[str, Any]] = []

    def add(text: str, holds: bool | None, detail: str) -> None:
        out.append({"text": text, "holds": holds, "detail": detail})

    for other in ("tp", "hilbert"):
        p = _paired(frame, "tp-plus", other)
        if p.empty:
            add(f"TP+ needs no more stars than {other}", None, "no paired runs")
            continue
        share = float((p["tp-plus"] <= p[other]).mean())
        gain = float(np.median(1 - p["tp-plus"] / p[other].replace(0, np.nan)))
        add(
            f"TP+ needs no more stars than {'TP' if other == 'tp' else 'Hilbert'}",
            share == 1.0,
            f"TP+ <= {other} on {share:.0%} of {len(p)} runs; median saving {gain:.1%}",
        )
    p = _paired(frame[frame["d"].notna()], "tp", "hilbert")
    if not p.empty and p["d"].nunique() > 1:
        by_d = (p["tp"] / p["hilbert"].replace(0, np.nan)).groupby(p["d"]).median()
        small, large = by_d.iloc[0], by_d.iloc[-1]
        add(
            "TP beats Hilbert for small d and loses for large d",
            bool(small < 1 < large),
            "median TP / Hilbert stars per d: "
            + ", ".join(f"d={int(k)}: {v:.2f}" for k, v in by_d.items()),
        )
    else:
        add("TP beats Hilbert for small d and loses for large d", None, "no runs over d")
    tp = frame[frame["algorithm"] == "tp"]
    if not tp.empty:
        share = float((tp["phase"] == 3).mean())
        add(
            "TP rarely needs phase 3",
            share <= 0.1,
            f"phase 3 in {share:.1%} of {len(tp)} TP runs "
            f"(phase 1: {(tp['phase'] == 1).mean():.0%}, phase 2: {(tp['phase'] == 2).mean():.0%})",
        )
    b = _exponent(frame, "tp")
    add(
        "TP scales linearly in n",
        None if b is None else b <= 1.3,
        "no runs at n >= 50,000" if b is None else f"fitted exponent of TP's time: {b:.2f}",
    )
    return out


def findings_markdown(findings: list[dict[str, Any]]) -> str:
    """The findings as a Markdown list (reproduced / not reproduced / no data)."""
    word = {True: "reproduced", False: "not reproduced", None: "no data"}
    return "\n".join(f"- {f['text']}: **{word[f['holds']]}** ({f['detail']})" for f in findings)


def _line_plot(frame: pd.DataFrame, x: str, fixed: dict[str, Any], path: Path, title: str) -> bool:
    sel = frame[(frame["family"] == "ldiv-sal")]
    for key, value in fixed.items():
        sel = sel[sel[key] == value]
    if sel.empty or sel[x].nunique() < 2:
        return False
    fig = new_figure(7.0, 4.2)
    ax = fig.subplots()
    for alg in ALGORITHMS:
        s = sel[sel["algorithm"] == alg].groupby(x)["stars"].mean()
        if not s.empty:
            ax.plot(s.index, s.to_numpy(), marker="o", color=algorithm_color(alg), label=alg)
    ax.set_xlabel(x)
    ax.set_ylabel("stars (mean over seeds)")
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    return True


def write_ldiv(frame: pd.DataFrame, findings: list[dict[str, Any]], out_dir: Path) -> list[Path]:
    """Figures and findings files of :func:`ldiv_frame`'s runs; the paths written."""
    out_dir = Path(out_dir)
    written: list[Path] = []
    n = int(frame["n"].mode().iloc[0]) if not frame.empty else 0
    for x, fixed, name, title in (
        ("l", {"d": 7, "n": n}, "ldiv_stars_vs_l.png", f"SAL-like, d = 7, n = {n}: stars vs l"),
        ("d", {"l": 6, "n": n}, "ldiv_stars_vs_d.png", f"SAL-like, l = 6, n = {n}: stars vs d"),
    ):
        if _line_plot(frame, x, fixed, out_dir / name, title):
            written.append(out_dir / name)
    big = frame[(frame["n"] >= 50_000) & (frame["family"] == "ldiv-sal")]
    if big["n"].nunique() >= 2:
        fig = new_figure(7.0, 4.2)
        ax = fig.subplots()
        for alg in ALGORITHMS:
            t = big[big["algorithm"] == alg].groupby("n")["time_s"].median()
            if not t.empty:
                ax.loglog(t.index, t.to_numpy(), marker="o", color=algorithm_color(alg), label=alg)
        ax.set_xlabel("n (records)")
        ax.set_ylabel("median wall time (s)")
        ax.set_title("SAL-like, d = 7, l = 6: runtime vs n", fontsize=10)
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=8)
        fig.savefig(out_dir / "ldiv_runtime.png", dpi=110, bbox_inches="tight")
        written.append(out_dir / "ldiv_runtime.png")
    js, md = out_dir / "ldiv_findings.json", out_dir / "ldiv_findings.md"
    atomic_write(js, lambda fh: json.dump(findings, fh, indent=1), mode="w", encoding="utf-8")
    text = "# Findings of Xiao et al. (2010), §6.1\n\n" + findings_markdown(findings) + "\n"
    atomic_write(md, lambda fh: fh.write(text), mode="w", encoding="utf-8")
    return [*written, js, md]


def report_findings(df: pd.DataFrame, out_dir: Path) -> Findings | None:
    """The l-diversity experiments' part of a report (:mod:`anonratio.bench.report.findings`):
    figures and findings of §6.1, or None when ``df`` has none of their runs."""
    frame = ldiv_frame(df)
    if frame.empty:
        return None
    found = check_findings(frame)
    word = {True: "reproduced", False: "NOT REPRODUCED", None: "no data"}
    return Findings(
        key="ldiv_findings",
        title="Findings: the experiments of Xiao et al. (2010), §6.1",
        verdicts=[(f"{f['text']} ({f['detail']})", bool(f["holds"])) for f in found],
        summary_title="Xiao et al. (2010), §6.1, the paper's findings:",
        summary_lines=[f"{f['text']}: {word[f['holds']]} ({f['detail']})" for f in found],
        markdown=findings_markdown(found),
        files=write_ldiv(frame, found, out_dir),
        data=found,
    )
