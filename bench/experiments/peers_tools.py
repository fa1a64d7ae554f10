"""The five tools of the ``peers`` suite, each run in a fresh process for honest time and memory.

======================  =====================================================================
tool                    what is timed (input DataFrame in, published records out)
======================  =====================================================================
``anonratio-mondrian``  ``Table.from_dataframe``, :func:`anonratio.solve` (strict Mondrian,
                        LeFevre et al. 2006, then the verifier), the recoding to a DataFrame
``anonratio-datafly``   the same with Datafly (Sweeney 2002), suppression limit 0
``anonratio-forest``    the same with FOREST (Aggarwal et al. 2005)
``anonypy-mondrian``    ``anonypy.Preserver(df, qi, sensitive).anonymize_k_anonymity(k)``
``anjana-datafly``      ``anjana.anonymity.k_anonymity(df, [], qi, k, supp_level=0, hier)``
======================  =====================================================================

Input preparation (anonypy needs ``category`` dtypes, anjana string columns and its hierarchy
dicts) and turning a peer's answer into one row per record happen outside the timed region.
anonypy 0.2.1 publishes one row per (partition, sensitive value) with a ``count`` column, not
one row per record: its rows are repeated ``count`` times here, so the row count is kept but
the row order is not. anjana's ``supp_level`` is a percentage (0..100) of suppressed records;
at 0 it suppresses nothing and generalizes until the table is k-anonymous (or returns an empty
table when even the top of every hierarchy fails).

:func:`run_in_child` starts a fresh Python process per run; the child reports its own peak resident
set (``getrusage(RUSAGE_SELF).ru_maxrss``, a high-water mark) after loading the input and after
the run, and writes the published table to a pickle file.
"""

from __future__ import annotations

import contextlib
import io
import json
import pickle
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd

from anonratio.bench.experiments.peers_tables import PeerCase, anjana_hierarchies

__all__ = ["TOOLS", "PEER_MODULES", "prepare", "run_tool", "finish", "run_in_child"]

#: tool name -> (algorithm family, implementation)
TOOLS = {
    "anonratio-mondrian": ("mondrian", "anonratio"),
    "anonypy-mondrian": ("mondrian", "anonypy"),
    "anonratio-datafly": ("datafly", "anonratio"),
    "anjana-datafly": ("datafly", "anjana"),
    "anonratio-forest": ("forest", "anonratio"),
}
#: the modules the peers' extra provides
PEER_MODULES = ("anonypy", "anjana", "pycanon")


def prepare(tool: str, case: PeerCase) -> dict[str, Any]:
    """The untimed input of a tool: its DataFrame (and hierarchies) in the form it reads."""
    qi = list(case.qi)
    _import(tool)
    if tool.startswith("anonratio-"):
        return {"df": case.df, "hierarchies": dict(case.hierarchies)}
    if tool == "anonypy-mondrian":
        df = case.df.copy()
        for c in qi:
            if c not in case.numeric:
                df[c] = df[c].astype("category")
        return {"df": df}
    if tool == "anjana-datafly":
        df = case.df.copy()
        df[qi] = df[qi].astype(str)
        return {"df": df, "hierarchies": anjana_hierarchies(case)}
    raise ValueError(f"`tool` must be one of {sorted(TOOLS)}, got {tool!r}")


def _import(tool: str) -> None:
    """Import what ``tool`` runs, so that the timed region holds no import."""
    import importlib

    if tool not in TOOLS:
        return
    impl = TOOLS[tool][1]
    names = {
        "anonratio": ("anonratio.bench.api", "anonratio.bench.registry"),
        "anonypy": ("anonypy",),
        "anjana": ("anjana.anonymity",),
    }.get(impl, ())
    for name in names:
        importlib.import_module(name)
    if impl == "anonratio":
        from anonratio.bench.registry import get_algorithm

        get_algorithm(TOOLS[tool][0])


def _anonratio(inputs: dict[str, Any], case: PeerCase, k: int, algorithm: str) -> pd.DataFrame:
    from anonratio.bench.api import solve
    from anonratio.instances import KAnonymityInstance, Table
    from anonratio.instances.kanonymity.recoding import Recoding

    df = inputs["df"]
    table = Table.from_dataframe(
        df, qi=list(case.qi), sensitive=case.sensitive, hierarchies=inputs["hierarchies"]
    )
    instance = KAnonymityInstance(table, k, "generalization", row_deletion=False)
    solution = solve(instance, algorithm)
    recoded = solution.info.get("recoding")
    if recoded is None:
        if solution.labels is None:
            raise ValueError(f"{algorithm} found no partition (status {solution.status})")
        recoded = Recoding.from_partition(instance, solution.labels, method=solution.algorithm)
    return recoded.to_dataframe(frame=df)


