"""Summary tables and plots of benchmark results (the results schema: docs/architecture.md).

:func:`summarize` condenses the tidy result rows to one row per (problem, algorithm, k);
:func:`plot_ratios` draws, for each problem, the empirical approximation ratio against ``k`` for
every non-exact algorithm next to its proven guarantee, and the runtime against ``n``;
:func:`write_report` writes ``summary.csv``, ``summary.md`` and the plots into a folder.

Two ratios are kept apart everywhere:

- ``ratio`` = cost ÷ proven optimum, defined only when ``optimum_status`` is ``opt``;
- ``certified_ratio`` = cost ÷ a valid lower bound, an upper bound on the true ratio that exists
  for every instance, including those too large for the exact models;
- ``ratio_at_least`` = cost ÷ the best verified cost known for the instance, a lower bound on the
  true ratio: without a proven optimum the true ratio lies in
  ``[ratio_at_least, certified_ratio]``.

Plots use matplotlib's object-oriented API with the Agg canvas, so importing this module never
changes the global matplotlib backend.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from anonratio.bench.report.html import code_lines, terminal_summary
from anonratio.bench.report.intervals import interval_table, plot_problem_intervals
from anonratio.bench.report.plots import (
    N_LABELS,
    plot_problem_ratios,
    plot_problem_runtime,
    runtime_fits,
    sort_by_algorithm,
)
from anonratio.instances.io import atomic_write

if TYPE_CHECKING:
    from anonratio.bench.declarations import Algorithm

__all__ = [
    "summarize",
    "algorithm_summary",
    "exact_outcomes",
    "plot_ratios",
    "write_report",
    "terminal_summary",
    "format_table",
    "algorithms_markdown",
]

#: parameter names that play the role of the anonymity size "k" in each problem family
_SIZE_PARAMS = ("k", "r", "l")
_KIND_ORDER = {"approximation": 0, "heuristic": 1, "exact": 2}
_NUMERIC = (
    "n",
    "cost",
    "ratio",
    "certified_ratio",
    "ratio_at_least",
    "guarantee",
    "time_s",
    "lower_bound",
)

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
    "median_ratio_at_least",
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


#: the columns both summaries aggregate (per k, and per algorithm over all k)
_AGGREGATES = {
    "kind": ("kind", "first"),
    "runs": ("algorithm", "size"),
    "verified": ("verified", "sum"),
    "with_optimum": ("ratio", "count"),
    "median_ratio": ("ratio", "median"),
    "max_ratio": ("ratio", "max"),
    "median_certified_ratio": ("_cert", "median"),
    "max_certified_ratio": ("certified_ratio", "max"),
    "median_ratio_at_least": ("_least", "median"),
    "over_guarantee": ("_over", "sum"),
    "median_time_s": ("time_s", "median"),
}


def _with_flags(d: pd.DataFrame) -> pd.DataFrame:
    """``d`` with the columns :data:`_AGGREGATES` reads: ``_over`` (a proven ratio above the
    guarantee) and the finite certified ratios and ratios-at-least (medians skip infinities)."""
    return d.assign(
        _over=(d["ratio"] > d["guarantee"] * (1 + 1e-9) + 1e-9).astype(int),
        _cert=d["certified_ratio"].where(np.isfinite(d["certified_ratio"])),
        _least=d["ratio_at_least"].where(np.isfinite(d["ratio_at_least"])),
    )


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
    g = _with_flags(d).groupby(["problem", "algorithm", "k"], dropna=False, sort=False)
    out = g.agg(**_AGGREGATES, guarantee=("guarantee", "max")).reset_index()
    out["verified"] = out["verified"].astype(int)
    out["_kind"] = out["kind"].map(_KIND_ORDER).fillna(9)
    out = out.sort_values(["problem", "_kind", "algorithm", "k"], kind="stable")
    return out[SUMMARY_COLUMNS].reset_index(drop=True)


# ---------------------------------------------------------------------------------------------
# per-algorithm summary, exact-solver outcomes, plots
# ---------------------------------------------------------------------------------------------
#: columns of :func:`algorithm_summary`, in order: the summary's, over all k (no ``k`` and no
#: single ``guarantee``, which depends on k)
ALGORITHM_COLUMNS = [c for c in SUMMARY_COLUMNS if c not in ("k", "guarantee")]
#: exact-solver outcomes (MIPLIB style): the ``status`` values counted in each column
OUTCOMES = {
    "optimal": ("optimal",),
    "time_limit": ("time_limit",),
    "memory_limit": ("memory_limit",),
    "feasible": ("feasible",),
}


def algorithm_summary(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (problem, algorithm), in registry order: runs, verified runs, runs with a
    proven optimum, median and maximum ``ratio`` and ``certified_ratio``, ``over_guarantee``
    (runs whose proven ratio exceeds the guarantee) and the median wall time."""
    d = _prepare(df)
    if d.empty:
        return pd.DataFrame(columns=ALGORITHM_COLUMNS)
    out = _with_flags(d).groupby(["problem", "algorithm"], sort=False).agg(**_AGGREGATES)
    out = out.reset_index()
    out["verified"] = out["verified"].astype(int)
    out = sort_by_algorithm(out, before=["problem"])
    return out[ALGORITHM_COLUMNS].reset_index(drop=True)


