"""One module per problem: its :class:`~anonratio.bench.problem.Problem` declaration, holding its
instance families, algorithms, reference instances, asv sizes, hunt and publisher.

Each module has ``PROBLEM`` (or ``PROBLEMS``, a tuple, when problems share their data, as the
five clustering problems do). :data:`DECLARED` lists them in registry order; a new problem adds
its module here.
"""

from anonratio.bench.problem import Problem

from . import (
    bin_covering,
    clustering,
    gps_rectangles,
    kanonymity,
    ldiversity,
    ordered_labels,
    tcloseness,
    zip_codes,
)

__all__ = ["DECLARED"]

#: every declared problem, in the order the registry lists them
DECLARED: tuple[Problem, ...] = (
    kanonymity.PROBLEM,
    bin_covering.PROBLEM,
    zip_codes.PROBLEM,
    gps_rectangles.PROBLEM,
    ordered_labels.PROBLEM,
    *clustering.PROBLEMS,
    ldiversity.PROBLEM,
    tcloseness.PROBLEM,
)
