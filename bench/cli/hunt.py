"""``anonratio hunt``: the worst-case hunter on the command line
(:mod:`anonratio.bench.tracking.hunt`)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["add_hunt_parser", "cmd_hunt", "record_rows"]


def add_hunt_parser(sub: Any) -> None:
    """Register ``anonratio hunt`` on the CLI's subparsers."""
    help_ = (
        "search small instances for the worst ratio of an algorithm against the proven optimum; "
        "flag any ratio above its guarantee"
    )
    p = sub.add_parser("hunt", help=help_, description=help_)
    p.set_defaults(func="anonratio.bench.cli.hunt:cmd_hunt")
    p.add_argument("algorithm", metavar="ALGORITHM", help="a registered approximation/heuristic")
    p.add_argument(
        "--problem-params",
        nargs="+",
        default=[],
        metavar="KEY=VALUE",
        help="parameters of the starting family (e.g. k=3 m=4)",
    )
    p.add_argument("--size", type=int, default=8, help="records of the starting instances")
    p.add_argument("--budget", type=float, default=60.0, metavar="S", help="seconds of search")
    p.add_argument("--steps", type=int, default=None, help="stop after this many steps")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--restart", type=int, default=100, help="steps of one annealing schedule")
    p.add_argument(
        "--time-limit", type=float, default=20.0, metavar="S", help="exact model per candidate"
    )
    p.add_argument("--out", metavar="DIR", help="journal, worst.json, summary.json (resumable)")
    p.add_argument(
        "--library",
        nargs="?",
        const="",
        metavar="DIR",
        help="keep the worst instance in DIR (default: results/hard_instances of the checkout; "
        "never an installed package) if it beats the one there",
    )
    p.add_argument("--json", action="store_true", help="print one JSON document")


def record_rows(instance: Any) -> list[str]:
    """One short description per record (item, point) of ``instance``."""
    import numpy as np

    table = getattr(instance, "table", None)
    if table is not None:
        sens = table.sensitive
        rows = []
        for i, codes in enumerate(np.asarray(table.codes)):
            cells = [table.values[j][c] for j, c in enumerate(codes)]
            if sens is not None:
                cells.append(f"| {table.sensitive_values[sens[i]]}")
            rows.append(" ".join(cells))
        return rows
    if hasattr(instance, "sizes"):
        return [f"size {s}" for s in np.asarray(instance.sizes)]
    if hasattr(instance, "points"):
        return [" ".join(f"{x:.3g}" for x in p) for p in np.asarray(instance.points)]
    return [str(i) for i in range(instance.n)]


def cmd_hunt(args: argparse.Namespace) -> int:
    """``anonratio hunt ALGORITHM ...``: search, print the worst instance with the algorithm's
    solution and the optimum side by side; exit status 1 when a guarantee is exceeded."""
    from anonratio.bench.cli.common import parse_params, print_json
    from anonratio.bench.errors import CLIError
    from anonratio.bench.library import offer, writable_library
    from anonratio.bench.tracking.hunt import hunt, library_meta

    try:
        params = parse_params(args.problem_params)
    except CLIError as exc:
        raise CLIError(str(exc).replace("`--param`", "`--problem-params`")) from None
    library = None if args.library is None else writable_library(args.library)
    bar = None
    if not args.json and sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(total=args.budget, unit="s", desc=f"hunt {args.algorithm}", file=sys.stderr)

    def progress(step: int, spent: float, worst: Any) -> None:
        if bar is not None:
            bar.n = min(spent, args.budget)
            bar.set_postfix(step=step, worst=None if worst is None else round(worst.ratio, 4))

    try:
        result = hunt(
            args.algorithm,
            params=params,
            size=args.size,
            budget=args.budget,
            steps=args.steps,
            seed=args.seed,
            restart=args.restart,
            time_limit=args.time_limit,
            out=args.out,
            progress=progress,
        )
    finally:
        if bar is not None:
            bar.close()
    summary = result.summary()
    if library is not None and result.worst is not None:
        meta = library_meta(result.algorithm, result.worst, result.worst_step or 0)
        summary["library"] = offer(result.worst_instance, meta, library)
        summary["library_dir"] = str(library)
    if args.json:
        print_json(summary)
    else:
        _print(result, summary)
    return 1 if result.violations else 0


def _print(result: Any, summary: dict[str, Any]) -> None:
    from anonratio.bench.cli.common import fmt, print_fields

    w = result.worst
    pairs: list[tuple[str, object]] = [
        (
            "hunt",
            f"{result.algorithm} on {result.problem}: {result.steps} steps, "
            f"{result.proven} with a proven optimum",
        ),
    ]
    if w is None:
        pairs.append(("worst ratio", "- (no candidate with a proven optimum)"))
        print_fields(pairs)
        return
    proven_by = ", ".join(
        f"{m} {r['status']} {fmt(r['cost'])}" for m, r in result.confirmed.items()
    )
    pairs += [
        ("worst ratio", f"{fmt(w.ratio)} (cost {fmt(w.cost)} / optimum {fmt(w.optimum)})"),
        ("guarantee", f"{fmt(w.guarantee)} (gap {fmt(summary['gap'])})"),
        ("optimum", proven_by),
        ("instance", f"{w.instance}, {result.worst_instance.n} records, step {result.worst_step}"),
        ("violations", len(result.violations) or "none"),
    ]
    if result.out is not None:
        pairs.append(("files", f"{result.out}/worst.json, journal.jsonl, summary.json"))
    if "library" in summary:
        kept = "kept in " if summary["library"] else "not better than the one kept in "
        pairs.append(("library", kept + summary["library_dir"]))
    print_fields(pairs)
    rows = record_rows(result.worst_instance)
    alg, opt = result.labels.get("algorithm", []), result.labels.get("optimum", [])
    width = max(len(r) for r in rows)
    print(f"\n{'record'.ljust(width)}  {result.algorithm:>10}  {'optimum':>8}")
    for i, row in enumerate(rows):
        a = alg[i] if i < len(alg) else "-"
        o = opt[i] if i < len(opt) else "-"
        print(f"{row.ljust(width)}  {a!s:>10}  {o!s:>8}")
    for v in result.violations:
        print(
            f"VIOLATION at step {v['step']}: ratio {fmt(v['ratio'])} > guarantee "
            f"{fmt(v['guarantee'])}: {v.get('file', v['instance'])}"
        )