def exact_outcomes(df: pd.DataFrame) -> pd.DataFrame:
    """Per exact algorithm: runs, ``optimal`` (proven), ``time_limit``, ``memory_limit``,
    ``feasible`` (a solution without proof) and ``failed`` (anything else, or not verified),
    as MIPLIB reports count solver outcomes."""
    d = _prepare(df)
    d = d[d["kind"] == "exact"]
    cols = ["problem", "algorithm", "runs", *OUTCOMES, "failed"]
    if d.empty:
        return pd.DataFrame(columns=cols)
    status = d["status"].astype(str) if "status" in d.columns else pd.Series("", d.index)
    counted = pd.Series(False, d.index)
    for name, values in OUTCOMES.items():
        hit = status.isin(values) & (d["verified"] | (name in ("time_limit", "memory_limit")))
        d[name] = hit.astype(int)
        counted |= hit
    d["failed"] = (~counted).astype(int)
    d["runs"] = 1
    out = d.groupby(["problem", "algorithm"], sort=False)[cols[2:]].sum().reset_index()
    return sort_by_algorithm(out, before=["problem"])[cols].reset_index(drop=True)


def plot_ratios(df: pd.DataFrame, out_dir: str | Path) -> list[Path]:
    """Write the ratio and runtime plots of a results frame as PNG files.

    For each problem, ``ratios_<problem>.png`` shows, per k (or per k bin when there are more
    than a dozen k) and non-exact algorithm, box plots of ``ratio`` (a panel only when some run
    has a proven optimum) and of ``certified_ratio``, with the algorithm's proven guarantee as a
    dashed segment in its colour; ``intervals_<problem>.png``, where some run has no proven
    optimum, each algorithm's ratio as the interval ``[ratio_at_least, certified_ratio]`` per k
    and n (:func:`~anonratio.bench.report.intervals.plot_problem_intervals`);
    ``runtime_<problem>.png`` shows the median wall time of the
    verified runs against n (log-log) with the fitted exponent, when there are ≥ 2 distinct n.
    Each algorithm has one colour in every figure (registry order).

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
        for plot in (plot_problem_ratios, plot_problem_intervals, plot_problem_runtime):
            path = plot(problem, p, out_dir)
            if path is not None:
                written.append(path)
    return written


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


def algorithms_markdown(algorithms: Iterable[Algorithm] | None = None) -> str:
    """The Markdown table of the registered algorithms (``anonratio list --markdown``).

    One row per algorithm, in registry order: name, problem,
    kind, proven guarantee (``guarantee_text``), source and running time (``complexity``). The
    algorithm table of docs/algorithms.md is this text, so it cannot drift from the registry.

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
        lines.append("| " + " | ".join([f"`{a.name}`"] + [_md_cell(c) for c in cells]) + " |")
    return "\n".join(lines)


_MD_HEADER = """# anonratio summary

One row per (problem, algorithm, k). `ratio` = cost ÷ proven optimum (only runs whose
`optimum_status` is `opt`); `certified_ratio` = cost ÷ a valid lower bound, an upper bound on the
true ratio; `guarantee` = the algorithm's proven worst-case ratio; `over_guarantee` counts runs
whose proven ratio exceeds it (0 unless an implementation is wrong).

"""


