"""The ``peers`` suite: anonratio's classic algorithms beside anonypy and anjana, in one run.

On the same tables (:mod:`anonratio.bench.experiments.peers_tables`: generated mixed tables of the
given sizes, and UCI Adult when ``$ANONRATIO_DATASETS`` has it) and for each ``k``, it runs our
strict Mondrian (LeFevre, DeWitt & Ramakrishnan 2006) against anonypy's, our Datafly (Sweeney 2002)
against anjana's, both with suppression limit 0, and FOREST (Aggarwal et al. 2005) beside them
(:mod:`anonratio.bench.experiments.peers_tools`). Each run is repeated ``repeat`` times, each in a
fresh process: wall time (min and median), the child's peak resident set. The first run's published
table is read back and measured the same way for every tool
(:mod:`anonratio.bench.experiments.peers_metrics`: classes, discernibility, C_avg, GCP, dropped
rows, row order), and checked by pycanon (``pycanon.anonymity.k_anonymity(df, qi) >= k``): an output
that is not k-anonymous is reported as such (``k_ok`` false), never dropped.

The tidy result (one row per table × k × tool) goes to ``OUT/peers.csv`` and the side-by-side
comparison, with the speed ratio ``peer median time / our median time``, to ``OUT/peers.md``
(both written atomically); the comparison is printed. The target (at least 5x faster at equal or
better GCP and discernibility) is reported per pair, not asserted.

Needs the ``peers`` extra (``pip install "anonratio[peers]"``), which pins pycanon and so belongs
in its own environment, as ``check`` does.

Examples
--------
::

    anonratio peers --out results/peers --sizes 1000,10000,30000 --k 5,10 --repeat 3
"""

from __future__ import annotations

import importlib.util
import os
import pickle
import statistics
import tempfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anonratio.bench.experiments.peers_metrics import published_metrics, pycanon_k, rows_aligned
from anonratio.bench.experiments.peers_tables import (
    PeerCase,
    adult_available,
    adult_case,
    generated_case,
)
from anonratio.bench.experiments.peers_tools import PEER_MODULES, TOOLS, run_in_child
from anonratio.instances.validation import check_int, check_number

__all__ = [
    "run_peers",
    "comparison",
    "comparison_markdown",
    "check_peers_installed",
    "PAIRS",
]

#: ours -> the peer it is compared with
PAIRS = {"anonratio-mondrian": "anonypy-mondrian", "anonratio-datafly": "anjana-datafly"}
#: the speed target of the issue (peer time / our time), reported per pair
TARGET_SPEEDUP = 5.0
DEFAULT_SIZES = (1000, 10000, 30000)
DEFAULT_KS = (5, 10)


def check_peers_installed() -> None:
    """Raise ``ImportError`` (one line, how to install) when a module of the extra is missing."""
    missing = [m for m in PEER_MODULES if importlib.util.find_spec(m) is None]
    if missing:
        raise ImportError(
            f'the peers suite needs {", ".join(missing)}: pip install "anonratio[peers]" '
            f"(in its own environment: it pins pycanon)"
        )


def _measure(case: PeerCase, k: int, published: pd.DataFrame) -> dict[str, Any]:
    """Metrics, row order and the pycanon check of one published table."""
    numeric, hierarchies = case.numeric, case.hierarchies
    row: dict[str, Any] = published_metrics(
        case.df, published, case.qi, k, numeric=numeric, hierarchies=hierarchies
    )
    row["row_order_kept"] = rows_aligned(
        case.df, published, case.qi, numeric=numeric, hierarchies=hierarchies
    )
    row["pycanon_k"] = pycanon_k(published, case.qi)
    row["k_ok"] = bool(row["pycanon_k"] >= k and row["dropped"] == 0)
    return row


def _run_tool(
    case: PeerCase, case_path: Path, tool: str, k: int, repeat: int, time_limit: float
) -> dict[str, Any]:
    """``repeat`` fresh-process runs of one tool; the first published table is measured."""
    out = case_path.with_name(f"{tool}-k{k}.pkl")
    family, impl = TOOLS[tool]
    row: dict[str, Any] = {"tool": tool, "family": family, "implementation": impl}
    times, peaks, deltas = [], [], []
    for _ in range(repeat):
        report = run_in_child(case_path, tool, k, out, time_limit=time_limit)
        if "error" in report:
            row.update(status="error", error=report["error"])
            break
        times.append(report["time_s"])
        peaks.append(report["peak_rss_mb"])
        deltas.append(report["delta_rss_mb"])
        row.setdefault("said", report.get("said", ""))
    if times:
        row.update(
            time_min_s=min(times),
            time_median_s=statistics.median(times),
            repeats=len(times),
            peak_rss_mb=max(peaks),
            delta_rss_mb=max(deltas),
        )
    if "error" not in row:
        with open(out, "rb") as fh:
            published = pickle.load(fh)
        row.update(_measure(case, k, published))
        row["status"] = "ok" if row["k_ok"] else "not k-anonymous"
    out.unlink(missing_ok=True)
    return row


