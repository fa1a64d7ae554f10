"""Summary tables and plots of benchmark results (the results schema: docs/architecture.md).

:func:`summarize` condenses the tidy result rows to one row per (problem, algorithm, k);
:func:`plot_ratios` draws, for each problem, the empirical approximation ratio against ``k`` for
every non-exact algorithm next to its proven guarantee, and the runtime against ``n``;
:func:`write_report` writes ``summary.csv``, ``summary.md`` and the plots into a folder.

Two ratios are kept apart everywhere:

- ``ratio`` = cost ÷ proven optimum, defined only when ``optimum_status`` is ``opt``;
- ``certified_ratio`` = cost ÷ a valid lower bound, an upper bound on the true ratio that exists
  for every instance, including those too large for the exact models.

Plots use matplotlib's object-oriented API with the Agg canvas, so importing this module never
changes the global matplotlib backend.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from anonratio.bench.fig7_plot import plot_fig7
from anonratio.instances.io import atomic_write

if TYPE_CHECKING:
    from anonratio.bench.declarations import Algorithm

__all__ = ["summarize", "plot_ratios", "write_report", "format_table", "algorithms_markdown"]

#: parameter names that play the role of the anonymity size "k" in each problem family
_SIZE_PARAMS = ("k", "r", "l")
_KIND_ORDER = {"approximation": 0, "heuristic": 1, "exact": 2}
_NUMERIC = ("n", "cost", "ratio", "certified_ratio", "guarantee", "time_s", "lower_bound")

#: above this many distinct k, the ratio plots use a log k axis instead of a tick per k
_MAX_K_TICKS = 20

#: summary columns, in order
SUMMARY_COLUMNS = [
    "problem",
    "algorithm",
    "kind",
    "k",
    "runs",
    "verified",
    "with_optimum",
    "median_ratio",
    "max_ratio",
    "median_certified_ratio",
    "max_certified_ratio",
    "guarantee",
    "over_guarantee",
    "median_time_s",
]


def _size_param(params):
    """The k (or r, l) of a ``params`` cell: a dict, a JSON string or missing."""
    if isinstance(params, str):
        try:
            params = json.loads(params)
        except json.JSONDecodeError:
            return None
    if not isinstance(params, dict):
        return None
    for name in _SIZE_PARAMS:
        value = params.get(name)
        if isinstance(value, int | float | np.integer) and not isinstance(value, bool):
            return int(value)
    return None


def _as_bool(col):
    if pd.api.types.is_bool_dtype(col):
        return col.fillna(False).astype(bool)
    return col.astype(str).str.strip().str.lower().isin(["true", "1", "1.0", "yes"])


def _prepare(df):
    """A copy of ``df`` with a ``k`` column, numeric ratio columns and a boolean ``verified``."""
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"`df` must be a pandas DataFrame, got {type(df).__name__}")
    missing = [c for c in ("problem", "algorithm") if c not in df.columns]
    if missing:
        raise ValueError(f"results need the columns {missing}; got {list(df.columns)}")
    d = df.copy()
    k = pd.to_numeric(d["k"], errors="coerce") if "k" in d.columns else pd.Series(np.nan, d.index)
    if "params" in d.columns and k.isna().any():
        k = k.fillna(pd.to_numeric(d["params"].map(_size_param), errors="coerce"))
    d["k"] = k.astype("Int64")
    for c in _NUMERIC:
        d[c] = pd.to_numeric(d[c], errors="coerce") if c in d.columns else np.nan
    d["verified"] = _as_bool(d["verified"]) if "verified" in d.columns else False
    if "kind" not in d.columns:
        d["kind"] = ""
    d["kind"] = d["kind"].fillna("").astype(str).astype(object)
    for c in ("problem", "algorithm"):  # plain objects, whether read from CSV, Parquet or memory
        d[c] = d[c].astype(object).where(d[c].notna(), None)
    return d


def summarize(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (problem, algorithm, k) of a results frame.

    Parameters
    ----------
    df : pandas.DataFrame
        Result rows with the schema columns (docs/architecture.md) (``params`` as JSON or dict, or a
        ``k`` column).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`SUMMARY_COLUMNS`: ``runs`` (rows), ``verified`` (rows the independent
        verifier accepted), ``with_optimum`` (rows with a proven optimum, hence a ``ratio``), the
        median and maximum of ``ratio`` and ``certified_ratio``, the largest proven
        ``guarantee``, ``over_guarantee`` (rows whose proven ratio exceeds the guarantee — always
        0 unless an implementation is wrong) and the median wall time.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = pd.DataFrame({"problem": ["k-anonymity"] * 2, "algorithm": ["forest"] * 2,
    ...     "kind": ["approximation"] * 2, "params": ['{"k": 2}'] * 2, "verified": [True] * 2,
    ...     "ratio": [1.0, 1.5], "certified_ratio": [1.2, 2.0], "guarantee": [3.0] * 2,
    ...     "time_s": [0.1, 0.3]})
    >>> summarize(rows)[["k", "runs", "max_ratio", "guarantee"]].to_dict("records")
    [{'k': 2, 'runs': 2, 'max_ratio': 1.5, 'guarantee': 3.0}]
    """
    d = _prepare(df)
    if d.empty:
        return pd.DataFrame(columns=SUMMARY_COLUMNS)
    d["_over"] = (d["ratio"] > d["guarantee"] * (1 + 1e-9) + 1e-9).astype(int)
    g = d.groupby(["problem", "algorithm", "k"], dropna=False, sort=False)
    out = g.agg(
        kind=("kind", "first"),
        runs=("algorithm", "size"),
        verified=("verified", "sum"),
        with_optimum=("ratio", "count"),
        median_ratio=("ratio", "median"),
        max_ratio=("ratio", "max"),
        median_certified_ratio=("certified_ratio", lambda s: s[np.isfinite(s)].median()),
        max_certified_ratio=("certified_ratio", "max"),
        guarantee=("guarantee", "max"),
        over_guarantee=("_over", "sum"),
        median_time_s=("time_s", "median"),
    ).reset_index()
    out["verified"] = out["verified"].astype(int)
    out["_kind"] = out["kind"].map(_KIND_ORDER).fillna(9)
    out = out.sort_values(["problem", "_kind", "algorithm", "k"], kind="stable")
    return out[SUMMARY_COLUMNS].reset_index(drop=True)


