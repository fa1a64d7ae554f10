"""The Python API: anonymize a DataFrame, solve an instance, run a sweep.

``anonratio.anonymize(df, qi=[...], k=5)`` returns the published DataFrame and an
:class:`AnonymizationResult`; ``anonratio.solve(instance, "forest")`` runs a registered algorithm
and verifies its answer; ``anonratio.sweep("quick")`` runs a study and returns its tidy results.
Every published table is checked here, independently of the algorithm: its cells cover the
original values (:class:`~anonratio.instances.kanonymity.recoding.Recoding`), its partition
passes the verifier, and every privacy model holds on its equivalence classes.
"""

from __future__ import annotations

import os
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
from anonratio.instances import KAnonymityInstance, Solution, Table, lower_bound, verify
from anonratio.instances.errors import InfeasibleInstanceError, InfeasibleSolutionError
from anonratio.instances.hierarchies import HierarchyWarning, find_hierarchies, read_hierarchy
from anonratio.instances.kanonymity.metrics import utility
from anonratio.instances.kanonymity.recoding import Recoding
from anonratio.instances.privacy import KAnonymity, PrivacyCheck, PrivacyModel
from anonratio.instances.privacy_specs import parse_privacy
from anonratio.instances.table import Hierarchy
from anonratio.instances.validation import check_instance

__all__ = [
    "anonymize",
    "solve",
    "sweep",
    "published_form",
    "unsupported_option",
    "AnonymizationResult",
]


@dataclass(frozen=True, eq=False)
class AnonymizationResult:
    """What :func:`anonymize` knows about the table it published.

    Attributes
    ----------
    algorithm, recoding : str
        The algorithm and its recoding: ``"global recoding"`` (full-domain: one level per
        attribute for the whole table) or ``"local recoding"`` (per equivalence class).
    k : int
    cost : float
        The partition's generalization cost (Aggarwal et al. 2005), recomputed by the verifier.
    published_cost : float
        The cost of the cells actually published (levels plus suppressed tuples); equal to
        ``cost`` for local recodings at hierarchy nodes.
    lower_bound : float
        A proven lower bound on the optimal cost, and ``bound_source`` what proves it.
    certified_ratio : float or None
        ``cost / lower_bound``: the algorithm is at most this far from the optimum.
    metrics : dict
        Utility metrics of the published table (:mod:`anonratio.instances.kanonymity.metrics`).
    checks : list of PrivacyCheck
        Every privacy model, checked on the published equivalence classes.
    levels : dict or None
        The published level per attribute (global recoding only).
    n_classes, n_suppressed : int
    time_s : float
        Wall time of the algorithm.
    solution : Solution
    recoded : Recoding
    """

    algorithm: str
    recoding: str
    k: int
    cost: float
    published_cost: float
    lower_bound: float
    bound_source: str
    certified_ratio: float | None
    metrics: dict[str, float]
    checks: list[PrivacyCheck]
    levels: dict[str, int] | None
    n_classes: int
    n_suppressed: int
    time_s: float
    solution: Solution = field(repr=False)
    recoded: Recoding = field(repr=False)

    def summary(self) -> str:
        """A few lines for people: the algorithm, cost, bound, ratio, metrics and checks."""
        lines = [
            f"{self.algorithm} ({self.recoding}): {self.n_classes} classes, "
            f"{self.n_suppressed} suppressed tuples, {self.time_s:.3g} s",
            f"cost {self.cost:.6g} (published {self.published_cost:.6g}); lower bound "
            f"{self.lower_bound:.6g} ({self.bound_source}); certified ratio "
            + ("-" if self.certified_ratio is None else f"<= {self.certified_ratio:.4g}"),
        ]
        if self.levels:
            lines.append("levels: " + ", ".join(f"{a}={v}" for a, v in self.levels.items()))
        lines.append("metrics: " + ", ".join(f"{m}={v:.6g}" for m, v in self.metrics.items()))
        lines += [
            f"{c.model}: {'ok' if c.satisfied else 'FAILS'} ({c.message})" for c in self.checks
        ]
        return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# hierarchies
