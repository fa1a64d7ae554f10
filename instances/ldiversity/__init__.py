"""l-diversity by suppression (Xiao, Yi and Tao, EDBT 2010): the instance, its verifier and lower
bound, and the generators."""

from .gadgets import maximum_3dm, random_3dm, random_3dm_gadget, three_dm_gadget
from .generators import planted_instance, random_instance, sal_like
from .instance import (
    OBJECTIVES,
    LDiversityInstance,
    LDiversityVerification,
    group_stats,
    is_l_eligible,
    ldiversity_lower_bound,
    phase_one_residue,
    qi_groups,
)

__all__ = [
    "OBJECTIVES",
    "LDiversityInstance",
    "LDiversityVerification",
    "group_stats",
    "is_l_eligible",
    "ldiversity_lower_bound",
    "phase_one_residue",
    "qi_groups",
    "random_instance",
    "sal_like",
    "planted_instance",
    "three_dm_gadget",
    "random_3dm",
    "random_3dm_gadget",
    "maximum_3dm",
]
