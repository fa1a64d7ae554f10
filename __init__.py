"""anonratio: approximation ratios of privacy-preserving data publishing algorithms.

Subpackages
-----------
instances
    Problem models, validation, the independent verifier, lower bounds, generators, loaders.
solvers
    Approximation algorithms and heuristics, one module per paper algorithm.
exact
    Exact CP-SAT (OR-Tools) and ILP (PuLP with HiGHS or CBC) models.
bench
    Algorithm registry, sweep runner, results store, reports, CLI and asv benchmarks.

The Python API (:mod:`anonratio.bench.api`): ``anonratio.anonymize(df, qi=[...], k=5)`` publishes
a DataFrame, ``anonratio.solve(instance, "forest")`` runs and verifies one algorithm, and
``anonratio.sweep("quick")`` runs a study and returns its results table.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("anonratio")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0"

__all__ = ["__version__", "anonymize", "solve", "sweep"]

#: the API functions, imported on first use so that ``import anonratio`` stays light
_API = ("anonymize", "solve", "sweep")


def __getattr__(name: str):  # noqa: ANN202 - module attribute hook
    if name in _API:
        from anonratio.bench import api

        return getattr(api, name)
    raise AttributeError(f"module 'anonratio' has no attribute {name!r}")