def write_report(df: pd.DataFrame, out_dir: str | Path) -> dict[str, Any]:
    """Write the report of a results frame into a folder.

    Files: ``summary.csv`` and ``summary.md`` (one row per problem, algorithm and k), the PNG
    figures of :func:`plot_ratios`, ``report.html`` (one self-contained page: figures embedded)
    and ``report.md`` (:mod:`anonratio.bench.report.html`); when the runs are those of an
    experiment that checks a paper's findings (:mod:`anonratio.bench.report.findings`), also its
    figures and finding files (Figure 7's ``fig7_overfull.png``, ``fig7_certified.png``,
    ``observations.json`` and ``observations.md``).

    Parameters
    ----------
    df : pandas.DataFrame
        Result rows (schema columns (docs/architecture.md)).
    out_dir : str or Path

    Returns
    -------
    dict
        ``summary`` (the :func:`summarize` frame), ``algorithms`` (:func:`algorithm_summary`),
        ``exact`` (:func:`exact_outcomes`), ``runtime`` (the runtime fits), ``experiment``
        (the :class:`~anonratio.bench.report.findings.Findings` of an experiment, or ``None``)
        and under its ``key`` (Figure 7's ``observations``, ``ldiv_findings``) its own record,
        paths ``summary_csv``, ``summary_md``, ``report_html``, ``report_md``, ``plots`` (PNG
        files) and ``findings`` (finding files).
    """
    from anonratio.bench.report.findings import collect
    from anonratio.bench.report.html import ReportContent, write_pages

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    summary = summarize(df)
    csv_path = out_dir / "summary.csv"
    atomic_write(csv_path, lambda fh: summary.to_csv(fh, index=False), mode="w", newline="")
    md_path = out_dir / "summary.md"
    text = _MD_HEADER + format_table(summary, markdown=True) + "\n"
    atomic_write(md_path, lambda fh: fh.write(text), mode="w", encoding="utf-8")
    d = _prepare(df)
    sections = [_section(problem, p, out_dir) for problem, p in d.groupby("problem", sort=True)]
    plots = [
        png
        for s in sections
        for png in (s.ratio_png, s.interval_png, s.runtime_png)
        if png is not None
    ]
    found = collect(df, out_dir)  # the findings of an experiment whose runs these are
    content_extra: dict[str, Any] = {}
    findings: list[Path] = []
    if found is not None:
        pngs = [p for p in found.files if p.suffix == ".png"]
        findings = [p for p in found.files if p.suffix != ".png"]
        plots += pngs
        content_extra = {
            "findings_title": found.title,
            "verdicts": found.verdicts,
            "findings_markdown": found.markdown,
            "finding_pngs": pngs,
        }
    algorithms = algorithm_summary(df)
    content = ReportContent(
        title=f"anonratio report: {out_dir.resolve().name}",
        meta=_meta(d),
        overview=algorithms,
        problems=sections,
        files=[csv_path, md_path, *findings, *plots],
        **content_extra,
    )
    page, report_md = write_pages(content, out_dir)
    return {
        "summary": summary,
        "algorithms": algorithms,
        "exact": exact_outcomes(df),
        "runtime": runtime_fits(d),
        "experiment": found,
        "summary_csv": csv_path,
        "summary_md": md_path,
        "report_html": page,
        "report_md": report_md,
        "plots": plots,
        "findings": findings,
        **({found.key: found.data} if found is not None else {}),
    }


def _meta(d: pd.DataFrame) -> list[str]:
    lines = [
        f"{len(d)} runs, {int(d['verified'].sum())} verified; problems: "
        + ", ".join(sorted(map(str, d["problem"].dropna().unique())))
    ]
    return lines + code_lines(d)


def _section(problem: str, p: pd.DataFrame, out_dir: Path):
    from anonratio.bench.report.html import ProblemSection

    fits = runtime_fits(p).drop(columns=["problem"])
    fits["exponent"] = pd.to_numeric(fits["exponent"], errors="coerce").round(2)
    exact = exact_outcomes(p).drop(columns=["problem"])
    has_opt = bool(np.isfinite(p.loc[p["kind"] != "exact", "ratio"]).any())
    note = "" if has_opt else "No run of a non-exact algorithm has a proven optimum: certified "
    note += "" if has_opt else "ratios only (cost ÷ lower bound, an upper bound on the ratio)."
    return ProblemSection(
        problem=str(problem),
        n_label=N_LABELS.get(str(problem), "the instance size"),
        ratio_png=plot_problem_ratios(problem, p, out_dir),
        interval_png=plot_problem_intervals(problem, p, out_dir),
        interval_table=interval_table(p),
        runtime_png=plot_problem_runtime(problem, p, out_dir),
        runtime_table=fits,
        exact_table=exact,
        note=note,
    )
