"""asv benchmarks of what a user waits for before an algorithm runs: the start-up.

``Startup.timeraw_*``: a fresh interpreter importing the registry, and one building the whole
command-line parser (what ``anonratio --help`` does), timed by asv's ``timeraw`` (the import is the
whole benchmark: nothing is cached from an earlier one). The bound a run waits for is timed in
:mod:`.long_scale` (``BoundScale``). These are speed goals tracked from commit to commit, never
asserted in a test.
"""

from __future__ import annotations

__all__ = ["Startup"]


class Startup:
    """Seconds to a usable registry and command line, each in a fresh interpreter."""

    timeout = 120.0

    def timeraw_import_registry(self) -> str:
        return "import anonratio.bench.registry"

    def timeraw_cli_parser(self) -> str:
        return "from anonratio.bench.cli.parser import build_parser; build_parser()"
