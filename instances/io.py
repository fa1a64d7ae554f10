"""JSON files of instances: ``{"problem", "id", "meta", ...fields of the instance}``.

The ``id`` is :func:`~anonratio.instances.instance_id`, the content hash of the instance, so a
saved file names its instance the way the results store does. Files ending in ``.gz`` are
gzip-compressed.
"""

import contextlib
import errno
import gzip
import json
import math
import os
import tempfile
import zlib
from collections.abc import Callable
from pathlib import Path, PurePath
from typing import IO, Any

import numpy as np

from anonratio.instances.base import PROBLEMS, instance_from_dict, instance_id, instance_to_dict
from anonratio.instances.errors import InstanceFormatError

__all__ = ["atomic_write", "save_instance", "load_instance", "jsonable"]


def jsonable(value: Any, *, strict: bool = False) -> Any:
    """A JSON-native copy of ``value``: the one JSON sanitizer of the package.

    numpy scalars become Python scalars, arrays and tuples lists, sets sorted lists, paths strings;
    dict keys become strings; NaN, infinities and pandas' missing values (``NA``, ``NaT``) become
    ``None``. Use it to clean a document before ``json.dumps(..., allow_nan=False)``, or as the
    ``default=`` hook of :func:`json.dumps` (which calls it only for objects it cannot encode, so
    Python floats keep the encoder's own handling there).

    Parameters
    ----------
    value : object
    strict : bool
        Raise ``TypeError`` for an object of no known JSON form (default: use ``str(value)``).

    Returns
    -------
    object
        ``dict``, ``list``, ``str``, ``int``, ``float``, ``bool`` or ``None``.

    Raises
    ------
    TypeError
        ``strict`` and an object of no known JSON form: ``"<type> is not JSON-serializable"``.

    Examples
    --------
    >>> jsonable({"k": np.int64(3), "w": np.array([0.5, np.nan]), 1: {"a", "b"}})
    {'k': 3, 'w': [0.5, None], '1': ['a', 'b']}
    """
    if isinstance(value, dict):
        return {str(k): jsonable(v, strict=strict) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v, strict=strict) for v in value]
    if isinstance(value, set | frozenset):
        return sorted(jsonable(v, strict=strict) for v in value)
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "biuU" or (value.dtype.kind == "f" and np.isfinite(value).all()):
            return value.tolist()  # already JSON-native: no walk over a large array
        return jsonable(value.tolist(), strict=strict)
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if value is None or isinstance(value, str | int | bool):
        return value
    if isinstance(value, PurePath):
        return str(value)
    if type(value).__name__ in ("NAType", "NaTType"):  # pandas.NA, pandas.NaT
        return None
    if strict:
        raise TypeError(f"{type(value).__name__} is not JSON-serializable")
    return str(value)


def _strict_jsonable(value: Any) -> Any:
    return jsonable(value, strict=True)


