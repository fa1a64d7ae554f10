"""Approximation algorithms and heuristics, one subpackage per problem, one module per algorithm.

Each problem's subpackage has one public entry point that takes ``method=`` as the registry name
of an algorithm or the algorithm function itself (networkx ``flow/maxflow.py`` style):
:func:`k_anonymize`, :func:`bin_cover`, :func:`partition_zip_codes`,
:func:`partition_gps_rectangles`, :func:`cluster`, :func:`ldiversify`, :func:`t_close`.
"""

from .bin_covering import bin_cover
from .clustering import cluster
from .gps_rectangles import partition_gps_rectangles
from .kanonymity import k_anonymize
from .ldiversity import ldiversify
from .tcloseness import t_close
from .zip_codes import partition_zip_codes

__all__ = [
    "k_anonymize",
    "cluster",
    "ldiversify",
    "t_close",
    "bin_cover",
    "partition_zip_codes",
    "partition_gps_rectangles",
]
