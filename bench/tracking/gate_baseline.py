"""The committed baseline of the quality gate (:mod:`anonratio.bench.tracking.gate`): found
(:func:`resolve_baseline`), read and checked (:func:`load_baseline`), written atomically
(:func:`write_baseline`), and what an update changed (:func:`baseline_changes`).

The baseline is the one of the checkout the gate runs in (:func:`find_checkout`: the current
folder or the nearest one above it holding the package and a ``pyproject.toml`` of project
``anonratio``; else the imported package's folder if it is a checkout), so that ``anonratio gate
--update`` writes a file a commit picks up; outside a checkout the installed copy's is read, and
``--update`` needs ``--baseline FILE``. In a checkout the gate refuses to run code other than
the checkout's (:func:`check_installed_code`): an installed copy whose source hash
(:func:`~anonratio.bench.engine.record.source_hash`) differs from the working tree's must be
reinstalled first.

``results/baselines/gate.json`` holds, per algorithm and tracked instance name, the ratio of the
verified cost to the reference optimum, the cost, the optimum, the instance id and the code
version that produced it. A file that is not UTF-8 JSON, or an entry whose ratio is not a finite
number (``NaN``, ``null``, a string), is refused with a message naming the file and the entry:
a gate never compares against nothing.
"""

from __future__ import annotations

import json
import math
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from anonratio.bench.engine import record
from anonratio.instances.errors import InstanceFormatError
from anonratio.instances.io import atomic_write

__all__ = [
    "DEFAULT_BASELINE",
    "BASELINE_PATH",
    "CodeMismatch",
    "check_entries",
    "load_baseline",
    "write_baseline",
    "find_checkout",
    "check_installed_code",
    "resolve_baseline",
    "baseline_changes",
]

#: the baseline's path relative to the package root (a checkout or an installed copy)
BASELINE_PATH = Path("results", "baselines", "gate.json")
#: the baseline of the imported package (the installed copy's, outside a checkout)
DEFAULT_BASELINE = Path(__file__).resolve().parents[2] / BASELINE_PATH


class CodeMismatch(ValueError):
    """The imported package is not the code of the checkout the gate runs in (exit status 2)."""


def _is_checkout(folder: Path) -> bool:
    if not all(
        (folder / f).is_file() for f in ("pyproject.toml", "__init__.py", "bench/tracking/gate.py")
    ):
        return False
    try:
        project = tomllib.loads((folder / "pyproject.toml").read_text("utf-8")).get("project")
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    return isinstance(project, dict) and project.get("name") == "anonratio"


def find_checkout(start: str | Path | None = None) -> Path | None:
    """The anonratio checkout holding ``start`` (default: the current folder): the nearest folder
    at or above it with a ``pyproject.toml`` naming project ``anonratio`` and the package files
    (``__init__.py``, ``bench/tracking/gate.py``); None outside one."""
    start = (Path.cwd() if start is None else Path(start)).resolve()
    return next((f for f in (start, *start.parents) if _is_checkout(f)), None)


def check_installed_code(checkout: str | Path) -> None:
    """Refuse to gate ``checkout`` with other code: ``CodeMismatch`` when the imported package
    is not the checkout itself and its source hash differs from the checkout's."""
    checkout = Path(checkout).resolve()
    imported = record.package_root()
    if imported == checkout:
        return
    mine, theirs = record.code_identity().source, record.source_hash(checkout)
    if mine != theirs:
        raise CodeMismatch(
            f"the imported anonratio ({imported}, source {mine[:12]}) is not the code of the "
            f"checkout {checkout} (source {theirs[:12]}): reinstall it with `pip install .` in "
            "the checkout, then run the gate again"
        )