def _read_text(path: Path) -> str:
    """The text of an instance file (gunzipped for ``.gz``); :class:`InstanceFormatError` for
    a file that is not UTF-8 text."""
    data = path.read_bytes()
    if path.suffix == ".gz":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise InstanceFormatError(
                f"{path}: not a valid JSON instance file: not a gzip file ({exc})"
            ) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InstanceFormatError(
            f"{path}: not a valid JSON instance file: not UTF-8 text "
            f"(byte 0x{data[exc.start]:02x} at offset {exc.start}; a binary file?)"
        ) from None


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` of :func:`json.loads`: a key given twice is an error, not the
    silent last-one-wins of the json module."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


class _DuplicateKey(Exception):
    pass


def _parse(path: Path, text: str) -> Any:
    if not text.strip():
        raise InstanceFormatError(f"{path}: empty file, not a JSON instance")
    try:
        return json.loads(text, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as exc:
        raise InstanceFormatError(
            f"{path}: not a valid JSON instance file: {exc.msg} at line {exc.lineno}, "
            f"column {exc.colno}"
        ) from None
    except _DuplicateKey as exc:
        raise InstanceFormatError(
            f"{path}: not a valid JSON instance file: the key {exc.args[0]!r} appears twice "
            "in one object"
        ) from None
    except RecursionError:
        raise InstanceFormatError(
            f"{path}: not a valid JSON instance file: nested too deeply"
        ) from None
    except ValueError as exc:  # e.g. an integer of more than 4300 digits
        raise InstanceFormatError(
            f"{path}: not a valid JSON instance file: {' '.join(str(exc).split())}"
        ) from None


def save_instance(
    path: str | os.PathLike[str], instance: Any, *, meta: dict[str, Any] | None = None
) -> str:
    """Write ``instance`` (and ``meta``) to a JSON file; return its ``instance_id``.

    The file holds ``{"problem", "id", "meta", **instance_to_dict(instance)}``;
    :func:`load_instance` reads it back to an equal instance with the same id.

    Parameters
    ----------
    path : str or Path
        Target file (``.json``, or ``.json.gz`` for gzip). Parent folders are created; the file
        is written to a temporary file beside it and renamed, so it is never left half written.
    instance : a registered instance type
    meta : dict, optional
        JSON-serializable metadata (family, generator params, seed, known optimum, ...); numpy
        scalars and arrays are converted.

    Returns
    -------
    str
        The instance id (content hash).

    Notes
    -----
    O(size of the instance) time.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from anonratio.instances import KAnonymityInstance
    >>> from anonratio.instances.kanonymity.generators import binary_table
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "i.json"
    >>> inst = KAnonymityInstance(binary_table(6, 3, seed=0), 2)
    >>> len(save_instance(p, inst, meta={"seed": 0}))   # the 16-hex-digit content hash
    16
    """
    if meta is not None and not isinstance(meta, dict):
        raise ValueError(f"`meta` must be a dict or None, got {type(meta).__name__}")
    if getattr(instance, "problem", None) not in PROBLEMS:
        raise ValueError(
            f"`instance` must be a registered problem instance, got {type(instance).__name__}"
        )
    body = instance_to_dict(instance)
    ident = instance_id(instance)
    # NaN and infinities in `meta` become null: the file stays standard JSON
    doc = {
        "problem": body.pop("problem"),
        "id": ident,
        "meta": jsonable(dict(meta or {}), strict=True),
    }
    doc.update(body)
    path = Path(path)
    text = json.dumps(doc, default=_strict_jsonable, separators=(",", ":"), allow_nan=False)
    data = gzip.compress(text.encode()) if path.suffix == ".gz" else text.encode()
    if path.is_dir():
        raise IsADirectoryError(errno.EISDIR, "Is a directory", str(path))
    atomic_write(path, lambda f: f.write(data))
    return ident


def load_instance(path: str | os.PathLike[str]) -> tuple[Any, dict[str, Any]]:
    """Read a file written by :func:`save_instance`: ``(instance, meta)``.

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    (instance, dict)

    Raises
    ------
    FileNotFoundError
        If the file does not exist.
    InstanceFormatError
        A directory, an empty or binary file, not valid JSON (the message gives the line and
        column), a key given twice, not an object, a missing, unknown or malformed field (the
        constructor's own validation: the message names the field and the value), an unknown
        problem, or an ``id`` that does not match the content. The message starts with the path.

    Notes
    -----
    O(size of the file) time.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from anonratio.instances import KAnonymityInstance, instance_id
    >>> from anonratio.instances.kanonymity.generators import binary_table
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "i.json"
    >>> inst = KAnonymityInstance(binary_table(6, 3, seed=0), 2)
    >>> ident = save_instance(p, inst, meta={"seed": 0})
    >>> back, meta = load_instance(p)
    >>> instance_id(back) == ident, meta
    (True, {'seed': 0})
    """
    path = Path(path)
    if path.is_dir():
        raise InstanceFormatError(f"{path}: is a directory, not an instance file")
    if not path.exists():
        raise FileNotFoundError(f"instance file not found: {path}")
    doc = _parse(path, _read_text(path))
    if not isinstance(doc, dict):
        raise InstanceFormatError(f"{path}: expected a JSON object, got {_json_type(doc)}")
    if "problem" not in doc:
        raise InstanceFormatError(f"{path}: missing field 'problem'")
    meta = doc.get("meta", {})
    if not isinstance(meta, dict):
        raise InstanceFormatError(f"{path}: field 'meta' must be an object, got {_json_type(meta)}")
    stored = doc.get("id")
    if stored is not None and not isinstance(stored, str):
        raise InstanceFormatError(f"{path}: field 'id' must be a string, got {stored!r}")
    try:
        instance = instance_from_dict(doc)
    except InstanceFormatError as exc:
        raise InstanceFormatError(f"{path}: {exc}") from None
    if stored is not None and stored != instance_id(instance):
        raise InstanceFormatError(
            f"{path}: stored id {stored!r} does not match the content hash "
            f"{instance_id(instance)!r} (the file was edited or corrupted)"
        )
    return instance, meta


def _json_type(value: Any) -> str:
    """The JSON name of a parsed value's type: ``array``, ``string``, ``number``, ..."""
    names = {list: "array", str: "string", int: "number", float: "number", bool: "boolean"}
    return "null" if value is None else names.get(type(value), "object")


def atomic_write(
    path: str | os.PathLike[str],
    write: Callable[[IO[Any]], Any],
    *,
    mode: str = "wb",
    encoding: str | None = None,
    newline: str | None = None,
) -> Path:
    """Write a file so that ``path`` holds the old content or the new, never a part.

    ``write(file)`` fills a temporary file in the target folder (created if missing), which is
    flushed to disk and renamed over ``path`` (:func:`os.replace`); on any error the temporary
    file is removed and ``path`` is untouched. The file gets the usual permissions (``0o666``
    less the umask). Every output of anonratio (instance files, results, reports, figures,
    published tables) is written through it.
    """
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, mode, encoding=encoding, newline=newline) as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, out)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return out
