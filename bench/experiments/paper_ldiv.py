"""The experiments of Xiao, Yi and Tao (EDBT 2010, §6.1) from a results frame: figures and the
paper's findings tested on the data.

:func:`ldiv_frame` keeps the TP, TP+ and Hilbert runs on SAL-like (``ldiv-sal``) and Adult
(``ldiv-adult``) tables with their ``d``, ``l``, ``n``, SAL ``projection``, stars and TP's
phase; :func:`check_findings` tests the paper's statements; :func:`write_ldiv` draws stars
against l (d = 7), stars against d (l = 6) and runtime against n (d = 7, l = 6), and writes
``ldiv_findings.json`` / ``.md``; :func:`report_findings` is the report's hook
(:mod:`anonratio.bench.report.findings`), which calls them when such runs are present.

As in the paper, SAL-d is every projection of the table onto d of its 7 attributes: stars per
d are means over the projections (and seeds) present, :func:`per_d_means`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anonratio.bench.experiments.paper_ldiv_kl import (
    check_kl_findings,
    json_cell,
    kl_frame,
    kl_markdown,
    kl_means,
    write_kl,
)
from anonratio.bench.report.findings import Findings
from anonratio.bench.report.plots import algorithm_color, new_figure
from anonratio.instances.io import atomic_write

__all__ = [
    "ldiv_frame",
    "check_findings",
    "write_ldiv",
    "findings_markdown",
    "means_markdown",
    "per_d_means",
    "report_findings",
    "time_findings",
    "ALGORITHMS",
]

#: the algorithms of the paper's Figures 2-4
ALGORITHMS = ("tp", "tp-plus", "hilbert")
_FAMILIES = ("ldiv-sal", "ldiv-adult")


def ldiv_frame(df: pd.DataFrame) -> pd.DataFrame:
    """The verified TP / TP+ / Hilbert runs on SAL-like or Adult tables, one row each; ``time_s``
    is the run's CPU time where the results record it (``clock``: ``CPU``), else its wall time."""
    needed = {"family", "algorithm", "family_params", "verified", "stars"}
    if not needed <= set(df.columns):
        return pd.DataFrame()
    d = df[df["family"].isin(_FAMILIES) & df["algorithm"].isin(ALGORITHMS)]
    d = d[d["verified"].astype(str).str.lower().isin(["true", "1"])]
    if d.empty:
        return pd.DataFrame()
    params = d["family_params"].map(json_cell)
    info = d["info"].map(json_cell) if "info" in d.columns else pd.Series([{}] * len(d), d.index)
    # a run's CPU seconds where the results have them (a loaded machine inflates wall times)
    cpu = pd.to_numeric(d["cpu_s"]) if "cpu_s" in d.columns else pd.Series(np.nan, d.index)
    return pd.DataFrame(
        {
            "family": d["family"],
            "algorithm": d["algorithm"],
            "seed": d.get("instance_seed", pd.Series(0, d.index)),
            "n": pd.to_numeric(d["n"]),
            "d": params.map(lambda p: p.get("d")),
            "l": params.map(lambda p: p.get("l")),
            "projection": params.map(lambda p: p.get("projection", 0)),
            "stars": pd.to_numeric(d["stars"]),
            "phase": info.map(lambda i: i.get("phase")),
            "time_s": cpu.fillna(pd.to_numeric(d["time_s"])),
            "clock": np.where(cpu.notna(), "CPU", "wall"),
        }
    )


def _clock(frame: pd.DataFrame) -> str:
    """What the frame's ``time_s`` measures: ``CPU``, ``wall``, or ``CPU or wall`` (mixed)."""
    clocks = set(frame["clock"]) if "clock" in frame.columns else {"wall"}
    return clocks.pop() if len(clocks) == 1 else "CPU or wall"


