"""What the ``anonratio`` commands share: their errors, ``--param`` parsing and output helpers."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd
from anonratio.instances.io import jsonable

__all__ = [
    "PROG",
    "CLIError",
    "RunFailure",
    "parse_params",
    "print_json",
    "frame_records",
    "fmt",
    "print_fields",
    "status",
]

PROG = "anonratio"


class CLIError(ValueError):
    """A user error detected by the CLI itself (exit status 2)."""


class RunFailure(RuntimeError):
    """A run that did not produce a verified answer (exit status 1)."""


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
    print(json.dumps(jsonable(obj), indent=2, allow_nan=False))


def frame_records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The rows of ``frame`` as JSON-safe dicts."""
    return [jsonable(r) for r in frame.to_dict("records")]


def fmt(value: Any) -> str:
    """A value for the text reports: ``-`` when missing, 6 significant digits for floats."""
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
