"""The committed baseline of the quality gate (:mod:`anonratio.bench.gate`): read and checked
(:func:`load_baseline`), written atomically (:func:`write_baseline`).

``results/baselines/gate.json`` holds, per algorithm and tracked instance name, the ratio of the
verified cost to the reference optimum, the cost, the optimum, the instance id and the code
version that produced it. A file that is not UTF-8 JSON, or an entry whose ratio is not a finite
number (``NaN``, ``null``, a string), is refused with a message naming the file and the entry:
a gate never compares against nothing.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from anonratio.bench.record import package_version
from anonratio.instances.errors import InstanceFormatError
from anonratio.instances.io import atomic_write

__all__ = ["DEFAULT_BASELINE", "check_entries", "load_baseline", "write_baseline"]

DEFAULT_BASELINE = Path(__file__).resolve().parent.parent / "results" / "baselines" / "gate.json"


def check_entries(entries: Any, source: str = "<baseline>") -> dict[str, dict[str, Any]]:
    """``entries`` (algorithm -> instance name -> entry), checked: ``InstanceFormatError``
    naming ``source`` and the entry for anything but objects with a finite ``ratio >= 0``."""
    if not isinstance(entries, Mapping):
        raise InstanceFormatError(f"{source}: not a gate baseline (no `entries` object)")
    for alg, by_instance in entries.items():
        if not isinstance(by_instance, Mapping):
            got = repr(by_instance)[:100]
            raise InstanceFormatError(
                f"{source}: entry {alg!r} must be an object of instance names, got {got}"
            )
        for name, entry in by_instance.items():
            _check_entry(source, alg, name, entry)
    return entries


def _check_entry(path: str, alg: str, name: str, entry: Any) -> None:
    """Refuse a baseline entry that cannot be compared with (``InstanceFormatError``)."""
    where = f"{path}: entry {alg!r} / {name!r}"
    if not isinstance(entry, Mapping):
        raise InstanceFormatError(f"{where} must be an object, got {repr(entry)[:100]}")
    ratio = entry.get("ratio")
    number = isinstance(ratio, int | float) and not isinstance(ratio, bool)
    if not (number and math.isfinite(ratio) and ratio >= 0):
        raise InstanceFormatError(f"{where}: `ratio` must be a finite number >= 0, got {ratio!r}")
    if not isinstance(entry.get("instance_id", ""), str):
        raise InstanceFormatError(
            f"{where}: `instance_id` must be a string, got {entry['instance_id']!r}"
        )


def load_baseline(path: str | Path | None = None) -> dict[str, dict[str, dict[str, Any]]]:
    """The baseline's ``entries``: algorithm -> instance name -> entry.

    Raises
    ------
    FileNotFoundError
        No such file.
    InstanceFormatError
        A file that is not UTF-8 JSON (empty, binary, cut short), has no ``entries`` object, or
        an entry that is not an object with a finite ``ratio >= 0`` (``NaN``, ``null`` and
        strings included); the message names the file and the entry.
    """
    path = Path(path) if path is not None else DEFAULT_BASELINE
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InstanceFormatError(
            f"{path}: not a gate baseline: not UTF-8 text (byte {data[exc.start]:#04x} at "
            f"offset {exc.start})"
        ) from None
    if not text.strip():
        raise InstanceFormatError(f"{path}: not a gate baseline: the file is empty")
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise InstanceFormatError(f"{path}: not a gate baseline: not valid JSON: {exc}") from None
    entries = doc.get("entries") if isinstance(doc, dict) else None
    if not isinstance(entries, dict):
        raise InstanceFormatError(f"{path}: not a gate baseline (no `entries` object)")
    return check_entries(entries, str(path))


def write_baseline(
    rows: Iterable[Mapping[str, Any]],
    path: str | Path | None = None,
    *,
    keep: Mapping[str, Mapping[str, Any]] | None = None,
) -> Path:
    """Write the baseline of the rated rows atomically; returns its path.

    ``keep``: entries of other algorithms to carry over unchanged (a gate restricted with
    ``--algorithm`` updates those algorithms only).
    """
    path = Path(path) if path is not None else DEFAULT_BASELINE
    version = package_version()
    entries: dict[str, dict[str, Any]] = {k: dict(v) for k, v in (keep or {}).items()}
    for row in rows:
        if row.get("ratio") is None or not math.isfinite(row["ratio"]):
            continue  # unrated (an infinite ratio has no JSON number: it stays new)
        entries.setdefault(row["algorithm"], {})[row["instance"]] = {
            "ratio": row["ratio"],
            "cost": row["cost"],
            "optimum": row["optimum"],
            "instance_id": row["instance_id"],
            "version": version,
        }
    doc = {
        "description": "Baseline of `anonratio gate`: per approximation algorithm or heuristic "
        "and tracked instance (anonratio.bench.reference), the ratio of its verified cost to the "
        "reference optimum, and the code version that produced it. Rewritten by "
        "`anonratio gate --update`.",
        "entries": entries,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(doc, indent=2, sort_keys=False) + "\n"
    atomic_write(path, lambda f: f.write(text), mode="w", encoding="utf-8")
    return path