def run_tool(tool: str, inputs: dict[str, Any], case: PeerCase, k: int) -> Any:
    """The timed call of ``tool``; returns its raw answer (see :func:`finish`)."""
    family, impl = TOOLS[tool]
    if impl == "anonratio":
        return _anonratio(inputs, case, k, family)
    if impl == "anonypy":
        import anonypy

        preserver = anonypy.Preserver(inputs["df"], list(case.qi), case.sensitive)
        return preserver.anonymize_k_anonymity(k)
    from anjana.anonymity import k_anonymity

    return k_anonymity(inputs["df"], [], list(case.qi), int(k), 0, inputs["hierarchies"])


def finish(tool: str, raw: Any, case: PeerCase) -> pd.DataFrame:
    """A raw answer as a published DataFrame, one row per published record (untimed).

    anonypy's aggregated rows (QI cells as one-element lists, ``"a-b"`` ranges or
    ``","``-joined category sets) are unwrapped and repeated by their ``count``; anjana's
    ``index`` column (added when it suppresses) is dropped.
    """
    if tool == "anonypy-mondrian":
        rows = pd.DataFrame(raw)
        if rows.empty:
            return pd.DataFrame(columns=[*case.qi, case.sensitive])
        counts = rows.pop("count").to_numpy(dtype=int)
        for c in case.qi:  # anonypy 0.2.1 wraps every QI cell in a one-element list
            rows[c] = [v[0] if isinstance(v, list) else v for v in rows[c]]
        return rows.loc[rows.index.repeat(counts)].reset_index(drop=True)
    if tool == "anjana-datafly":
        return raw.drop(columns=["index"], errors="ignore").reset_index(drop=True)
    return raw


def _max_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: KiB


def _child(case_path: str, tool: str, k: int, out_path: str) -> dict[str, Any]:
    """A fresh process's run: load, prepare, time the tool, write its published table, report."""
    try:
        with open(case_path, "rb") as fh:
            case = pickle.load(fh)
        inputs = prepare(tool, case)
        base = _max_rss_mb()
        captured = io.StringIO()  # the peers print progress lines; keep stdout for the report
        with contextlib.redirect_stdout(captured):
            t0 = time.perf_counter()
            raw = run_tool(tool, inputs, case, k)
            elapsed = time.perf_counter() - t0
        peak = _max_rss_mb()
        published = finish(tool, raw, case)
        with open(out_path, "wb") as fh:
            pickle.dump(published, fh, protocol=pickle.HIGHEST_PROTOCOL)
        said = " ".join(captured.getvalue().split())[:200]
        return {"time_s": elapsed, "peak_rss_mb": peak, "delta_rss_mb": peak - base, "said": said}
    except Exception as exc:  # reported as the run's status, never hidden
        return {"error": f"{type(exc).__name__}: {' '.join(str(exc).split())}"[:300]}


def run_in_child(
    case_path: str | Path, tool: str, k: int, out_path: str | Path, *, time_limit: float
) -> dict[str, Any]:
    """Run one tool once in a fresh Python process (``python -m
    anonratio.bench.experiments.peers_tools``).

    Returns
    -------
    dict
        ``time_s``, ``peak_rss_mb``, ``delta_rss_mb`` (peak minus the peak after loading the
        input) and ``said`` (what the tool printed), or ``error`` (``"timeout ..."`` when the
        run outlived ``time_limit`` seconds: the child is killed).
    """
    report = Path(str(out_path) + ".json")
    report.unlink(missing_ok=True)
    cmd = [sys.executable, "-m", __name__, str(case_path), tool, str(int(k)), str(out_path)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        _, err = proc.communicate(timeout=time_limit)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return {"error": f"timeout after {time_limit:g} s"}
    if proc.returncode != 0 or not report.is_file():
        last = (err or "").strip().splitlines()[-1:] or ["no message"]
        return {"error": f"the child process failed (exit code {proc.returncode}): {last[0]}"}
    return json.loads(report.read_text())


if __name__ == "__main__":  # the child of run_in_child
    _case, _tool, _k, _out = sys.argv[1:5]
    Path(_out + ".json").write_text(json.dumps(_child(_case, _tool, int(_k), _out)))