def _cases(sizes: Sequence[int], adult: bool | None, seed: int) -> Iterable[PeerCase]:
    for n in sizes:
        yield generated_case(n, seed=seed)
    if adult or (adult is None and adult_available()):
        yield adult_case()


def run_peers(
    *,
    sizes: Sequence[int] = DEFAULT_SIZES,
    ks: Sequence[int] = DEFAULT_KS,
    repeat: int = 3,
    adult: bool | None = None,
    seed: int = 0,
    time_limit: float = 1800.0,
    tools: Sequence[str] = tuple(TOOLS),
    progress: Callable[[str], None] | None = None,
) -> pd.DataFrame:
    """Run every tool on every table and k; one row per table × k × tool.

    Parameters
    ----------
    sizes : list of int
        Records of the generated tables (>= max k each).
    ks : list of int
        Each >= 2.
    repeat : int
        Fresh-process runs per tool (>= 1).
    adult : bool or None
        Add UCI Adult: ``None`` when ``$ANONRATIO_DATASETS`` has it, ``True`` always (an error
        when missing), ``False`` never.
    seed : int
        Of the generated tables.
    time_limit : float
        Seconds per run; a run over it is killed and reported (``status`` ``error``).
    tools : list of str
        A subset of :data:`~anonratio.bench.experiments.peers_tools.TOOLS`.
    progress : callable, optional
        Called with one line per finished tool.

    Returns
    -------
    pandas.DataFrame
        Columns ``table, n, m, k, tool, family, implementation, status, time_min_s,
        time_median_s, repeats, peak_rss_mb, delta_rss_mb, rows_in, rows_out, dropped,
        row_order_kept, pycanon_k, k_ok, n_classes, min_class, all_star, discernibility, c_avg,
        gcp, error``. Time: the tools' own, about ``repeat`` × (sum of their times) plus a
        process start per run.
    """
    ks = [check_int("k", k, low=2) for k in ks]
    if not ks:
        raise ValueError("`ks` must hold at least one k, got []")
    sizes = [check_int("sizes", n, low=max(ks), low_name="max k") for n in sizes]
    repeat = check_int("repeat", repeat, low=1)
    time_limit = check_number("time_limit", time_limit, low=0, closed="neither")
    unknown = [t for t in tools if t not in TOOLS]
    if unknown:
        raise ValueError(f"`tools` must be among {sorted(TOOLS)}, got {unknown[0]!r}")
    check_peers_installed()
    rows = []
    with tempfile.TemporaryDirectory(prefix="anonratio-peers-") as tmp:
        for case in _cases(sizes, adult, seed):
            case_path = Path(tmp) / f"{case.name}-{case.n}.pkl"
            with open(case_path, "wb") as fh:
                pickle.dump(case, fh, protocol=pickle.HIGHEST_PROTOCOL)
            for k in ks:
                for tool in tools:
                    row = _run_tool(case, case_path, tool, k, repeat, time_limit)
                    row = {"table": case.name, "n": case.n, "m": len(case.qi), "k": k, **row}
                    rows.append(row)
                    if progress is not None:
                        progress(_progress_line(row))
    return _tidy(rows)


_COLUMNS = (
    "table n m k tool family implementation status time_min_s time_median_s repeats "
    "peak_rss_mb delta_rss_mb rows_in rows_out dropped row_order_kept pycanon_k k_ok n_classes "
    "min_class all_star discernibility c_avg gcp error said"
).split()


def _tidy(rows: list[dict[str, Any]]) -> pd.DataFrame:
    frame = pd.DataFrame(rows)
    for c in _COLUMNS:
        if c not in frame:
            frame[c] = np.nan if c not in ("error", "said") else ""
    frame[["error", "said"]] = frame[["error", "said"]].fillna("")
    return frame[_COLUMNS]


def _progress_line(row: dict[str, Any]) -> str:
    if row.get("status") == "error":
        return f"{row['table']} n={row['n']} k={row['k']} {row['tool']}: {row['error']}"
    return (
        f"{row['table']} n={row['n']} k={row['k']} {row['tool']}: "
        f"{row['time_median_s']:.3g} s, GCP {row['gcp']:.4f}, pycanon k={row['pycanon_k']}"
    )


