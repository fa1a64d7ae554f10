"""The ``anonratio`` command: the parser and dispatch (parser), the subcommands (commands,
anonymize, reference, hunt, gate, peers) and what they share (common, csv_output).

:func:`main` is the console script's entry point (``anonratio.bench.cli:main``); it imports the
parser on call, so importing one command's module does not build the others.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``anonratio`` with ``argv`` (default: ``sys.argv[1:]``); return the exit status
    (:func:`anonratio.bench.cli.parser.main`)."""
    from anonratio.bench.cli.parser import main as run

    return run(argv)
