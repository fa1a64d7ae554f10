"""The instance and the release of each problem :func:`anonratio.bench.publish.anonymize.publish`
publishes.

* :func:`build_instance` — the problem's instance from the data, after the checks that need the
  data: ``k`` (or ``r``) at most the number of records, ``l`` at most the number of distinct
  sensitive values (l-diversity needs that many), and every privacy model satisfiable at all
  (:func:`check_satisfiable`: it holds on the whole table taken as one class).
* :func:`release` — the published table of a verified solution, in the input's shape, and the
  check of every requested model on its cells (:func:`check_release`): k-anonymity with the
  requested k (or r) or l-diversity (:class:`LEligibility`), then every privacy model. A failed
  check raises, so nothing unchecked is ever returned for writing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from anonratio.bench.publish.request import Request, Source
from anonratio.instances.equivalence import classes_of
from anonratio.instances.errors import InfeasibleInstanceError, InfeasibleSolutionError
from anonratio.instances.privacy import KAnonymity, PrivacyCheck, PrivacyModel
from anonratio.instances.validation import check_int

__all__ = ["LEligibility", "Release", "build_instance", "check_satisfiable", "release"]


@dataclass(frozen=True)
class LEligibility(PrivacyModel):
    """l-diversity as Xiao, Yi and Tao (2010) define it: a class is *l-eligible* when no
    sensitive value occurs in more than a fraction 1/l of its records (``l · max <= size``).

    Monotone (merging two eligible classes keeps every value's share at most 1/l). Measure: the
    largest l the class is eligible for, ``size // max``.
    """

    l: int
    name: ClassVar[str] = "l-eligibility"
    key: ClassVar[str] = "l-eligibility"
    measure_name: ClassVar[str] = "largest l every class is eligible for"

    def __post_init__(self) -> None:
        object.__setattr__(self, "l", check_int("l", self.l, low=1))

    def measure(self, sizes, hist, prior):
        return (sizes // np.maximum(hist.max(axis=1, initial=0), 1)).astype(float)

    def passes(self, sizes, hist, prior):
        return self.l * hist.max(axis=1, initial=0) <= sizes

    def __str__(self) -> str:
        return f"{self.l}-diversity (l-eligible)"


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
def _sensitive_of(table: Any) -> tuple[np.ndarray | None, int | None]:
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
    codes, n_values = _sensitive_of(table)
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


def _check_size(request: Request, n: int) -> None:
    check_int(request.names.get("k", "k"), request.k, low=2, high=n, high_name="n_records")


def _kanonymity(request: Request, source: Source) -> Any:
    from anonratio.instances import KAnonymityInstance

    table = source.table(
        qi=list(request.qi),
        sensitive=request.sensitive,
        hierarchies=request.hierarchies or None,
        weights=request.weights,
    )
    _check_size(request, table.n_records)
    check_satisfiable(request, table)
    return KAnonymityInstance(
        table, request.k, request.model, row_deletion=request.max_suppression > 0
    )


def _ldiversity(request: Request, source: Source) -> Any:
    from anonratio.instances.ldiversity import LDiversityInstance

    table = source.table(qi=list(request.qi), sensitive=request.sensitive)
    distinct = int(np.unique(table.sensitive).size)
    if request.l > distinct:
        constant = " (the column is constant)" if distinct == 1 else ""
        raise InfeasibleInstanceError(
            f"{request.name('l')} must be at most the number of distinct values of the sensitive "
            f"column {request.sensitive!r}, {distinct}{constant}: an l-diverse class holds l "
            f"distinct values; got {request.l}"
        )
    return LDiversityInstance(table, request.l)


def _clustering(request: Request, source: Source) -> Any:
    from anonratio.instances.clustering import RCellularInstance, RGatherInstance
    from anonratio.instances.clustering.publish import points_from_frame
    from anonratio.instances.frame_columns import name_hint

    frame = source.frame
    if request.sensitive is not None and request.sensitive not in frame.columns:
        what = request.name("sensitive")
        hint = name_hint([request.sensitive], list(frame.columns), what)
        raise ValueError(f"{what} column {request.sensitive!r} is not in the header{hint}")
    points = points_from_frame(
        frame, list(request.qi), scaling=request.scaling, lines=source.lines, source=source.name
    )
    _check_size(request, len(points))
    cls = RGatherInstance if request.problem == "r-gather" else RCellularInstance
    return cls(points, r=request.k)


def build_instance(request: Request, source: Source) -> Any:
    """The instance of ``request.problem`` built from ``source`` (checks in the module doc)."""
    if request.problem == "k-anonymity":
        return _kanonymity(request, source)
    if request.problem == "l-diversity":
        return _ldiversity(request, source)
    return _clustering(request, source)


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
    rest = [c for c in frame.columns if c not in qi]
    mine = rows[rest].astype(str).reset_index(drop=True)
    if not mine.equals(frame.iloc[kept][rest].astype(str).reset_index(drop=True)):
        raise RunFailure("the published table changed a cell outside the quasi-identifiers")
    return rows


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


def _summary(sizes: np.ndarray) -> tuple[int, int | None]:
    sizes = sizes[sizes > 0]
    return int(sizes.size), int(sizes.min()) if sizes.size else None


def _release_kanonymity(request: Request, source: Source, instance: Any, solution: Any) -> Release:
    from anonratio.instances.kanonymity.metrics import utility
    from anonratio.instances.kanonymity.recoding import Recoding

    recoded = solution.info.get("recoding")
    if recoded is None:
        recoded = Recoding.from_partition(instance, solution.labels, method=solution.algorithm)
    rows = "star" if request.keep_suppressed else "withhold"
    published = recoded.to_dataframe(frame=source.frame, suppressed_rows=rows)
    withheld = np.zeros(instance.n, dtype=bool)
    if recoded.suppressed is not None:
        withheld = np.asarray(recoded.suppressed, dtype=bool)
    checks, sizes = check_release(
        request, source, published, withheld, KAnonymity(instance.k), _sensitive_of(instance.table)
    )
    metrics = utility(recoded, k=instance.k)
    n_classes, smallest = _summary(sizes)
    labels = np.asarray(solution.labels)
    levels = solution.info.get("levels")
    return Release(
        published=published,
        checks=checks,
        withheld=withheld,
        published_cost=float(metrics["generalization-cost"]),
        recoding=f"{recoded.scheme} recoding",
        n_classes=n_classes,
        smallest_class=smallest,
        metrics=metrics,
        levels=dict(levels) if levels else None,
        details={"groups": int(np.unique(labels[labels >= 0]).size)},
        recoded=recoded,
    )


def _ldiv_utility(instance: Any, labels: Any) -> dict[str, float]:
    """The utility metrics of an l-diverse release: a local recoding by suppression."""
    from types import SimpleNamespace

    from anonratio.instances import Hierarchy
    from anonratio.instances.kanonymity.metrics import utility
    from anonratio.instances.kanonymity.recoding import Recoding

    table = instance.table
    view = SimpleNamespace(table=table, hierarchies=tuple(map(Hierarchy.suppression, table.values)))
    return utility(Recoding.from_partition(view, labels, method="suppression"))


def _release_ldiversity(request: Request, source: Source, instance: Any, solution: Any) -> Release:
    from anonratio.instances import verify
    from anonratio.instances.ldiversity.publish import publish

    published = publish(instance, solution.labels, frame=source.frame)
    withheld = np.zeros(instance.n, dtype=bool)
    checks, sizes = check_release(
        request,
        source,
        published,
        withheld,
        LEligibility(instance.l),
        _sensitive_of(instance.table),
    )
    n_classes, smallest = _summary(sizes)
    return Release(
        published=published,
        checks=checks,
        withheld=withheld,
        published_cost=float(verify(instance, solution).cost),
        recoding="local recoding (suppression)",
        n_classes=n_classes,
        smallest_class=smallest,
        metrics=_ldiv_utility(instance, solution.labels),
        details={
            "published_diversity": int(checks[0].worst),
            "phase": (solution.info or {}).get("phase"),
        },
    )


def _release_clusters(request: Request, source: Source, instance: Any, solution: Any) -> Release:
    from anonratio.instances import verify
    from anonratio.instances.clustering.publish import publish_clusters

    check = verify(instance, solution)  # the cells published are the ones checked
    labels = np.asarray(solution.labels)
    published, clusters = publish_clusters(
        source.frame, list(request.qi), labels, check.centers, check.radii
    )
    withheld = np.zeros(instance.n, dtype=bool)
    sensitive: tuple[np.ndarray | None, int | None] = (None, None)
    if request.sensitive is not None:
        codes, uniques = pd.factorize(source.frame[request.sensitive].astype(str).str.strip())
        sensitive = (codes.astype(np.int64), len(uniques))
    checks, sizes = check_release(
        request, source, published, withheld, KAnonymity(instance.r), sensitive
    )
    n_classes, smallest = _summary(sizes)
    return Release(
        published=published,
        checks=checks,
        withheld=withheld,
        published_cost=float(check.cost),
        recoding="cluster centers",
        n_classes=n_classes,
        smallest_class=smallest,
        clusters=clusters,
        details={
            "groups": int(check.n_clusters),
            "max_radius": float(check.max_radius),
            "scaling": request.scaling,
        },
    )


def release(request: Request, source: Source, instance: Any, solution: Any) -> Release:
    """The checked published table of a verified ``solution`` (see the module docstring)."""
    if request.problem == "k-anonymity":
        return _release_kanonymity(request, source, instance, solution)
    if request.problem == "l-diversity":
        return _release_ldiversity(request, source, instance, solution)
    return _release_clusters(request, source, instance, solution)
