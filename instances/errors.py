"""Exceptions of the anonratio domain.

``ValueError`` stays the exception for a bad parameter (``k`` out of range, an unknown method
name). The classes here name problems with the *data*: an instance that has no feasible solution,
an instance a method does not support, a malformed input file, a solution that fails verification.
"""

from collections.abc import Iterable

__all__ = [
    "AnonratioError",
    "InfeasibleInstanceError",
    "UnsupportedInstanceError",
    "InstanceFormatError",
    "InfeasibleSolutionError",
]


class AnonratioError(Exception):
    """Base class of every domain error raised by anonratio."""


class InfeasibleInstanceError(AnonratioError, ValueError):
    """The instance has no feasible solution (e.g. fewer than ``k`` records)."""


class UnsupportedInstanceError(AnonratioError, ValueError):
    """The method does not support this instance (e.g. a binary-only algorithm on ternary data)."""


class InstanceFormatError(AnonratioError, ValueError):
    """An input file or object is malformed: ragged CSV, missing hierarchy value, bad JSON."""


class InfeasibleSolutionError(AnonratioError):
    """A solution failed the independent verifier; ``violations`` lists what is wrong."""

    def __init__(self, message: str, violations: Iterable[str] = ()) -> None:
        super().__init__(message)
        self.violations: list[str] = list(violations)
