"""The ``anonratio`` commands list, generate, solve, run and report (``anonymize``:
:mod:`anonratio.bench.cli.anonymize`; the parser: :mod:`anonratio.bench.cli.parser`).

Each ``cmd_*`` takes the parsed arguments and returns the exit status; user errors raise
:class:`~anonratio.bench.cli.common.CLIError` (or ``ValueError``), failed runs
:class:`~anonratio.bench.cli.common.RunFailure`.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import json
import math
import shlex
from pathlib import Path
from typing import Any

from anonratio.bench.cli.common import (
    PROG,
    fmt,
    frame_records,
    parse_params,
    print_fields,
    print_json,
    status,
)
from anonratio.bench.errors import CLIError, RunFailure
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
    from anonratio.bench.engine.suites import SUITES
    from anonratio.bench.registry import PROBLEMS, REGISTRY

    return {
        "problems": sorted(PROBLEMS),
        "families": _family_entries(),
        "algorithms": [
            {
                "name": a.name,
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
        print(f"  {a['name'].ljust(w)}  {a['problem']}, {a['kind']}")
        print(f"  {' ' * w}  guarantee: {a['guarantee']}")
        print(f"  {' ' * w}  source: {a['source']}")
    print("\nsuites:")
    for s in data["suites"]:
        print(f"  {s['name']}: {s['description']}")


def cmd_list(args: argparse.Namespace) -> int:
    """``anonratio list [--json | --markdown]``."""
    if args.markdown:
        from anonratio.bench.report.summary import algorithms_markdown

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
        spent = record.bound_time_s
        took = "" if spent is None or math.isnan(spent) else f", bound {spent:.2g} s"
        lb += f" ({record.lower_bound_source}{took})"
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
            *_utility_lines(record),
        ]
    )


def _utility_lines(record: Any) -> list[tuple[str, str]]:
    """The ``utility`` field of a run that measured some, with its time."""
    if not record.utility:
        return []
    values = json.loads(record.utility)
    shown = ", ".join(f"{name} {fmt(value)}" for name, value in values.items())
    return [("utility", f"{shown} ({fmt(record.utility_time_s)} s)")]


def cmd_solve(args: argparse.Namespace) -> int:
    """``anonratio solve FILE.json --algorithm NAME``: the runner's verified, finalized run."""
    from anonratio.bench.engine.runner import run_and_finalize
    from anonratio.bench.engine.utility import check_utility

    instance, meta, algo = _load_for_solve(args)
    try:
        utility = check_utility(instance.problem, args.utility, "--utility")
    except ValueError as exc:
        raise CLIError(str(exc)) from None
    record = run_and_finalize(
        instance,
        algo.name,
        seed=args.seed,
        time_limit=args.time_limit,
        family=meta.get("family", "file"),
        meta=meta,
        bound=args.bound,
        utility=utility,
    )
    doc = None
    if args.json:
        row = jsonable(record.to_row())
        # JSON text in the store -> objects
        for key in ("params", "family_params", "info", "utility"):
            if isinstance(row.get(key), str):
                row[key] = json.loads(row[key])
        doc = {**row, "file": str(Path(args.file)), "guarantee_text": algo.guarantee_text}
    if not record.verified:  # with --json the record goes into the one error document
        message = record.error or f"status {record.status}"
        if not args.json:
            _print_solve(args, instance, algo, record)
        raise RunFailure(f"{algo.name} produced no verified solution: {message}", result=doc)
    if args.json:
        print_json(doc)
    else:
        _print_solve(args, instance, algo, record)
    return 0


# ---------------------------------------------------------------------------------------------
# run / report
# ---------------------------------------------------------------------------------------------
def _summary_output(args: argparse.Namespace, report: dict, files: dict) -> None:
    """The compact summary (one line per problem and algorithm, fits 100 columns) and where
    the report files are; with ``--json`` the per-k summary and every file."""
    from anonratio.bench.report.summary import terminal_summary

    if args.json:
        print_json({"files": files, "summary": frame_records(report["summary"])})
        return
    print(terminal_summary(report))


def _report_files(report: dict) -> dict[str, Any]:
    return {
        "report_html": str(report["report_html"]),
        "report_md": str(report["report_md"]),
        "summary_csv": str(report["summary_csv"]),
        "summary_md": str(report["summary_md"]),
        "plots": [str(p) for p in report["plots"]],
        "findings": [str(p) for p in report["findings"]],
    }


def _resume_command(args: argparse.Namespace, out: Path) -> str:
    """The ``anonratio run`` command line that resumes this sweep."""
    words = ["anonratio", "run", args.suite, "--out", str(out), "--jobs", str(args.jobs)]
    for flag, value in (
        ("--scheduler", args.scheduler),
        ("--time-limit", args.time_limit),
        ("--memory-limit", args.memory_limit),
    ):
        if value is not None:
            words += [flag, f"{value:g}" if isinstance(value, float) else str(value)]
    return shlex.join(words + (["--json"] if args.json else []))


