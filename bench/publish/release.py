"""The instance and the release :func:`anonratio.bench.publish.anonymize.publish` publishes, built
by the problem's :class:`~anonratio.bench.publish.publisher.Publisher`, and the checks they share.

* :func:`build_instance` — the problem's instance from the data, after the checks that need the
  data (e.g. ``k`` at most the number of records, :func:`check_k`) and the refusal of a privacy
  model no release can satisfy (:func:`check_satisfiable`: it fails on the whole table taken as
  one class).
* :func:`release` — the published table of a verified solution, in the input's shape, and the
  check of every requested model on its cells (:func:`check_release`): the publisher's own model
  (k-anonymity with the requested k or r, l-eligibility), then every privacy model. A failed
  check raises, so nothing unchecked is ever returned for writing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from anonratio.bench.publish.request import Request, Source
from anonratio.instances.equivalence import classes_of
from anonratio.instances.errors import InfeasibleInstanceError, InfeasibleSolutionError
from anonratio.instances.privacy import PrivacyCheck, PrivacyModel
from anonratio.instances.validation import check_int

__all__ = [
    "Release",
    "build_instance",
    "check_k",
    "check_release",
    "check_satisfiable",
    "class_summary",
    "release",
    "sensitive_of",
]


@dataclass(frozen=True, eq=False)
class Release:
    """A checked published table and what
    :class:`~anonratio.bench.publish.anonymize.AnonymizationResult` reports about it."""

    published: pd.DataFrame
    checks: list[PrivacyCheck]
    withheld: np.ndarray
    published_cost: float
    recoding: str
    n_classes: int
    smallest_class: int | None
    metrics: dict[str, float] = field(default_factory=dict)
    levels: dict[str, int] | None = None
    clusters: pd.DataFrame | None = None
    details: dict[str, Any] = field(default_factory=dict)
    recoded: Any = None


# ---------------------------------------------------------------------------------------------
# the instance
# ---------------------------------------------------------------------------------------------
def sensitive_of(table: Any) -> tuple[np.ndarray | None, int | None]:
    """The sensitive codes of ``table`` and the number of sensitive values (None, None without a
    sensitive column)."""
    if table.sensitive is None:
        return None, None
    return np.asarray(table.sensitive), len(table.sensitive_values or ()) or None


def check_satisfiable(request: Request, table: Any) -> None:
    """Refuse a privacy model no release of ``table`` can satisfy.

    A model that is monotone (merging passing classes gives a passing class) holds on some
    release only if it holds on the whole table as one class; with a suppression limit, a model
    that stays monotone under suppression (a passing class passes merged with any class) holds on
    a subset only if it holds on the whole table. So when the whole table fails such a model, no
    release satisfies it (e.g. distinct l-diversity with fewer than l distinct sensitive values).
    """
    codes, n_values = sensitive_of(table)
    whole = np.zeros(table.n_records, dtype=np.int64)
    for model in request.models:
        exact = model.monotone and (request.max_suppression == 0 or model.monotone_with_suppression)
        if not exact:
            continue
        check = model.check(whole, codes, n_values=n_values)
        if not check.satisfied:
            distinct = (
                ""
                if codes is None or not model.needs_sensitive
                else (
                    f"; the sensitive column {request.sensitive!r} has "
                    f"{np.unique(codes).size} distinct values"
                )
            )
            raise InfeasibleInstanceError(
                f"{request.name('privacy')} {model.spec!r}: no release can satisfy {model}, "
                f"since even the whole table as one class fails it ({model.measure_name} "
                f"{check.worst:.6g}{distinct})"
            )


def check_k(request: Request, n: int) -> None:
    """``request.k`` (k, or the cluster size r) in ``[2, n]``, ``n`` the number of records."""
    check_int(request.names.get("k", "k"), request.k, low=2, high=n, high_name="n_records")


def build_instance(request: Request, source: Source) -> Any:
    """The instance of ``request.problem`` built from ``source`` by its publisher."""
    return request.publisher.instance(request, source)


# ---------------------------------------------------------------------------------------------
# the release and its checks
# ---------------------------------------------------------------------------------------------
def _kept_rows(
    published: pd.DataFrame, source: Source, withheld: np.ndarray, qi: list[str]
) -> pd.DataFrame:
    """The published rows of the records kept, checked against the input: its columns, the kept
    records in order, their cells outside the QI unchanged."""
    from anonratio.bench.errors import RunFailure

    frame, n = source.frame, len(source.frame)
    kept = np.flatnonzero(~withheld)
    if list(published.columns) != list(frame.columns) or len(published) not in (n, kept.size):
        raise RunFailure("the published table does not have the input's columns and kept rows")
    rows = published.iloc[kept] if len(published) == n else published
    given = frame.iloc[kept] if kept.size < n else frame
    for c in frame.columns:
        if c not in qi and not _same_text(rows[c], given[c]):
            raise RunFailure("the published table changed a cell outside the quasi-identifiers")
    return rows


def _same_text(a: pd.Series, b: pd.Series) -> bool:
    """Whether ``a`` and ``b`` hold the same cells as ``astype(str)`` writes them (a missing cell
    equal to a missing one): two columns of strings compared as they are."""
    x, y = a.to_numpy(dtype=object), b.to_numpy(dtype=object)
    if a.dtype == object and b.dtype == object and _strings(x) and _strings(y):
        return bool(np.array_equal(x, y))
    return a.astype(str).reset_index(drop=True).equals(b.astype(str).reset_index(drop=True))


def _strings(cells: np.ndarray) -> bool:
    return bool(pd.api.types.infer_dtype(cells, skipna=False) == "string")


def check_release(
    request: Request,
    source: Source,
    published: pd.DataFrame,
    withheld: np.ndarray,
    required: PrivacyModel,
    sensitive: tuple[np.ndarray | None, int | None],
) -> tuple[list[PrivacyCheck], np.ndarray]:
    """Check ``required`` and every requested privacy model on the published cells: records with
    equal QI cells form a class; the records a suppression limit withheld are in none. Returns
    the checks and the class sizes; ``InfeasibleSolutionError`` names the first model that fails.
    """
    qi = list(request.qi)
    rows = _kept_rows(published, source, withheld, qi)
    classes = np.full(len(source.frame), -1, dtype=np.int64)
    classes[~withheld] = classes_of(rows, qi, suppressed=None)
    codes, n_values = sensitive
    checks = [m.check(classes, codes, n_values=n_values) for m in [required, *request.models]]
    failed = [c for c in checks if not c.satisfied]
    if failed:
        raise InfeasibleSolutionError(
            f"the published table breaks {failed[0].model}: {failed[0].message}"
        )
    return checks, np.bincount(classes[classes >= 0])


def class_summary(sizes: np.ndarray) -> tuple[int, int | None]:
    """The number of published classes and the smallest one's size (None without classes)."""
    sizes = sizes[sizes > 0]
    return int(sizes.size), int(sizes.min()) if sizes.size else None


def release(request: Request, source: Source, instance: Any, solution: Any) -> Release:
    """The checked published table of a verified ``solution``, built by the problem's publisher
    (see the module docstring)."""
    return request.publisher.release(request, source, instance, solution)