# ---------------------------------------------------------------------------------------------
# plots
# ---------------------------------------------------------------------------------------------
def _slug(text):
    return re.sub(r"[^A-Za-z0-9]+", "-", str(text)).strip("-").lower() or "problem"


def _new_figure(width, height):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=110, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _plain_log_axis(axis, subs=(1.0, 1.5, 2.0, 3.0, 5.0, 7.0)):
    from matplotlib.ticker import FuncFormatter, LogLocator

    axis.set_major_locator(LogLocator(base=10, subs=subs))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(FuncFormatter(lambda v, _: ""))


def _ratio_panel(ax, d, column, algorithms, colors, title, empty_note):
    """Median and max of ``column`` vs k per algorithm, with the guarantee as a dashed step."""
    ax.set_title(title, fontsize=10)
    ax.set_xlabel("k")
    plotted = False
    ks_all = set()
    width = 0.08
    for i, algo in enumerate(algorithms):
        a = d[d["algorithm"] == algo]
        color = colors[algo]
        shift = (i - (len(algorithms) - 1) / 2) * width
        vals = a[np.isfinite(a[column]) & a["k"].notna()]
        if not vals.empty:
            stats = vals.groupby("k")[column].agg(["median", "max"]).sort_index()
            x = stats.index.to_numpy(dtype=float) + shift
            ax.plot(x, stats["median"], "o-", color=color, ms=6, lw=1.5)
            ax.plot(x, stats["max"], "^", color=color, ms=7, mfc="none", mew=1.5)
            ks_all.update(stats.index.astype(int))
            plotted = True
        gua = a[np.isfinite(a["guarantee"]) & a["k"].notna()]
        if not gua.empty and not vals.empty:
            gk = gua.groupby("k")["guarantee"].max().sort_index()
            ks = gk.index.to_numpy(dtype=float)
            edges = np.concatenate([[ks[0] - 0.45], (ks[:-1] + ks[1:]) / 2, [ks[-1] + 0.45]])
            ax.stairs(gk.to_numpy(), edges, baseline=None, ls="--", color=color, lw=1.2)
    if not plotted:
        ax.text(0.5, 0.5, empty_note, ha="center", va="center", transform=ax.transAxes, wrap=True)
        ax.set_yticks([])
        return
    ax.set_yscale("log")
    _plain_log_axis(ax.yaxis)
    ax.axhline(1.0, color="0.6", lw=0.8)
    if len(ks_all) <= _MAX_K_TICKS:
        ax.set_xticks(sorted(ks_all))
    else:  # a sweep over many k (e.g. paper-fig7): a log axis, no tick per k
        ax.set_xscale("log")
        _plain_log_axis(ax.xaxis, subs=(1.0, 2.0, 5.0))
    ax.grid(True, which="major", axis="y", alpha=0.3)
    ax.set_ylabel(column.replace("_", " "))