def cmd_run(args: argparse.Namespace) -> int:
    """``anonratio run [SUITE] [--out DIR] [--jobs N] [--scheduler ADDR] [--time-limit S]
    [--memory-limit MB]``: a durable sweep (journaled, resumable, locked; docs in docs/cli.md)."""
    from anonratio.bench.engine._signals import NonBlockingStderr, StopRequested, stop_signals
    from anonratio.bench.engine.journal import JOURNAL, Journal, JournalLocked, check_out_dir

    suite = _checked_suite(args)
    # the tasks first: a study a family refuses leaves no output folder behind
    state: dict[str, Any] = {"tasks": _suite_tasks(suite, args)}
    out = check_out_dir(Path(args.out) if args.out else Path("results") / suite.name)
    journal = Journal(out)
    with stop_signals():
        try:
            journal.open()
        except JournalLocked as exc:
            raise CLIError(str(exc)) from None
        try:
            return _run_sweep(args, suite, out, journal, state)
        except StopRequested as exc:
            from anonratio.bench.engine._sweep import pending_tasks

            tasks = state.get("tasks", [])
            kept = len(tasks) - len(pending_tasks(tasks, journal, args.memory_limit))
            NonBlockingStderr().write(
                f"\n{PROG}: stopped by {exc.name}: {kept} of {len(tasks)} runs are recorded in "
                f"{out / JOURNAL}; to resume, run the same command again: "
                f"{_resume_command(args, out)}\n"
            )
            return exc.exit_status
        finally:
            journal.close()


def _checked_suite(args: argparse.Namespace) -> Any:
    """The suite of ``anonratio run`` (a built-in name or a study file, ``my-study.toml``, checked
    with messages naming its line), after checking ``--jobs`` and ``--scheduler``; a study's
    ``memory_limit`` is the default of ``--memory-limit``."""
    from anonratio.bench.engine.suites import get_suite

    suite = get_suite(args.suite)
    if args.memory_limit is None and suite.memory_limit is not None:
        args.memory_limit = float(suite.memory_limit)
    if args.jobs < 1:
        raise CLIError(f"`--jobs` must be a positive integer, got {args.jobs}")
    if args.scheduler and importlib.util.find_spec("distributed") is None:
        raise CLIError('`--scheduler` needs dask.distributed: pip install "dask[distributed]"')
    return suite


def _suite_tasks(suite: Any, args: argparse.Namespace) -> list:
    """The suite's tasks, with ``--time-limit`` replacing their own (refused when that makes
    two runs the same)."""
    from anonratio.bench.engine.studies import describe, first_duplicate

    tasks = suite.tasks()
    if args.time_limit is not None:
        tasks = [dataclasses.replace(t, time_limit=float(args.time_limit)) for t in tasks]
        twice = first_duplicate(tasks)
        if twice is not None:
            raise CLIError(
                f"`--time-limit` {args.time_limit:g} makes two runs of suite {suite.name!r} the "
                f"same ({describe(tasks[twice[1]])}): they differ only in their time limits"
            )
    return tasks


def _run_sweep(
    args: argparse.Namespace, suite: Any, out: Path, journal: Any, state: dict[str, Any]
) -> int:
    from anonratio.bench.engine._sweep import pending_tasks
    from anonratio.bench.engine.runner import finalize, sweep
    from anonratio.bench.engine.store import write_results
    from anonratio.bench.report.summary import write_report

    tasks = state["tasks"]
    todo = len(pending_tasks(tasks, journal, args.memory_limit))
    where = f"scheduler {args.scheduler}" if args.scheduler else f"{args.jobs} local processes"
    status(f"suite {suite.name!r}: {len(tasks)} runs on {where}; results in {out}/")
    if todo < len(tasks):
        status(f"resuming: {len(tasks) - todo} runs already recorded in {journal.path}")
    df = sweep(
        tasks,
        n_jobs=args.jobs,
        scheduler=args.scheduler,
        progress=True,
        memory_limit_mb=args.memory_limit,
        journal=journal,
    )
    df = finalize(df)
    failed = int((~df["verified"].fillna(False).astype(bool)).sum())
    if failed:
        status(f"{failed} of {len(df)} runs gave no verified solution (see `status`, `error`)")
    files = {k: str(v) for k, v in write_results(df, out).items()}
    files["journal"] = str(journal.path)
    report = write_report(df, out)
    files.update(_report_files(report))
    _summary_output(args, report, files)
    return 0


def _unfinished_sweep(src: Path) -> None:
    """``CLIError`` for a folder without results whose journal says a sweep wrote to it."""
    from anonratio.bench.engine.journal import JOURNAL, Journal, sweep_holder

    if not (src.is_dir() and (src / JOURNAL).is_file()):
        return
    n = len(Journal(src).load())
    runs = f"its {JOURNAL} records {n} finished run{'' if n == 1 else 's'}"
    pid = sweep_holder(src)
    if pid is not None:
        who = f" (process {pid})" if pid else ""
        raise CLIError(
            f"{src}: no results yet: a sweep is still writing to it{who}; {runs}; report it "
            "when the sweep has finished"
        )
    raise CLIError(
        f"{src}: no results yet: {runs} of a sweep that stopped before the end; run the same "
        f"`{PROG} run SUITE --out {src}` command again: it resumes from the journal, runs the "
        "rest and writes the results"
    )


def cmd_report(args: argparse.Namespace) -> int:
    """``anonratio report RESULTS [--out DIR]``."""
    from anonratio.bench.engine.store import read_results
    from anonratio.bench.report.summary import write_report

    src = Path(args.results)
    if not src.exists():
        raise FileNotFoundError(2, "No such file or directory", str(src))
    try:
        df = read_results(src)
    except FileNotFoundError:
        _unfinished_sweep(src)
        raise
    if not df["algorithm"].notna().any():
        raise CLIError(
            f"{src}: no result rows (a results file has the columns problem, algorithm, ...)"
        )
    out = Path(args.out) if args.out else (src if src.is_dir() else src.parent)
    report = write_report(df, out)
    _summary_output(args, report, _report_files(report))
    return 0
