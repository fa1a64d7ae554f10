"""An offline view of the asv history: one figure per benchmark across commits, and a page.

``asv publish`` writes a site whose pages load jQuery, flot and bootstrap from CDNs, blank
offline. This reads asv's own result files (``results_dir`` of ``asv.conf.json``, one JSON file
per commit and environment under a folder per machine) and writes, with matplotlib, one PNG per
benchmark (a line per parameter combination and environment, the commits in commit-date order)
and ``index.html``, a page without scripts that lists each benchmark's last two values and shows
its figure::

    python -m anonratio.bench.tracking.asv_history                       # .asv/results ->
    .asv/history python -m anonratio.bench.tracking.asv_history --bench track_ratio_  # the ratio
    benchmarks only

Every file is written through a temporary file and a rename.
"""

from __future__ import annotations

import argparse
import html
import itertools
import json
import math
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from anonratio.bench.report.plots import new_figure, slug
from anonratio.instances.io import atomic_write

#: asv's result columns this reads (``result_columns`` of a result file)
RESULT, PARAMS = "result", "params"


@dataclass
class Series:
    """One benchmark's values: (commit, environment, parameter combination) -> value."""

    unit: str = ""
    param_names: list[str] = field(default_factory=list)
    values: dict[tuple[str, str, str], float] = field(default_factory=dict)
    #: the parameter combinations in asv's order (the order of the legend)
    combos: list[str] = field(default_factory=list)


@dataclass
class History:
    """The commits (hash -> commit date, ms) and the benchmarks' series, by benchmark name."""

    commits: dict[str, int] = field(default_factory=dict)
    benchmarks: dict[str, Series] = field(default_factory=dict)

    def ordered_commits(self) -> list[str]:
        """The commits in commit-date order (then by hash)."""
        return sorted(self.commits, key=lambda c: (self.commits[c], c))


def _combinations(params: list[list[str]], names: list[str]) -> list[str]:
    """asv's flat order of a benchmark's results, the product of its parameter lists, as text
    (``records=20000``; ``stat='worst'``)."""
    if not params:
        return [""]
    names = names if len(names) == len(params) else [f"p{i}" for i in range(len(params))]
    return [
        ", ".join(f"{n}={v}" for n, v in zip(names, combo, strict=True))
        for combo in itertools.product(*params)
    ]


def load_history(results_dir: str | Path, pattern: str | None = None) -> History:
    """Read every asv result file under ``results_dir`` (benchmarks matching ``pattern``).

    Raises
    ------
    FileNotFoundError
        If ``results_dir`` is not a folder.
    """
    root = Path(results_dir)
    if not root.is_dir():
        raise FileNotFoundError(f"--results: {str(root)!r} is not a folder of asv results")
    described: dict[str, dict] = {}
    if (root / "benchmarks.json").is_file():
        described = json.loads((root / "benchmarks.json").read_text())
    history = History()
    regex = re.compile(pattern) if pattern else None
    for path in sorted(root.glob("*/*.json")):
        if path.name == "machine.json":
            continue
        data = json.loads(path.read_text())
        columns = data.get("result_columns", [])
        if RESULT not in columns or "commit_hash" not in data:
            continue
        commit, env = data["commit_hash"], f"{path.parent.name}/{data.get('env_name', '')}"
        history.commits.setdefault(commit, int(data.get("date") or 0))
        for name, row in data.get("results", {}).items():
            if regex and not regex.search(name):
                continue
            record = dict(zip(columns, row, strict=False))
            result = record.get(RESULT)
            if result is None:
                continue
            about = described.get(name)
            if not isinstance(about, dict):
                about = {}
            series = history.benchmarks.setdefault(
                name, Series(unit=about.get("unit", ""), param_names=about.get("param_names", []))
            )
            combos = _combinations(record.get(PARAMS) or [], series.param_names)
            for combo, value in zip(combos, result, strict=False):
                if combo not in series.combos:
                    series.combos.append(combo)
                if isinstance(value, (int, float)) and math.isfinite(value):
                    series.values[(commit, env, combo)] = float(value)
    return history


def _unit(name: str, unit: str) -> tuple[str, float]:
    """The axis label and scale of a benchmark's values (bytes shown in MB)."""
    kind = name.rsplit(".", 1)[-1].split("_", 1)[0]
    if kind in ("peakmem", "mem"):
        return "peak memory (MB)", 1e-6
    if kind in ("time", "timeraw"):
        return "seconds", 1.0
    if "track_certified_ratio_" in name:
        return "cost / best lower bound\n(bigger is worse)", 1.0
    if "track_ratio_" in name:
        return "cost / reference optimum\n(bigger is worse)", 1.0
    return (f"{unit}\n(bigger is worse)" if unit == "ratio" else unit or "value"), 1.0


