"""Ratio intervals: where no optimum is proven, each algorithm's true ratio as an interval.

On a run without a proven optimum the true approximation ratio lies in
``[ratio_at_least, certified_ratio]``: at least the cost over the best verified cost known for the
instance, at most the cost over the best proven lower bound. :func:`interval_table` gives that
interval per problem, algorithm, k and instance size n (the median of each end over the seeds),
and :func:`plot_problem_intervals` draws it, one vertical segment per algorithm and size, so that
the width of each segment shows how much of the ratio is known. A run whose optimum is proven
contributes its ratio to both ends. Only the sizes with at least one run whose optimum is not
proven are shown: elsewhere the ratio figure already gives the exact ratio.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from anonratio.bench.report.plots import (
    N_LABELS,
    SIZE_LABELS,
    algorithm_color,
    algorithm_order,
    k_groups,
    new_figure,
    ratio_axis,
    slug,
    sort_by_algorithm,
)
from anonratio.instances.io import atomic_write

__all__ = ["INTERVAL_COLUMNS", "interval_table", "plot_problem_intervals"]

#: columns of :func:`interval_table`, in order
INTERVAL_COLUMNS = [
    "algorithm",
    "k",
    "n",
    "runs",
    "proven",
    "ratio_at_least",
    "certified_ratio",
]


def _run_ends(p: pd.DataFrame) -> pd.DataFrame:
    """The verified non-exact runs of ``p`` (a prepared frame) with both ends of their interval:
    ``lo`` and ``hi``, the proven ratio where the optimum is proven."""
    d = p[(p["kind"] != "exact") & p["verified"]]
    status = d["optimum_status"] if "optimum_status" in d else pd.Series("", d.index)
    proven = (status == "opt") & np.isfinite(d["ratio"])
    d = d.assign(
        proven=proven.astype(int),
        lo=d["ratio"].where(proven, d["ratio_at_least"]),
        hi=d["ratio"].where(proven, d["certified_ratio"]),
        n=pd.to_numeric(d["n"], errors="coerce"),
    )
    return d[np.isfinite(d["lo"]) & np.isfinite(d["hi"]) & d["n"].notna()]


def interval_table(p: pd.DataFrame) -> pd.DataFrame:
    """Per algorithm, k and n of one problem's prepared results ``p``: the runs, how many have a
    proven optimum, and the medians of ``ratio_at_least`` and ``certified_ratio`` (a proven
    ratio counts at both ends); only the (k, n) with a run whose optimum is not proven.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`INTERVAL_COLUMNS`, algorithms in registry order, then by k and n; empty
        when every run has a proven optimum (or none has both ends).
    """
    d = _run_ends(p)
    if d.empty:
        return pd.DataFrame(columns=INTERVAL_COLUMNS)
    keys = ["k", "n"]
    open_ = d.groupby(keys, dropna=False)["proven"].transform("min") == 0
    d = d[open_]
    if d.empty:
        return pd.DataFrame(columns=INTERVAL_COLUMNS)
    out = (
        d.groupby(["algorithm", *keys], dropna=False, sort=False)
        .agg(
            runs=("algorithm", "size"),
            proven=("proven", "sum"),
            ratio_at_least=("lo", "median"),
            certified_ratio=("hi", "median"),
        )
        .reset_index()
    )
    out["n"] = out["n"].astype(int)
    return sort_by_algorithm(out, after=["k", "n"])[INTERVAL_COLUMNS].reset_index(drop=True)


def _panel(ax, t: pd.DataFrame, algorithms: list[str]) -> list[float]:
    """One k's intervals: a segment per algorithm at each n (categorical x); returns the values
    drawn."""
    sizes = sorted(t["n"].unique())
    width = 0.8 / len(algorithms)
    for i, algo in enumerate(algorithms):
        a = t[t["algorithm"] == algo]
        x = np.array([sizes.index(n) for n in a["n"]]) - 0.4 + width * (i + 0.5)
        color = algorithm_color(algo)
        lo, hi = a["ratio_at_least"].to_numpy(float), a["certified_ratio"].to_numpy(float)
        ax.vlines(x, lo, hi, colors=[color], lw=3.0)
        ax.scatter(x, lo, marker="_", s=60, color=color, lw=1.5)
        ax.scatter(x, hi, marker="_", s=60, color=color, lw=1.5)
        point = np.isclose(lo, hi)  # a proven ratio (or a bound met): a point, not a segment
        ax.scatter(x[point], lo[point], marker="o", s=16, color=color, zorder=3)
    ax.set_xticks(range(len(sizes)), [f"{int(n):,}" for n in sizes], fontsize=8)
    ax.set_xlim(-0.6, len(sizes) - 0.4)
    for g in range(1, len(sizes)):
        ax.axvline(g - 0.5, color="0.85", lw=0.6)
    ax.axhline(1.0, color="0.5", lw=0.8)
    ax.grid(True, which="major", axis="y", alpha=0.3)
    return [*t["ratio_at_least"], *t["certified_ratio"]]


def plot_problem_intervals(problem: str, p: pd.DataFrame, out_dir: Path) -> Path | None:
    """``intervals_<problem>.png``: per k (or k bin), one panel; in it, per instance size n and
    non-exact algorithm, a segment from the median ``ratio_at_least`` to the median
    ``certified_ratio`` (:func:`interval_table`), a dot where the two meet. None when every run
    has a proven optimum."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    t = interval_table(p)
    if t.empty:
        return None
    size = SIZE_LABELS.get(problem, "k")
    algorithms = algorithm_order(t["algorithm"].unique())
    has_k = t["k"].notna().all() and size != "n"
    if has_k:
        groups, labels = k_groups(t["k"].astype(int))
        t = t.assign(_g=t["k"].astype(int).map(groups))
    else:  # no anonymity size on this problem: one panel
        labels = ["all"]
        t = t.assign(_g=0)
    panels = sorted(t["_g"].unique())
    n_sizes = t.groupby("_g")["n"].nunique().max()
    width = min(16.0, max(9.0, 2.5 + 0.25 * n_sizes * len(algorithms)))
    fig = new_figure(width, 0.9 + 3.0 * len(panels))
    axes = np.atleast_1d(fig.subplots(len(panels), 1, squeeze=False)[:, 0])
    for ax, g in zip(axes, panels, strict=True):
        ratio_axis(ax, _panel(ax, t[t["_g"] == g], algorithms))
        ax.set_title(f"{size} = {labels[g]}" if has_k else "", fontsize=10)
        ax.set_ylabel("true ratio lies in\n(median of each end)")
        ax.set_xlabel(f"n ({N_LABELS.get(problem, 'instance size')})")
    handles = [Patch(color=algorithm_color(a), label=a) for a in algorithms] + [
        Line2D([], [], color="0.3", lw=3.0, label="[cost / best-known,\n cost / lower bound]"),
        Line2D([], [], color="0.3", marker="o", ls="", label="ratio proven"),
    ]
    fig.legend(handles=handles, loc="outside right upper", fontsize=8, frameon=False)
    title = f"{problem}: ratio intervals where no optimum is proven"
    fig.suptitle(title, fontsize=12, x=0.02, ha="left")  # clear of the legend on the right
    path = Path(out_dir) / f"intervals_{slug(problem)}.png"
    atomic_write(path, partial(fig.savefig, format="png"))
    return path
