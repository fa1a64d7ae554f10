"""JSON files of instances: ``{"problem", "id", "meta", ...fields of the instance}``.

The ``id`` is :func:`~anonratio.instances.instance_id`, the content hash of the instance, so a
saved file names its instance the way the results store does. Files ending in ``.gz`` are
gzip-compressed.
"""

import gzip
import json
import math
import os
from pathlib import Path, PurePath
from typing import Any, Literal, TextIO

import numpy as np
from anonratio.instances.base import PROBLEMS, instance_from_dict, instance_id, instance_to_dict
from anonratio.instances.errors import InstanceFormatError

__all__ = ["save_instance", "load_instance", "jsonable"]


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


def _open(path: Path, mode: Literal["r", "w"]) -> TextIO:
    if path.suffix != ".gz":
        return open(path, mode, encoding="utf-8")
    if mode == "r":
        return gzip.open(path, "rt", encoding="utf-8")
    return gzip.open(path, "wt", encoding="utf-8")


def save_instance(
    path: str | os.PathLike[str], instance: Any, *, meta: dict[str, Any] | None = None
) -> str:
    """Write ``instance`` (and ``meta``) to a JSON file; return its ``instance_id``.

    The file holds ``{"problem", "id", "meta", **instance_to_dict(instance)}``;
    :func:`load_instance` reads it back to an equal instance with the same id.

    Parameters
    ----------
    path : str or Path
        Target file (``.json``, or ``.json.gz`` for gzip). Parent folders are created.
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
    doc = {"problem": body.pop("problem"), "id": ident, "meta": dict(meta or {})}
    doc.update(body)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(doc, default=_strict_jsonable, separators=(",", ":"))
    with _open(path, "w") as f:
        f.write(text)
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
        Not valid JSON, not an object, missing or malformed fields, an unknown problem, or an
        ``id`` that does not match the content; the message names the file.

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
    if not path.is_file():
        raise FileNotFoundError(f"instance file not found: {path}")
    try:
        with _open(path, "r") as f:
            doc = json.load(f)
    except (json.JSONDecodeError, UnicodeDecodeError, OSError, EOFError) as exc:
        raise InstanceFormatError(f"{path}: not a valid JSON instance file ({exc})") from None
    if not isinstance(doc, dict):
        raise InstanceFormatError(f"{path}: expected a JSON object, got {type(doc).__name__}")
    if "problem" not in doc:
        raise InstanceFormatError(f"{path}: missing field 'problem'")
    meta = doc.get("meta", {})
    if not isinstance(meta, dict):
        raise InstanceFormatError(f"{path}: field 'meta' must be an object")
    try:
        instance = instance_from_dict(doc)
    except InstanceFormatError as exc:
        raise InstanceFormatError(f"{path}: {exc}") from None
    except KeyError as exc:
        raise InstanceFormatError(f"{path}: missing field {exc}") from None
    except (TypeError, ValueError) as exc:
        raise InstanceFormatError(f"{path}: malformed instance ({exc})") from None
    stored = doc.get("id")
    if stored is not None and stored != instance_id(instance):
        raise InstanceFormatError(
            f"{path}: stored id {stored!r} does not match the content hash "
            f"{instance_id(instance)!r} (the file was edited or corrupted)"
        )
    return instance, meta
