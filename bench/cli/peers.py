"""``anonratio peers``: the comparison with other tools on the command line
(:mod:`anonratio.bench.experiments.peers`)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["add_peers_parser", "cmd_peers"]


def _int_list(text: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be integers joined by commas, got {text!r}"
        ) from None
    if not values:
        raise argparse.ArgumentTypeError(f"must name at least one integer, got {text!r}")
    return values


def add_peers_parser(sub: Any) -> None:
    """Register ``anonratio peers`` on the CLI's subparsers."""
    help_ = (
        "compare our Mondrian, Datafly and FOREST with anonypy and anjana: time, memory and "
        "utility side by side, every output checked by pycanon (needs the `peers` extra)"
    )
    p = sub.add_parser("peers", help=help_, description=help_)
    p.set_defaults(func="anonratio.bench.cli.peers:cmd_peers")
    p.add_argument("--out", metavar="DIR", default="results/peers", help="(default: %(default)s)")
    p.add_argument(
        "--sizes",
        type=_int_list,
        default=None,
        metavar="N,...",
        help="records of the generated tables (default: 1000,10000,30000)",
    )
    p.add_argument("--k", type=_int_list, default=None, metavar="K,...", help="(default: 5,10)")
    p.add_argument("--repeat", type=int, default=3, help="fresh-process runs per tool")
    p.add_argument(
        "--adult",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="add UCI Adult (default: when $ANONRATIO_DATASETS has it)",
    )
    p.add_argument("--seed", type=int, default=0, help="of the generated tables")
    p.add_argument("--time-limit", type=float, default=1800.0, metavar="S", help="per run")
    p.add_argument("--json", action="store_true", help="print one JSON document")


def cmd_peers(args: argparse.Namespace) -> int:
    """``anonratio peers``: run the suite, write ``peers.csv`` and ``peers.md``, print them."""
    from anonratio.bench.cli.common import frame_records, print_json, status
    from anonratio.bench.experiments.peers import (
        DEFAULT_KS,
        DEFAULT_SIZES,
        check_peers_installed,
        comparison,
        comparison_markdown,
        run_peers,
        write_report,
    )

    check_peers_installed()
    results = run_peers(
        sizes=list(DEFAULT_SIZES) if args.sizes is None else args.sizes,
        ks=list(DEFAULT_KS) if args.k is None else args.k,
        repeat=args.repeat,
        adult=args.adult,
        seed=args.seed,
        time_limit=args.time_limit,
        progress=None if args.json else status,
    )
    csv, md = write_report(results, args.out)
    cmp = comparison(results)
    if args.json:
        print_json({"results": frame_records(results), "comparison": frame_records(cmp)})
    else:
        print(comparison_markdown(cmp))
        print(f"\nwrote {csv} and {md}", file=sys.stderr)
    return 0
