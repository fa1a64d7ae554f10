"""One publishing path for ``anonratio.anonymize()`` and ``anonratio anonymize``.

Validate, run, one result (the design of SciPy's ``milp``):

* :func:`~anonratio.bench.publish.request.check_request` validates the options alone (no data
  read yet) into a :class:`~anonratio.bench.publish.request.Request`:
  the algorithm and its problem, whose :class:`~anonratio.bench.publish.publisher.Publisher`
  publishes it (k-anonymity, l-diversity by suppression, or the clustering problems r-gather and
  r-cellular), ``k`` (or the cluster size ``r``) or ``l``, the privacy models, the suppression
  limit and the metric. An option the algorithm does not take is refused,
  naming the option, the algorithm and the algorithms of its problem that take it; so is
  publishing clusters with ``r < 2``.
* :func:`publish` builds the problem's instance from the data (:class:`Source`) with the
  publisher, refuses what the data makes impossible (``l`` above the number of sensitive values,
  a model that even the whole table as one class fails), runs the algorithm through the runner
  (:func:`~anonratio.bench.engine.runner.run_and_finalize`: run, verify, the best proven lower
  bound, the optimum when proven), builds the published table, checks every requested model on the
  published cells (:mod:`anonratio.bench.publish.release`) and returns it with one
  :class:`AnonymizationResult`. An algorithm that refuses the request (a domain bad-input error,
  :class:`~anonratio.instances.errors.AnonratioError` and ``ValueError``, such as a privacy model
  its search cannot prune with) is bad input; any other exception of the algorithm is a failed
  run.

The command line is a printer over the same two calls, so both report the same figures. Messages
name each option as the caller spells it (``names``: ``max_suppression`` in Python,
``--max-suppression`` on the command line).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from anonratio.bench.engine.record import RunRecord
from anonratio.bench.publish.request import Request, Source, check_qi, check_request
from anonratio.instances import Solution
from anonratio.instances.errors import AnonratioError, InfeasibleInstanceError
from anonratio.instances.privacy import PrivacyCheck

__all__ = [
    "Request",
    "Source",
    "AnonymizationResult",
    "check_request",
    "check_qi",
    "publish",
    "refusal",
    "RATIO_OF",
]

#: what the ratio is of: the cost of the published cells over the proven lower bound
RATIO_OF = "published cost / lower bound"


@dataclass(frozen=True, eq=False)
class AnonymizationResult:
    """What :func:`publish` knows about the table it published.

    Attributes
    ----------
    algorithm, problem : str
        The algorithm and its problem (``"k-anonymity"``, ``"l-diversity"``, ``"r-gather"``,
        ``"r-cellular"``).
    recoding : str
        ``"global recoding"`` (full-domain: one level per attribute for the whole table),
        ``"local recoding"`` (per equivalence class), ``"local recoding (suppression)"``
        (l-diversity) or ``"cluster centers"``.
    k, l : int or None
        The k of k-anonymity or the cluster size r; the l of l-diversity.
    status : str
        The run's status (``optimal``, ``feasible``).
    cost : float
        The verified cost of the algorithm's partition (stars, generalization cost of Aggarwal
        et al. 2005, or the clustering objective).
    published_cost : float
        The same cost of the cells actually published: equal to ``cost`` except for global
        recodings, whose levels may generalize a class beyond what it needs.
    lower_bound : float
        The best proven lower bound on the optimal cost (the optimum when proven), and
        ``lower_bound_source`` what proves it, ``bound_time_s`` the seconds it took (the
        request's ``bound`` effort: :mod:`anonratio.bench.engine.bounds`).
    certified_ratio : float or None
        ``published_cost / lower_bound`` (:data:`RATIO_OF`): the published table is at most
        this far from the optimum; ``None`` when the bound is 0 and the cost is not.
    guarantee : float or None
        The algorithm's proven ratio on this instance.
    metrics : dict
        Utility metrics of the published table (:mod:`anonratio.instances.kanonymity.metrics`;
        none for cluster centers).
    checks : list of PrivacyCheck
        Every requested model (k-anonymity or l-diversity first), checked on the published cells.
    levels : dict or None
        The published level per attribute (global recoding only).
    n_classes, smallest_class : int
        The published equivalence classes (records with equal QI cells) and the smallest one.
    n_suppressed : int
        Records a suppression limit removed; ``withheld`` marks them (input rows).
    suppressed_rows : str
        ``"withhold"`` (left out of the published table) or ``"star"`` (kept as rows of ``*``).
    time_s : float
        Wall time of the algorithm.
    clusters : pandas.DataFrame or None
        Cluster publishing: one row per cluster (``cluster``, ``size``, ``radius``, the center's
        QI values), the second file of ``anonratio anonymize``.
    details : dict
        Facts of one problem: ``groups`` (the partition's groups), ``max_radius`` and ``scaling``
        (clusters), ``published_diversity`` and ``phase`` (l-diversity).
    record : RunRecord
        The runner's finalized record of the run.
    solution : Solution
    recoded : Recoding or None
        The recoding published, when the publisher publishes one (k-anonymity:
        :class:`~anonratio.instances.kanonymity.recoding.Recoding`).
    size_name : str
        How the summary names the size: ``k``, the cluster size ``r`` or ``l`` (the publisher's
        :attr:`~anonratio.bench.publish.publisher.Publisher.size_name`).
    """

    algorithm: str
    problem: str
    recoding: str
    k: int | None
    l: int | None
    status: str
    cost: float
    published_cost: float
    lower_bound: float
    lower_bound_source: str
    certified_ratio: float | None
    guarantee: float | None
    metrics: dict[str, float]
    checks: list[PrivacyCheck]
    levels: dict[str, int] | None
    n_classes: int
    smallest_class: int | None
    n_suppressed: int
    suppressed_rows: str
    time_s: float
    clusters: pd.DataFrame | None = field(default=None, repr=False)
    details: dict[str, Any] = field(default_factory=dict)
    withheld: np.ndarray = field(default=None, repr=False)  # type: ignore[arg-type]
    record: RunRecord = field(default=None, repr=False)  # type: ignore[assignment]
    solution: Solution = field(default=None, repr=False)  # type: ignore[assignment]
    recoded: Any = field(default=None, repr=False)
    size_name: str = field(default="k", repr=False)
    bound_time_s: float = 0.0

    @property
    def bound_source(self) -> str:
        """``lower_bound_source``, by its former name."""
        return self.lower_bound_source

    @property
    def ratio_of(self) -> str:
        """What :attr:`certified_ratio` divides: :data:`RATIO_OF`."""
        return RATIO_OF

    def summary(self) -> str:
        """A few lines for people: the algorithm, costs, bound, ratio, metrics and checks."""
        ratio = "-" if self.certified_ratio is None else f"<= {self.certified_ratio:.4g}"
        partition = (
            ""
            if math.isclose(self.cost, self.published_cost, rel_tol=1e-9, abs_tol=1e-9)
            else f" (the partition's cost {self.cost:.6g})"
        )
        what = f"{self.size_name}={self.l if self.l is not None else self.k}"
        lines = [
            f"{self.algorithm} ({self.recoding}): {self.problem} {what}, {self.n_classes} "
            f"classes, {self.n_suppressed} suppressed tuples, {self.time_s:.3g} s",
            f"published cost {self.published_cost:.6g}{partition}; lower bound "
            f"{self.lower_bound:.6g} ({self.lower_bound_source}, {self.bound_time_s:.2g} s); "
            f"certified ratio ({RATIO_OF}) {ratio}",
        ]
        if self.levels:
            lines.append("levels: " + ", ".join(f"{a}={v}" for a, v in self.levels.items()))
        if self.metrics:
            lines.append("metrics: " + ", ".join(f"{m}={v:.6g}" for m, v in self.metrics.items()))
        lines += [
            f"{c.model}: {'ok' if c.satisfied else 'FAILS'} ({c.message})" for c in self.checks
        ]
        return "\n".join(lines)

    def as_dict(self) -> dict[str, Any]:
        """The figures every caller prints (the command line's ``--json`` fields)."""
        return {
            "algorithm": self.algorithm,
            "problem": self.problem,
            "recoding": self.recoding,
            "k": self.k,
            "l": self.l,
            "status": self.status,
            "verified": bool(self.record.verified) if self.record is not None else True,
            "cost": self.cost,
            "published_cost": self.published_cost,
            "lower_bound": self.lower_bound,
            "lower_bound_source": self.lower_bound_source,
            "bound_time_s": self.bound_time_s,
            "certified_ratio": self.certified_ratio,
            "certified_ratio_of": RATIO_OF,
            "guarantee": self.guarantee,
            "published_min_class": self.smallest_class,
            "n_classes": self.n_classes,
            "suppressed": self.n_suppressed,
            "suppressed_rows": self.suppressed_rows,
            "levels": self.levels,
            "privacy": {c.model: "ok" if c.satisfied else "fails" for c in self.checks},
            "metrics": dict(self.metrics),
            "time_s": self.time_s,
            **self.details,
        }


# ---------------------------------------------------------------------------------------------
# run and publish
# ---------------------------------------------------------------------------------------------
def _certified_ratio(published: float, bound: float) -> float | None:
    """``published / bound``; 1 for a zero cost over a zero bound, ``None`` for another cost."""
    if bound is None or math.isnan(bound):
        return None
    if bound > 0:
        return float(published / bound)
    return 1.0 if abs(published) <= 1e-9 else None


def refusal(error: BaseException | None) -> bool:
    """Whether an exception the algorithm raised refuses the request (bad input): a domain error
    that is a ``ValueError`` (:class:`~anonratio.instances.errors.UnsupportedInstanceError`,
    :class:`~anonratio.instances.errors.InfeasibleInstanceError`, ...). A plain ``ValueError``
    from inside an algorithm is a failure of the run, not of the request."""
    return isinstance(error, AnonratioError) and isinstance(error, ValueError)


def _finite(value: Any) -> float | None:
    """``value`` as a float, ``None`` when missing or NaN."""
    return None if value is None or math.isnan(value) else float(value)


def _run(request: Request, instance: Any, progress: Callable[[str], None] | None) -> RunRecord:
    """The runner's verified, finalized record (``RunFailure`` without a verified solution;
    ``InfeasibleInstanceError`` when the algorithm proves none exists)."""
    from anonratio.bench.engine import runner
    from anonratio.bench.errors import RunFailure

    algo = request.algorithm
    if progress is not None:
        progress(f"{algo.name} on {instance.n} records, {len(request.qi)} QI ...")
    record = runner.run_and_finalize(
        instance,
        algo.name,
        seed=request.seed,
        time_limit=request.time_limit,
        options=dict(request.options) or None,
        bound=request.bound,
    )
    solution = record.solution
    if solution is None or solution.labels is None:
        if record.status == "infeasible":
            wanted = [str(m) for m in request.models] or ["the requested model"]
            limit = request.options.get("max_suppression")
            raise InfeasibleInstanceError(
                f"{algo.name} found no table that satisfies {', '.join(wanted)}"
                + (f" within {request.name('max_suppression')}={limit}" if limit else "")
            )
        if refusal(record.exception):  # the algorithm's check, e.g. a model it cannot prune with
            raise ValueError(f"algorithm {algo.name!r} refuses the request: {record.exception}")
        reason = record.error or f"status {record.status}"
        raise RunFailure(f"{algo.name} found no solution ({reason})")
    if not record.verified:
        raise RunFailure(f"{algo.name} produced no verified solution: {record.error}")
    if progress is not None:
        progress(f"{algo.name} done in {record.time_s:.1f} s")
    return record


def publish(
    request: Request, source: Source, *, progress: Callable[[str], None] | None = None
) -> tuple[pd.DataFrame, AnonymizationResult]:
    """Publish ``source`` as ``request`` asks: ``(published table, result)``.

    The published table has the input's columns and its rows in order (less the records a
    suppression limit withholds), only the QI cells replaced; every requested model holds on its
    cells (checked here, independently of the algorithm). ``progress`` receives a line before
    and after the run (the command line prints them for large tables).

    Raises
    ------
    ValueError
        Bad input, found before the run (e.g. ``InfeasibleInstanceError`` when no table can
        satisfy a requested model) or by the algorithm's own check of its options.
    RunFailure
        The run gave no verified solution.
    InfeasibleSolutionError
        The published table breaks a requested model (never expected: a bug).
    """
    from anonratio.bench.publish.release import build_instance, release

    instance = build_instance(request, source)
    reason = request.algorithm.supports(instance)
    if reason is not None:
        raise ValueError(
            f"algorithm {request.algorithm.name!r} does not support this instance: {reason}"
        )
    record = _run(request, instance, progress)
    solution = record.solution
    assert solution is not None  # _run returns a verified solution or raises
    bound = math.nan if record.lower_bound is None else float(record.lower_bound)
    out = release(request, source, instance, solution)
    result = AnonymizationResult(
        algorithm=request.algorithm.name,
        problem=request.problem,
        recoding=out.recoding,
        k=request.k,
        l=request.l,
        status=record.status,
        cost=float(record.cost),
        published_cost=float(out.published_cost),
        lower_bound=bound,
        lower_bound_source=str(record.lower_bound_source),
        bound_time_s=_finite(record.bound_time_s) or 0.0,
        certified_ratio=_certified_ratio(out.published_cost, bound),
        guarantee=_finite(record.guarantee),
        metrics=out.metrics,
        checks=out.checks,
        levels=out.levels,
        n_classes=out.n_classes,
        smallest_class=out.smallest_class,
        n_suppressed=int(out.withheld.sum()),
        suppressed_rows="star" if request.keep_suppressed else "withhold",
        time_s=float(record.time_s),
        clusters=out.clusters,
        details=out.details,
        withheld=out.withheld,
        record=record,
        solution=solution,
        recoded=out.recoded,
        size_name=request.publisher.size_name,
    )
    return out.published, result
