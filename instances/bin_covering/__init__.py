"""Min-Max Bin Covering (Du et al. 2009, §4): the instance, its verifier and lower bound, and the
generators (uniform, Zipf, 3-Partition, 1990 Census names)."""

from .generators import (
    CENSUS_FILES,
    census_instance,
    census_names,
    planted_three_partition,
    three_partition_no_instance,
    uniform_instance,
    zipf_instance,
)
from .instance import (
    BinCoveringInstance,
    BinCoveringVerification,
    bin_covering_lower_bound,
    bin_loads,
    check_epsilon,
    verify_relaxed,
)

__all__ = [
    "BinCoveringInstance",
    "BinCoveringVerification",
    "bin_loads",
    "bin_covering_lower_bound",
    "verify_relaxed",
    "check_epsilon",
    "CENSUS_FILES",
    "uniform_instance",
    "zipf_instance",
    "planted_three_partition",
    "three_partition_no_instance",
    "census_names",
    "census_instance",
]
