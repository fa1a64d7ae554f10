"""Problem models, validation, the independent verifier, lower bounds, generators and loaders."""

from .base import (
    PROBLEMS,
    Verification,
    cost,
    instance_from_dict,
    instance_id,
    instance_to_dict,
    lower_bound,
    verify,
)
from .errors import (
    AnonratioError,
    InfeasibleInstanceError,
    InfeasibleSolutionError,
    InstanceFormatError,
    UnsupportedInstanceError,
)
from .kanonymity import KAnonymityInstance, nearest_neighbors, pairwise_distances
from .solution import STATUSES, Solution
from .table import Hierarchy, Table

__all__ = [
    "PROBLEMS",
    "STATUSES",
    "AnonratioError",
    "Hierarchy",
    "InfeasibleInstanceError",
    "InfeasibleSolutionError",
    "InstanceFormatError",
    "KAnonymityInstance",
    "Solution",
    "Table",
    "UnsupportedInstanceError",
    "Verification",
    "cost",
    "instance_from_dict",
    "instance_id",
    "instance_to_dict",
    "lower_bound",
    "nearest_neighbors",
    "pairwise_distances",
    "verify",
]
