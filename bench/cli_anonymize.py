"""``anonratio anonymize``: k-anonymize a CSV file and write the published table.

The run goes through the runner like every other (:func:`~anonratio.bench.runner.run_and_finalize`:
run, verify, lower bound, ratio); this module reads the table, checks the options and publishes
the verified partition in the input's shape (same rows, columns and separator).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from anonratio.bench.cli_common import CLIError, RunFailure, fmt, print_fields, print_json, status

__all__ = ["cmd_anonymize"]

#: print progress lines for tables at least this large
_BIG_TABLE = 5_000


def _detect_sep(path: str | Path) -> str:
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


def _published_min_class(published: pd.DataFrame, qi: list[str], labels: np.ndarray) -> int | None:
    """Smallest equivalence class of the published QI columns (deleted rows excluded)."""
    kept = published.loc[np.asarray(labels) >= 0, qi].astype(str)
    if kept.empty:
        return None
    return int(kept.groupby(qi, sort=False).size().min())


def _options(args: argparse.Namespace) -> tuple[list[str], str, Any]:
    """``(qi, model, algorithm)`` of the command line, checked."""
    from anonratio.bench.registry import get_algorithm

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
    return qi, model, algo


def _read_instance(
    args: argparse.Namespace, qi: list[str], model: str, algo: Any
) -> tuple[Any, pd.DataFrame, str]:
    """``(instance, the rows as written, separator)`` of the input file."""
    from anonratio.instances import KAnonymityInstance
    from anonratio.instances.loaders import read_table

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
    return instance, frame, sep


def _publish(
    args: argparse.Namespace,
    qi: list[str],
    instance: Any,
    labels: np.ndarray,
    frame: pd.DataFrame,
    sep: str,
) -> tuple[Path, int | None]:
    """Write the published table; ``(path, smallest published class)``."""
    from anonratio.instances.kanonymity.publish import publish

    published = publish(instance, labels, frame=frame)
    min_class = _published_min_class(published, qi, labels)
    if min_class is not None and min_class < args.k:  # pragma: no cover - publish is verified
        raise RunFailure(f"the published table has a class of {min_class} < k={args.k} records")
    out = Path(args.out)
    if out.parent != Path(""):
        out.parent.mkdir(parents=True, exist_ok=True)
    published.to_csv(out, sep=sep, index=False)
    return out, min_class


def _run(args: argparse.Namespace, instance: Any, algo: Any, model: str, n_qi: int) -> Any:
    """The runner's verified, finalized record of the run (``RunFailure`` without one)."""
    from anonratio.bench.runner import run_and_finalize

    big = instance.n >= _BIG_TABLE
    if big:
        status(f"{algo.name} on {instance.n} records, {n_qi} QI, k={args.k} ({model}) ...")
    record = run_and_finalize(instance, algo.name, seed=args.seed, time_limit=args.time_limit)
    if record.solution is None or record.solution.labels is None:
        reason = record.error or f"status {record.status}"
        raise RunFailure(f"{algo.name} found no solution ({reason})")
    if not record.verified:
        raise RunFailure(f"{algo.name} produced no verified solution: {record.error}")
    if big:
        status(f"{algo.name} done in {record.time_s:.1f} s; writing {args.out}")
    return record


def _print_text(args: argparse.Namespace, info: dict[str, Any]) -> None:
    print_fields(
        [
            ("input", f"{args.data} ({info['n']} records, QI {', '.join(info['qi'])})"),
            ("model", f"{info['model']}, k={args.k}"),
            ("algorithm", f"{info['algorithm']} ({info['status']})"),
            (
                "verified",
                f"{info['verified']} (smallest published class: {info['published_min_class']})",
            ),
            ("cost", fmt(info["cost"])),
            ("lower bound", f"{fmt(info['lower_bound'])} ({info['lower_bound_source']})"),
            ("certified ratio", fmt(info["certified_ratio"])),
            ("guarantee", f"{fmt(info['guarantee'])}  [{info['guarantee_text']}]"),
            ("time", f"{info['time_s']:.3g} s"),
            ("output", info["out"]),
        ]
    )


def cmd_anonymize(args: argparse.Namespace) -> int:
    """``anonratio anonymize DATA.csv --qi COLS --k K --out OUT.csv``."""
    qi, model, algo = _options(args)
    instance, frame, sep = _read_instance(args, qi, model, algo)
    record = _run(args, instance, algo, model, len(qi))
    labels = record.solution.labels
    out, min_class = _publish(args, qi, instance, labels, frame, sep)
    info = {
        "data": args.data,
        "out": str(out),
        "n": instance.n,
        "qi": qi,
        "k": args.k,
        "model": model,
        "algorithm": algo.name,
        "status": record.status,
        "verified": record.verified,
        "cost": record.cost,
        "lower_bound": record.lower_bound,
        "lower_bound_source": record.lower_bound_source,
        "certified_ratio": record.certified_ratio,
        "guarantee": record.guarantee,
        "guarantee_text": algo.guarantee_text,
        "groups": int(len(np.unique(labels[labels >= 0]))),
        "published_min_class": min_class,
        "time_s": record.time_s,
    }
    if args.json:
        print_json(info)
    else:
        _print_text(args, info)
    return 0
