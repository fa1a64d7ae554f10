"""Exact models: CP-SAT (OR-Tools) and ILP (PuLP with HiGHS or CBC), one subpackage per problem.

Every solver takes ``time_limit`` (s), ``seed``, ``threads`` and ``hint``, and returns a
:class:`~anonratio.instances.Solution` whose ``status`` is ``optimal`` only when the solver proved
it; after a time limit the best solution found comes with ``status="time_limit"`` and the bound.
:mod:`anonratio.exact.run` runs a model and decides its status from the solver's own proof.
"""

from .bin_covering import solve_bin_covering
from .clustering import solve_clustering
from .gps_rectangles import solve_gps_rectangles
from .kanonymity import solve_k_anonymity
from .ldiversity import solve_ldiversity
from .ordered_labels import solve_ordered_labels
from .zip_codes import solve_zip_codes

__all__ = [
    "solve_k_anonymity",
    "solve_clustering",
    "solve_ldiversity",
    "solve_bin_covering",
    "solve_zip_codes",
    "solve_gps_rectangles",
    "solve_ordered_labels",
]
