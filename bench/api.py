"""The Python API: anonymize a DataFrame, solve an instance, run a sweep.

``anonratio.anonymize(df, qi=[...], k=5)`` returns the published DataFrame and an
:class:`~anonratio.bench.publish.anonymize.AnonymizationResult`; it is the path of ``anonratio
anonymize`` (:mod:`anonratio.bench.publish.anonymize`), with the same figures: every publishing mode
of the command line (k-anonymity, l-diversity with ``l=``, cluster centers with a clustering
algorithm), the runner's proven bounds, and every requested model checked on the published cells.
``anonratio.solve(instance, "forest")`` runs a registered algorithm and verifies its answer;
``anonratio.sweep("quick")`` runs a study and returns its tidy results.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import pandas as pd

from anonratio.bench.publish.anonymize import AnonymizationResult
from anonratio.instances import Solution, Table, verify
from anonratio.instances.errors import InfeasibleSolutionError
from anonratio.instances.hierarchies import HierarchyWarning, find_hierarchies, read_hierarchy
from anonratio.instances.table import Hierarchy
from anonratio.instances.validation import check_instance

__all__ = ["anonymize", "solve", "sweep", "AnonymizationResult"]


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
    check_instance(hierarchies, Mapping, "hierarchies")  # type: ignore[type-abstract]
    out = {c: _one_hierarchy(c, h) for c, h in hierarchies.items()}
    missing = [c for c in qi if c not in out]
    if out and missing:
        warnings.warn(
            f"no hierarchy for QI columns {missing}: they are generalized by suppression only",
            HierarchyWarning,
            stacklevel=3,
        )
    return out


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
    qi: Sequence[str] | str,
    k: int | None = None,
    *,
    l: int | None = None,
    hierarchies: Any = None,
    algorithm: str | None = None,
    privacy: Any = None,
    sensitive: str | None = None,
    max_suppression: float = 0.0,
    metric: str | None = None,
    weights: Sequence[float] | None = None,
    scaling: str = "standard",
    keep_suppressed: bool = False,
    seed: int | None = 0,
    time_limit: float = 60.0,
    bound: str = "fast",
    utility: str | Sequence[str] | None = None,
) -> tuple[pd.DataFrame, AnonymizationResult]:
    """Publish a k-anonymous (optionally l-diverse, t-close, ...), an l-diverse or a clustered
    version of a DataFrame.

    The same path as ``anonratio anonymize`` (:mod:`anonratio.bench.publish.anonymize`): the options
    are validated, the algorithm runs through the runner (verified, with the best proven lower bound
    and the optimum when proven), every requested model is checked on the published cells, and
    the figures are those the command line prints.

    Parameters
    ----------
    df : pandas.DataFrame
        The data; never modified. The published table has its columns and its rows in order,
        only the QI cells replaced (less the records a suppression limit withholds).
    qi : str or list of str
        The quasi-identifier columns; every other column is published as it is.
    k : int, optional
        k of k-anonymity, or the minimum cluster size r of a clustering algorithm (at least 2).
        Default 5 when ``l`` is not given.
    l : int, optional
        l-diversity by suppression (Xiao, Yi and Tao 2010; needs ``sensitive``): no sensitive
        value in more than a fraction 1/l of any published class. Instead of ``k``.
    hierarchies : dict or folder path, optional
        k-anonymity: per QI column a :class:`~anonratio.instances.Hierarchy`, ARX rows
        (``[value, level1, ..., "*"]``), an ARX hierarchy file, or a dict
        ``{value: [level1, ...]}``; or a folder of ARX files ``*_hierarchy_<column>.csv``. A QI
        column without one is generalized by suppression only (with a warning when others have
        one).
    algorithm : str, optional
        k-anonymity: ``"forest"`` (default; ratio max(2k-1, 3k-5)), ``"factor-2"``,
        ``"factor-3"``, ``"mondrian"``, ``"mondrian-relaxed"``, the exact ``"kanon-certified"``
        ... (local recoding) or ``"samarati"``, ``"incognito"``, ``"datafly"`` (global recoding,
        full-domain); l-diversity: ``"tp-plus"`` (default with ``l``), ``"tp"``, ``"hilbert"``
        ...; clusters: ``"r-gather"``, ``"greedy-gather"``, ``"min-size-kmeans"``,
        ``"r-cellular"``.
    privacy : str, PrivacyModel or list of them, optional
        Models besides k-anonymity, e.g. ``"l-diversity:l=3"`` or ``TCloseness(0.2, "ordered")``;
        they need ``sensitive`` and an algorithm that enforces them (the full-domain ones and
        ``"alpha-k-topdown"``); any other algorithm refuses them.
    sensitive : str, optional
        The sensitive column (published unchanged).
    max_suppression : float
        A fraction in [0, 1): the records the full-domain algorithms may withhold, left out of
        the published frame (the rows kept keep their order and index; the count is
        ``result.n_suppressed``, the records ``result.withheld``).
    metric : str, optional
        What Samarati and Incognito minimize (default non-uniform entropy).
    weights : list of float, optional
        Attribute weights of the generalization cost.
    scaling : {"standard", "range", "none"}
        Clusters: how the numeric QI columns are weighed
        (:func:`~anonratio.instances.clustering.publish.points_from_frame`).
    keep_suppressed : bool
        Publish each suppressed record as a row of ``*`` in every QI cell and in the sensitive
        cell, instead of leaving it out.
    seed : int or None
    time_limit : float
        Seconds, for the algorithms that take a limit (the exact models).
    bound : {"fast", "none", "default", "strong"}
        The lower bound the certified ratio is over (:mod:`anonratio.bench.engine.bounds`):
        ``"fast"`` (default) the problem's cheapest valid bound, near linear in the table;
        ``"default"`` the bound sweeps use (k-anonymity's nearest-neighbour bound, a k-NN
        search); ``"strong"`` the LP relaxation's bound within ``time_limit``; ``"none"`` skips
        it. ``result.lower_bound_source`` says which, ``result.bound_time_s`` its time.
    utility : str or list of str, optional
        The utility metrics to report (:data:`~anonratio.instances.kanonymity.metrics.METRICS`,
        or ``"all"``); default every metric but the costly KL-divergence.

    Returns
    -------
    published : pandas.DataFrame
    result : AnonymizationResult
        The figures (cost, published cost, lower bound and its source, certified ratio of the
        published cost), the privacy checks, the utility metrics, and for clusters the
        per-cluster table (``result.clusters``).

    Raises
    ------
    ValueError
        Bad input, naming the parameter, the value and the rule; ``InfeasibleInstanceError``
        when no table can satisfy the request.
    """
    from anonratio.bench.publish.anonymize import Source, check_qi, check_request, publish

    check_instance(df, pd.DataFrame, "df")
    qi = check_qi(qi)
    if k is None and l is None:
        k = 5
    request = check_request(
        qi=qi,
        k=k,
        l=l,
        algorithm=algorithm,
        sensitive=sensitive,
        privacy=privacy,
        max_suppression=max_suppression,
        metric=metric,
        hierarchies=_hierarchies(hierarchies, qi),
        weights=weights,
        scaling=scaling,
        keep_suppressed=keep_suppressed,
        seed=seed,
        time_limit=time_limit,
        bound=bound,
        utility=utility,
    )
    return publish(request, Source(df, partial(Table.from_dataframe, df)))


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

    One row per run (the results schema of docs/results.md: instance, algorithm, cost, bound,
    ratio, status, seed, time...). With ``out``, every finished run is journaled there as it
    ends and a rerun resumes, as ``anonratio run`` does (which also writes the report).
    """
    import dataclasses

    from anonratio.bench.engine.journal import Journal, check_out_dir
    from anonratio.bench.engine.runner import finalize
    from anonratio.bench.engine.runner import sweep as run_tasks
    from anonratio.bench.engine.suites import get_suite

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