def resolve_baseline(
    baseline: str | Path | None, *, update: bool, start: str | Path | None = None
) -> tuple[Path, Path | None]:
    """The baseline file the gate reads (and with ``update`` writes), and the checkout it runs
    in (None outside one).

    ``baseline`` if given, else the checkout's ``results/baselines/gate.json``, else (outside a
    checkout, without ``update``) the installed copy's. The checkout is :func:`find_checkout` of
    ``start``, or else the imported package's folder when that is a checkout (an editable
    install).

    Raises
    ------
    CodeMismatch
        In a checkout whose code differs from the imported package's
        (:func:`check_installed_code`).
    ValueError
        ``update`` outside a checkout without ``baseline``: the installed copy's file is in
        site-packages, where no commit picks it up.
    """
    checkout = find_checkout(start)
    if checkout is None and _is_checkout(record.package_root()):
        checkout = record.package_root()  # an editable install (or PYTHONPATH) run from elsewhere
    if checkout is not None:
        check_installed_code(checkout)
    if baseline is not None:
        return Path(baseline), checkout
    if checkout is not None:
        return checkout / BASELINE_PATH, checkout
    if update:
        raise ValueError(
            f"`--update` outside an anonratio checkout needs `--baseline FILE` (the installed "
            f"baseline {DEFAULT_BASELINE} is not in a checkout, no commit would pick it up)"
        )
    return DEFAULT_BASELINE, None


def check_entries(
    entries: Any, source: str = "<baseline>"
) -> Mapping[str, Mapping[str, Mapping[str, Any]]]:
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
    if (
        isinstance(ratio, bool)
        or not isinstance(ratio, int | float)
        or not (math.isfinite(ratio) and ratio >= 0)
    ):
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
    check_entries(entries, str(path))
    return entries


def write_baseline(
    rows: Iterable[Mapping[str, Any]],
    path: str | Path | None = None,
    *,
    keep: Mapping[str, Mapping[str, Any]] | None = None,
) -> Path:
    """Write the baseline of the rated rows atomically; returns its path.

    ``keep``: entries of other algorithms to carry over unchanged (a gate restricted with
    ``--algorithm`` updates those algorithms only), in the file's order; an algorithm given with
    no entries keeps its place for this run's rows (it is dropped if they have none).
    """
    path = Path(path) if path is not None else DEFAULT_BASELINE
    version = record.package_version()
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
    entries = {alg: by_instance for alg, by_instance in entries.items() if by_instance}
    doc = {
        "description": "Baseline of `anonratio gate`: per approximation algorithm or heuristic "
        "and tracked instance (anonratio.bench.tracking.reference), the ratio of its verified "
        "cost to the reference optimum, and the code version that produced it. Rewritten by "
        "`anonratio gate --update`.",
        "entries": entries,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(doc, indent=2, sort_keys=False) + "\n"
    atomic_write(path, lambda f: f.write(text), mode="w", encoding="utf-8")
    return path


def baseline_changes(
    old: Mapping[str, Mapping[str, Mapping[str, Any]]],
    new: Mapping[str, Mapping[str, Mapping[str, Any]]],
) -> dict[str, dict[str, Any]]:
    """What an update changed, per algorithm whose entries differ between ``old`` and ``new``.

    Returns
    -------
    dict
        Algorithm -> ``{"added": [...], "improved": [...], "worsened": [...], "removed": [...],
        "same": n}``: instance names added, with a lower ratio, with a higher ratio, dropped, and
        the number of entries whose ratio stayed the same.
    """
    out: dict[str, dict[str, Any]] = {}
    for alg in sorted(set(old) | set(new)):
        before, after = old.get(alg, {}), new.get(alg, {})
        change: dict[str, Any] = {"added": [], "improved": [], "worsened": [], "removed": []}
        same = 0
        for name in sorted(set(before) | set(after)):
            if name not in before:
                change["added"].append(name)
            elif name not in after:
                change["removed"].append(name)
            elif after[name]["ratio"] < before[name]["ratio"]:
                change["improved"].append(name)
            elif after[name]["ratio"] > before[name]["ratio"]:
                change["worsened"].append(name)
            else:
                same += 1
        if any(change.values()):
            out[alg] = {**change, "same": same}
    return out
