"""Equivalence classes of a release: from a published DataFrame (:func:`classes_of`), their
sizes and sensitive histograms (:func:`class_statistics`), and the privacy checks of
:mod:`anonratio.instances.privacy` on a DataFrame (:func:`check_published`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from anonratio.instances.validation import as_array, check_instance, check_int

__all__ = ["classes_of", "class_statistics"]


def _codes(name: str, values: Any, low: int) -> np.ndarray:
    """``values`` as a 1-d int64 array of integers ``>= low`` (ValueError naming ``name``)."""
    arr = as_array(name, values)
    if arr.ndim != 1:
        raise ValueError(f"`{name}` must be a 1-d array, got shape {arr.shape}")
    if arr.size == 0:
        return np.zeros(0, dtype=np.int64)
    if arr.dtype.kind not in "iu":
        raise ValueError(f"`{name}` must hold integer codes, got dtype {arr.dtype}")
    bad = np.flatnonzero(arr < low)
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"`{name}` must be integers >= {low}, got {arr[i]} at index {i}")
    return arr.astype(np.int64)


def class_statistics(
    classes: Any, sensitive: Any = None, *, n_values: int | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The per-class statistics every model tests: ids, sizes, sensitive histograms, prior.

    Parameters
    ----------
    classes : array of int, shape (n,)
        Class id per record (integers ``>= 0``, not necessarily contiguous), ``-1`` if withheld.
    sensitive : array of int, shape (n,), optional
        Sensitive code per record, in ``[0, n_values)``.
    n_values : int, optional
        Number ``S`` of sensitive values (default ``max(sensitive) + 1``; 0 without ``sensitive``).

    Returns
    -------
    ids, sizes : ndarray of int, shape (C,)
        The class ids, increasing, and the number of records of each.
    hist : ndarray of int, shape (C, S)
        ``hist[c, s]`` = number of records of class ``ids[c]`` with sensitive code ``s``.
    prior : ndarray of float, shape (S,)
        Distribution of the sensitive attribute over *all* ``n`` records, withheld ones included
        (the private table of Li et al. 2007); zeros when ``n = 0``.

    Notes
    -----
    O(n log n) time (``np.unique``), O(n + C · S) memory.
    """
    classes = _codes("classes", classes, -1)
    n = classes.size
    keep = classes >= 0
    ids, inv = np.unique(classes[keep], return_inverse=True)
    sizes = np.bincount(inv, minlength=ids.size).astype(np.int64)
    if sensitive is None:
        return ids, sizes, np.zeros((ids.size, 0), dtype=np.int64), np.zeros(0)
    sens = _codes("sensitive", sensitive, 0)
    if sens.size != n:
        raise ValueError(f"`sensitive` must have one code per record (n={n}), got {sens.size}")
    top = int(sens.max()) + 1 if n else 0
    s = top if n_values is None else check_int("n_values", n_values, low=max(top, 1))
    flat = np.bincount(inv * s + sens[keep], minlength=ids.size * s)
    prior = np.bincount(sens, minlength=s) / n if n else np.zeros(s)
    return ids, sizes, flat.reshape(ids.size, s).astype(np.int64), prior


def _columns(frame: pd.DataFrame, qi: Sequence[str]) -> list[str]:
    check_instance(frame, pd.DataFrame, "frame")
    qi = [qi] if isinstance(qi, str) else list(qi)
    missing = [q for q in qi if q not in frame.columns]
    if not qi or missing:
        raise ValueError(f"`qi` must name columns of `frame`, got {missing or qi}")
    return qi


def classes_of(frame: pd.DataFrame, qi: Sequence[str], *, suppressed: Any = None) -> np.ndarray:
    """The class ids of a published table: records with equal QI cells share a class.

    Every row is a record of the release, a row of ``*`` in every QI cell too (a table published
    at the top of every hierarchy is one class). Only when ``suppressed`` is given (e.g. ``"*"``
    for a table published with its suppressed tuples kept as starred rows) is a row whose every QI
    cell equals it a withheld tuple, in no class (``-1``); a row with only some QI cells
    suppressed is an ordinary record whose ``suppressed`` cells are one more value. Missing cells
    (NaN) compare equal. Ids are ``0 .. C-1`` in order of first appearance.
    O(n · |qi|) expected time (``groupby(...).ngroup()``).
    """
    qi = _columns(frame, qi)
    cells = frame[qi]
    withheld = np.zeros(len(frame), dtype=bool)
    if suppressed is not None:
        withheld = (cells == suppressed).all(axis=1).to_numpy()
    ids = np.full(len(frame), -1, dtype=np.int64)
    kept = cells[~withheld]
    if len(kept):
        ids[~withheld] = kept.groupby(qi, sort=False, dropna=False).ngroup().to_numpy()
    return ids


def _sensitive_codes(column: pd.Series) -> tuple[np.ndarray, int]:
    """Codes of a sensitive column in sorted value order (numeric order if all are numbers)."""
    if column.isna().any():
        raise ValueError(f"`sensitive` column {column.name!r} has missing values")
    numbers = pd.to_numeric(column, errors="coerce")
    values = numbers if numbers.notna().all() else column.astype(str)
    codes, uniques = pd.factorize(values.to_numpy(), sort=True)
    return codes.astype(np.int64), len(uniques)