# ---------------------------------------------------------------------------------------------
def _one_hierarchy(column: str, given: Any) -> Hierarchy | list:
    """A hierarchy from a Hierarchy, ARX rows, an ARX file path, a DataFrame of rows, or a dict
    ``{value: [level 1, level 2, ...]}``."""
    if isinstance(given, Hierarchy):
        return given
    if isinstance(given, str | os.PathLike):
        return read_hierarchy(given, attribute=column)
    if isinstance(given, pd.DataFrame):
        return given.astype(str).to_numpy().tolist()
    if isinstance(given, Mapping):
        return [
            [value, *(gens if isinstance(gens, list | tuple) else [gens])]
            for value, gens in given.items()
        ]
    if isinstance(given, Sequence):
        return list(given)
    raise TypeError(
        f"`hierarchies[{column!r}]` must be a Hierarchy, rows, an ARX file path, a DataFrame "
        f"or a dict, got {type(given).__name__}"
    )


def _hierarchies(hierarchies: Any, qi: Sequence[str]) -> dict[str, Any]:
    """Per QI column its hierarchy; a folder is searched for ARX files (``*_hierarchy_<c>.csv``).
    QI columns without one are generalized by suppression only, with a warning."""
    if hierarchies is None:
        return {}
    if isinstance(hierarchies, str | os.PathLike):  # warns for the columns it finds no file for
        files = find_hierarchies(Path(hierarchies), qi)
        return {c: read_hierarchy(f, attribute=c) for c, f in files.items()}
    check_instance(hierarchies, Mapping, "hierarchies")
    out = {c: _one_hierarchy(c, h) for c, h in hierarchies.items()}
    missing = [c for c in qi if c not in out]
    if out and missing:
        warnings.warn(
            f"no hierarchy for QI columns {missing}: they are generalized by suppression only",
            HierarchyWarning,
            stacklevel=3,
        )
    return out


def _privacy(privacy: Any) -> list[PrivacyModel]:
    if privacy is None:
        return []
    items = [privacy] if isinstance(privacy, str | PrivacyModel) else list(privacy)
    return [
        parse_privacy(p) if isinstance(p, str) else check_instance(p, PrivacyModel, "privacy")
        for p in items
    ]


# ---------------------------------------------------------------------------------------------
# solve and anonymize
# ---------------------------------------------------------------------------------------------
def solve(
    instance: Any,
    algorithm: str = "forest",
    *,
    seed: int | None = 0,
    time_limit: float | None = None,
    **options: Any,
) -> Solution:
    """Run a registered algorithm on an instance and verify its answer.

    Parameters
    ----------
    instance : any registered problem instance
    algorithm : str
        A registry name (``anonratio list``), e.g. ``"forest"``, ``"incognito"``, ``"r-gather"``.
    seed : int or None
    time_limit : float, optional
        Passed to algorithms that take one (the exact models).
    **options
        Options of the algorithm's function (``max_suppression=0.02``, ``privacy=...``,
        ``metric="precision"``); an option it does not take raises ``ValueError`` naming it
        (:meth:`~anonratio.bench.declarations.Algorithm.with_options`).

    Returns
    -------
    Solution
        Verified: :class:`~anonratio.instances.errors.InfeasibleSolutionError` when the
        verifier rejects it.
    """
    from anonratio.bench.registry import get_algorithm

    alg = get_algorithm(algorithm)
    reason = alg.supports(instance)
    if reason is not None:
        raise ValueError(f"`algorithm` {alg.name!r} cannot run on this instance: {reason}")
    solution = alg.with_options(options).run(instance, seed=seed, time_limit=time_limit)
    if solution.labels is not None:
        check = verify(instance, solution, strict=False)
        if not check.feasible:
            raise InfeasibleSolutionError(
                f"{alg.name} returned a solution the verifier rejects: {check.violations[0]}",
                check.violations,
            )
    return solution


