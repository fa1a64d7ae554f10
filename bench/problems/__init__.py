"""One module per problem, declaring its instance families and algorithms once.

Each module has ``PROBLEM`` (the name in the results' ``problem`` column, or a tuple of names
when the problems share their data, as the five clustering problems do), ``FAMILIES`` (a tuple
of :class:`~anonratio.bench.declarations.Family`) and ``ALGORITHMS`` (a tuple of
:class:`~anonratio.bench.declarations.Algorithm`). :data:`PROBLEMS` lists them in registry
order; a new problem adds its module here.
"""

from . import (
    bin_covering,
    clustering,
    gps_rectangles,
    kanonymity,
    ldiversity,
    ordered_labels,
    zip_codes,
)

__all__ = ["PROBLEMS"]

#: the problem modules, in the order the registry lists them
PROBLEMS = (
    kanonymity,
    bin_covering,
    zip_codes,
    gps_rectangles,
    ordered_labels,
    clustering,
    ldiversity,
)
