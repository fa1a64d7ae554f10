"""The figures of a report: ratio distributions per k and runtime scaling, one PNG per problem.

One colour per algorithm in every figure of every report (:func:`algorithm_color`: a fixed mapping
from the registry order, distinct within a problem), axis labels that say what ``n`` counts
(:data:`N_LABELS`), tick labels thinned so that they never overlap, legends outside the axes.
Matplotlib's object-oriented API on an Agg canvas: importing or calling this never changes the
global backend.
"""

from __future__ import annotations

import math
import re
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from anonratio.bench.registry import PROBLEMS
from anonratio.instances.io import atomic_write

__all__ = [
    "N_LABELS",
    "algorithm_color",
    "algorithm_order",
    "k_groups",
    "new_figure",
    "plot_problem_ratios",
    "plot_problem_runtime",
    "ratio_axis",
    "runtime_fits",
    "slug",
    "sort_by_algorithm",
]

#: what ``n`` counts, per problem (its declaration's ``n_label``)
N_LABELS = {name: problem.n_label for name, problem in PROBLEMS.items()}

#: the name of the anonymity size on the x axis of a ratio plot (the ``k`` column), per problem
#: (its declaration's ``size``); a problem without one (cellular clustering) is plotted per n
SIZE_LABELS = {name: problem.size or "n" for name, problem in PROBLEMS.items()}

#: at most this many k on the x axis of a ratio plot; beyond, k is grouped into bins
MAX_K_GROUPS = 12
_K_BINS = 8
#: nice values for the ticks of a ratio axis (log scale)
_RATIO_TICKS = (
    0.5,
    0.6,
    0.7,
    0.8,
    0.9,
    0.95,
    1,
    1.05,
    1.1,
    1.2,
    1.3,
    1.5,
    2,
    2.5,
    3,
    4,
    5,
    7,
    10,
    15,
    20,
    30,
    50,
    100,
)
_STYLE_BY_KIND = {"approximation": "o-", "heuristic": "D:", "exact": "s--"}


def slug(text) -> str:
    """A file-name fragment of ``text`` (``bin-covering`` -> ``bin-covering``)."""
    return re.sub(r"[^A-Za-z0-9]+", "-", str(text)).strip("-").lower() or "problem"


def _registry_order() -> dict[str, tuple[str, int]]:
    from anonratio.bench.registry import REGISTRY

    index: dict[str, int] = {}
    out = {}
    for name, alg in REGISTRY.items():
        i = index.get(alg.problem, 0)
        index[alg.problem] = i + 1
        out[name] = (alg.problem, i)
    return out


def algorithm_order(names) -> list[str]:
    """``names`` in registry order (unknown names last, alphabetically)."""
    order = {name: i for i, name in enumerate(_registry_order())}
    return sorted(dict.fromkeys(str(n) for n in names), key=lambda n: (order.get(n, 10**6), n))


def sort_by_algorithm(frame: pd.DataFrame, before=(), after=()) -> pd.DataFrame:
    """``frame``'s rows sorted by the columns ``before``, then its ``algorithm`` column in
    registry order (:func:`algorithm_order`), then the columns ``after`` (a stable sort)."""
    rank = {a: i for i, a in enumerate(algorithm_order(frame["algorithm"]))}
    keys = [*before, "_algorithm_rank", *after]
    ranked = frame.assign(_algorithm_rank=frame["algorithm"].map(rank))
    return ranked.sort_values(keys, kind="stable").drop(columns="_algorithm_rank")


def algorithm_color(name: str):
    """The colour of an algorithm in every figure: tab10 by its position among its problem's
    algorithms in the registry, then tab20's light shades from the 11th on (so distinct within a
    problem); unknown names get grey shades."""
    from matplotlib import colormaps

    pos = _registry_order().get(str(name))
    if pos is None:
        return colormaps["Greys"](0.45 + 0.4 * (sum(map(ord, str(name))) % 7) / 7)
    if pos[1] < 10:
        return colormaps["tab10"](pos[1])
    return colormaps["tab20"]((2 * (pos[1] - 10) + 1) % 20)


