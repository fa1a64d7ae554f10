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
from .bin_covering import BinCoveringInstance, BinCoveringVerification, verify_relaxed
from .bin_covering_data import (
    census_instance,
    census_names,
    planted_three_partition,
    three_partition_no_instance,
    uniform_instance,
    zipf_instance,
)
from .errors import (
    AnonratioError,
    InfeasibleInstanceError,
    InfeasibleSolutionError,
    InstanceFormatError,
    UnsupportedInstanceError,
)
from .families import FAMILIES, generate
from .gadgets import (
    Gadget,
    graph_representation_pair,
    triangle_gadget,
    triangle_union_gadget,
    triangle_union_graph,
)
from .generators import (
    binary_table,
    categorical_table,
    planted_table,
    random_hierarchy,
    random_table,
)
from .gps import RectanglePartitionInstance
from .gps_data import clustered_points, cross_gadget, pinwheel_gadget, uniform_points
from .io import load_instance, save_instance
from .kanonymity import KAnonymityInstance, nearest_neighbors, pairwise_distances
from .loaders import datasets_dir, find_hierarchies, load_adult, read_hierarchy, read_table
from .ordered import OrderedIntervalsInstance
from .planar import PlanarPartitionInstance
from .planar_data import delaunay_instance, grid_instance, planted_planar_instance
from .publish import publish
from .solution import STATUSES, Solution
from .table import Hierarchy, Table

__all__ = [
    "OrderedIntervalsInstance",
    "PlanarPartitionInstance",
    "RectanglePartitionInstance",
    "clustered_points",
    "cross_gadget",
    "delaunay_instance",
    "grid_instance",
    "pinwheel_gadget",
    "planted_planar_instance",
    "uniform_points",
    "BinCoveringInstance",
    "BinCoveringVerification",
    "census_instance",
    "census_names",
    "planted_three_partition",
    "three_partition_no_instance",
    "uniform_instance",
    "verify_relaxed",
    "zipf_instance",
    "FAMILIES",
    "Gadget",
    "binary_table",
    "categorical_table",
    "datasets_dir",
    "find_hierarchies",
    "generate",
    "graph_representation_pair",
    "load_adult",
    "load_instance",
    "planted_table",
    "publish",
    "random_hierarchy",
    "random_table",
    "read_hierarchy",
    "read_table",
    "save_instance",
    "triangle_gadget",
    "triangle_union_gadget",
    "triangle_union_graph",
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