def anonymize(
    df: pd.DataFrame,
    qi: Sequence[str],
    k: int = 5,
    *,
    hierarchies: Any = None,
    algorithm: str = "forest",
    privacy: Any = None,
    sensitive: str | None = None,
    max_suppression: float = 0.0,
    metric: str | None = None,
    weights: Sequence[float] | None = None,
    seed: int | None = 0,
    keep_suppressed: bool = False,
) -> tuple[pd.DataFrame, AnonymizationResult]:
    """Publish a k-anonymous (and optionally l-diverse, t-close, ...) version of a DataFrame.

    Parameters
    ----------
    df : pandas.DataFrame
        The data; never modified. The published table has exactly its rows and columns.
    qi : list of str
        The quasi-identifier columns; every other column is published as it is.
    k : int
    hierarchies : dict or folder path, optional
        Per QI column a :class:`~anonratio.instances.Hierarchy`, ARX rows
        (``[value, level1, ..., "*"]``), an ARX hierarchy file, or a dict
        ``{value: [level1, ...]}``; or a folder of ARX files ``*_hierarchy_<column>.csv``. A QI
        column without one is generalized by suppression only (with a warning when others have
        one).
    algorithm : str
        ``"forest"`` (default; ratio max(2k-1, 3k-5)), ``"factor-2"``, ``"factor-3"``,
        ``"mondrian"``, ``"mondrian-relaxed"`` (local recoding) or ``"samarati"``,
        ``"incognito"``, ``"datafly"`` (global recoding, full-domain).
    privacy : str, PrivacyModel or list of them, optional
        Models besides k-anonymity, e.g. ``"l-diversity:l=3"`` or
        ``TCloseness(0.2, "ordered")``; they need ``sensitive`` and a full-domain algorithm.
    sensitive : str, optional
        The sensitive column (published unchanged).
    max_suppression : float
        Fraction of records the full-domain algorithms may withhold: a suppressed record is left
        out of the published frame (the rows kept keep their order and index; the count is
        ``result.n_suppressed``, the records ``result.recoded.suppressed``).
    metric : str, optional
        What Samarati and Incognito minimize (default non-uniform entropy).
    weights : list of float, optional
        Attribute weights of the generalization cost.
    seed : int or None
    keep_suppressed : bool
        Publish each suppressed record as a row of ``*`` in every QI cell and in the sensitive
        cell, instead of leaving it out.

    Returns
    -------
    published : pandas.DataFrame
    result : AnonymizationResult
    """
    check_instance(df, pd.DataFrame, "df")
    qi = [qi] if isinstance(qi, str) else list(qi)
    models = _privacy(privacy)
    hier = _hierarchies(hierarchies, qi)
    table = Table.from_dataframe(df, qi=qi, sensitive=sensitive, hierarchies=hier, weights=weights)
    model = "generalization" if any(h is not None for h in table.hierarchies) else "suppression"
    instance = KAnonymityInstance(table, k, model, row_deletion=float(max_suppression) > 0)
    options: dict[str, Any] = {}
    if models:
        options["privacy"] = models
    if max_suppression:
        options["max_suppression"] = max_suppression
    if metric is not None:
        options["metric"] = metric
    _check_options(algorithm, options)
    t0 = time.perf_counter()
    solution = solve(instance, algorithm, seed=seed, **options)
    elapsed = time.perf_counter() - t0
    if solution.labels is None:
        raise InfeasibleInstanceError(
            f"{algorithm} found no table that satisfies {[str(m) for m in models] or 'k'}"
            + (f" within max_suppression={max_suppression}" if max_suppression else "")
        )
    rows = "star" if check_instance(keep_suppressed, bool, "keep_suppressed") else "withhold"
    return _publish(df, instance, solution, models, elapsed, rows)


#: what each k-anonymity option asks of an algorithm, for the message refusing it
OPTION_WHAT = {
    "privacy": "privacy models beyond k-anonymity",
    "max_suppression": "tuple suppression",
    "metric": "a utility metric to optimize",
}


def unsupported_option(algorithm: Any, options: Mapping[str, Any]) -> str | None:
    """The first of ``options`` the registered ``algorithm`` does not take, or ``None``."""
    return next((name for name in options if name not in algorithm._accepts), None)