def new_figure(width: float, height: float):
    """A matplotlib Figure on its own Agg canvas, constrained layout."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _thin_log(values, max_ticks, keep_last=True):
    """A subset of increasing positive ``values`` at least 1/``max_ticks`` of the span apart (in
    log), always keeping the first and (when ``keep_last``) the last."""
    v = sorted(float(x) for x in values)
    if len(v) <= 2:
        return v
    gap = (math.log10(v[-1]) - math.log10(v[0])) / max(max_ticks - 1, 1)
    out = [v[0]]
    for x in v[1:]:
        if math.log10(x) - math.log10(out[-1]) >= gap * 0.999:
            out.append(x)
    if keep_last and out[-1] != v[-1]:
        if len(out) > 1 and math.log10(v[-1]) - math.log10(out[-1]) < gap:
            out.pop()
        out.append(v[-1])
    return out


def ratio_axis(ax, values):
    """Log y axis from just below the data to the first nice tick at or above every value, so
    that no line rises above the last tick label."""
    from matplotlib.ticker import FixedLocator, NullFormatter, NullLocator

    lo, hi = min(min(values), 1.0), max(values)
    top = next((t for t in _RATIO_TICKS if t >= hi * (1 - 1e-9)), hi)
    bottom = max((t for t in _RATIO_TICKS if t <= lo * (1 + 1e-9)), default=lo)
    ticks = _thin_log([t for t in _RATIO_TICKS if bottom <= t <= top], 7)
    if 1 not in ticks:
        ticks = sorted({*ticks, 1})
    ax.set_yscale("log")
    ax.set_ylim(bottom / 1.04, top * 1.04)
    ax.yaxis.set_major_locator(FixedLocator(ticks))
    ax.yaxis.set_major_formatter(lambda v, _: f"{v:g}")
    ax.yaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_minor_formatter(NullFormatter())


def k_groups(ks) -> tuple[dict[int, int], list[str]]:
    """Map each k to a group position: one group per k when there are at most
    :data:`MAX_K_GROUPS`, else geometric bins of k; returns ``(k -> position, labels)``."""
    ks = sorted({int(k) for k in ks})
    if len(ks) <= MAX_K_GROUPS:
        return {k: i for i, k in enumerate(ks)}, [str(k) for k in ks]
    edges = np.geomspace(ks[0], ks[-1] + 1, _K_BINS + 1)
    raw = np.clip(np.searchsorted(edges, ks, side="right") - 1, 0, _K_BINS - 1)
    used = sorted(set(raw.tolist()))
    pos = {b: i for i, b in enumerate(used)}
    members = {b: [k for k, r in zip(ks, raw, strict=True) if r == b] for b in used}
    labels = [f"{members[b][0]}–{members[b][-1]}\n({len(members[b])} k)" for b in used]
    return {k: pos[r] for k, r in zip(ks, raw.tolist(), strict=True)}, labels


def _box_panel(ax, d, column, algorithms, groups, labels):
    """Box plots of ``column`` per k group and algorithm, the guarantee as a dashed segment in
    the algorithm's colour; returns the values drawn (for the axis range)."""
    width = 0.8 / len(algorithms)
    drawn = []
    for i, algo in enumerate(algorithms):
        a = d[(d["algorithm"] == algo) & d["k"].notna()]
        color = algorithm_color(algo)
        vals = a[np.isfinite(a[column])]
        gpos = vals["k"].astype(int).map(groups)
        boxes = [(g, vals.loc[gpos == g, column].to_numpy()) for g in sorted(set(gpos))]
        offset = -0.4 + width * (i + 0.5)
        if boxes:
            bp = ax.boxplot(
                [b for _, b in boxes],
                positions=[g + offset for g, _ in boxes],
                widths=width * 0.8,
                whis=(0, 100),
                showfliers=False,
                patch_artist=True,
                manage_ticks=False,
            )
            for part in bp["boxes"]:
                part.set(facecolor=color, alpha=0.55, edgecolor=color)
            for key in ("whiskers", "caps", "medians"):
                for part in bp[key]:
                    part.set(color=color if key != "medians" else "black", lw=1.2)
            drawn += [float(x) for _, b in boxes for x in b]
        gua = a[np.isfinite(a["guarantee"])]
        if not gua.empty and boxes:
            gg = gua.groupby(gua["k"].astype(int).map(groups))["guarantee"].max()
            for g, value in gg.items():
                x = g + offset
                ax.hlines(value, x - width / 2, x + width / 2, colors=[color], ls="--", lw=1.8)
                drawn.append(float(value))
    ax.set_xticks(range(len(labels)), labels, fontsize=8)
    ax.set_xlim(-0.6, len(labels) - 0.4)
    for g in range(1, len(labels)):
        ax.axvline(g - 0.5, color="0.85", lw=0.6)
    ax.grid(True, which="major", axis="y", alpha=0.3)
    return drawn


