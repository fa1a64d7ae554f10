"""The ``anonratio`` commands list, generate, solve, run and report (``anonymize``:
:mod:`anonratio.bench.cli_anonymize`; the parser: :mod:`anonratio.bench.cli`).

Each ``cmd_*`` takes the parsed arguments and returns the exit status; user errors raise
:class:`~anonratio.bench.cli_common.CLIError` (or ``ValueError``), failed runs
:class:`~anonratio.bench.cli_common.RunFailure`.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import json
import math
from pathlib import Path
from typing import Any

import pandas as pd
from anonratio.bench.cli_common import (
    CLIError,
    RunFailure,
    fmt,
    frame_records,
    parse_params,
    print_fields,
    print_json,
    status,
)
from anonratio.instances.io import jsonable

__all__ = ["cmd_list", "cmd_generate", "cmd_solve", "cmd_run", "cmd_report"]


# ---------------------------------------------------------------------------------------------
# list
# ---------------------------------------------------------------------------------------------
def _family_entries() -> list[dict[str, Any]]:
    from anonratio.bench.registry import FAMILIES

    out = []
    for name, fam in FAMILIES.items():
        entry = {"name": name}
        for attr in ("problem", "description", "params", "defaults"):
            value = fam.get(attr) if isinstance(fam, dict) else getattr(fam, attr, None)
            if value is not None and not callable(value):
                entry[attr] = value
        out.append(entry)
    return out


def _list_data() -> dict[str, Any]:
    from anonratio.bench.registry import REGISTRY
    from anonratio.bench.suites import SUITES
    from anonratio.instances import PROBLEMS

    return {
        "problems": sorted(PROBLEMS),
        "families": _family_entries(),
        "algorithms": [
            {
                "name": a.name,
                "aliases": list(a.aliases),
                "problem": a.problem,
                "kind": a.kind,
                "guarantee": a.guarantee_text,
                "source": a.source,
                "complexity": a.complexity,
            }
            for a in REGISTRY.values()
        ],
        "suites": [{"name": s.name, "description": s.description} for s in SUITES.values()],
    }


def _print_list(data: dict[str, Any]) -> None:
    print("problems:")
    for p in data["problems"]:
        print(f"  {p}")
    print("\ninstance families:")
    for f in data["families"]:
        print(f"  {f['name']}" + (f" ({f['problem']})" if "problem" in f else ""))
        if "description" in f:
            print(f"      {f['description']}")
        if f.get("defaults"):
            print("      defaults: " + ", ".join(f"{k}={v}" for k, v in f["defaults"].items()))
    print("\nalgorithms:")
    w = max(len(a["name"]) for a in data["algorithms"])
    for a in data["algorithms"]:
        aliases = f" (alias {', '.join(a['aliases'])})" if a["aliases"] else ""
        print(f"  {a['name'].ljust(w)}  {a['problem']}, {a['kind']}{aliases}")
        print(f"  {' ' * w}  guarantee: {a['guarantee']}")
        print(f"  {' ' * w}  source: {a['source']}")
    print("\nsuites:")
    for s in data["suites"]:
        print(f"  {s['name']}: {s['description']}")


def cmd_list(args: argparse.Namespace) -> int:
    """``anonratio list [--json | --markdown]``."""
    if args.markdown:
        from anonratio.bench.report import algorithms_markdown

        print(algorithms_markdown())
        return 0
    data = _list_data()
    if args.json:
        print_json(data)
    else:
        _print_list(data)
    return 0


# ---------------------------------------------------------------------------------------------
# generate
# ---------------------------------------------------------------------------------------------
def cmd_generate(args: argparse.Namespace) -> int:
    """``anonratio generate FAMILY --seed S [--param K=V ...] --out FILE.json``."""
    from anonratio.bench.registry import generate
    from anonratio.instances import instance_id
    from anonratio.instances.io import save_instance

    params = parse_params(args.param)
    instance, meta = generate(args.family, seed=args.seed, **params)
    out = Path(args.out)
    if out.parent != Path(""):
        out.parent.mkdir(parents=True, exist_ok=True)
    save_instance(out, instance, meta=meta)
    info = {
        "path": str(out),
        "family": args.family,
        "seed": args.seed,
        "problem": instance.problem,
        "instance": instance_id(instance),
        "n": instance.n,
        "params": instance.params,
        "optimum": meta.get("optimum"),
    }
    if args.json:
        print_json(info)
    else:
        p = ", ".join(f"{k}={v}" for k, v in instance.params.items())
        print(f"wrote {out}: {args.family} seed {args.seed}, n={instance.n}, {p}")
    return 0


# ---------------------------------------------------------------------------------------------
# solve
# ---------------------------------------------------------------------------------------------
def _override_params(instance: Any, params: dict[str, str]) -> Any:
    """Rebuild the instance with new problem parameters (validated by its constructor)."""
    from anonratio.bench.registry import coerce_param

    current = dict(instance.params)
    unknown = sorted(set(params) - set(current))
    if unknown:
        raise CLIError(
            f"unknown parameter {unknown[0]!r} for {instance.problem}; known: {sorted(current)}"
        )
    new = {key: coerce_param(key, value, current[key]) for key, value in params.items()}
    return dataclasses.replace(instance, **new)


def _load_for_solve(args: argparse.Namespace) -> tuple[Any, dict, Any]:
    """``(instance, meta, algorithm)`` of ``anonratio solve``, checked against each other."""
    from anonratio.bench.registry import get_algorithm
    from anonratio.instances.io import load_instance

    instance, meta = load_instance(Path(args.file))
    meta = dict(meta or {})
    params = parse_params(args.param)
    if params:
        new = _override_params(instance, params)
        if new.params != instance.params:
            # the file's reference optimum belongs to the old parameters
            meta.pop("optimum", None)
        instance = new
    algo = get_algorithm(args.algorithm)
    if algo.problem != instance.problem:
        raise CLIError(
            f"algorithm {algo.name!r} solves {algo.problem}, the instance is {instance.problem}"
        )
    reason = algo.supports(instance)
    if reason:
        raise CLIError(f"algorithm {algo.name!r} does not support this instance: {reason}")
    return instance, meta, algo


def _print_solve(args: argparse.Namespace, instance: Any, algo: Any, record: Any) -> None:
    lb = fmt(record.lower_bound)
    if record.lower_bound_source:
        lb += f" ({record.lower_bound_source})"
    if record.optimum_status == "opt":
        opt = f"{fmt(record.optimum)} (opt, proven)"
    elif not math.isnan(record.optimum):
        opt = f"unknown (best verified cost {fmt(record.optimum)})"
    else:
        opt = "unknown"
    guarantee = f"{fmt(record.guarantee)}  [{algo.guarantee_text}; {algo.source}]"
    shown = ", ".join(f"{k}={v}" for k, v in instance.params.items())
    print_fields(
        [
            ("instance", f"{Path(args.file)} ({instance.problem}, n={instance.n}, {shown})"),
            ("algorithm", f"{algo.name} ({algo.kind})"),
            ("status", fmt(record.status)),
            ("verified", fmt(record.verified)),
            ("cost", fmt(record.cost)),
            ("lower bound", lb),
            ("optimum", opt),
            ("ratio", fmt(record.ratio)),
            ("certified ratio", fmt(record.certified_ratio)),
            ("guarantee", guarantee),
            ("time", f"{fmt(record.time_s)} s"),
        ]
    )


def cmd_solve(args: argparse.Namespace) -> int:
    """``anonratio solve FILE.json --algorithm NAME``: the runner's verified, finalized run."""
    from anonratio.bench.runner import run_and_finalize

    instance, meta, algo = _load_for_solve(args)
    record = run_and_finalize(
        instance,
        algo.name,
        seed=args.seed,
        time_limit=args.time_limit,
        family=meta.get("family", "file"),
        meta=meta,
    )
    if args.json:
        row = jsonable(record.to_row())
        for key in ("params", "family_params", "info"):  # JSON text in the store -> objects
            if isinstance(row.get(key), str):
                row[key] = json.loads(row[key])
        print_json({**row, "file": str(Path(args.file)), "guarantee_text": algo.guarantee_text})
    else:
        _print_solve(args, instance, algo, record)
    if not record.verified:
        message = record.error or f"status {record.status}"
        raise RunFailure(f"{algo.name} produced no verified solution: {message}")
    return 0


