"""Plots and the observation summary of :mod:`anonratio.bench.experiments.fig7` (Figure 7, Du et al.
2009).

Matplotlib's object-oriented API on an Agg canvas: importing or calling this never changes the
global backend.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from anonratio.bench.experiments.fig7 import (
    PAPER_CURVES,
    WORST_CASE,
    check_observations,
    fig7_frame,
    proven_bound,
    subrange_max,
)
from anonratio.bench.report.findings import Findings
from anonratio.bench.report.plots import algorithm_color, new_figure
from anonratio.instances.io import atomic_write

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "plot_fig7",
    "write_fig7",
    "observations_markdown",
    "observation_verdicts",
    "proven_bound",
    "report_findings",
]

#: registry name -> (line style, label); colours are the registry's (one per algorithm everywhere)
STYLE = {
    "fold-random": ("-", "Random Fold"),
    "fold-sorted": ("--", "Sorted Fold"),
    "simplified-spread-random": ("-", "Random Spread (simplified, §5)"),
    "simplified-spread-sorted": ("--", "Sorted Spread (simplified, §5)"),
    "spread-random": ("-", "Random Spread (Theorem 10)"),
    "spread-sorted": ("--", "Sorted Spread (Theorem 10)"),
}


def _style(algo, i):
    ls, label = STYLE.get(algo, ("-", algo))
    return algorithm_color(algo), ls, label


def _figure(width, height):
    return new_figure(width, height)


def _log_k_axis(ax, g):
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter, NullLocator

    ax.set_xscale("log")
    ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 3.0, 5.0)))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(FuncFormatter(lambda v, _: ""))
    lo, hi = float(g["k"].min()), float(g["k"].max())
    ax.set_xlim(lo / 1.03, hi * 1.03)
    # top axis: the class counts floor(S/k) = c at their thresholds S/c
    total = int(g["total"].iloc[0])
    cs = [c for c in (2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 40, 60, 80) if lo <= total / c <= hi]
    top = ax.secondary_xaxis("top")
    top.set_xticks([total / c for c in cs], [str(c) for c in cs])
    top.xaxis.set_minor_locator(NullLocator())
    top.xaxis.set_minor_formatter(NullFormatter())
    top.set_xlabel("floor(S/k): most classes possible", fontsize=8)
    top.tick_params(labelsize=8)
    ax.set_xlabel("k")


def _curves(ax, g, algorithms, column, sub, *, raw_alpha=0.35):
    for i, algo in enumerate(algorithms):
        a = g[g["algorithm"] == algo]
        if a.empty:
            continue
        color, ls, label = _style(algo, i)
        if raw_alpha:
            ax.plot(a["k"], a[column], ls=ls, color=color, lw=0.7, alpha=raw_alpha)
        s = sub[sub["algorithm"] == algo].sort_values("k_mid")
        ax.plot(s["k_mid"], s["max"], ls=ls, marker="o", ms=3.5, color=color, lw=1.6, label=label)


def _overfull_figure(frame, out_dir):
    datasets = list(dict.fromkeys(frame["dataset"]))
    algorithms = [a for a in PAPER_CURVES if a in set(frame["algorithm"])]
    sub = subrange_max(frame, "overfull_ratio")
    fig = _figure(11, 3.6 * len(datasets) + 0.6)
    axes = np.atleast_1d(fig.subplots(len(datasets), 1, squeeze=False)[:, 0])
    for ax, ds in zip(axes, datasets, strict=True):
        g = frame[frame["dataset"] == ds]
        _curves(ax, g, algorithms, "overfull_ratio", sub[sub["dataset"] == ds])
        for bound in sorted({proven_bound(a) for a in algorithms}):
            who = "Fold and simplified Spread" if bound == WORST_CASE["fold"] else "Spread"
            ax.axhline(bound, color="0.4", ls=":", lw=1)
            ax.text(
                g["k"].min(), bound, f" proven worst case of {who}: {bound:g}", va="top", fontsize=8
            )
        ax.axhline(1.0, color="0.6", lw=0.8)
        ax.set_ylim(0.95, 3.15)
        ax.set_ylabel("overfull ratio = largest class / k")
        ax.set_title(f"{ds}: {g['k'].nunique()} values of k", fontsize=10)
        ax.grid(True, which="major", alpha=0.3)
        _log_k_axis(ax, g)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=4, fontsize=9)
    fig.suptitle(
        "Figure 7 (Du et al. 2009, §5): overfull ratios on the 1990 Census name lists — "
        "thin: every k; markers: maximum per subrange of k",
        fontsize=11,
    )
    path = Path(out_dir) / "fig7_overfull.png"
    atomic_write(path, lambda fh: fig.savefig(fh, format="png"))
    return path


def _certified_figure(frame, out_dir):
    datasets = list(dict.fromkeys(frame["dataset"]))
    present = set(frame["algorithm"])
    algorithms = [a for a in STYLE if a in present] + sorted(present - set(STYLE), key=str)
    sub_over = subrange_max(frame, "overfull_ratio")
    sub_cert = subrange_max(frame, "certified_ratio")
    fig = _figure(14, 3.4 * len(datasets) + 0.8)
    axes = fig.subplots(len(datasets), 2, squeeze=False)
    for row, ds in zip(axes, datasets, strict=True):
        g = frame[frame["dataset"] == ds]
        left, right = row
        _curves(
            left, g, algorithms, "overfull_ratio", sub_over[sub_over["dataset"] == ds], raw_alpha=0
        )
        lb = g.drop_duplicates("k").sort_values("k")
        left.plot(
            lb["k"], lb["lb_ratio"], color="k", lw=1.2, label="lower bound / k (any solution)"
        )
        left.set_ylabel("overfull ratio (max per subrange)")
        left.set_title(f"{ds}: overfull ratio vs the lower bound / k", fontsize=10)
        _curves(right, g, algorithms, "certified_ratio", sub_cert[sub_cert["dataset"] == ds])
        right.set_ylabel("certified ratio = cost / lower bound")
        right.set_title(f"{ds}: certified ratio (an upper bound on cost / OPT)", fontsize=10)
        for ax in row:
            ax.axhline(1.0, color="0.6", lw=0.8)
            ax.set_ylim(0.95, 2.1)
            ax.grid(True, which="major", alpha=0.3)
            _log_k_axis(ax, g)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=4, fontsize=9)
    fig.suptitle(
        "Figure 7 against the lower bound max(k, max x, ceil(S / floor(S/k))): left, maximum "
        "overfull ratio per subrange and the bound's own ratio; right, cost / bound",
        fontsize=11,
    )
    path = Path(out_dir) / "fig7_certified.png"
    atomic_write(path, lambda fh: fig.savefig(fh, format="png"))
    return path


def _fmt(x):
    return "n/a" if x is None else f"{x:.3g}"


def observations_markdown(obs: dict) -> str:
    """The four observations of §5 with the measured numbers, as Markdown."""
    yes = {True: "**holds**", False: "**does not hold**"}
    a, b, c, d = (
        obs["spread_beats_fold"],
        obs["random_beats_sorted"],
        obs["threshold_jumps"],
        obs["better_than_worst_case"],
    )
    lines = ["# Figure 7: the paper's observations, tested", ""]
    lines.append(
        f"(a) *Spread is superior to Fold, for random and sorted data*: {yes[a['holds']]}."
    )
    for order, per in a["numbers"].items():
        parts = [
            f"{ds} median {v['median_spread']} vs {v['median_fold']}, max {v['max_spread']} vs "
            f"{v['max_fold']}, Spread better at {v['frac_k_spread_better']:.0%} of k"
            for ds, v in per.items()
        ]
        lines.append(f"  - {order} order (simplified Spread vs Fold): " + "; ".join(parts) + ".")
    t10 = obs.get("theorem10_spread_beats_fold")
    if t10 is not None:
        lines.append(f"  - Theorem 10's full Spread vs Fold: {yes[t10['holds']]} by the same test.")
    lines.append("")
    lines.append(f"(b) *A random order is often superior to a sorted one*: {yes[b['holds']]}.")
    for method, v in b["numbers"].items():
        lines.append(
            f"  - {method} ({'holds' if v['holds'] else 'does not hold'}): random better at "
            f"{v['frac_k_random_better']:.0%} of the k, sorted "
            f"better at {v['frac_k_sorted_better']:.0%} (median {v['median_random']} random vs "
            f"{v['median_sorted']} sorted)."
        )
    lines.append("")
    lines.append(
        f"(c) *The ratio jumps where the number of classes drops (most for Fold)*: "
        f"{yes[c['holds']]}; more pronounced for Fold: {yes[c['fold_more_pronounced']]}."
    )
    for algo, v in c["numbers"].items():
        if not isinstance(v, dict):
            continue
        m, f = v["n_bins"], v["max_classes"]
        lines.append(
            f"  - {algo}: at the {m['n_drops']} drops of its own class count the ratio changes "
            f"by {_fmt(m['mean_change_at_drops'])} on average (rises at "
            f"{m['frac_drops_with_increase']:.0%}), elsewhere by "
            f"{_fmt(m['mean_change_elsewhere'])}; at the drops of floor(S/k) by "
            f"{_fmt(f['mean_change_at_drops'])}."
        )
    lines.append(
        f"  - mean rise at a drop: Fold {_fmt(c['numbers']['mean_rise_fold'])}, simplified "
        f"Spread {_fmt(c['numbers']['mean_rise_simplified_spread'])}."
    )
    lines.append("")
    lines.append(f"(d) *Far better than the worst case*: {yes[d['holds']]}.")
    for algo, v in d["numbers"].items():
        lines.append(
            f"  - {algo}: max overfull ratio {v['max_overfull_ratio']} (proven worst case "
            f"{proven_bound(algo):g}), median {v['median_overfull_ratio']}; certified ratio max "
            f"{v['max_certified_ratio']}, median {v['median_certified_ratio']}."
        )
    lines += ["", "Criteria:"]
    for key, name in (
        ("spread_beats_fold", "a"),
        ("random_beats_sorted", "b"),
        ("threshold_jumps", "c"),
        ("better_than_worst_case", "d"),
    ):
        lines.append(f"  - ({name}) {obs[key]['criterion']}.")
    return "\n".join(lines) + "\n"


#: the observations of §5, in order: (key in :func:`check_observations`, short statement)
OBSERVATIONS = (
    ("spread_beats_fold", "(a) Spread beats Fold, for random and sorted data"),
    ("random_beats_sorted", "(b) a random order is often better than the sorted one"),
    ("threshold_jumps", "(c) the ratio jumps where the number of classes drops"),
    ("better_than_worst_case", "(d) far better than the proven worst case"),
)


def observation_verdicts(obs: dict) -> list[tuple[str, bool]]:
    """``(statement, holds)`` for each of the four observations of §5."""
    out = []
    for key, text in OBSERVATIONS:
        if key == "threshold_jumps" and key in obs:
            more = obs[key].get("fold_more_pronounced")
            text += f" (more for Fold: {'yes' if more else 'no'})"
        out.append((text, bool(obs.get(key, {}).get("holds"))))
    return out


def write_fig7(frame: pd.DataFrame, obs: dict, out_dir: str | Path) -> list[Path]:
    """Write both figures, ``observations.json`` and ``observations.md``; return their paths."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [_overfull_figure(frame, out_dir), _certified_figure(frame, out_dir)]
    js = out_dir / "observations.json"
    text = json.dumps(obs, indent=2) + "\n"
    atomic_write(js, lambda fh: fh.write(text), mode="w", encoding="utf-8")
    md = out_dir / "observations.md"
    summary = observations_markdown(obs)
    atomic_write(md, lambda fh: fh.write(summary), mode="w", encoding="utf-8")
    return paths + [js, md]