def _paired(frame: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    """Stars of ``a`` and ``b`` on the same instances (family, n, d, l, projection, seed)."""
    key = ["family", "n", "d", "l", "projection", "seed"]
    left = frame[frame["algorithm"] == a].set_index(key)["stars"]
    right = frame[frame["algorithm"] == b].set_index(key)["stars"]
    both = pd.concat([left.rename(a), right.rename(b)], axis=1).dropna()
    return both.reset_index()


def per_d_means(frame: pd.DataFrame, l: int = 6) -> pd.DataFrame:
    """Mean stars per d (rows) and algorithm (columns) on the SAL-like tables with ``l``, as the
    paper averages SAL-d over its projections: at the largest n with runs over several d, over
    the instances (projections and seeds) every algorithm ran on; a column ``tables`` counts
    them."""
    sal = frame[(frame["family"] == "ldiv-sal") & (frame["l"] == l) & frame["d"].notna()]
    if sal.empty:
        return pd.DataFrame()
    spread = sal.groupby("n")["d"].nunique()
    sal = sal[sal["n"] == spread[spread == spread.max()].index.max()]
    key = ["d", "projection", "seed"]
    wide = sal.pivot_table(index=key, columns="algorithm", values="stars", aggfunc="first")
    wide = wide.dropna()
    if wide.empty:
        return pd.DataFrame()
    means = wide.groupby(level="d").mean()
    means["tables"] = wide.groupby(level="d").size()
    means.attrs["n"] = int(sal["n"].iloc[0])
    return means


def _exponent(frame: pd.DataFrame, algorithm: str) -> float | None:
    t = frame[(frame["algorithm"] == algorithm) & (frame["n"] >= 50_000)]
    t = t[(t["family"] == "ldiv-sal") & (t["d"] == 7) & (t["l"] == 6)]
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
        # a run where the other needs no star has no relative saving: left out of the median
        saving = (1 - p["tp-plus"] / p[other].replace(0, np.nan)).dropna()
        gain = float(saving.median()) if len(saving) else 0.0
        add(
            f"TP+ needs no more stars than {'TP' if other == 'tp' else 'Hilbert'}",
            share == 1.0,
            f"TP+ <= {other} on {share:.0%} of {len(p)} runs; median saving {gain:.1%}",
        )
    means = per_d_means(frame)
    if len(means) > 1 and {"tp", "hilbert"} <= set(means.columns):
        by_d = means["tp"] / means["hilbert"].replace(0, np.nan)
        small, large = by_d.iloc[0], by_d.iloc[-1]
        add(
            "TP beats Hilbert for small d and loses for large d",
            bool(small < 1 < large),
            f"TP / Hilbert of the mean stars over the SAL-d tables (l = 6, n = "
            f"{means.attrs['n']:,}): "
            + ", ".join(
                f"d={int(k)}: {v:.2f} ({int(means['tables'][k])})" for k, v in by_d.items()
            ),
        )
    else:
        add("TP beats Hilbert for small d and loses for large d", None, "no runs over d")
    if len(means) > 0 and set(ALGORITHMS) <= set(means.columns):
        best = means["tp-plus"] <= means[["tp", "hilbert"]].min(axis=1)
        add(
            "TP+ needs fewer stars than TP and Hilbert on average over SAL-d, for every d",
            bool(best.all()),
            "mean stars TP+ / min(TP, Hilbert) per d: "
            + ", ".join(
                f"d={int(k)}: {v:.2f}"
                for k, v in (means["tp-plus"] / means[["tp", "hilbert"]].min(axis=1)).items()
            ),
        )
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
        "no runs at n >= 50,000"
        if b is None
        else f"fitted exponent of TP's {_clock(frame)} time: {b:.2f}",
    )
    return out + time_findings(frame)


def _mean_times(frame: pd.DataFrame, algorithm: str, x: str) -> pd.Series:
    """Mean time of ``algorithm`` per value of ``x`` on the SAL-like tables of the largest n, at
    d = 7 (``x = "l"``) or l = 6 (``x = "d"``), over projections and seeds."""
    sal = frame[(frame["family"] == "ldiv-sal") & (frame["algorithm"] == algorithm)]
    if sal.empty:
        return pd.Series(dtype=float)
    sal = sal[
        (sal["n"] == sal["n"].max()) & (sal["d" if x == "l" else "l"] == (7 if x == "l" else 6))
    ]
    return sal.groupby(x)["time_s"].mean()


def _direction(times: pd.Series) -> float:
    """Spearman's rank correlation of the times with their x (0 for fewer than 3 points)."""
    if len(times) < 3:
        return 0.0
    x, y = pd.Series(times.index.to_numpy(float)).rank(), pd.Series(times.to_numpy()).rank()
    return float(np.corrcoef(x, y)[0, 1])


def _trend_detail(name: str, times: pd.Series, x: str, clock: str) -> str:
    return (
        f"{name}'s mean {clock} time {times.iloc[0]:.2f} s at {x} = {times.index[0]:g}, "
        f"{times.iloc[-1]:.2f} s at {x} = {times.index[-1]:g}, rank correlation "
        f"{_direction(times):+.2f}"
    )


