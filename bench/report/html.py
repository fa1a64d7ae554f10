"""The readable report of a sweep: ``report.html`` (one self-contained page, figures embedded as
base64 PNG, no external assets) and ``report.md`` (the same sections, figures linked beside it).

Both are rendered from a :class:`ReportContent` that
:func:`anonratio.bench.report.summary.write_report` fills in; this module only lays it out.
"""

from __future__ import annotations

import base64
import html
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anonratio.bench.report.plots import AT_LIMIT
from anonratio.instances.io import atomic_write

__all__ = [
    "ReportContent",
    "ProblemSection",
    "render_html",
    "render_markdown",
    "write_pages",
    "terminal_summary",
    "code_lines",
]

_HOW_TO_READ = [
    "**ratio** = cost ÷ proven optimum: only for runs whose optimum is proven (an exact solver, "
    "a gadget with a known optimum, or a lower bound met by a verified cost).",
    "**certified ratio** = cost ÷ a valid lower bound: exists for every run and is an upper "
    "bound on the true ratio.",
    "**guarantee** = the algorithm's proven worst case; **over guarantee** counts runs whose "
    "proven ratio exceeds it (0 unless an implementation is wrong).",
    "Ratio figures: per k (or per bin of k) and algorithm a box (quartiles, black line the "
    "median, whiskers minimum and maximum) and the proven guarantee as a dashed segment in the "
    "algorithm's colour. Each algorithm has the same colour in every figure.",
    "Interval figures and tables, where some run has no proven optimum: the true ratio of such "
    "a run lies in [ratio at least, certified ratio] = [cost ÷ best-known cost, cost ÷ lower "
    "bound]; per k, n and algorithm a segment from the median of one end over the seeds to the "
    "median of the other (a dot where a ratio is proven).",
    "Runtime figures: median wall time of the verified runs against n, log-log; the exponent b "
    "of time ≈ a·n^b is a least-squares fit of log time on log n over the sizes whose median "
    f"time stays below {AT_LIMIT:.0%} of the time limit (only with ≥ 3 such n; a time at the "
    "limit measures the limit).",
]

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;max-width:1200px;
margin:2em auto;padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}
h3{font-size:1.05em;margin-top:1.4em}
table{border-collapse:collapse;font-size:.85em;margin:.6em 0}
th,td{border:1px solid #ddd;padding:.25em .55em;text-align:right}
th{background:#f3f3f3}td.l,th.l{text-align:left}
img{max-width:100%;height:auto;border:1px solid #eee}
.ok{color:#1a7f37;font-weight:600}.bad{color:#b42318;font-weight:600}
.muted{color:#666;font-size:.9em}code{background:#f5f5f5;padding:0 .2em}
nav a{margin-right:1em}
"""


@dataclass
class ProblemSection:
    """What the report shows for one problem."""

    problem: str
    n_label: str
    ratio_png: Path | None = None
    interval_png: Path | None = None
    interval_table: pd.DataFrame | None = None
    runtime_png: Path | None = None
    runtime_table: pd.DataFrame | None = None
    exact_table: pd.DataFrame | None = None
    note: str = ""


@dataclass
class ReportContent:
    """Everything a report page shows, already computed."""

    title: str
    meta: list[str]
    overview: pd.DataFrame
    problems: list[ProblemSection]
    findings_title: str = ""
    verdicts: list[tuple[str, bool]] = field(default_factory=list)
    findings_markdown: str = ""
    finding_pngs: list[Path] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)


#: code identities a report names one by one (the rest are counted)
_SHOWN_CODES = 5
_NO_CODE = "\0"  # a row without a version (sorts first among equal counts)


def code_lines(d: pd.DataFrame) -> list[str]:
    """The report lines that say which code made the rows: each ``version`` (the code identity,
    :func:`~anonratio.bench.engine.record.package_version`) with its row count, most rows first, and
    a warning when the rows come from more than one."""
    if "version" not in d.columns:
        return ["code that made the rows: not recorded (no `version` column)"]
    counts = d["version"].astype("string").fillna(_NO_CODE).value_counts(sort=False)
    counts = counts.sort_index().sort_values(ascending=False, kind="stable")

    def rows(n: int) -> str:
        return f"{n} row" + ("" if n == 1 else "s")

    parts = [
        f"{'unrecorded' if v == _NO_CODE else f'`{v}`'} ({rows(int(n))})"
        for v, n in counts.iloc[:_SHOWN_CODES].items()
    ]
    if len(counts) > _SHOWN_CODES:
        rest = counts.iloc[_SHOWN_CODES:]
        parts.append(f"{len(rest)} more ({rows(int(rest.sum()))})")
    lines = ["code that made the rows: " + ", ".join(parts)]
    if len(counts) > 1:
        lines.append(
            f"**Warning: these rows were made by {len(counts)} different versions of the code**; "
            "their ratios need not be comparable (run the sweep again with one install)"
        )
    return lines


def _cell(value) -> str:
    if value is None or value is pd.NA:
        return ""
    if isinstance(value, float | np.floating):
        if math.isnan(value):
            return ""
        return "inf" if math.isinf(value) else f"{value:.4g}"
    return str(value)


def _inline(text: str) -> str:
    """Escaped HTML of one line of the Markdown subset used here (bold, italic, code)."""
    out = html.escape(text, quote=False)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    out = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", out)
    return re.sub(r"\*([^*]+)\*", r"<em>\1</em>", out)


def _markdown_to_html(text: str) -> str:
    """Paragraphs and ``  - `` lists of Markdown text (headings dropped)."""
    parts, in_list = [], False
    for line in text.splitlines():
        if line.startswith("#") or not line.strip():
            if in_list:
                parts.append("</ul>")
                in_list = False
            continue
        if line.lstrip().startswith("- "):
            if not in_list:
                parts.append("<ul>")
                in_list = True
            parts.append(f"<li>{_inline(line.lstrip()[2:])}</li>")
        else:
            if in_list:
                parts.append("</ul>")
                in_list = False
            parts.append(f"<p>{_inline(line)}</p>")
    if in_list:
        parts.append("</ul>")
    return "\n".join(parts)


def _html_table(frame: pd.DataFrame, left=("problem", "algorithm", "kind")) -> str:
    head = "".join(
        f'<th class="{"l" if c in left else ""}">{html.escape(str(c))}</th>' for c in frame.columns
    )
    rows = []
    for rec in frame.itertuples(index=False, name=None):
        cells = "".join(
            f'<td class="{"l" if c in left else ""}">{html.escape(_cell(v))}</td>'
            for c, v in zip(frame.columns, rec, strict=True)
        )
        rows.append(f"<tr>{cells}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _md_table(frame: pd.DataFrame) -> str:
    lines = ["| " + " | ".join(map(str, frame.columns)) + " |", "|" + "---|" * len(frame.columns)]
    lines += [
        "| " + " | ".join(_cell(v) for v in rec) + " |"
        for rec in frame.itertuples(index=False, name=None)
    ]
    return "\n".join(lines)


def _img(path: Path, alt: str) -> str:
    data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
    return f'<p><img alt="{html.escape(alt)}" src="data:image/png;base64,{data}"></p>'


def _anchor(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def render_html(c: ReportContent) -> str:
    """The self-contained HTML page of a report."""
    nav = ["overview"] + (["findings"] if c.verdicts else []) + [s.problem for s in c.problems]
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{html.escape(c.title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{html.escape(c.title)}</h1>",
        "".join(f'<p class="muted">{_inline(m)}</p>' for m in c.meta),
        "<nav>" + "".join(f'<a href="#{_anchor(n)}">{html.escape(n)}</a>' for n in nav) + "</nav>",
        "<h2>How to read this report</h2><ul>",
        "".join(f"<li>{_inline(t)}</li>" for t in _HOW_TO_READ),
        "</ul>",
    ]
    if c.verdicts:
        out.append(f'<h2 id="findings">{html.escape(c.findings_title)}</h2><ul>')
        for text, holds in c.verdicts:
            cls, word = ("ok", "holds") if holds else ("bad", "does not hold")
            out.append(f'<li>{_inline(text)}: <span class="{cls}">{word}</span></li>')
        out.append("</ul>")
        out.append(_markdown_to_html(c.findings_markdown))
        out += [_img(p, p.stem) for p in c.finding_pngs]
    out.append('<h2 id="overview">Overview: one row per problem and algorithm</h2>')
    out.append(_html_table(c.overview))
    for s in c.problems:
        out.append(f'<h2 id="{_anchor(s.problem)}">{html.escape(s.problem)}</h2>')
        out.append(f'<p class="muted">n counts {html.escape(s.n_label)}. {_inline(s.note)}</p>')
        out.append("<h3>Approximation ratios</h3>")
        out.append(
            _img(s.ratio_png, f"ratios of {s.problem}")
            if s.ratio_png
            else "<p>No non-exact algorithm ran on this problem.</p>"
        )
        if s.interval_png:
            out.append("<h3>Ratio intervals (runs without a proven optimum)</h3>")
            out.append(_img(s.interval_png, f"ratio intervals of {s.problem}"))
        if s.interval_table is not None and not s.interval_table.empty:
            out.append(_html_table(s.interval_table))
        out.append("<h3>Runtime scaling</h3>")
        out.append(
            _img(s.runtime_png, f"runtime of {s.problem}")
            if s.runtime_png
            else "<p>No runtime plot: the verified runs have fewer than 2 distinct n.</p>"
        )
        if s.runtime_table is not None and not s.runtime_table.empty:
            out.append(_html_table(s.runtime_table))
        if s.exact_table is not None and not s.exact_table.empty:
            out.append("<h3>Exact solvers: outcomes</h3>")
            out.append(_html_table(s.exact_table))
    if c.files:
        out.append("<h2>Files</h2><ul>")
        out += [f"<li><code>{html.escape(p.name)}</code></li>" for p in c.files]
        out.append("</ul>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def render_markdown(c: ReportContent, base: Path) -> str:
    """The Markdown version of a report; figures are linked relative to ``base``."""

    def link(p: Path, alt: str) -> str:
        return f"![{alt}]({Path(p).relative_to(base) if Path(p).is_relative_to(base) else p})"

    out = [f"# {c.title}", "", *[f"{m}  " for m in c.meta], "", "## How to read this report", ""]
    out += [f"- {t}" for t in _HOW_TO_READ] + [""]
    if c.verdicts:
        out += [f"## {c.findings_title}", ""]
        out += [f"- {t}: **{'holds' if h else 'does not hold'}**" for t, h in c.verdicts] + [""]
        body = [ln for ln in c.findings_markdown.splitlines() if not ln.startswith("# ")]
        out += body + [""] + [link(p, p.stem) for p in c.finding_pngs] + [""]
    out += ["## Overview: one row per problem and algorithm", "", _md_table(c.overview), ""]
    for s in c.problems:
        out += [f"## {s.problem}", "", f"n counts {s.n_label}. {s.note}".strip(), ""]
        if s.ratio_png:
            out += [link(s.ratio_png, f"ratios of {s.problem}"), ""]
        if s.interval_png:
            out += [link(s.interval_png, f"ratio intervals of {s.problem}"), ""]
        if s.interval_table is not None and not s.interval_table.empty:
            out += ["Ratio intervals (runs without a proven optimum):", ""]
            out += [_md_table(s.interval_table), ""]
        if s.runtime_png:
            out += [link(s.runtime_png, f"runtime of {s.problem}"), ""]
        else:
            out += ["No runtime plot: the verified runs have fewer than 2 distinct n.", ""]
        if s.runtime_table is not None and not s.runtime_table.empty:
            out += [_md_table(s.runtime_table), ""]
        if s.exact_table is not None and not s.exact_table.empty:
            out += ["Exact solvers, outcomes:", "", _md_table(s.exact_table), ""]
    if c.files:
        out += ["## Files", ""] + [f"- `{p.name}`" for p in c.files] + [""]
    return "\n".join(out)


def write_pages(content: ReportContent, out_dir: str | Path) -> tuple[Path, Path]:
    """Write ``report.html`` and ``report.md`` into ``out_dir``; return their paths."""
    out_dir = Path(out_dir)
    page, md = out_dir / "report.html", out_dir / "report.md"
    text = render_html(content)
    atomic_write(page, lambda fh: fh.write(text), mode="w", encoding="utf-8")
    mtext = render_markdown(content, out_dir)
    atomic_write(md, lambda fh: fh.write(mtext), mode="w", encoding="utf-8")
    return page, md


def _short(value) -> str:
    return "" if value is None or not np.isfinite(value) else f"{value:.3f}"


def terminal_summary(report: dict[str, Any], width: int = 100) -> str:
    """The compact text summary of a :func:`write_report` result: one line per problem and
    algorithm (runs, verified, median and max ratio, the median ``ratio_at_least`` where no
    optimum is proven, over-guarantee count), Figure 7's verdicts when present, and where the
    report files are. Lines fit ``width`` columns."""
    a = report["algorithms"]
    head = (
        "problem",
        "algorithm",
        "runs",
        "verified",
        "median_ratio",
        "max_ratio",
        "at_least",
        "over",
    )
    rows: list[tuple[str, ...]] = []
    certified = False
    for r in a.itertuples(index=False):
        med, mx, mark = r.median_ratio, r.max_ratio, ""
        if not np.isfinite(mx) and np.isfinite(r.max_certified_ratio):
            med, mx, mark, certified = r.median_certified_ratio, r.max_certified_ratio, "*", True
        counts = (r.problem, r.algorithm, r.runs, r.verified)
        ratios = (_short(med), _short(mx))
        least = _short(r.median_ratio_at_least) if mark else ""
        over = "" if r.kind == "exact" else str(r.over_guarantee)
        rows.append((*map(str, counts), *(c + mark if c else c for c in ratios), least, over))
    widths = [max([len(h), *(len(x[i]) for x in rows)]) for i, h in enumerate(head)]
    lines = []
    for cells in [head, *rows]:
        left = [c.ljust(w) for c, w in zip(cells[:2], widths, strict=False)]
        right = [c.rjust(w) for c, w in zip(cells[2:], widths[2:], strict=True)]
        lines.append("  ".join(left + right)[:width].rstrip())
    if certified:
        lines.append("* no proven optimum: certified ratio (cost / lower bound, >= the ratio)")
        lines.append("at_least: median cost / best-known cost (<= the ratio), where no optimum")
    lines.append("over: runs whose proven ratio exceeds the guarantee (0 unless a bug)")
    found = report.get("experiment")
    if found is not None:
        lines += ["", found.summary_title, *(f"  {line}" for line in found.summary_lines)]
    lines += [
        "",
        f"report: {report['report_html']}  (one page, open in a browser)",
        f"  beside it: report.md, summary.csv (per k), {len(report['plots'])} figures (PNG)",
    ]
    return "\n".join(lines)