def _legend(fig, algorithms, extra):
    from matplotlib.patches import Patch

    handles = [
        Patch(facecolor=algorithm_color(a), edgecolor=algorithm_color(a), label=a)
        for a in algorithms
    ] + extra
    fig.legend(handles=handles, loc="outside right upper", fontsize=8, frameon=False)


def plot_problem_ratios(problem: str, p: pd.DataFrame, out_dir: Path) -> Path | None:
    """``ratios_<problem>.png``: per k (or k bin) and non-exact algorithm, the distribution of
    ``ratio`` (when some run has a proven optimum), of ``certified_ratio`` and, when some run
    has none, of ``ratio_at_least``: the true ratio of such a run lies between its values in
    the last two panels. Box plots (box: quartiles, line: median, whiskers: min and max), the
    proven guarantee as a dashed segment in the algorithm's colour."""
    from matplotlib.lines import Line2D

    approx = p[p["kind"] != "exact"]
    size = SIZE_LABELS.get(problem, "k")
    if size == "n":  # no anonymity size: one group per instance size
        approx = approx.assign(k=pd.to_numeric(approx["n"], errors="coerce").astype("Int64"))
    algorithms = algorithm_order(approx["algorithm"].dropna().unique())
    ks = approx["k"].dropna()
    if not algorithms or ks.empty:
        return None
    groups, labels = k_groups(ks)
    if "ratio_at_least" in approx:  # only where no optimum is proven: else it is the ratio
        proven = approx["optimum_status"] == "opt" if "optimum_status" in approx else False
        approx = approx.assign(ratio_at_least=approx["ratio_at_least"].where(~proven))
    panels = [
        (c, t)
        for c, t in (
            ("ratio", "ratio = cost / proven optimum (runs whose optimum is proven)"),
            ("certified_ratio", "certified ratio = cost / lower bound (≥ the true ratio)"),
            (
                "ratio_at_least",
                "cost / best-known cost (≤ the true ratio; runs without a proven optimum)",
            ),
        )
        if c in approx and np.isfinite(approx[c]).any()
    ]
    if not panels:
        return None
    width = min(16.0, max(8.0, 3.0 + 0.3 * len(labels) * len(algorithms)))
    fig = new_figure(width, 0.8 + 3.4 * len(panels))
    axes = np.atleast_1d(fig.subplots(len(panels), 1, squeeze=False)[:, 0])
    for ax, (column, title) in zip(axes, panels, strict=True):
        drawn = _box_panel(ax, approx, column, algorithms, groups, labels)
        ratio_axis(ax, drawn)
        ax.axhline(1.0, color="0.5", lw=0.8)
        ax.set_title(title, fontsize=10)
        ax.set_ylabel(column.replace("_", " "))
        grouped = len(labels) != len(set(groups))
        ax.set_xlabel(f"{size} (grouped; runs per bin)" if grouped else size)
    guarantee = Line2D([], [], color="0.3", ls="--", lw=1.8, label="proven guarantee")
    _legend(fig, algorithms, [guarantee])
    fig.suptitle(f"{problem}: approximation ratio per {size}", fontsize=12)
    path = Path(out_dir) / f"ratios_{slug(problem)}.png"
    atomic_write(path, partial(fig.savefig, format="png"))
    return path


def _runtime_points(p: pd.DataFrame) -> pd.DataFrame:
    # verified runs only: a run that failed at once says nothing about the algorithm's speed
    ok = p["verified"] & np.isfinite(p["time_s"]) & np.isfinite(p["n"])
    return p[ok & (p["time_s"] > 0) & (p["n"] > 0)]


#: a median time at or above this share of the runs' time limit measures the limit, not the
#: algorithm: such sizes are left out of the fit
AT_LIMIT = 0.9


def _medians(a: pd.DataFrame) -> pd.DataFrame:
    """Per n: the median time and whether it sits at the runs' time limit (``AT_LIMIT``)."""
    limit = pd.to_numeric(a["time_limit"], errors="coerce") if "time_limit" in a else np.nan
    by_n = a.assign(limit=limit).groupby("n")
    med = pd.DataFrame({"time_s": by_n["time_s"].median(), "limit": by_n["limit"].median()})
    med["at_limit"] = med["time_s"] >= AT_LIMIT * med["limit"]  # False where no limit is known
    return med.sort_index()