def _check_options(algorithm: str, options: dict[str, Any]) -> None:
    """Refuse an option the algorithm cannot honour, naming the pair."""
    from anonratio.bench.registry import get_algorithm

    alg = get_algorithm(algorithm)
    name = unsupported_option(alg, options)
    if name is not None:
        raise ValueError(
            f"`algorithm` {alg.name!r} does not support {OPTION_WHAT[name]} (`{name}`); use "
            f"samarati, incognito or datafly"
        )


def published_form(
    instance: KAnonymityInstance, solution: Solution, models: Sequence[PrivacyModel]
) -> tuple[Recoding, list[PrivacyCheck], dict[str, float]]:
    """What a verified k-anonymity solution publishes: its recoding (the solver's, or its
    partition's), every privacy model (k-anonymity first) checked on the published classes, and
    the utility metrics. :class:`~anonratio.instances.errors.InfeasibleSolutionError` when a
    model fails. The API and ``anonratio anonymize`` both publish through it."""
    recoded = solution.info.get("recoding")
    if recoded is None:
        recoded = Recoding.from_partition(instance, solution.labels, method=solution.algorithm)
    sensitive = instance.table.sensitive
    checks = [m.check(recoded.classes, sensitive) for m in [KAnonymity(instance.k), *models]]
    failed = [c for c in checks if not c.satisfied]
    if failed:
        raise InfeasibleSolutionError(
            f"the published table breaks {failed[0].model}: {failed[0].message}"
        )
    return recoded, checks, utility(recoded, k=instance.k)


def _publish(
    df, instance, solution, models, elapsed, suppressed_rows
) -> tuple[pd.DataFrame, AnonymizationResult]:
    cost = verify(instance, solution).cost
    recoded, checks, metrics = published_form(instance, solution, models)
    bound, source = lower_bound(instance)
    levels = solution.info.get("levels")
    result = AnonymizationResult(
        algorithm=solution.algorithm,
        recoding=f"{recoded.scheme} recoding",
        k=instance.k,
        cost=float(cost),
        published_cost=float(metrics["generalization-cost"]),
        lower_bound=float(bound),
        bound_source=source,
        certified_ratio=float(cost / bound) if bound > 0 else (1.0 if cost == 0 else None),
        metrics=metrics,
        checks=checks,
        levels=dict(levels) if levels else None,
        n_classes=int(recoded.class_sizes.size),
        n_suppressed=recoded.n_suppressed,
        time_s=elapsed,
        solution=solution,
        recoded=recoded,
    )
    return recoded.to_dataframe(frame=df, suppressed_rows=suppressed_rows), result


# ---------------------------------------------------------------------------------------------
# sweep
# ---------------------------------------------------------------------------------------------
def sweep(
    study: str | os.PathLike,
    *,
    out: str | os.PathLike | None = None,
    n_jobs: int = 2,
    time_limit: float | None = None,
    progress: bool = False,
) -> pd.DataFrame:
    """Run a study (a built-in suite name or a study TOML file) and return its tidy results.

    One row per run (the results schema of the README: instance, algorithm, cost, bound,
    ratio, status, seed, time...). With ``out``, every finished run is journaled there as it
    ends and a rerun resumes, as ``anonratio run`` does (which also writes the report).
    """
    import dataclasses

    from anonratio.bench.journal import Journal, check_out_dir
    from anonratio.bench.runner import finalize
    from anonratio.bench.runner import sweep as run_tasks
    from anonratio.bench.suites import get_suite

    suite = get_suite(str(study))
    tasks = suite.tasks()
    if time_limit is not None:
        tasks = [dataclasses.replace(t, time_limit=float(time_limit)) for t in tasks]
    if out is None:
        return finalize(run_tasks(tasks, n_jobs=n_jobs, progress=progress))
    journal = Journal(check_out_dir(Path(out)))
    journal.open()
    try:
        df = run_tasks(tasks, n_jobs=n_jobs, progress=progress, journal=journal)
    finally:
        journal.close()
    return finalize(df)
