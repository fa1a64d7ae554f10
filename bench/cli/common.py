"""What the ``anonratio`` commands share: ``--param`` parsing, error documents and output helpers
(the error classes: :mod:`anonratio.bench.errors`)."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from anonratio.bench.errors import CLIError

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "PROG",
    "wants_json",
    "error_document",
    "parse_params",
    "print_json",
    "frame_records",
    "fmt",
    "print_fields",
    "status",
]

PROG = "anonratio"


def wants_json(argv: Sequence[str]) -> bool:
    """Whether ``argv`` asks for ``--json`` (or an abbreviation argparse accepts), before ``--``."""
    for arg in argv:
        if arg == "--":
            return False
        if arg == "--json" or (len(arg) > 4 and "--json".startswith(arg)):
            return True
    return False


def error_document(message: str, kind: str, exc: BaseException | None = None) -> dict[str, Any]:
    """The ``--json`` form of an error: ``{"error": message, "kind": kind, "type": ...}``.

    ``kind`` is ``bad_input`` (exit status 2), ``run_failed`` (1), ``internal_error`` (1) or
    ``interrupted`` (130); ``type`` names the exception class (``InstanceFormatError``); a failed
    run adds its record as ``result``.
    """
    doc: dict[str, Any] = {"error": message, "kind": kind}
    if exc is not None:
        doc["type"] = type(exc).__name__
        result = getattr(exc, "result", None)
        if result is not None:
            doc["result"] = result
    return doc


def parse_params(items: Iterable[str] | None) -> dict[str, str]:
    """``["k=3", ...]`` -> ``{"k": "3"}``; values stay strings (coerced to the default's type).

    Raises
    ------
    CLIError
        An item that is not ``key=value``.
    """
    params = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise CLIError(f"`--param` must look like key=value, got {item!r}")
        params[key.strip()] = value.strip()
    return params


def print_json(obj: Any) -> None:
    """Print ``obj`` as one indented JSON document (NaN and infinities as null)."""
    from anonratio.instances.io import jsonable

    print(json.dumps(jsonable(obj), indent=2, allow_nan=False))


def frame_records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The rows of ``frame`` as JSON-safe dicts."""
    from anonratio.instances.io import jsonable

    return [jsonable(r) for r in frame.to_dict("records")]


def fmt(value: Any) -> str:
    """A value for the text reports: ``-`` when missing, 6 significant digits for floats."""
    import numpy as np
    import pandas as pd

    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return "-"
    if isinstance(value, float | np.floating):
        return f"{value:.6g}"
    return str(value)


def print_fields(pairs: Sequence[tuple[str, Any]]) -> None:
    """Print ``label  value`` lines with the labels padded to one width."""
    width = max(len(k) for k, _ in pairs)
    for key, value in pairs:
        print(f"{key.ljust(width)}  {value}")


def status(message: str) -> None:
    """A progress line on stderr (stdout stays machine-readable)."""
    print(f"{PROG}: {message}", file=sys.stderr, flush=True)
