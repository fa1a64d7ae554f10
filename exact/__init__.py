"""Exact models: CP-SAT (OR-Tools) and ILP (PuLP with HiGHS or CBC), one subpackage per problem.

Every solver takes ``time_limit`` (s), ``seed``, ``threads`` and ``hint``, and returns a
:class:`~anonratio.instances.Solution` whose ``status`` is ``optimal`` only when the solver proved
it; after a time limit the best solution found comes with ``status="time_limit"`` and the bound.
:mod:`anonratio.exact.run` runs a model and decides its status from the solver's own proof.
"""

from typing import Any

from anonratio.instances.lazy_exports import LazyExports

__all__ = [
    "solve_k_anonymity",
    "solve_clustering",
    "solve_ldiversity",
    "solve_bin_covering",
    "solve_zip_codes",
    "solve_gps_rectangles",
    "solve_ordered_labels",
    "solve_tcloseness",
]

#: front function -> its subpackage, imported on first use: importing one model (or
#: :mod:`anonratio.exact.options`) does not load OR-Tools and PuLP models of every problem
_FRONTS = {
    "solve_k_anonymity": "kanonymity",
    "solve_clustering": "clustering",
    "solve_ldiversity": "ldiversity",
    "solve_bin_covering": "bin_covering",
    "solve_zip_codes": "zip_codes",
    "solve_gps_rectangles": "gps_rectangles",
    "solve_ordered_labels": "ordered_labels",
    "solve_tcloseness": "tcloseness",
}

_EXPORTS = LazyExports(__name__, {f: f"{__name__}.{sub}:{f}" for f, sub in _FRONTS.items()})


def __getattr__(name: str) -> Any:
    return _EXPORTS.load(name)


def __dir__() -> list[str]:
    return _EXPORTS.names()
