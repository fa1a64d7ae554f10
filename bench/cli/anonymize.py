"""``anonratio anonymize``: publish a CSV file k-anonymous, l-diverse or clustered.

A printer over the publishing path of the Python API (:mod:`anonratio.bench.publish.anonymize`): the
options are validated (:func:`~anonratio.bench.publish.request.check_request`, messages naming the
options as written here, ``--max-suppression``), the file is read once
(:func:`~anonratio.instances.loaders.read_csv_table`), and
:func:`~anonratio.bench.publish.anonymize.publish` runs the algorithm through the runner, builds the
published table and checks every requested model on it; this module writes it in the input's
shape (the same columns, names as written, the same separator and line ends, the rows kept in
order, only the QI cells replaced) and prints the result's figures. What differs between problems
is asked of the problem's :class:`~anonratio.bench.publish.publisher.Publisher`: an algorithm of
l-diversity (``--l``) publishes by suppression, one of a clustering problem publishes cluster
centers and a second file of clusters (``--clusters``), a k-anonymity recoding may read hierarchy
files and withhold records (``--withheld-rows``). Outputs never overwrite an input: each is
written to a temporary file in the target folder, then renamed over the target.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from anonratio.bench.cli.common import fmt, print_fields, print_json, status
from anonratio.bench.cli.csv_output import check_out, write_csv, write_published, write_withheld
from anonratio.bench.errors import CLIError

__all__ = ["cmd_anonymize", "clusters_path", "write_csv", "CLI_NAMES"]

#: how messages spell the options of :func:`~anonratio.bench.publish.request.check_request`
CLI_NAMES = {
    "qi": "--qi",
    "k": "--k",
    "l": "--l",
    "algorithm": "--algorithm",
    "sensitive": "--sensitive",
    "privacy": "--privacy",
    "max_suppression": "--max-suppression",
    "metric": "--metric",
    "hierarchies": "--hierarchies",
    "model": "--model",
    "scaling": "--scaling",
    "keep_suppressed": "--keep-suppressed",
    "seed": "--seed",
    "time_limit": "--time-limit",
    "bound": "--bound",
    "utility": "--utility",
}

#: print progress lines for tables at least this large
_BIG_TABLE = 5_000


def clusters_path(out: Path) -> Path:
    """Where the per-cluster table goes by default: ``OUT.clusters.csv`` beside ``OUT.csv``."""
    return out.with_name(f"{out.stem}.clusters{out.suffix or '.csv'}")


def _request(args: argparse.Namespace) -> Any:
    """The validated request of the command line (before the file is read)."""
    from anonratio.bench.publish.anonymize import check_request
    from anonratio.bench.publish.publisher import publishers
    from anonratio.instances.loaders import check_separator

    qi = [c.strip() for c in args.qi.split(",") if c.strip()]
    if not qi:
        raise CLIError("`--qi` must name at least one column")
    twice = [c for i, c in enumerate(qi) if c in qi[:i]]
    if twice:
        raise CLIError(f"`--qi` names column {twice[0]!r} twice")
    if args.sep is not None:
        args.sep = check_separator(args.sep, "--sep")
    if args.hierarchies is not None and not Path(args.hierarchies).is_dir():
        raise CLIError(f"`--hierarchies` must be a folder, got {args.hierarchies!r}")
    if args.model == "generalization" and not args.hierarchies:
        raise CLIError("`--model generalization` needs `--hierarchies DIR`")
    request = check_request(
        qi=qi,
        k=args.k,
        l=args.l,
        algorithm=args.algorithm,
        sensitive=None if args.sensitive is None else args.sensitive.strip(),
        privacy=args.privacy,
        max_suppression=args.max_suppression,
        metric=args.metric,
        hierarchies=args.hierarchies,
        model=args.model,
        scaling=args.scaling,
        keep_suppressed=args.keep_suppressed,
        seed=args.seed,
        time_limit=args.time_limit,
        names=CLI_NAMES,
        bound=args.bound,
        utility=args.utility,
    )
    if args.withheld_rows is not None and not request.publisher.withheld_rows:
        takers = [p for p, publisher in publishers().items() if publisher.withheld_rows]
        raise CLIError(f"`--withheld-rows` is for {' and '.join(takers)} with `--max-suppression`")
    if args.clusters is not None and not request.publisher.clusters:
        raise CLIError(
            f"`--clusters` is for cluster publishing; {request.algorithm.name!r} solves "
            f"{request.problem}"
        )
    return request


@contextlib.contextmanager
def _caught_warnings() -> Iterator[list]:
    """Collect the warnings raised inside (HierarchyWarning always); :func:`_show` prints them."""
    from anonratio.instances.hierarchies import HierarchyWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", HierarchyWarning)
        yield caught


def _show(caught: list) -> None:
    """A HierarchyWarning becomes one stderr line; other warnings are shown as usual."""
    from anonratio.instances.hierarchies import HierarchyWarning

    for w in caught:
        if issubclass(w.category, HierarchyWarning):
            status(f"warning: {w.message}")
        else:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)


def _source(args: argparse.Namespace, request: Any) -> tuple[Any, Any, Any, list[Path]]:
    """``(request with its hierarchy files, source, the file read, the hierarchy files)``; the
    outputs are checked against the inputs before any run."""
    from anonratio.bench.publish.anonymize import Source
    from anonratio.instances.loaders import find_hierarchies, read_csv_table, table_from_csv

    data = read_csv_table(args.data, sep=args.sep)
    hier: dict[str, Path] = {}
    out = Path(args.out)
    with _caught_warnings() as caught:  # shown once the table is built: no error hides them
        if "hierarchies" in request.publisher.options and args.hierarchies:
            # the files of this data set first: <stem>_hierarchy_<column>
            hier = find_hierarchies(args.hierarchies, list(request.qi), dataset=data.path.stem)
        inputs = [data.path, *hier.values()]
        check_out(out, inputs)
        if request.publisher.clusters:
            side = Path(args.clusters) if args.clusters else clusters_path(out)
            check_out(side, inputs, "--clusters")
            if side.resolve() == out.resolve():
                raise CLIError(
                    f"`--clusters` {str(side)!r} is the `--out` file; choose another path"
                )
        if args.withheld_rows is not None:
            check_out(Path(args.withheld_rows), [*inputs, out], "--withheld-rows")

    def table(**kwargs: Any) -> Any:
        with _caught_warnings() as more:
            built = table_from_csv(data, **kwargs)
        _show(caught + more)
        return built

    source = Source(data.frame, table, name=str(data.path), lines=data.lines)
    return dataclasses.replace(request, hierarchies=hier), source, data, list(hier.values())


def _write(args: argparse.Namespace, data: Any, hier: list, published: Any, result: Any) -> dict:
    """Write the published table (and the clusters or withheld-rows file); their paths."""
    paths: dict[str, str] = {}
    neutral = args.neutralize_formulas
    if args.withheld_rows is not None:
        side = write_withheld(result.withheld, data, args.withheld_rows, protect=[args.out, *hier])
        paths["withheld_rows"] = str(side)
    out = write_published(published, args.out, data, protect=hier, neutralize=neutral)
    paths["out"] = str(out)
    if result.clusters is not None:
        side = write_csv(
            result.clusters,
            args.clusters or clusters_path(out),
            sep=data.sep,
            lineterminator=data.lineterminator,
            protect=[data.path, out],
            neutralize=neutral,
        )
        paths["clusters"] = str(side)
    return paths


def _print_text(info: dict[str, Any], what: str) -> None:
    """The text output: ``what`` is the publisher's line for the problem."""
    cost = fmt(info["published_cost"]) + " (published table"
    if fmt(info["cost"]) != fmt(info["published_cost"]):
        cost += f"; the partition's cost {fmt(info['cost'])}"
    if "max_radius" in info:
        cost += f"; largest radius {fmt(info['max_radius'])}"
    cost += ")"
    verified = f"{info['verified']} ({info['n_classes']} classes, smallest published class: "
    verified += f"{info['published_min_class']}"
    if info.get("published_diversity") is not None:
        verified += f", every class {info['published_diversity']}-diverse"
    sides = [f"{k.replace('_', ' ')}: {v}" for k, v in info["files"].items() if k != "out"]
    outputs = info["out"] + (f" ({', '.join(sides)})" if sides else "")
    lines = [
        ("input", f"{info['data']} ({info['n']} records, QI {', '.join(info['qi'])})"),
        ("problem", what),
        ("algorithm", f"{info['algorithm']} ({info['status']}, {info['recoding']})"),
        ("verified", verified + ")"),
        ("cost", cost),
        (
            "lower bound",
            f"{fmt(info['lower_bound'])} ({info['lower_bound_source']}, "
            f"{info['bound_time_s']:.2g} s; --bound for another)",
        ),
        ("certified ratio", f"{fmt(info['certified_ratio'])} ({info['certified_ratio_of']})"),
        ("guarantee", f"{fmt(info['guarantee'])}  [{info['guarantee_text']}]"),
        ("time", f"{info['time_s']:.3g} s"),
    ]
    if info.get("levels"):
        levels = ", ".join(f"{a}={v}" for a, v in info["levels"].items())
        kept = "kept as rows of *" if info["suppressed_rows"] == "star" else "withheld"
        lines.append(("levels", f"{levels}; {info['suppressed']} tuples suppressed ({kept})"))
    lines.append(("privacy", "; ".join(f"{m}: {v}" for m, v in info["privacy"].items())))
    if info["metrics"]:
        lines.append(("utility", ", ".join(f"{m} {fmt(v)}" for m, v in info["metrics"].items())))
    lines.append(("output", outputs))
    print_fields(lines)


def cmd_anonymize(args: argparse.Namespace) -> int:
    """``anonratio anonymize DATA.csv --qi COLS (--k K | --l L) --out OUT.csv``."""
    from anonratio.bench.publish.anonymize import publish

    request = _request(args)
    request, source, data, hier = _source(args, request)
    big = len(source.frame) >= _BIG_TABLE
    published, result = publish(request, source, progress=status if big else None)
    files = _write(args, data, hier, published, result)
    info = {
        "data": args.data,
        **files,
        "files": files,
        "n": len(source.frame),
        "qi": list(request.qi),
        "sensitive": request.sensitive,
        "model": request.model,
        **result.as_dict(),
        "guarantee_text": request.algorithm.guarantee_text,
    }
    if request.publisher.cost_name is not None:  # the cost by its other name ("stars")
        info[request.publisher.cost_name] = result.cost
    if args.json:
        info.pop("files")
        print_json(info)
    else:
        _print_text(info, request.publisher.describe(request))
    return 0
