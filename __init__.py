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
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("anonratio")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0"

__all__ = ["__version__"]
