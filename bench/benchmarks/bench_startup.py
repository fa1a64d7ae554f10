"""asv benchmarks of what a user waits for before an algorithm runs: start-up and lower bounds.

* ``Startup.timeraw_*``: a fresh interpreter importing the registry, and one building the whole
  command-line parser (what ``anonratio --help`` does), timed by asv's ``timeraw`` (the import is
  the whole benchmark: nothing is cached from an earlier one).
* ``KAnonymityBound.time_bound``: the instance lower bound of a k-anonymity table of 5,000
  records (``kanon-random``, 8 attributes, k = 5), on a cold copy: ``fast`` (the forced
  generalization levels, what ``anonymize`` reports by default) and ``default`` (the
  nearest-neighbour bound sweeps use). A commit without the fast bound skips its parameter.

These are speed goals tracked from commit to commit, never asserted in a test.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Startup", "KAnonymityBound"]


class Startup:
    """Seconds to a usable registry and command line, each in a fresh interpreter."""

    timeout = 120.0

    def timeraw_import_registry(self) -> str:
        return "import anonratio.bench.registry"

    def timeraw_cli_parser(self) -> str:
        return "from anonratio.bench.cli.parser import build_parser; build_parser()"


class KAnonymityBound:
    """The k-anonymity instance bound at each effort, on 5,000 records."""

    timeout = 300.0
    params = [["fast", "default"]]
    param_names = ["bound"]

    def setup(self, bound: str) -> None:
        from anonratio.bench.registry import generate
        from anonratio.instances import base

        if bound == "fast" and not hasattr(base, "fast_lower_bound"):
            raise NotImplementedError("no fast bound at this commit")
        self.instance: Any = generate("kanon-random", seed=0, n=5000, m=8, k=5)[0]

    def time_bound(self, bound: str) -> None:
        from anonratio.instances import base

        work = base.cold_copy(self.instance)  # nothing the setup computed is reused
        function = base.fast_lower_bound if bound == "fast" else base.lower_bound
        function(work)
