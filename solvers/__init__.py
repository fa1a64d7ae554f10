"""Approximation algorithms and heuristics, one subpackage per problem, one module per algorithm.

Each problem's subpackage has one public entry point that takes ``method=`` as the registry name
of an algorithm or the algorithm function itself (networkx ``flow/maxflow.py`` style):
:func:`k_anonymize`, :func:`bin_cover`, :func:`partition_zip_codes`,
:func:`partition_gps_rectangles`, :func:`cluster`, :func:`ldiversify`, :func:`t_close`.
"""

from typing import Any

from anonratio.instances.lazy_exports import LazyExports

__all__ = [
    "k_anonymize",
    "cluster",
    "ldiversify",
    "t_close",
    "bin_cover",
    "partition_zip_codes",
    "partition_gps_rectangles",
]

#: entry point -> its subpackage, imported on first use: loading one algorithm's module does not
#: import every problem's solvers (and scipy.spatial, networkx, the factor ILPs with them)
_FRONTS = {
    "k_anonymize": "kanonymity",
    "cluster": "clustering",
    "ldiversify": "ldiversity",
    "t_close": "tcloseness",
    "bin_cover": "bin_covering",
    "partition_zip_codes": "zip_codes",
    "partition_gps_rectangles": "gps_rectangles",
}

_EXPORTS = LazyExports(__name__, {f: f"{__name__}.{sub}:{f}" for f, sub in _FRONTS.items()})


def __getattr__(name: str) -> Any:
    return _EXPORTS.load(name)


def __dir__() -> list[str]:
    return _EXPORTS.names()
