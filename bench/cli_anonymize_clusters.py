"""``anonratio anonymize --algorithm r-gather``: publish a CSV file clustered as paper 003 proposes.

The numeric quasi-identifier columns become points (scaled per ``--scaling``, see
:mod:`anonratio.instances.clustering.publish`); an r-gather or r-cellular algorithm clusters
them with ``r = --k`` through the runner (run, verify, lower bound, ratio); each record's QI cells
are replaced by its cluster center's (a real record's values, as written) and a second table lists
every cluster's center, size and radius. Both files go through a temporary file and a rename and
never over an input; the published table is checked against the input before it is written.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np
from anonratio.bench.cli_common import CLIError, RunFailure, fmt, print_fields, print_json
from anonratio.bench.cli_publish import check_out, run_verified, write_csv, write_published

__all__ = ["cmd_anonymize_clusters", "CLUSTER_PROBLEMS", "clusters_path"]

#: the problems ``anonymize`` publishes by clustering (``--k`` is their ``r``)
CLUSTER_PROBLEMS = ("r-gather", "r-cellular")


def clusters_path(out: Path) -> Path:
    """Where the per-cluster table goes by default: ``OUT.clusters.csv`` beside ``OUT.csv``."""
    return out.with_name(f"{out.stem}.clusters{out.suffix or '.csv'}")


def _instance(args: argparse.Namespace, qi: list[str], algo: Any) -> tuple[Any, Any]:
    from anonratio.instances.clustering import RCellularInstance, RGatherInstance
    from anonratio.instances.clustering.publish import points_from_frame
    from anonratio.instances.loaders import read_csv_table

    if algo.problem not in CLUSTER_PROBLEMS:
        raise CLIError(
            f"algorithm {algo.name!r} solves {algo.problem}; anonymize publishes k-anonymity and "
            f"the clustering problems {list(CLUSTER_PROBLEMS)}"
        )
    if args.hierarchies is not None or args.model is not None:
        raise CLIError(
            f"`--hierarchies` and `--model` are for k-anonymity; {algo.name!r} clusters numeric "
            "quasi-identifiers"
        )
    data = read_csv_table(args.data, sep=args.sep)
    out = Path(args.out)
    check_out(out, [data.path])
    side = Path(args.clusters) if args.clusters else clusters_path(out)
    check_out(side, [data.path], "--clusters")
    if side.resolve() == out.resolve():
        raise CLIError(f"`--clusters` {str(side)!r} is the `--out` file; choose another path")
    if args.sensitive is not None and args.sensitive not in data.frame.columns:
        raise CLIError(f"`--sensitive` column {args.sensitive!r} is not in the header")
    points = points_from_frame(
        data.frame, qi, scaling=args.scaling, lines=data.lines, source=str(data.path)
    )
    cls = RGatherInstance if algo.problem == "r-gather" else RCellularInstance
    instance = cls(points, r=args.k)
    reason = algo.supports(instance)
    if reason:
        raise CLIError(f"algorithm {algo.name!r} does not support this instance: {reason}")
    return instance, data


def _write(args: argparse.Namespace, qi: list[str], data: Any, instance: Any, record: Any) -> tuple:
    from anonratio.instances import verify
    from anonratio.instances.clustering.publish import check_published, publish_clusters

    check = verify(instance, record.solution)  # the cells published are the ones checked
    labels = np.asarray(record.solution.labels)
    published, clusters = publish_clusters(data.frame, qi, labels, check.centers, check.radii)
    try:
        smallest = check_published(data.frame, published, qi, labels, args.k)
    except ValueError as exc:  # pragma: no cover - the verifier checked the sizes
        raise RunFailure(str(exc)) from exc
    out = write_published(published, args.out, data, neutralize=args.neutralize_formulas)
    side = write_csv(
        clusters,
        args.clusters or clusters_path(Path(args.out)),
        sep=data.sep,
        lineterminator=data.lineterminator,
        protect=[data.path, out],
        neutralize=args.neutralize_formulas,
    )
    return out, side, smallest, check


def cmd_anonymize_clusters(args: argparse.Namespace, qi: list[str], algo: Any) -> int:
    """Cluster the numeric QI columns of ``args.data`` and publish the clustered table."""
    instance, data = _instance(args, qi, algo)
    record = run_verified(args, instance, algo, f"clustering, r={args.k}", len(qi))
    out, side, smallest, check = _write(args, qi, data, instance, record)
    info = {
        "data": args.data,
        "out": str(out),
        "clusters": str(side),
        "n": instance.n,
        "qi": qi,
        "k": args.k,
        "problem": algo.problem,
        "scaling": args.scaling,
        "algorithm": algo.name,
        "status": record.status,
        "verified": record.verified,
        "cost": record.cost,
        "max_radius": check.max_radius,
        "lower_bound": record.lower_bound,
        "lower_bound_source": record.lower_bound_source,
        "certified_ratio": record.certified_ratio,
        "guarantee": record.guarantee,
        "guarantee_text": algo.guarantee_text,
        "groups": check.n_clusters,
        "published_min_class": smallest,
        "time_s": record.time_s,
    }
    if args.json:
        print_json(info)
        return 0
    print_fields(
        [
            ("input", f"{args.data} ({info['n']} records, QI {', '.join(qi)}, {args.scaling})"),
            ("problem", f"{algo.problem}, r={args.k}"),
            ("algorithm", f"{algo.name} ({record.status})"),
            (
                "verified",
                f"{record.verified} ({check.n_clusters} clusters, smallest class {smallest})",
            ),
            ("cost", f"{fmt(record.cost)} (largest radius {fmt(check.max_radius)})"),
            ("lower bound", f"{fmt(record.lower_bound)} ({record.lower_bound_source})"),
            ("certified ratio", fmt(record.certified_ratio)),
            ("guarantee", f"{fmt(record.guarantee)}  [{algo.guarantee_text}]"),
            ("time", f"{record.time_s:.3g} s"),
            ("output", f"{out} (clusters: {side})"),
        ]
    )
    return 0