def _style_legend(fig, algorithms, colors):
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], color=colors[a], lw=2, label=a) for a in algorithms]
    handles += [
        Line2D([], [], color="0.3", marker="o", ls="-", label="median"),
        Line2D([], [], color="0.3", marker="^", mfc="none", ls="none", label="max"),
        Line2D([], [], color="0.3", ls="--", label="proven guarantee"),
    ]
    fig.legend(handles=handles, loc="outside lower center", ncol=min(len(handles), 7))


def _colors(algorithms):
    from matplotlib import colormaps

    cmap = colormaps["tab10"]
    return {a: cmap(i % 10) for i, a in enumerate(algorithms)}


def plot_ratios(df: pd.DataFrame, out_dir: str | Path) -> list[Path]:
    """Write the ratio and runtime plots of a results frame as PNG files.

    For each problem, ``ratios_<problem>.png`` has two panels for the non-exact algorithms: the
    ratio against proven optima (``ratio``) and against lower bounds (``certified_ratio``), each
    as median (circles) and maximum (triangles) per ``k``, with the algorithm's proven guarantee
    as a dashed step in the same colour (log scale). ``runtime_<problem>.png`` shows the median
    wall time of the verified runs against ``n`` for every algorithm (log-log).

    Parameters
    ----------
    df : pandas.DataFrame
        Result rows (schema columns (docs/architecture.md)).
    out_dir : str or Path
        Created if needed.

    Returns
    -------
    list of Path
        The PNG files written.
    """
    d = _prepare(df)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for problem, p in d.groupby("problem", sort=True):
        approx = p[p["kind"] != "exact"]
        algorithms = sorted(approx["algorithm"].unique(), key=str)
        if algorithms:
            colors = _colors(algorithms)
            fig = _new_figure(12, 5)
            ax_opt, ax_lb = fig.subplots(1, 2)
            _ratio_panel(
                ax_opt,
                approx,
                "ratio",
                algorithms,
                colors,
                "ratio = cost / proven optimum\n(runs whose optimum_status is opt)",
                "no runs with a proven optimum",
            )
            _ratio_panel(
                ax_lb,
                approx,
                "certified_ratio",
                algorithms,
                colors,
                "certified ratio = cost / lower bound\n(an upper bound on the true ratio)",
                "no runs with a positive lower bound",
            )
            fig.suptitle(f"{problem}: empirical approximation ratio vs k", fontsize=12)
            _style_legend(fig, algorithms, colors)
            path = out_dir / f"ratios_{_slug(problem)}.png"
            atomic_write(path, partial(fig.savefig, format="png"))
            written.append(path)
        path = _plot_runtime(problem, p, out_dir)
        if path is not None:
            written.append(path)
    return written


def _plot_runtime(problem, p, out_dir):
    # verified runs only: a run that failed at once says nothing about the algorithm's speed
    ok = p["verified"] & np.isfinite(p["time_s"]) & np.isfinite(p["n"])
    t = p[ok & (p["time_s"] > 0) & (p["n"] > 0)]
    if t.empty:
        return None
    algorithms = sorted(t["algorithm"].unique(), key=str)
    colors = _colors(algorithms)
    fig = _new_figure(8, 5)
    ax = fig.subplots()
    for algo in algorithms:
        a = t[t["algorithm"] == algo]
        kind = a["kind"].iloc[0]
        med = a.groupby("n")["time_s"].median().sort_index()
        style = "s--" if kind == "exact" else "o-"
        ax.plot(med.index, med.to_numpy(), style, color=colors[algo], label=f"{algo} ({kind})")
    ax.set_xscale("log")
    ax.set_yscale("log")
    _plain_log_axis(ax.xaxis, subs=(1.0, 2.0, 5.0))
    sizes = np.unique(t["n"])
    if len(sizes) <= 8:
        ax.set_xticks(sizes, [f"{v:g}" for v in sizes])
    _plain_log_axis(ax.yaxis, subs=(1.0, 2.0, 5.0))
    ax.set_xlabel("n (records)")
    ax.set_ylabel("median wall time (s)")
    ax.set_title(f"{problem}: runtime vs n (log-log)", fontsize=11)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=9)
    path = out_dir / f"runtime_{_slug(problem)}.png"
    atomic_write(path, lambda fh: fig.savefig(fh, format="png"))
    return path


