"""The ``anonratio`` command line: list, generate, solve, run, report, anonymize, gate, reference,
peers, hunt.

This module holds the parser and the entry point :func:`main`; the commands are in
:mod:`anonratio.bench.cli.commands`, :mod:`anonratio.bench.cli.anonymize`,
:mod:`anonratio.bench.tracking.gate` and :mod:`anonratio.bench.cli.reference`. ``solve`` and
``anonymize`` run through the runner like a sweep does (run, verify, lower bound, ratio).

Every reporting command takes ``--json`` and then prints one JSON document on stdout. Bad input
(an unknown name, a malformed file, a parameter out of range) ends with exit status 2 and one line
``anonratio: error: ...`` on stderr, never a traceback; a run that fails (solver error, a
solution the verifier rejects) ends with exit status 1. With ``--json`` an error is also one JSON
document on stdout, ``{"error": "<the message>", "kind": "bad_input" | "run_failed", "type":
"<exception class>"}``. Set ``ANONRATIO_DEBUG=1`` to get the traceback instead.

Examples
--------
::

    anonratio list
    anonratio list --markdown
    anonratio generate kanon-binary --seed 1 --param n=12 --param k=3 --out inst.json
    anonratio solve inst.json --algorithm forest --json
    anonratio run quick --out results/quick
    anonratio anonymize data.csv --qi age,sex,zip --k 5 --out published.csv
    anonratio run my-study.toml --out results/my-study
    anonratio gate
    anonratio reference update
    anonratio hunt forest --problem-params k=2 --size 6 --budget 60 --out hunt-forest
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable, Sequence
from importlib import import_module

from anonratio.bench.cli.common import PROG, error_document, print_json, wants_json
from anonratio.bench.cli.gate import add_gate_parser
from anonratio.bench.cli.hunt import add_hunt_parser
from anonratio.bench.cli.peers import add_peers_parser
from anonratio.bench.cli.reference import add_reference_parser
from anonratio.bench.errors import CLIError, RunFailure, UsageError

__all__ = ["main", "build_parser", "CLIError", "RunFailure"]


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error raises :class:`UsageError`: :func:`main` reports it as one
    line on stderr (``anonratio: error: ...``, exit status 2) and, with ``--json``, as an error
    document on stdout."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(" ".join(str(message).split()))


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text!r}") from None
    if not value > 0 or not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text!r}")
    return value


_Sub = argparse._SubParsersAction


#: where the commands live: a command's module is imported when it runs, not to build the
#: parser (``anonratio --help`` loads neither the registry nor pandas)
_COMMANDS = "anonratio.bench.cli.commands"


def _add(sub: _Sub, name: str, func: str, help_: str) -> argparse.ArgumentParser:
    """A subcommand running ``func``, ``"module:function"``."""
    p = sub.add_parser(name, help=help_, description=help_)
    p.set_defaults(func=func)
    return p


def _command(target: str | Callable[[argparse.Namespace], int]) -> Callable[..., int]:
    """The command function named ``"module:function"`` (imported now), or the function."""
    if callable(target):
        return target
    module, _, name = target.partition(":")
    function: Callable[..., int] = getattr(import_module(module), name)
    return function


def _add_json(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print one JSON document")


def _add_list(sub: _Sub) -> None:
    p = _add(
        sub,
        "list",
        f"{_COMMANDS}:cmd_list",
        "list problems, instance families, algorithms and suites",
    )
    what = p.add_mutually_exclusive_group()
    what.add_argument("--json", action="store_true", help="print one JSON document")
    what.add_argument(
        "--markdown", action="store_true", help="print the algorithm table in Markdown"
    )


def _add_generate(sub: _Sub) -> None:
    p = _add(
        sub, "generate", f"{_COMMANDS}:cmd_generate", "generate an instance file from a family"
    )
    p.add_argument("family", help="instance family (see `anonratio list`)")
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--param", action="append", metavar="KEY=VALUE", help="family parameter")
    p.add_argument("--out", required=True, metavar="FILE.json")
    _add_json(p)


def _add_solve(sub: _Sub) -> None:
    p = _add(
        sub,
        "solve",
        f"{_COMMANDS}:cmd_solve",
        "run one algorithm on an instance file and verify it",
    )
    p.add_argument("file", metavar="FILE.json")
    p.add_argument("--algorithm", required=True, help="registry name (see `anonratio list`)")
    p.add_argument(
        "--param", action="append", metavar="KEY=VALUE", help="override k, model, row_deletion"
    )
    p.add_argument("--time-limit", type=_positive_float, default=60.0, metavar="S")
    p.add_argument("--seed", type=int, default=0)
    _add_bound(p, "default")
    p.add_argument(
        "--utility",
        metavar="METRIC,...",
        help="utility metrics of the published table to report (k-anonymity, l-diversity), or "
        "`all` (default: none; kl-divergence costs seconds on large tables)",
    )
    _add_json(p)


def _add_bound(p: argparse.ArgumentParser, default: str) -> None:
    """``--bound``: the effort of the lower bound the certified ratio is over."""
    from anonratio.bench.engine.bounds import BOUNDS

    p.add_argument(
        "--bound",
        choices=BOUNDS,
        default=default,
        help=f"the lower bound of the certified ratio: none, fast (the cheapest valid), default "
        f"(what sweeps use), strong (an LP bound within --time-limit); default: {default}",
    )


def _add_run_and_report(sub: _Sub) -> None:
    p = _add(
        sub,
        "run",
        f"{_COMMANDS}:cmd_run",
        "run a benchmark suite and write results, summary and plots",
    )
    p.add_argument(
        "suite",
        nargs="?",
        default="quick",
        help="suite name or study file, FILE.toml (default: quick)",
    )
    p.add_argument("--out", metavar="DIR", help="output folder (default: results/<suite>)")
    p.add_argument("--jobs", type=int, default=2, help="local worker processes (default: 2)")
    p.add_argument("--scheduler", metavar="ADDR", help="Dask scheduler address")
    p.add_argument(
        "--time-limit",
        type=_positive_float,
        metavar="S",
        help="seconds per run, replacing the suite's own (a worker is killed a grace later)",
    )
    p.add_argument(
        "--memory-limit",
        type=_positive_float,
        metavar="MB",
        help="resident memory a worker may add to its size at start; a worker past it is "
        "stopped and its run is a memory_limit row",
    )
    _add_json(p)

    p = _add(
        sub,
        "report",
        f"{_COMMANDS}:cmd_report",
        "summary table and plots of a results file or folder",
    )
    p.add_argument("results", metavar="RESULTS", help="results.parquet/.csv or their folder")
    p.add_argument("--out", metavar="DIR", help="output folder (default: beside the results)")
    _add_json(p)


def _add_anonymize(sub: _Sub) -> None:
    p = _add(
        sub,
        "anonymize",
        "anonratio.bench.cli.anonymize:cmd_anonymize",
        "publish a CSV file k-anonymous, l-diverse (--l) or clustered (a clustering --algorithm)",
    )
    p.add_argument("data", metavar="DATA.csv")
    p.add_argument("--qi", required=True, metavar="COL,...", help="quasi-identifier columns")
    p.add_argument("--k", type=int, help="k-anonymity: k; clustering: the cluster size r (>= 2)")
    p.add_argument("--l", type=int, help="l-diversity by suppression: l (needs --sensitive)")
    p.add_argument(
        "--hierarchies", metavar="DIR", help="ARX hierarchy files (*_hierarchy_<col>.csv)"
    )
    p.add_argument("--algorithm", help="registry name (default: forest; with --l: tp-plus)")
    p.add_argument("--sensitive", metavar="COL", help="sensitive column (kept as is)")
    p.add_argument("--model", choices=("suppression", "generalization"))
    p.add_argument(
        "--privacy",
        action="append",
        metavar="SPEC",
        help="k-anonymity: a privacy model besides k (repeatable), e.g. l-diversity:l=3, "
        "t-closeness:t=0.2; needs --sensitive and an algorithm that enforces it (samarati, "
        "incognito, datafly); refused by the others",
    )
    p.add_argument(
        "--max-suppression",
        type=float,
        metavar="F",
        help="k-anonymity: fraction in [0, 1) of records samarati/incognito/datafly may "
        "withhold (left out of the published file); refused by the others",
    )
    p.add_argument(
        "--keep-suppressed",
        action="store_true",
        help="k-anonymity: publish each withheld record as a row of * (its sensitive cell too) "
        "instead of leaving it out",
    )
    p.add_argument(
        "--withheld-rows",
        metavar="FILE.csv",
        help="k-anonymity: write the record and line numbers of the withheld records to FILE",
    )
    p.add_argument(
        "--metric",
        help="k-anonymity: what samarati/incognito minimize (non-uniform-entropy); refused by "
        "the others",
    )
    p.add_argument("--time-limit", type=_positive_float, default=60.0, metavar="S")
    p.add_argument("--seed", type=int, default=0)
    _add_bound(p, "fast")
    p.add_argument(
        "--utility",
        metavar="METRIC,...",
        help="the utility metrics to report, or `all` (default: every one but the costly "
        "kl-divergence)",
    )
    p.add_argument("--sep", help="field separator (default: detected)")
    p.add_argument("--out", required=True, metavar="OUT.csv")
    p.add_argument(
        "--neutralize-formulas",
        action="store_true",
        help="prefix with ' every cell a spreadsheet would run as a formula (=, +, -, @ ...)",
    )
    p.add_argument(
        "--scaling",
        choices=("standard", "range", "none"),
        default="standard",
        help="clustering: how numeric QI columns are weighed (default: standard deviations)",
    )
    p.add_argument(
        "--clusters",
        metavar="CLUSTERS.csv",
        help="clustering: the per-cluster table (default: OUT.clusters.csv)",
    )
    _add_json(p)


def build_parser() -> argparse.ArgumentParser:
    """The argparse parser of the ``anonratio`` command."""
    from anonratio import __version__

    parser = _Parser(
        prog=PROG,
        description="Benchmark approximation algorithms for privacy-preserving data publishing "
        "against exact CP-SAT/ILP optima and certified lower bounds.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in (_add_list, _add_generate, _add_solve, _add_run_and_report, _add_anonymize):
        add(sub)
    add_reference_parser(sub)
    add_gate_parser(sub)
    add_peers_parser(sub)
    add_hunt_parser(sub)
    return parser


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.filename and exc.strerror:
        text = f"{exc.strerror}: {exc.filename}"
    else:
        text = str(exc) or type(exc).__name__
    return " ".join(text.split())


def _fail(message: str, kind: str, code: int, as_json: bool, exc: BaseException) -> int:
    """Report an error: one line on stderr and, with ``--json``, one JSON document on stdout."""
    if as_json:
        try:
            print_json(error_document(message, kind, exc))
            sys.stdout.flush()
        except (OSError, ValueError):  # stdout closed: the stderr line still says it
            pass
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return code


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``anonratio`` command; returns the exit status (0 ok, 1 run failed, 2 bad input).

    With ``--json`` an error is also one JSON document on stdout,
    ``{"error": "<the stderr line's message>", "kind": "bad_input" | "run_failed" | ...}``
    (:func:`~anonratio.bench.cli.common.error_document`), usage errors included.
    """
    from anonratio.instances.errors import AnonratioError, InfeasibleSolutionError

    argv = list(sys.argv[1:] if argv is None else argv)
    as_json = wants_json(argv)
    debug = os.environ.get("ANONRATIO_DEBUG", "") not in ("", "0")
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except UsageError as exc:
        return _fail(str(exc), "bad_input", 2, as_json, exc)
    except SystemExit as exc:  # --help, --version
        return exc.code if isinstance(exc.code, int) else 2
    as_json = bool(getattr(args, "json", False))
    try:
        return _command(args.func)(args)
    except KeyboardInterrupt as exc:
        if as_json:
            print_json(error_document("interrupted", "interrupted", exc))
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
        return _fail(_one_line(exc), "run_failed", 1, as_json, exc)
    except (ValueError, AnonratioError, OSError) as exc:
        if debug:
            raise
        return _fail(_one_line(exc), "bad_input", 2, as_json, exc)
    except Exception as exc:  # a bug: still one line (ANONRATIO_DEBUG=1 shows the traceback)
        if debug:
            raise
        message = f"internal error: {type(exc).__name__}: {_one_line(exc)}"
        return _fail(message, "internal_error", 1, as_json, exc)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