def comparison(results: pd.DataFrame) -> pd.DataFrame:
    """Ours beside its peer: one row per table × k × pair, plus FOREST's own row.

    ``speedup`` is the peer's median time over ours; ``gcp_ok`` and ``dm_ok`` say our GCP and
    discernibility are at most the peer's; ``target_met`` is ``speedup >= 5`` and both, with our
    output k-anonymous (a peer output that is not still counts against the peer).
    """
    out = []
    for (table, n, k), group in results.groupby(["table", "n", "k"], sort=False):
        by_tool = {r["tool"]: r for r in group.to_dict("records")}
        for ours, peer in [*PAIRS.items(), ("anonratio-forest", None)]:
            if ours not in by_tool:
                continue
            a = by_tool[ours]
            b = by_tool.get(peer, {}) if peer else {}
            row = {"table": table, "n": n, "k": k, "family": a["family"], "peer": peer or "-"}
            for side, r in (("ours", a), ("peer", b)):
                for col in ("time_median_s", "peak_rss_mb", "gcp", "discernibility", "pycanon_k"):
                    row[f"{side}_{col}"] = r.get(col, np.nan)
                row[f"{side}_status"] = r.get("status", "-")
            row.update(_verdict(row, a, b) if b else _NO_VERDICT)
            out.append(row)
    return pd.DataFrame(out)


_NO_VERDICT = {"speedup": np.nan, "gcp_ok": np.nan, "dm_ok": np.nan, "target_met": np.nan}


def _verdict(row: dict[str, Any], a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Speed ratio and utility verdicts of ours (``a``) against a peer (``b``)."""
    t_a, t_b = float(row["ours_time_median_s"]), float(row["peer_time_median_s"])
    speedup = t_b / t_a if t_a > 0 and np.isfinite(t_b) else np.nan
    ours_ok = a.get("k_ok") is True
    peer_ok = b.get("k_ok") is True  # a peer output that is not k-anonymous loses on utility
    gcp_ok = ours_ok and (not peer_ok or row["ours_gcp"] <= row["peer_gcp"] + 1e-12)
    dm_ok = ours_ok and (not peer_ok or row["ours_discernibility"] <= row["peer_discernibility"])
    target = bool(ours_ok and speedup >= TARGET_SPEEDUP and gcp_ok and dm_ok)
    return {"speedup": speedup, "gcp_ok": gcp_ok, "dm_ok": dm_ok, "target_met": target}


def _cell(value: Any, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and not np.isfinite(value)):
        return "-"
    if isinstance(value, bool | np.bool_):
        return "yes" if value else "no"
    if isinstance(value, float | np.floating):
        return f"{value:,.0f}" if digits == 0 else f"{value:.{digits}g}"
    return str(value)


def comparison_markdown(cmp: pd.DataFrame) -> str:
    """The comparison as a Markdown table (times in seconds, peak memory in MB)."""
    head = [
        "table",
        "n",
        "k",
        "algorithm",
        "peer",
        "ours s",
        "peer s",
        "speedup",
        "ours MB",
        "peer MB",
        "ours GCP",
        "peer GCP",
        "ours DM",
        "peer DM",
        "ours k",
        "peer k",
        "target",
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in cmp.to_dict("records"):
        cells = [
            r["table"],
            r["n"],
            r["k"],
            r["family"],
            r["peer"],
            _cell(r["ours_time_median_s"]),
            _cell(r["peer_time_median_s"]),
            _cell(r["speedup"]) + ("x" if np.isfinite(r["speedup"]) else ""),
            _cell(r["ours_peak_rss_mb"]),
            _cell(r["peer_peak_rss_mb"]),
            _cell(r["ours_gcp"], 4),
            _cell(r["peer_gcp"], 4),
            _cell(r["ours_discernibility"], 0),
            _cell(r["peer_discernibility"], 0),
            _cell(r["ours_pycanon_k"]),
            _cell(r["peer_pycanon_k"]),
            _cell(r["target_met"]),
        ]
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    return "\n".join(lines)


def _atomic_write(path: Path, write: Callable[[Path], object]) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    os.close(fd)
    try:
        write(Path(tmp))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_report(results: pd.DataFrame, out: str | os.PathLike) -> tuple[Path, Path]:
    """Write ``peers.csv`` (tidy) and ``peers.md`` (comparison and notes) atomically."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    csv, md = folder / "peers.csv", folder / "peers.md"
    _atomic_write(csv, lambda p: results.to_csv(p, index=False))
    text = "# peers\n\n" + comparison_markdown(comparison(results)) + "\n\n" + _NOTES
    _atomic_write(md, lambda p: p.write_text(text, encoding="utf-8"))
    return csv, md


_NOTES = """\
Times: median wall time of the tool's call over fresh-process runs (input preparation and
imports excluded); MB: the child's peak resident set. speedup = peer time / ours. GCP: mean NCP
of the published cells (Xu et al. 2006); DM: discernibility (Bayardo & Agrawal 2005); k: what
pycanon finds. target: speedup >= 5 with GCP and DM at most the peer's.
"""
