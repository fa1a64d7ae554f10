"""``anonratio gate``: the quality gate on the command line
(:mod:`anonratio.bench.tracking.gate`)."""

from __future__ import annotations

import argparse
import math
from typing import Any

from anonratio.bench.tracking import DEFAULT_TOLERANCE

__all__ = ["add_gate_parser", "cmd_gate"]


def cmd_gate(args: Any) -> int:
    """``anonratio gate [--baseline FILE] [--tolerance T] [--update] [--json]``: exit status 0
    when it passes, 1 (a ``run_failed`` error, the report as its ``result``) when it fails."""
    from anonratio.bench.cli.common import print_json
    from anonratio.bench.errors import RunFailure
    from anonratio.bench.tracking.gate import format_gate, run_gate

    report = run_gate(
        baseline=args.baseline,
        tolerance=args.tolerance,
        update=args.update,
        algorithms=args.algorithm,
    )
    if not args.json:
        print(format_gate(report))
    if not report["passed"]:
        failed = report["failures"]
        names = sorted({r["algorithm"] for r in failed})
        message = f"quality gate failed: {len(failed)} ratios failed ({', '.join(names)})"
        raise RunFailure(message, result=report if args.json else None)
    if args.json:
        print_json(report)
    return 0


def _tolerance(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value >= 0):
        raise argparse.ArgumentTypeError(f"must be a number >= 0, got {text!r}")
    return value


def add_gate_parser(sub: Any) -> None:
    """Register ``anonratio gate`` on the CLI's subparsers."""
    help_ = (
        "run every approximation algorithm and heuristic on the tracked instances and compare "
        "their ratios with the committed baseline (exit status 1 when one got worse)"
    )
    p = sub.add_parser("gate", help=help_, description=help_)
    p.set_defaults(func="anonratio.bench.cli.gate:cmd_gate")
    p.add_argument(
        "--baseline",
        metavar="FILE",
        help="baseline JSON (default: results/baselines/gate.json of the checkout the command runs "
        "in; outside one, the installed copy's, which --update does not write)",
    )
    p.add_argument(
        "--tolerance",
        type=_tolerance,
        default=DEFAULT_TOLERANCE,
        metavar="T",
        help=f"relative increase of a ratio that still passes (default: {DEFAULT_TOLERANCE:g})",
    )
    p.add_argument(
        "--algorithm",
        action="append",
        metavar="NAME",
        help="only this algorithm (repeatable; default: all approximations and heuristics)",
    )
    p.add_argument(
        "--update",
        action="store_true",
        help="write this run's ratios into the baseline (the selected algorithms' entries; the "
        "others are kept) and print what changed",
    )
    p.add_argument("--json", action="store_true", help="print one JSON document")
