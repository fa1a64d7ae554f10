"""``anonratio anonymize --l L --sensitive COL``: publish an l-diverse table by suppression.

The QI columns and the sensitive column of a CSV file become an l-diversity instance
(:class:`~anonratio.instances.ldiversity.LDiversityInstance`, star minimization); an algorithm of
the problem (default ``tp-plus``) runs through the runner (run, verify, lower bound, ratio); each
group's non-constant QI cells become ``*`` (:func:`anonratio.instances.ldiversity.publish.publish`)
and the output is checked from its own cells — the same rows and columns, every published QI class
l-eligible in the sensitive column — before it is written atomically, never over an input.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from anonratio.bench.cli_common import CLIError, RunFailure, fmt, print_fields, print_json
from anonratio.bench.cli_publish import check_out, run_verified, write_published

__all__ = ["cmd_anonymize_ldiversity"]


def _instance(args: argparse.Namespace, qi: list[str], algo: Any) -> tuple[Any, Any]:
    from anonratio.instances.ldiversity import LDiversityInstance
    from anonratio.instances.loaders import read_csv_table, table_from_csv

    if args.l is None:
        raise CLIError(f"algorithm {algo.name!r} solves l-diversity: give `--l L`")
    if algo.problem != "l-diversity":
        raise CLIError(f"algorithm {algo.name!r} solves {algo.problem}, not l-diversity")
    if args.sensitive is None:
        raise CLIError("`--l` needs `--sensitive COL`, the column whose values must be diverse")
    if args.hierarchies is not None or args.model not in (None, "suppression"):
        raise CLIError("l-diversity publishes by suppression: drop `--hierarchies` / `--model`")
    data = read_csv_table(args.data, sep=args.sep)
    check_out(Path(args.out), [data.path])
    table = table_from_csv(data, qi=qi, sensitive=args.sensitive)
    instance = LDiversityInstance(table, args.l)
    reason = algo.supports(instance)
    if reason:
        raise CLIError(f"algorithm {algo.name!r} does not support this instance: {reason}")
    return instance, data


def _write(args: argparse.Namespace, qi: list[str], data: Any, instance: Any, record: Any):
    from anonratio.instances.ldiversity.publish import publish, published_diversity

    published = publish(instance, record.solution.labels, frame=data.frame)
    if list(published.columns) != list(data.frame.columns) or len(published) != len(data.frame):
        raise RunFailure("the published table does not have the input's rows and columns")
    smallest, diversity = published_diversity(published, qi, args.sensitive)
    if diversity < args.l:  # pragma: no cover - the verifier checked every group
        raise RunFailure(f"a published class is only {diversity}-diverse, not {args.l}")
    out = write_published(published, args.out, data, neutralize=args.neutralize_formulas)
    return out, smallest, diversity


def _utility(instance: Any, labels: Any) -> dict[str, float]:
    """The utility metrics of the published table: a local recoding by suppression."""
    from types import SimpleNamespace

    from anonratio.instances import Hierarchy
    from anonratio.instances.kanonymity.metrics import utility
    from anonratio.instances.kanonymity.recoding import Recoding

    table = instance.table
    view = SimpleNamespace(table=table, hierarchies=tuple(map(Hierarchy.suppression, table.values)))
    return utility(Recoding.from_partition(view, labels, method="suppression"))


def cmd_anonymize_ldiversity(args: argparse.Namespace, qi: list[str], algo: Any) -> int:
    """Publish ``args.data`` l-diverse by suppression with ``algo``."""
    instance, data = _instance(args, qi, algo)
    record = run_verified(args, instance, algo, f"l-diversity, l={args.l}", len(qi))
    out, smallest, diversity = _write(args, qi, data, instance, record)
    columns = record.solution and record.solution.info
    metrics = _utility(instance, record.solution.labels)
    info = {
        "data": args.data,
        "out": str(out),
        "n": instance.n,
        "qi": qi,
        "sensitive": args.sensitive,
        "l": args.l,
        "algorithm": algo.name,
        "status": record.status,
        "verified": record.verified,
        "cost": record.cost,
        "stars": record.cost,
        "lower_bound": record.lower_bound,
        "lower_bound_source": record.lower_bound_source,
        "certified_ratio": record.certified_ratio,
        "guarantee": record.guarantee,
        "guarantee_text": algo.guarantee_text,
        "published_min_class": smallest,
        "published_diversity": diversity,
        "phase": (columns or {}).get("phase"),
        "recoding": "local recoding (suppression)",
        "metrics": metrics,
        "time_s": record.time_s,
    }
    if args.json:
        print_json(info)
        return 0
    print_fields(
        [
            ("input", f"{args.data} ({instance.n} records, QI {', '.join(qi)})"),
            ("problem", f"l-diversity by suppression, l={args.l}, sensitive {args.sensitive}"),
            ("algorithm", f"{algo.name} ({record.status})"),
            (
                "verified",
                f"{record.verified} (smallest class {smallest}, every class {diversity}-diverse)",
            ),
            ("stars", fmt(record.cost)),
            ("lower bound", f"{fmt(record.lower_bound)} ({record.lower_bound_source})"),
            ("certified ratio", fmt(record.certified_ratio)),
            ("guarantee", f"{fmt(record.guarantee)}  [{algo.guarantee_text}]"),
            ("time", f"{record.time_s:.3g} s"),
            ("utility", ", ".join(f"{m} {fmt(v)}" for m, v in metrics.items())),
            ("output", str(out)),
        ]
    )
    return 0