def time_findings(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The paper's statements on time (Figures 4-6 and the summary of §6.1), from wall times:
    a time *rises* (*falls*) with x when its mean at the largest x is above (below) the one at
    the smallest and the rank correlation is positive (negative); it *does not depend* on d
    when its largest mean over d is within 1.5 times its smallest."""
    out: list[dict[str, Any]] = []
    names = {"tp": "TP", "tp-plus": "TP+", "hilbert": "Hilbert"}
    for alg, x, sign, text in (
        ("hilbert", "l", -1, "Hilbert's time falls as l grows (Figure 4)"),
        ("tp", "l", 1, "TP's time rises with l (Figure 4)"),
        ("tp-plus", "l", 1, "TP+'s time rises with l (Figure 4)"),
        ("tp", "d", 1, "TP's time rises with d (Figure 5)"),
        ("tp-plus", "d", 1, "TP+'s time rises with d (Figure 5)"),
    ):
        t = _mean_times(frame, alg, x)
        if len(t) < 3:
            out.append({"text": text, "holds": None, "detail": f"no runs over {x}"})
            continue
        holds = sign * (t.iloc[-1] - t.iloc[0]) > 0 and sign * _direction(t) > 0
        detail = _trend_detail(names[alg], t, x, _clock(frame))
        out.append({"text": text, "holds": bool(holds), "detail": detail})
    t = _mean_times(frame, "hilbert", "d")
    text = "Hilbert's time does not depend on d (Figure 5)"
    if len(t) < 3:
        out.append({"text": text, "holds": None, "detail": "no runs over d"})
    else:
        spread = float(t.max() / t.min())
        trend = _trend_detail("Hilbert", t, "d", _clock(frame))
        detail = f"largest / smallest mean time over d: {spread:.2f} ({trend})"
        out.append({"text": text, "holds": spread <= 1.5, "detail": detail})
    b = _exponent(frame, "hilbert")
    out.append(
        {
            "text": "Hilbert's time grows almost linearly in n (Figure 6)",
            "holds": None if b is None else b <= 1.3,
            "detail": "no runs at n >= 50,000"
            if b is None
            else f"fitted exponent of Hilbert's {_clock(frame)} time: {b:.2f}",
        }
    )
    big = frame[(frame["family"] == "ldiv-sal") & (frame["n"] == frame["n"].max())]
    mean = big.groupby("algorithm")["time_s"].mean()
    text = "Hilbert is faster than TP and TP+ (summary of §6.1)"
    if not {"tp", "tp-plus", "hilbert"} <= set(mean.index):
        out.append({"text": text, "holds": None, "detail": "no runs of all three"})
    else:
        detail = ", ".join(f"{names[a]} {mean[a]:.2f} s" for a in ("tp", "tp-plus", "hilbert"))
        holds = mean["hilbert"] < min(mean["tp"], mean["tp-plus"])
        out.append(
            {
                "text": text,
                "holds": bool(holds),
                "detail": f"mean {_clock(frame)} time of the runs at n = {int(big['n'].max()):,}: "
                f"{detail}",
            }
        )
    return out


def findings_markdown(findings: list[dict[str, Any]]) -> str:
    """The findings as a Markdown list (reproduced / not reproduced / no data)."""
    word = {True: "reproduced", False: "not reproduced", None: "no data"}
    return "\n".join(f"- {f['text']}: **{word[f['holds']]}** ({f['detail']})" for f in findings)


def means_markdown(means: pd.DataFrame) -> str:
    """:func:`per_d_means` as a Markdown table (mean stars per d and algorithm)."""
    algs = [a for a in ALGORITHMS if a in means.columns]
    head = f"Mean stars over the SAL-d tables (l = 6, n = {means.attrs.get('n', 0):,}):\n\n"
    rows = ["| d | tables | " + " | ".join(algs) + " |", "|---" * (len(algs) + 2) + "|"]
    for d, row in means.iterrows():
        cells = " | ".join(f"{row[a]:,.0f}" for a in algs)
        rows.append(f"| {int(d)} | {int(row['tables'])} | {cells} |")
    return head + "\n".join(rows)


def _line_plot(
    frame: pd.DataFrame,
    x: str,
    fixed: dict[str, Any],
    path: Path,
    title: str,
    value: str = "stars",
    algorithms: tuple[str, ...] = ALGORITHMS,
) -> bool:
    """Mean ``value`` (a column) against ``x`` at the ``fixed`` values (means over projections
    and seeds), one line per algorithm; False (nothing drawn) without two values of ``x``."""
    sel = frame[(frame["family"] == "ldiv-sal")]
    for key, fixed_value in fixed.items():
        sel = sel[sel[key] == fixed_value]
    if sel.empty or sel[x].nunique() < 2:
        return False
    fig = new_figure(7.0, 4.2)
    ax = fig.subplots()
    for alg in algorithms:
        s = sel[sel["algorithm"] == alg].groupby(x)[value].mean()
        if not s.empty:
            ax.plot(s.index, s.to_numpy(), marker="o", color=algorithm_color(alg), label=alg)
    ax.set_xlabel(x)
    label = f"{_clock(frame)} time (s)" if value == "time_s" else _Y_LABELS.get(value, value)
    ax.set_ylabel(f"{label} (mean over projections and seeds)")
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    return True


#: the y axis of each plotted column
_Y_LABELS = {"stars": "stars", "kl": "KL-divergence (nats)"}


def _figures(frame: pd.DataFrame, out_dir: Path) -> list[Path]:
    """Stars and time against l and d (Figures 2-5) and runtime against n (Figure 6)."""
    if frame.empty:
        return []
    written: list[Path] = []
    n = int(frame["n"].mode().iloc[0])
    for value, what in (("stars", "stars"), ("time_s", "time")):
        for x, fixed, where in (
            ("l", {"d": 7, "n": n}, f"SAL-like, d = 7, n = {n:,}"),
            ("d", {"l": 6, "n": n}, f"SAL-d, l = 6, n = {n:,}"),
        ):
            name = f"ldiv_{what}_vs_{x}.png"
            if _line_plot(frame, x, fixed, out_dir / name, f"{where}: {what} vs {x}", value):
                written.append(out_dir / name)
    big = frame[(frame["n"] >= 50_000) & (frame["family"] == "ldiv-sal")]
    big = big[(big["d"] == 7) & (big["l"] == 6)]
    if big["n"].nunique() >= 2:
        fig = new_figure(7.0, 4.2)
        ax = fig.subplots()
        for alg in ALGORITHMS:
            t = big[big["algorithm"] == alg].groupby("n")["time_s"].median()
            if not t.empty:
                ax.loglog(t.index, t.to_numpy(), marker="o", color=algorithm_color(alg), label=alg)
        ax.set_xlabel("n (records)")
        ax.set_ylabel(f"median {_clock(frame)} time (s)")
        ax.set_title("SAL-like, d = 7, l = 6: runtime vs n", fontsize=10)
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=8)
        fig.savefig(out_dir / "ldiv_runtime.png", dpi=110, bbox_inches="tight")
        written.append(out_dir / "ldiv_runtime.png")
    return written


def write_ldiv(
    frame: pd.DataFrame,
    findings: list[dict[str, Any]],
    out_dir: Path,
    kl: pd.DataFrame | None = None,
) -> list[Path]:
    """Figures and findings files of :func:`ldiv_frame`'s runs and of ``kl``
    (:func:`~anonratio.bench.experiments.paper_ldiv_kl.kl_frame`); the paths written."""
    out_dir = Path(out_dir)
    written: list[Path] = write_kl(kl, out_dir) if kl is not None else []
    written += _figures(frame, out_dir)
    js, md = out_dir / "ldiv_findings.json", out_dir / "ldiv_findings.md"
    atomic_write(js, lambda fh: json.dump(findings, fh, indent=1), mode="w", encoding="utf-8")
    text = "# Findings of Xiao et al. (2010), §6\n\n" + findings_markdown(findings) + "\n"
    means = per_d_means(frame) if not frame.empty else pd.DataFrame()
    if not means.empty:
        text += "\n" + means_markdown(means) + "\n"
    for x in ("l", "d"):
        kl_table = kl_means(kl, x) if kl is not None else pd.DataFrame()
        if not kl_table.empty:
            text += "\n" + kl_markdown(kl_table, x) + "\n"
    atomic_write(md, lambda fh: fh.write(text), mode="w", encoding="utf-8")
    return [*written, js, md]


def report_findings(df: pd.DataFrame, out_dir: Path) -> Findings | None:
    """The l-diversity experiments' part of a report (:mod:`anonratio.bench.report.findings`):
    figures and findings of §6 (the KL-divergence ones of §6.2 from the runs that report it),
    or None when ``df`` has none of their runs."""
    frame = ldiv_frame(df)
    kl = kl_frame(df)
    if frame.empty and kl.empty:
        return None
    found = (check_findings(frame) if not frame.empty else []) + check_kl_findings(kl)
    word = {True: "reproduced", False: "NOT REPRODUCED", None: "no data"}
    return Findings(
        key="ldiv_findings",
        title="Findings: the experiments of Xiao et al. (2010), §6",
        verdicts=[(f"{f['text']} ({f['detail']})", bool(f["holds"])) for f in found],
        summary_title="Xiao et al. (2010), §6, the paper's findings:",
        summary_lines=[f"{f['text']}: {word[f['holds']]} ({f['detail']})" for f in found],
        markdown=findings_markdown(found),
        files=write_ldiv(frame, found, out_dir, kl),
        data=found,
    )
