"""The ``anonratio`` command line: list, generate, solve, run, report, anonymize.

Every reporting command takes ``--json`` and then prints one JSON document on stdout. Bad input
(an unknown name, a malformed file, a parameter out of range) ends with exit status 2 and one line
``anonratio: error: ...`` on stderr, never a traceback; a run that fails (solver error, a
solution the verifier rejects) ends with exit status 1. Set ``ANONRATIO_DEBUG=1`` to get the
traceback instead.

Examples
--------
::

    anonratio list
    anonratio generate kanon-binary --seed 1 --param n=12 --param k=3 --out inst.json
    anonratio solve inst.json --algorithm forest --json
    anonratio run quick --out results/quick
    anonratio anonymize data.csv --qi age,sex,zip --k 5 --out published.csv
"""

import argparse
import dataclasses
import importlib.util
import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

PROG = "anonratio"

__all__ = ["main", "build_parser"]


class CLIError(ValueError):
    """A user error detected by the CLI itself (exit status 2)."""


class RunFailure(RuntimeError):
    """A run that did not produce a verified answer (exit status 1)."""


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr: ``anonratio: error: ...``."""

    def error(self, message):
        sys.stderr.write(f"{PROG}: error: {' '.join(str(message).split())}\n")
        sys.exit(2)


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------
def _parse_params(items):
    """``["k=3", ...]`` -> ``{"k": "3"}``; values stay strings (coerced to the default's type)."""
    params = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise CLIError(f"`--param` must look like key=value, got {item!r}")
        params[key.strip()] = value.strip()
    return params


def _clean(value):
    """A JSON-safe version of ``value``: numpy scalars unwrapped, NaN/inf as None, paths as str."""
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    if isinstance(value, np.ndarray):
        return [_clean(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return str(value)


def _print_json(obj):
    print(json.dumps(_clean(obj), indent=2, allow_nan=False))


def _frame_records(frame):
    return [_clean(r) for r in frame.to_dict("records")]


def _fmt(value):
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return "-"
    if isinstance(value, float | np.floating):
        return f"{value:.6g}"
    return str(value)


def _print_fields(pairs):
    width = max(len(k) for k, _ in pairs)
    for key, value in pairs:
        print(f"{key.ljust(width)}  {value}")


def _status(message):
    """A progress line on stderr (stdout stays machine-readable)."""
    print(f"{PROG}: {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# list
# ---------------------------------------------------------------------------------------------
def _family_entries():
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


def cmd_list(args):
    from anonratio.bench.registry import REGISTRY
    from anonratio.bench.suites import SUITES
    from anonratio.instances import PROBLEMS

    data = {
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
    if args.json:
        _print_json(data)
        return 0
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
    return 0


# ---------------------------------------------------------------------------------------------
# generate / solve
# ---------------------------------------------------------------------------------------------
def cmd_generate(args):
    from anonratio.bench.registry import generate
    from anonratio.instances import instance_id
    from anonratio.instances.io import save_instance

    params = _parse_params(args.param)
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
        _print_json(info)
    else:
        p = ", ".join(f"{k}={v}" for k, v in instance.params.items())
        print(f"wrote {out}: {args.family} seed {args.seed}, n={instance.n}, {p}")
    return 0


def _override_params(instance, params):
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


def cmd_solve(args):
    from anonratio.bench.registry import get_algorithm
    from anonratio.bench.runner import finalize, run_instance
    from anonratio.instances.io import load_instance

    path = Path(args.file)
    instance, meta = load_instance(path)
    meta = dict(meta or {})
    params = _parse_params(args.param)
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
    row = run_instance(
        instance,
        algo.name,
        seed=args.seed,
        time_limit=args.time_limit,
        family=meta.get("family", "file"),
        meta=meta,
    )
    row = finalize(pd.DataFrame([row])).iloc[0].to_dict()
    row = {k: _clean(v) for k, v in row.items()}
    for key in ("params", "family_params", "info"):  # JSON strings in the store -> objects
        if isinstance(row.get(key), str):
            row[key] = json.loads(row[key])
    row["file"] = str(path)
    row["guarantee_text"] = algo.guarantee_text
    if args.json:
        _print_json(row)
    else:
        lb = _fmt(row.get("lower_bound"))
        if row.get("lower_bound_source"):
            lb += f" ({row['lower_bound_source']})"
        if row.get("optimum_status") == "opt":
            opt = f"{_fmt(row.get('optimum'))} (opt, proven)"
        elif row.get("optimum") is not None:
            opt = f"unknown (best verified cost {_fmt(row.get('optimum'))})"
        else:
            opt = "unknown"
        guarantee = f"{_fmt(row.get('guarantee'))}  [{algo.guarantee_text}; {algo.source}]"
        shown = ", ".join(f"{k}={v}" for k, v in instance.params.items())
        _print_fields(
            [
                ("instance", f"{path} ({instance.problem}, n={instance.n}, {shown})"),
                ("algorithm", f"{algo.name} ({algo.kind})"),
                ("status", _fmt(row.get("status"))),
                ("verified", _fmt(row.get("verified"))),
                ("cost", _fmt(row.get("cost"))),
                ("lower bound", lb),
                ("optimum", opt),
                ("ratio", _fmt(row.get("ratio"))),
                ("certified ratio", _fmt(row.get("certified_ratio"))),
                ("guarantee", guarantee),
                ("time", f"{_fmt(row.get('time_s'))} s"),
            ]
        )
    if not row.get("verified"):
        message = row.get("error") or row.get("message") or f"status {row.get('status')}"
        raise RunFailure(f"{algo.name} produced no verified solution: {message}")
    return 0


# ---------------------------------------------------------------------------------------------
# run / report
# ---------------------------------------------------------------------------------------------
#: summary rows printed by `run` and `report` (the whole table is in summary.csv)
_MAX_SUMMARY_ROWS = 60


def _summary_output(args, summary, files):
    from anonratio.bench.report import format_table

    if args.json:
        _print_json({"files": files, "summary": _frame_records(summary)})
        return
    shown = summary.head(_MAX_SUMMARY_ROWS)
    print(format_table(shown))
    if len(summary) > len(shown):
        print(f"... {len(summary) - len(shown)} more rows in {files.get('summary_csv')}")
    print()
    for path in files.values():
        if isinstance(path, list):
            for p in path:
                print(f"wrote {p}")
        else:
            print(f"wrote {path}")


def cmd_run(args):
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
    _status(f"suite {suite.name!r}: {len(tasks)} runs on {where}; results in {out}/")
    df = finalize(sweep(tasks, n_jobs=args.jobs, scheduler=args.scheduler, progress=True))
    failed = int((~df["verified"].fillna(False).astype(bool)).sum())
    if failed:
        _status(f"{failed} of {len(df)} runs gave no verified solution (see `status`, `error`)")
    files = {k: str(v) for k, v in write_results(df, out).items()}
    report = write_report(df, out)
    files.update(
        summary_csv=str(report["summary_csv"]),
        summary_md=str(report["summary_md"]),
        plots=[str(p) for p in report["plots"]],
    )
    _summary_output(args, report["summary"], files)
    return 0


def cmd_report(args):
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
    files = {
        "summary_csv": str(report["summary_csv"]),
        "summary_md": str(report["summary_md"]),
        "plots": [str(p) for p in report["plots"]],
    }
    _summary_output(args, report["summary"], files)
    return 0


# ---------------------------------------------------------------------------------------------
# anonymize
# ---------------------------------------------------------------------------------------------
#: print progress lines for tables at least this large
_BIG_TABLE = 5_000


def _detect_sep(path):
    """The separator :func:`~anonratio.instances.loaders.read_table` would sniff."""
    from anonratio.instances.loaders import sniff_separator

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(2, "No such file or directory", str(path))
    try:
        with open(path, encoding="utf-8-sig", newline="") as f:
            first = next((line for line in f if line.strip()), "")
    except UnicodeDecodeError:
        raise CLIError(f"{path}: not a UTF-8 text file") from None
    return sniff_separator(first)


def _published_min_class(published, qi, labels):
    """Smallest equivalence class of the published QI columns (deleted rows excluded)."""
    kept = published.loc[np.asarray(labels) >= 0, qi].astype(str)
    if kept.empty:
        return None
    return int(kept.groupby(qi, sort=False).size().min())


def cmd_anonymize(args):
    from anonratio.bench.registry import get_algorithm
    from anonratio.instances import KAnonymityInstance, lower_bound, verify
    from anonratio.instances.kanonymity.publish import publish
    from anonratio.instances.loaders import read_table

    qi = [c.strip() for c in args.qi.split(",") if c.strip()]
    if not qi:
        raise CLIError("`--qi` must name at least one column")
    if args.hierarchies is not None and not Path(args.hierarchies).is_dir():
        raise CLIError(f"`--hierarchies` must be a folder, got {args.hierarchies!r}")
    model = args.model or ("generalization" if args.hierarchies else "suppression")
    if model == "generalization" and not args.hierarchies:
        raise CLIError("`--model generalization` needs `--hierarchies DIR`")
    algo = get_algorithm(args.algorithm)
    if algo.problem != "k-anonymity":
        raise CLIError(f"algorithm {algo.name!r} solves {algo.problem}, not k-anonymity")
    sep = args.sep or _detect_sep(args.data)
    table = read_table(
        args.data, qi=qi, sensitive=args.sensitive, hierarchies=args.hierarchies, sep=sep
    )
    # the original rows, every column as written, to publish in the same shape
    frame = pd.read_csv(args.data, sep=sep, dtype=str, keep_default_na=False, encoding="utf-8-sig")
    instance = KAnonymityInstance(table, args.k, model=model)
    reason = algo.supports(instance)
    if reason:
        raise CLIError(f"algorithm {algo.name!r} does not support this instance: {reason}")
    big = instance.n >= _BIG_TABLE
    if big:
        _status(f"{algo.name} on {instance.n} records, {len(qi)} QI, k={args.k} ({model}) ...")
    start = time.perf_counter()
    solution = algo.run(instance, seed=args.seed, time_limit=args.time_limit)
    elapsed = time.perf_counter() - start
    if solution.labels is None:
        raise RunFailure(f"{algo.name} found no solution (status {solution.status})")
    check = verify(instance, solution)  # raises InfeasibleSolutionError when infeasible
    if big:
        _status(f"{algo.name} done in {elapsed:.1f} s; computing the lower bound ...")
    lb, lb_source = lower_bound(instance)
    if solution.lower_bound is not None and solution.lower_bound > lb:
        lb = float(solution.lower_bound)
        lb_source = (solution.info or {}).get("lower_bound_source") or f"{algo.name}-bound"
    certified = check.cost / lb if lb > 0 else (1.0 if check.cost == 0 else None)
    if big:
        _status(f"writing {args.out}")
    published = publish(instance, solution.labels, frame=frame)
    min_class = _published_min_class(published, qi, solution.labels)
    if min_class is not None and min_class < args.k:  # pragma: no cover - publish is verified
        raise RunFailure(f"the published table has a class of {min_class} < k={args.k} records")
    out = Path(args.out)
    if out.parent != Path(""):
        out.parent.mkdir(parents=True, exist_ok=True)
    published.to_csv(out, sep=sep, index=False)
    info = {
        "data": args.data,
        "out": str(out),
        "n": instance.n,
        "qi": qi,
        "k": args.k,
        "model": model,
        "algorithm": algo.name,
        "status": solution.status,
        "verified": check.feasible,
        "cost": check.cost,
        "lower_bound": lb,
        "lower_bound_source": lb_source,
        "certified_ratio": certified,
        "guarantee": algo.guarantee(instance),
        "guarantee_text": algo.guarantee_text,
        "groups": int(len(np.unique(solution.labels[solution.labels >= 0]))),
        "published_min_class": min_class,
        "time_s": elapsed,
    }
    if args.json:
        _print_json(info)
    else:
        _print_fields(
            [
                ("input", f"{args.data} ({instance.n} records, QI {', '.join(qi)})"),
                ("model", f"{model}, k={args.k}"),
                ("algorithm", f"{algo.name} ({solution.status})"),
                ("verified", f"{check.feasible} (smallest published class: {min_class})"),
                ("cost", _fmt(check.cost)),
                ("lower bound", f"{_fmt(lb)} ({lb_source})"),
                ("certified ratio", _fmt(certified)),
                ("guarantee", f"{_fmt(info['guarantee'])}  [{algo.guarantee_text}]"),
                ("time", f"{elapsed:.3g} s"),
                ("output", str(out)),
            ]
        )
    return 0


# ---------------------------------------------------------------------------------------------
# parser and entry point
# ---------------------------------------------------------------------------------------------
def _positive_float(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text!r}") from None
    if not value > 0 or not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text!r}")
    return value


def build_parser():
    """The argparse parser of the ``anonratio`` command."""
    from anonratio import __version__

    parser = _Parser(
        prog=PROG,
        description="Benchmark approximation algorithms for privacy-preserving data publishing "
        "against exact CP-SAT/ILP optima and certified lower bounds.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(name, func, help_):
        p = sub.add_parser(name, help=help_, description=help_)
        p.set_defaults(func=func)
        return p

    def add_json(p):
        p.add_argument("--json", action="store_true", help="print one JSON document")

    p = add("list", cmd_list, "list problems, instance families, algorithms and suites")
    add_json(p)

    p = add("generate", cmd_generate, "generate an instance file from a family")
    p.add_argument("family", help="instance family (see `anonratio list`)")
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--param", action="append", metavar="KEY=VALUE", help="family parameter")
    p.add_argument("--out", required=True, metavar="FILE.json")
    add_json(p)

    p = add("solve", cmd_solve, "run one algorithm on an instance file and verify it")
    p.add_argument("file", metavar="FILE.json")
    p.add_argument("--algorithm", required=True, help="registry name (see `anonratio list`)")
    p.add_argument(
        "--param", action="append", metavar="KEY=VALUE", help="override k, model, row_deletion"
    )
    p.add_argument("--time-limit", type=_positive_float, default=60.0, metavar="S")
    p.add_argument("--seed", type=int, default=0)
    add_json(p)

    p = add("run", cmd_run, "run a benchmark suite and write results, summary and plots")
    p.add_argument("suite", nargs="?", default="quick", help="suite name (default: quick)")
    p.add_argument("--out", metavar="DIR", help="output folder (default: results/<suite>)")
    p.add_argument("--jobs", type=int, default=2, help="local worker processes (default: 2)")
    p.add_argument("--scheduler", metavar="ADDR", help="Dask scheduler address")
    add_json(p)

    p = add("report", cmd_report, "summary table and plots of a results file or folder")
    p.add_argument("results", metavar="RESULTS", help="results.parquet/.csv or their folder")
    p.add_argument("--out", metavar="DIR", help="output folder (default: beside the results)")
    add_json(p)

    p = add("anonymize", cmd_anonymize, "k-anonymize a CSV file and write the published table")
    p.add_argument("data", metavar="DATA.csv")
    p.add_argument("--qi", required=True, metavar="COL,...", help="quasi-identifier columns")
    p.add_argument("--k", type=int, required=True)
    p.add_argument(
        "--hierarchies", metavar="DIR", help="ARX hierarchy files (*_hierarchy_<col>.csv)"
    )
    p.add_argument("--algorithm", default="forest", help="registry name (default: forest)")
    p.add_argument("--sensitive", metavar="COL", help="sensitive column (kept as is)")
    p.add_argument("--model", choices=("suppression", "generalization"))
    p.add_argument("--time-limit", type=_positive_float, default=60.0, metavar="S")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--sep", help="field separator (default: detected)")
    p.add_argument("--out", required=True, metavar="OUT.csv")
    add_json(p)
    return parser


def _one_line(exc):
    if isinstance(exc, OSError) and exc.filename and exc.strerror:
        text = f"{exc.strerror}: {exc.filename}"
    else:
        text = str(exc) or type(exc).__name__
    return " ".join(text.split())


def main(argv=None):
    """Run the ``anonratio`` command; returns the exit status (0 ok, 1 run failed, 2 bad input)."""
    from anonratio.instances.errors import AnonratioError, InfeasibleSolutionError

    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, usage errors (already printed)
        return exc.code if isinstance(exc.code, int) else 2
    debug = os.environ.get("ANONRATIO_DEBUG", "") not in ("", "0")
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `anonratio ... | head`: stop quietly, as other tools do
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 141
    except (RunFailure, InfeasibleSolutionError, ImportError) as exc:
        if debug:
            raise
        print(f"{PROG}: error: {_one_line(exc)}", file=sys.stderr)
        return 1
    except (ValueError, AnonratioError, OSError) as exc:
        if debug:
            raise
        print(f"{PROG}: error: {_one_line(exc)}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