# ---------------------------------------------------------------------------------------------
# tables
# ---------------------------------------------------------------------------------------------
def _cell(value):
    if value is None or value is pd.NA:
        return ""
    if isinstance(value, float | np.floating):
        if math.isnan(value):
            return ""
        if math.isinf(value):
            return "inf"
        return f"{value:.4g}"
    return str(value)


def format_table(frame: pd.DataFrame, *, markdown: bool = False) -> str:
    """A fixed-width (or Markdown) text rendering of a small frame; NaN prints as empty."""
    cols = [str(c) for c in frame.columns]
    rows = [[_cell(v) for v in rec] for rec in frame.itertuples(index=False, name=None)]
    if markdown:
        lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(lines)
    widths = [max([len(c)] + [len(r[i]) for r in rows]) for i, c in enumerate(cols)]
    fmt = lambda r: "  ".join(s.rjust(w) for s, w in zip(r, widths, strict=True))  # noqa: E731
    return "\n".join([fmt(cols)] + [fmt(r) for r in rows])


def _md_cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _md_name(algorithm: Algorithm) -> str:
    name = f"`{algorithm.name}`"
    if algorithm.aliases:
        label = "alias" if len(algorithm.aliases) == 1 else "aliases"
        name += f" ({label} " + ", ".join(f"`{a}`" for a in algorithm.aliases) + ")"
    return name


def algorithms_markdown(algorithms: Iterable[Algorithm] | None = None) -> str:
    """The Markdown table of the registered algorithms (``anonratio list --markdown``).

    One row per algorithm, in registry order: name (with its former names, aliases), problem,
    kind, proven guarantee (``guarantee_text``), source and running time (``complexity``). The
    README's algorithm table is this text, so it cannot drift from the registry.

    Parameters
    ----------
    algorithms : iterable of Algorithm, optional
        Default: every algorithm of :data:`~anonratio.bench.registry.REGISTRY`.

    Returns
    -------
    str
        The table, one line per row, without a final newline.
    """
    if algorithms is None:
        from anonratio.bench.registry import REGISTRY

        algorithms = REGISTRY.values()
    lines = [
        "| name | problem | kind | proven guarantee | source | running time |",
        "|---|---|---|---|---|---|",
    ]
    for a in algorithms:
        cells = [a.problem, a.kind, a.guarantee_text, a.source, a.complexity]
        lines.append("| " + " | ".join([_md_name(a)] + [_md_cell(c) for c in cells]) + " |")
    return "\n".join(lines)


_MD_HEADER = """# anonratio summary

One row per (problem, algorithm, k). `ratio` = cost ÷ proven optimum (only runs whose
`optimum_status` is `opt`); `certified_ratio` = cost ÷ a valid lower bound, an upper bound on the
true ratio; `guarantee` = the algorithm's proven worst-case ratio; `over_guarantee` counts runs
whose proven ratio exceeds it (0 unless an implementation is wrong).

"""


def write_report(df: pd.DataFrame, out_dir: str | Path) -> dict[str, Any]:
    """Write ``summary.csv``, ``summary.md`` and the plots of :func:`plot_ratios` into a folder.

    Parameters
    ----------
    df : pandas.DataFrame
        Result rows (schema columns (docs/architecture.md)).
    out_dir : str or Path

    Returns
    -------
    dict
        ``summary`` (the :func:`summarize` frame), ``summary_csv`` and ``summary_md`` (paths) and
        ``plots`` (list of paths).
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    summary = summarize(df)
    csv_path = out_dir / "summary.csv"
    atomic_write(csv_path, lambda fh: summary.to_csv(fh, index=False), mode="w", newline="")
    md_path = out_dir / "summary.md"
    text = _MD_HEADER + format_table(summary, markdown=True) + "\n"
    atomic_write(md_path, lambda fh: fh.write(text), mode="w", encoding="utf-8")
    plots = plot_ratios(df, out_dir)
    plots += plot_fig7(df, out_dir)  # Figure 7 of Du et al. (2009) when Census runs are present
    return {"summary": summary, "summary_csv": csv_path, "summary_md": md_path, "plots": plots}
