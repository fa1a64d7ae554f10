"""The run's deadline while an exact clustering model is built, and what its size costs.

The cellular model has ``O(n^3)`` pairs (4 million at ``n = 200``), each a Python object for
CP-SAT or PuLP, and the solvers cannot be interrupted while they take a model in: CP-SAT's
loading and presolve of 4 million variables, or PuLP's copy of a model into HiGHS (or its MPS
file for CBC), ignore the time limit. So :func:`~anonratio.exact.clustering.cpsat.solve_cpsat`
and :func:`~anonratio.exact.clustering.ilp.solve_ilp` look at the clock

* while they build the data, the variables, the constraints and the hint (every
  :data:`CHECK_EVERY` items: :func:`check_deadline`, :func:`timed`), stopping with
  :class:`BuildTimeout`;
* before they build a model, and again before they hand it to the solver
  (:func:`check_size`): a model whose estimated build and load time (:func:`estimate`) exceeds
  the seconds left is refused with :class:`BuildTimeout`.

The estimate is ``nonzeros x`` a time per nonzero, per solver (:data:`BUILD_SECONDS`,
:data:`LOAD_SECONDS`): half the fastest rate measured on the development machine (one core;
cellular models of 110,000 and 505,000 pairs, a (k, r)-center model of 123,000 pairs: per
nonzero, CP-SAT 1.6 to 2.6 us to build and 0.4 to 0.7 us to load, PuLP 3.9 to 5.2 us to build,
19 to 21 us to copy into HiGHS and 13 us to write for CBC), so that it errs towards trying.
``nonzeros`` counts the objective and constraint coefficients of the model the data describe
(:meth:`~anonratio.exact.clustering.candidates.GatherData.nonzeros`,
:meth:`~anonratio.exact.clustering.candidates.CellularData.nonzeros`).
"""

from __future__ import annotations

from collections.abc import Iterator
from time import perf_counter

__all__ = [
    "BuildTimeout",
    "CHECK_EVERY",
    "BUILD_SECONDS",
    "LOAD_SECONDS",
    "check_deadline",
    "timed",
    "estimate",
    "check_size",
]

#: items (variables, constraints, hints) built between two looks at the clock
CHECK_EVERY = 1 << 14

#: seconds per nonzero to build a model in Python, by solver (CP-SAT's ``CpModel``, PuLP's)
BUILD_SECONDS = {"cpsat": 0.8e-6, "highs": 2.0e-6, "cbc": 2.0e-6}
#: seconds per nonzero for the solver to take a model in before its time limit applies: CP-SAT's
#: loading and presolve, PuLP's copy into HiGHS, PuLP's MPS file for CBC
LOAD_SECONDS = {"cpsat": 0.2e-6, "highs": 9.0e-6, "cbc": 6.0e-6}


class BuildTimeout(Exception):
    """The run's deadline came, or would come, before the solver could start; the message says
    where."""


def check_deadline(deadline: float, what: str) -> None:
    """Raise :class:`BuildTimeout` (``"the time limit came while <what>"``) once ``deadline``
    (a ``time.perf_counter`` reading) has passed."""
    if perf_counter() >= deadline:
        raise BuildTimeout(f"the time limit came while {what}")


def timed(total: int, deadline: float, what: str, step: int | None = None) -> Iterator[range]:
    """``range(total)`` in slices of ``step`` (:data:`CHECK_EVERY` by default), with
    :func:`check_deadline` before each slice.

    Examples
    --------
    >>> [list(r) for r in timed(5, float("inf"), "counting", step=2)]
    [[0, 1], [2, 3], [4]]
    """
    step = CHECK_EVERY if step is None else step
    for lo in range(0, total, step):
        check_deadline(deadline, what)
        yield range(lo, min(lo + step, total))


def estimate(nonzeros: int, solver: str, *, build: bool) -> float:
    """Estimated seconds to load a model of ``nonzeros`` coefficients into ``solver`` ("cpsat",
    "highs" or "cbc"), building it first when ``build``.

    Examples
    --------
    >>> round(estimate(4_000_000, "highs", build=False), 3)
    36.0
    """
    rate = LOAD_SECONDS[solver] + (BUILD_SECONDS[solver] if build else 0.0)
    return nonzeros * rate


def check_size(nonzeros: int, solver: str, deadline: float, *, build: bool) -> None:
    """Raise :class:`BuildTimeout` when :func:`estimate` exceeds the seconds left until
    ``deadline`` (or none are left)."""
    check_deadline(deadline, "building the model")
    need, left = estimate(nonzeros, solver, build=build), deadline - perf_counter()
    if need > left:
        raise BuildTimeout(
            f"a model of {nonzeros} nonzeros needs about {need:.3g} s to "
            f"{'build and load' if build else 'load'} into {solver}, {left:.3g} s left"
        )