def runtime_fits(df: pd.DataFrame) -> pd.DataFrame:
    """Per (problem, algorithm): the distinct n, their range and the fitted exponent b of
    time ≈ a·n^b: least squares of log median time on log n, over the sizes whose median time
    stays below ``AT_LIMIT`` of the time limit (``at_limit_n`` counts the others); only with
    ≥ 3 such sizes."""
    rows = []
    for (problem, algo), a in _runtime_points(df).groupby(["problem", "algorithm"], sort=True):
        med = _medians(a)
        free = med[~med["at_limit"]]["time_s"]
        slope = math.nan
        if len(free) >= 3:
            slope = float(np.polyfit(np.log(free.index.to_numpy(float)), np.log(free), 1)[0])
        rows.append(
            {
                "problem": problem,
                "algorithm": algo,
                "kind": a["kind"].iloc[0],
                "distinct_n": len(med),
                "n_min": int(med.index.min()),
                "n_max": int(med.index.max()),
                "median_time_s": float(a["time_s"].median()),
                "at_limit_n": int(med["at_limit"].sum()),
                "exponent": slope,
            }
        )
    cols = ["problem", "algorithm", "kind", "distinct_n", "n_min", "n_max", "median_time_s"]
    return pd.DataFrame(rows, columns=cols + ["at_limit_n", "exponent"])


def plot_problem_runtime(problem: str, p: pd.DataFrame, out_dir: Path) -> Path | None:
    """``runtime_<problem>.png``: median wall time against n (log-log) per algorithm, with the
    fitted exponent in the legend; ``None`` when the runs have fewer than 2 distinct n."""
    from matplotlib.ticker import FixedLocator, NullFormatter, NullLocator

    t = _runtime_points(p)
    sizes = np.unique(t["n"])
    if len(sizes) < 2:
        return None
    fits = runtime_fits(t).set_index("algorithm")
    fig = new_figure(9, 4.8)
    ax = fig.subplots()
    for algo in algorithm_order(t["algorithm"].unique()):
        a = t[t["algorithm"] == algo]
        kind = a["kind"].iloc[0]
        med = a.groupby("n")["time_s"].median().sort_index()
        fit, at_limit = fits.loc[algo, "exponent"], fits.loc[algo, "at_limit_n"]
        note = f"  b = {fit:.2f}" if np.isfinite(fit) else ""
        if at_limit:
            note += (
                "  (at its time limit" + ("" if at_limit == len(med) else f" at {at_limit} n") + ")"
            )
        ax.plot(
            med.index,
            med.to_numpy(),
            _STYLE_BY_KIND.get(kind, "o-"),
            color=algorithm_color(algo),
            label=f"{algo}{note}",
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    candidates = sizes if len(sizes) <= 12 else np.geomspace(sizes[0], sizes[-1], 8).round()
    ax.xaxis.set_major_locator(FixedLocator(_thin_log(candidates, 12)))
    ax.xaxis.set_major_formatter(lambda v, _: f"{v:g}")
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_minor_formatter(NullFormatter())
    medians = t.groupby(["algorithm", "n"])["time_s"].median()
    lo, hi = float(medians.min()), float(medians.max())
    decades = range(math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 1)
    nice = [m * 10.0**e for e in decades for m in (1, 2, 5)]
    inside = [v for v in nice if lo / 1.5 <= v <= hi * 1.5] or [lo, hi]
    ax.yaxis.set_major_locator(FixedLocator(_thin_log(inside, 8, keep_last=False)))
    ax.yaxis.set_major_formatter(lambda v, _: f"{v:g}")
    ax.yaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel(f"n ({N_LABELS.get(problem, 'instance size')})")
    ax.set_ylabel("median wall time (s)")
    fig.suptitle(
        f"{problem}: median runtime vs n (log-log)\nb: fitted exponent of time ≈ a·n^b "
        "(least squares, ≥ 3 distinct n below the time limit); ● approximation, ◆ heuristic, "
        "■ exact",
        fontsize=10,
    )
    ax.grid(True, which="major", alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=min(3, len(labels)), fontsize=8)
    path = Path(out_dir) / f"runtime_{slug(problem)}.png"
    atomic_write(path, partial(fig.savefig, format="png"))
    return path
