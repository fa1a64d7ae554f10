"""``anonratio reference``: the committed reference optima of the benchmark instances.

``anonratio reference update`` solves every instance of
:data:`~anonratio.bench.tracking.reference.ALL_REFERENCE` with its problem's exact models
(:data:`~anonratio.bench.tracking.reference.EXACT_METHODS`) under a generous time limit and rewrites
``results/reference_optima.json`` atomically (``--out`` writes elsewhere): per instance the
MIPLIB-style status (``opt`` / ``best`` / ``unknown``), the optimum, the best verified cost, the
best valid bound, the solvers, their statuses and times. ``--only NAME`` re-solves some instances
and keeps the other entries of the existing file. ``anonratio reference show`` lists the file.

Examples
--------
::

    anonratio reference update
    anonratio reference update --time-limit 600 --out /tmp/reference.json
    anonratio reference update --only gps-cross-k3 --only zip-grid-3x4-k12
    anonratio reference show --json
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

#: where the reference file is, in the help (the path itself: ``reference.DEFAULT_PATH``)
_DEFAULT = "results/reference_optima.json of the package"

__all__ = ["add_reference_parser", "cmd_reference_update", "cmd_reference_show"]


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text!r}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text!r}")
    return value


def add_reference_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``reference {update,show}`` to the ``anonratio`` subparsers ``sub``."""
    help_ = "recompute or show the committed reference optima of the benchmark instances"
    p = sub.add_parser("reference", help=help_, description=help_)
    actions = p.add_subparsers(dest="reference_command", required=True, metavar="ACTION")
    help_ = "re-solve the reference instances with the exact models and rewrite the file"
    u = actions.add_parser("update", help=help_, description=help_)
    u.set_defaults(func="anonratio.bench.cli.reference:cmd_reference_update")
    u.add_argument("--out", metavar="FILE.json", help=f"output file (default: {_DEFAULT})")
    u.add_argument(
        "--time-limit", type=_positive, default=600.0, metavar="S", help="seconds per solve"
    )
    u.add_argument(
        "--only", action="append", metavar="NAME", help="re-solve only this instance (repeatable)"
    )
    u.add_argument(
        "--strict", action="store_true", help="fail (exit 1) unless every instance is opt"
    )
    u.add_argument("--json", action="store_true", help="print one JSON document")
    help_ = "list the reference file's instances and their status"
    s = actions.add_parser("show", help=help_, description=help_)
    s.set_defaults(func="anonratio.bench.cli.reference:cmd_reference_show")
    s.add_argument("--file", metavar="FILE.json", help=f"reference file (default: {_DEFAULT})")
    s.add_argument("--json", action="store_true", help="print one JSON document")
    return p


def _summary(entries: dict[str, dict]) -> list[dict[str, Any]]:
    keys = ("name", "problem", "status", "optimum", "best", "bound", "solvers", "time_s")
    return [{"instance": key, **{k: e.get(k) for k in keys}} for key, e in entries.items()]


def _print_table(rows: list[dict[str, Any]]) -> None:
    for r in rows:
        value = r["optimum"] if r["optimum"] is not None else r["best"]
        times = " ".join(f"{m}={t:g}s" for m, t in (r["time_s"] or {}).items())
        print(f"{r['name']:<28} {r['problem']:<15} {r['status']!s:<8} {value!s:<8} {times}")


def cmd_reference_update(args: argparse.Namespace) -> int:
    """``anonratio reference update [--out F] [--time-limit S] [--only NAME ...] [--strict]``."""
    from anonratio.bench.cli.common import print_json, status
    from anonratio.bench.errors import CLIError, RunFailure
    from anonratio.bench.tracking.reference import (
        ALL_REFERENCE,
        DEFAULT_PATH,
        load_reference,
        solve_reference,
        write_reference,
    )

    refs = ALL_REFERENCE
    out = Path(args.out) if args.out else DEFAULT_PATH
    entries: dict[str, dict] = {}
    if args.only:
        known = {r.name for r in ALL_REFERENCE}
        unknown = sorted(set(args.only) - known)
        if unknown:
            raise CLIError(f"unknown reference instance(s) {unknown}; known: {sorted(known)}")
        refs = tuple(r for r in ALL_REFERENCE if r.name in args.only)
        keep = load_reference(out if out.exists() else DEFAULT_PATH)
        entries = {k: e for k, e in keep.items() if e.get("name") not in args.only}
    log = None if args.json else status
    fresh = solve_reference(time_limit=args.time_limit, refs=refs, log=log)
    entries.update(fresh)
    order = {r.name: i for i, r in enumerate(ALL_REFERENCE)}

    def rank(item: tuple[str, dict]) -> int:
        """An entry's place in :data:`ALL_REFERENCE` (entries of other names last)."""
        name = item[1].get("name")
        return order.get(name, 1 << 30) if isinstance(name, str) else 1 << 30

    entries = dict(sorted(entries.items(), key=rank))
    path = write_reference(entries, out)
    rows = _summary(fresh)
    if args.json:
        print_json({"file": str(path), "instances": rows})
    else:
        _print_table(rows)
        print(f"wrote {len(entries)} reference entries to {path}")
    bad = [r["name"] for r in rows if r["status"] != "opt"]
    if args.strict and bad:
        raise RunFailure(f"not proven optimal: {bad}", result={"file": str(path)})
    return 0


def cmd_reference_show(args: argparse.Namespace) -> int:
    """``anonratio reference show [--file F] [--json]``."""
    from anonratio.bench.cli.common import print_json
    from anonratio.bench.errors import CLIError
    from anonratio.bench.tracking.reference import DEFAULT_PATH, load_reference

    path = Path(args.file) if args.file else DEFAULT_PATH
    if not path.exists():
        raise CLIError(f"no reference file at {path}")
    rows = _summary(load_reference(path))
    if args.json:
        print_json({"file": str(path), "instances": rows})
    else:
        _print_table(rows)
    return 0