def plot_benchmark(name: str, series: Series, commits: list[str], path: Path) -> Path:
    """One benchmark across ``commits``: a line per environment and parameter combination."""
    label, scale = _unit(name, series.unit)
    index = {c: i for i, c in enumerate(commits)}
    lines: dict[tuple[str, str], list[tuple[int, float]]] = {}
    for (commit, env, combo), value in series.values.items():
        lines.setdefault((env, combo), []).append((index[commit], value * scale))
    envs = {env for env, _ in lines}
    fig = new_figure(max(5.0, 1.0 + 0.45 * len(commits)), 3.2)
    ax = fig.add_subplot()
    rank = {combo: i for i, combo in enumerate(series.combos)}
    for (env, combo), points in sorted(lines.items(), key=lambda kv: (rank[kv[0][1]], kv[0][0])):
        xs, ys = zip(*sorted(points), strict=True)
        text = combo or "value"
        ax.plot(xs, ys, "o-", label=f"{text} [{env}]" if len(envs) > 1 else text)
    ax.set_xticks(range(len(commits)), [c[:8] for c in commits], rotation=45, ha="right")
    ax.set_xlabel("commit (commit-date order)")
    ax.set_ylabel(label)
    ax.set_title(name, fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    return atomic_write(path, lambda fh: fig.savefig(fh, format="png"))


def _last_two(series: Series, commits: list[str]) -> tuple[str, str]:
    """The values of the last two commits that have any, as text (``combo: value``)."""
    texts = []
    for commit in reversed(commits):
        found = sorted((k[2], v) for k, v in series.values.items() if k[0] == commit)
        if found:
            texts.append(f"{commit[:8]}: " + "; ".join(f"{c or 'value'} {v:.6g}" for c, v in found))
        if len(texts) == 2:
            break
    return (texts + ["", ""])[0], (texts + ["", ""])[1]


def write_history(history: History, out_dir: str | Path) -> Path:
    """Write a PNG per benchmark and ``index.html`` into ``out_dir``; the page's path."""
    out = Path(out_dir)
    commits = history.ordered_commits()
    rows = []
    for name in sorted(history.benchmarks):
        series = history.benchmarks[name]
        png = plot_benchmark(name, series, commits, out / f"{slug(name)}.png")
        last, before = _last_two(series, commits)
        cells = [name, series.unit, last, before]
        rows.append(
            "<tr>"
            + "".join(f"<td>{html.escape(c)}</td>" for c in cells)
            + f'<td><img src="{html.escape(png.name)}" height="240"></td></tr>'
        )
    page = (
        '<!doctype html><html><head><meta charset="utf-8"><title>asv history</title>'
        "<style>body{font-family:sans-serif}td{vertical-align:top;font-size:12px}</style>"
        f"</head><body><h1>asv history</h1><p>{len(history.benchmarks)} benchmarks, "
        f"{len(commits)} commits, oldest first: {html.escape(' '.join(c[:8] for c in commits))}"
        "</p><table><tr><th>benchmark</th><th>unit</th><th>last</th><th>before</th>"
        f"<th>history</th></tr>{''.join(rows)}</table></body></html>\n"
    )
    return atomic_write(out / "index.html", lambda fh: fh.write(page), mode="w", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    """``python -m anonratio.bench.tracking.asv_history``: exit 0, or 2 on bad input (one line)."""
    parser = argparse.ArgumentParser(prog="python -m anonratio.bench.tracking.asv_history")
    parser.add_argument("--results", default=".asv/results", help="asv's results_dir")
    parser.add_argument("--out", default=".asv/history", help="folder of the PNGs and page")
    parser.add_argument("--bench", default=None, help="regular expression on benchmark names")
    args = parser.parse_args(argv)
    try:
        if args.bench:
            re.compile(args.bench)
    except re.error as exc:
        print(f"error: --bench: {args.bench!r} is not a regular expression: {exc}", file=sys.stderr)
        return 2
    try:
        history = load_history(args.results, args.bench)
    except (FileNotFoundError, json.JSONDecodeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not history.benchmarks:
        print(f"error: --results {args.results!r} holds no asv result to show", file=sys.stderr)
        return 2
    page = write_history(history, args.out)
    print(f"{len(history.benchmarks)} benchmarks over {len(history.commits)} commits: {page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
