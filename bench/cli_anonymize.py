"""``anonratio anonymize``: k-anonymize a CSV file and write the published table.

An algorithm of a clustering problem publishes cluster centers instead
(:mod:`anonratio.bench.cli_anonymize_clusters`).

The run goes through the runner like every other (:func:`~anonratio.bench.runner.run_and_finalize`:
run, verify, lower bound, ratio). The file is read once (:func:`~anonratio.instances.loaders.
read_csv_table`); the table built from it is verified and published in the input's shape: the same
rows, the same columns (names as written, in order), the same separator and line ends, only the QI
cells replaced. The output never overwrites an input: it is written to a temporary file in the
target folder, then renamed over the target.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np
from anonratio.bench.cli_anonymize_clusters import cmd_anonymize_clusters
from anonratio.bench.cli_anonymize_ldiversity import cmd_anonymize_ldiversity
from anonratio.bench.cli_common import CLIError, RunFailure, fmt, print_fields, print_json
from anonratio.bench.cli_publish import (
    check_out,
    run_verified,
    write_csv,
    write_published,
    write_withheld,
)

__all__ = ["cmd_anonymize", "write_csv"]


def _options(args: argparse.Namespace) -> tuple[list[str], str, Any]:
    """``(qi, model, algorithm)`` of the command line, checked."""
    from anonratio.bench.registry import get_algorithm
    from anonratio.instances.loaders import check_separator

    qi = [c.strip() for c in args.qi.split(",") if c.strip()]
    if not qi:
        raise CLIError("`--qi` must name at least one column")
    twice = [c for i, c in enumerate(qi) if c in qi[:i]]
    if twice:
        raise CLIError(f"`--qi` names column {twice[0]!r} twice")
    if args.sensitive is not None:
        args.sensitive = args.sensitive.strip()
        if args.sensitive in qi:
            raise CLIError(
                f"`--sensitive` column {args.sensitive!r} is also in `--qi`: a column is either a "
                f"quasi-identifier or the sensitive attribute"
            )
    if args.sep is not None:
        args.sep = check_separator(args.sep, "--sep")
    if (args.k is None) == (args.l is None):
        raise CLIError(
            "give one of `--k K` (k-anonymity, or the cluster size r) and `--l L` (l-diversity)"
        )
    if args.algorithm is None:
        args.algorithm = "tp-plus" if args.l is not None else "forest"
    if args.hierarchies is not None and not Path(args.hierarchies).is_dir():
        raise CLIError(f"`--hierarchies` must be a folder, got {args.hierarchies!r}")
    model = args.model or ("generalization" if args.hierarchies else "suppression")
    if model == "generalization" and not args.hierarchies:
        raise CLIError("`--model generalization` needs `--hierarchies DIR`")
    return qi, model, get_algorithm(args.algorithm)


def _kanon_options(args: argparse.Namespace, algo: Any) -> tuple[dict[str, Any], list]:
    """The algorithm options of ``--privacy``, ``--max-suppression`` and ``--metric``, checked
    against the algorithm (a pair it cannot honour is refused, naming both)."""
    from anonratio.instances.privacy_specs import parse_privacy

    options: dict[str, Any] = {}
    models = []
    for spec in args.privacy or ():
        try:
            models.append(parse_privacy(spec))
        except ValueError as exc:
            raise CLIError(f"`--privacy` {spec!r}: {exc}") from None
    if models:
        if args.sensitive is None:
            raise CLIError(f"`--privacy` {models[0].spec} needs `--sensitive COL`")
        options["privacy"] = models
    if args.max_suppression:
        options["max_suppression"] = args.max_suppression
    if args.metric is not None:
        options["metric"] = args.metric
    from anonratio.bench.api import unsupported_option

    name = unsupported_option(algo, options)
    if name is not None:
        raise CLIError(
            f"`--{name.replace('_', '-')}` is not supported by algorithm {algo.name!r}: use "
            f"samarati, incognito or datafly (global recoding)"
        )
    return options, models


def _read_instance(args: argparse.Namespace, qi: list[str], model: str, algo: Any) -> tuple:
    """``(instance, the file as read, its hierarchy files)``; ``--out`` checked against them."""
    import warnings

    from anonratio.bench.cli_common import status
    from anonratio.instances import KAnonymityInstance
    from anonratio.instances.hierarchies import HierarchyWarning
    from anonratio.instances.loaders import find_hierarchies, read_csv_table, table_from_csv

    data = read_csv_table(args.data, sep=args.sep)
    with warnings.catch_warnings(record=True) as caught:  # a HierarchyWarning: one stderr line
        warnings.simplefilter("always", HierarchyWarning)
        hier = {}
        if args.hierarchies:  # ARX's shared folder: prefer <data file stem>_hierarchy_<col>.csv
            hier = find_hierarchies(args.hierarchies, qi, dataset=data.path.stem)
        check_out(Path(args.out), [data.path, *hier.values()])
        if args.withheld_rows is not None:
            withheld = [data.path, *hier.values(), Path(args.out)]
            check_out(Path(args.withheld_rows), withheld, "--withheld-rows")
        table = table_from_csv(data, qi=qi, sensitive=args.sensitive, hierarchies=hier)
    for w in caught:
        if issubclass(w.category, HierarchyWarning):
            status(f"warning: {w.message}")
        else:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    deletion = bool(getattr(args, "max_suppression", None))  # suppressed tuples: rows withheld
    instance = KAnonymityInstance(table, args.k, model=model, row_deletion=deletion)
    reason = algo.supports(instance)
    if reason:
        raise CLIError(f"algorithm {algo.name!r} does not support this instance: {reason}")
    return instance, data, list(hier.values())


def _publish(
    args: argparse.Namespace,
    instance: Any,
    solution: Any,
    models: list,
    data: Any,
    hier: list,
) -> tuple[Path, Any, list, dict[str, float]]:
    """Check and write the published table; ``(path, recoding, privacy checks, metrics)``.

    Suppressed tuples are left out of the file (``--keep-suppressed``: kept as rows of ``*``,
    their sensitive cell too); ``--withheld-rows FILE`` lists them."""
    from anonratio.bench.api import published_form

    recoded, checks, metrics = published_form(instance, solution, models)
    rows = "star" if args.keep_suppressed else "withhold"
    published = recoded.to_dataframe(frame=data.frame, suppressed_rows=rows)
    expected = len(data.frame) - (0 if args.keep_suppressed else recoded.n_suppressed)
    if list(published.columns) != list(data.frame.columns) or len(published) != expected:
        raise RunFailure("the published table does not have the input's columns and kept rows")
    if args.withheld_rows is not None:
        write_withheld(recoded.suppressed, data, args.withheld_rows, protect=[args.out, *hier])
    out = write_published(
        published, args.out, data, protect=hier, neutralize=args.neutralize_formulas
    )
    return out, recoded, checks, metrics


def _print_text(args: argparse.Namespace, info: dict[str, Any]) -> None:
    print_fields(
        [
            ("input", f"{args.data} ({info['n']} records, QI {', '.join(info['qi'])})"),
            ("model", f"{info['model']}, k={args.k}"),
            ("algorithm", f"{info['algorithm']} ({info['status']}, {info['recoding']})"),
            (
                "verified",
                f"{info['verified']} (smallest published class: {info['published_min_class']})",
            ),
            ("cost", fmt(info["cost"])),
            ("lower bound", f"{fmt(info['lower_bound'])} ({info['lower_bound_source']})"),
            ("certified ratio", fmt(info["certified_ratio"])),
            ("guarantee", f"{fmt(info['guarantee'])}  [{info['guarantee_text']}]"),
            ("time", f"{info['time_s']:.3g} s"),
            *_levels_line(info),
            ("privacy", "; ".join(f"{m}: {v}" for m, v in info["privacy"].items())),
            ("utility", ", ".join(f"{m} {fmt(v)}" for m, v in info["metrics"].items())),
            ("output", info["out"]),
        ]
    )


def _levels_line(info: dict[str, Any]) -> list[tuple[str, str]]:
    """The published levels of a global recoding (and its suppressed tuples)."""
    if not info.get("levels"):
        return []
    levels = ", ".join(f"{a}={v}" for a, v in info["levels"].items())
    kept = "kept as rows of *" if info["suppressed_rows"] == "star" else "withheld"
    return [("levels", f"{levels}; {info['suppressed']} tuples suppressed ({kept})")]


def cmd_anonymize(args: argparse.Namespace) -> int:
    """``anonratio anonymize DATA.csv --qi COLS --k K --out OUT.csv``."""
    qi, model, algo = _options(args)
    if args.l is not None or algo.problem == "l-diversity":  # l-diversity (paper 001)
        return cmd_anonymize_ldiversity(args, qi, algo)
    if algo.problem != "k-anonymity":  # publish clusters (paper 003) instead
        return cmd_anonymize_clusters(args, qi, algo)
    options, models = _kanon_options(args, algo)
    instance, data, hier = _read_instance(args, qi, model, algo)
    what = f"k={args.k} ({model})"
    record = run_verified(args, instance, algo, what, len(qi), options)
    solution = record.solution
    out, recoded, checks, metrics = _publish(args, instance, solution, models, data, hier)
    labels = solution.labels
    info = {
        "data": args.data,
        "out": str(out),
        "n": instance.n,
        "qi": qi,
        "k": args.k,
        "model": model,
        "algorithm": algo.name,
        "recoding": f"{recoded.scheme} recoding",
        "status": record.status,
        "verified": record.verified,
        "cost": record.cost,
        "published_cost": metrics["generalization-cost"],
        "lower_bound": record.lower_bound,
        "lower_bound_source": record.lower_bound_source,
        "certified_ratio": record.certified_ratio,
        "guarantee": record.guarantee,
        "guarantee_text": algo.guarantee_text,
        "groups": int(len(np.unique(labels[labels >= 0]))),
        "published_min_class": int(recoded.class_sizes.min()) if recoded.class_sizes.size else None,
        "levels": solution.info.get("levels"),
        "suppressed": recoded.n_suppressed,
        "suppressed_rows": "star" if args.keep_suppressed else "withhold",
        "privacy": {c.model: "ok" if c.satisfied else "fails" for c in checks},
        "metrics": metrics,
        "time_s": record.time_s,
    }
    if args.json:
        print_json(info)
    else:
        _print_text(args, info)
    return 0