# ---------------------------------------------------------------------------------------------
# run / report
# ---------------------------------------------------------------------------------------------
#: summary rows printed by `run` and `report` (the whole table is in summary.csv)
_MAX_SUMMARY_ROWS = 60


def _summary_output(args: argparse.Namespace, summary: pd.DataFrame, files: dict) -> None:
    from anonratio.bench.report import format_table

    if args.json:
        print_json({"files": files, "summary": frame_records(summary)})
        return
    shown = summary.head(_MAX_SUMMARY_ROWS)
    print(format_table(shown))
    if len(summary) > len(shown):
        print(f"... {len(summary) - len(shown)} more rows in {files.get('summary_csv')}")
    print()
    for path in files.values():
        for p in path if isinstance(path, list) else [path]:
            print(f"wrote {p}")


def _report_files(report: dict) -> dict[str, Any]:
    return {
        "summary_csv": str(report["summary_csv"]),
        "summary_md": str(report["summary_md"]),
        "plots": [str(p) for p in report["plots"]],
    }


def cmd_run(args: argparse.Namespace) -> int:
    """``anonratio run [SUITE] [--out DIR] [--jobs N] [--scheduler ADDR]``."""
    from anonratio.bench.report import write_report
    from anonratio.bench.runner import finalize, sweep
    from anonratio.bench.store import write_results
    from anonratio.bench.suites import get_suite

    suite = get_suite(args.suite)
    if args.jobs < 1:
        raise CLIError(f"`--jobs` must be a positive integer, got {args.jobs}")
    if args.scheduler and importlib.util.find_spec("distributed") is None:
        raise CLIError('`--scheduler` needs dask.distributed: pip install "dask[distributed]"')
    out = Path(args.out) if args.out else Path("results") / suite.name
    tasks = suite.tasks()
    where = f"scheduler {args.scheduler}" if args.scheduler else f"{args.jobs} local processes"
    status(f"suite {suite.name!r}: {len(tasks)} runs on {where}; results in {out}/")
    df = finalize(sweep(tasks, n_jobs=args.jobs, scheduler=args.scheduler, progress=True))
    failed = int((~df["verified"].fillna(False).astype(bool)).sum())
    if failed:
        status(f"{failed} of {len(df)} runs gave no verified solution (see `status`, `error`)")
    files = {k: str(v) for k, v in write_results(df, out).items()}
    report = write_report(df, out)
    files.update(_report_files(report))
    _summary_output(args, report["summary"], files)
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    """``anonratio report RESULTS [--out DIR]``."""
    from anonratio.bench.report import write_report
    from anonratio.bench.store import read_results

    src = Path(args.results)
    if not src.exists():
        raise FileNotFoundError(2, "No such file or directory", str(src))
    df = read_results(src)
    if not df["algorithm"].notna().any():
        raise CLIError(
            f"{src}: no result rows (a results file has the columns problem, algorithm, ...)"
        )
    out = Path(args.out) if args.out else (src if src.is_dir() else src.parent)
    report = write_report(df, out)
    _summary_output(args, report["summary"], _report_files(report))
    return 0