def plot_fig7(df: pd.DataFrame, out_dir: str | Path) -> list[Path]:
    """Figure 7 as PNGs plus ``observations.json`` / ``observations.md`` in ``out_dir``.

    Does nothing (returns ``[]``) when ``df`` has no verified ``bc-census`` runs, so a report
    can call it on any results frame.

    Returns
    -------
    list of Path
        ``fig7_overfull.png`` (the paper's four curves per Census list: raw ratio and maximum
        per subrange of k), ``fig7_certified.png`` (every curve's subrange maxima next to the
        lower bound / k, and the certified ratio cost / lower bound), ``observations.json``
        and ``observations.md``.
    """
    frame = fig7_frame(df)
    if frame.empty:
        return []
    return write_fig7(frame, check_observations(frame), out_dir)


def report_findings(df: pd.DataFrame, out_dir: str | Path) -> Findings | None:
    """Figure 7's part of a report (:mod:`anonratio.bench.report.findings`): its figures and the
    four observations of §5, or None when ``df`` has no ``bc-census`` runs."""
    frame = fig7_frame(df)
    if frame.empty:
        return None
    obs = check_observations(frame)
    verdicts = observation_verdicts(obs)
    return Findings(
        key="observations",
        title="Findings: the four observations of Du et al. (2009), §5",
        verdicts=verdicts,
        summary_title="Figure 7 (Du et al. 2009, §5), the paper's observations:",
        summary_lines=[f"{t}: {'holds' if holds else 'DOES NOT HOLD'}" for t, holds in verdicts],
        markdown=observations_markdown(obs),
        files=write_fig7(frame, obs, out_dir),
        data=obs,
    )
