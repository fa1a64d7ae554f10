"""The errors the bench layer raises for its callers to map to an exit status (the command line:
2 for a user error, 1 for a run without a verified answer). They live here, below every group,
so that the engine, publishing and tracking raise them without importing the command line."""

from __future__ import annotations

from typing import Any

__all__ = ["CLIError", "RunFailure", "UsageError"]


class CLIError(ValueError):
    """A user error detected by the CLI itself (exit status 2)."""


class RunFailure(RuntimeError):
    """A run that did not produce a verified answer (exit status 1).

    ``result`` is what the command would have printed with ``--json`` (the run's record): the
    error document carries it, so stdout stays one JSON document.
    """

    def __init__(self, message: str, result: Any = None) -> None:
        super().__init__(message)
        self.result = result


class UsageError(CLIError):
    """An argparse usage error (unknown command, missing or malformed option): exit status 2."""
