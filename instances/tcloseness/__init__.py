"""t-closeness by suppression (Li, Li and Venkatasubramanian, ICDE 2007, with the star objective
of l-diversity by suppression): the instance, its verifier and lower bound, and the generator."""

from .bound import forced_groups, nearest_emd, tcloseness_lower_bound
from .generators import random_instance
from .instance import (
    GROUNDS,
    TClosenessInstance,
    TClosenessVerification,
    differing_columns,
    group_stats,
)

__all__ = [
    "GROUNDS",
    "TClosenessInstance",
    "TClosenessVerification",
    "differing_columns",
    "forced_groups",
    "group_stats",
    "nearest_emd",
    "random_instance",
    "tcloseness_lower_bound",
]
