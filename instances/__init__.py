"""Problem models, validation, the independent verifier, lower bounds, generators and loaders.

The shared core (:mod:`.base` dispatch of ``verify`` / ``lower_bound`` and JSON,
:mod:`.solution`, :mod:`.errors`, :mod:`.validation`, :mod:`.io`, :mod:`.table`, :mod:`.loaders`)
sits beside one subpackage per problem: :mod:`.kanonymity`, :mod:`.bin_covering`,
:mod:`.zip_codes`, :mod:`.gps_rectangles`, :mod:`.ordered_labels`, :mod:`.clustering`,
:mod:`.ldiversity`, :mod:`.tcloseness`. Importing this package registers every problem's instance
type with the dispatchers.
"""

from anonratio.instances.base import (
    PROBLEMS,
    Verification,
    instance_from_dict,
    instance_id,
    instance_to_dict,
    lower_bound,
    verify,
)
from anonratio.instances.bin_covering.generators import (
    census_instance,
    census_names,
    planted_three_partition,
    three_partition_no_instance,
    uniform_instance,
    zipf_instance,
)
from anonratio.instances.bin_covering.instance import (
    BinCoveringInstance,
    BinCoveringVerification,
    verify_relaxed,
)
from anonratio.instances.clustering import (
    CellularInstance,
    KRCenterInstance,
    RCellularInstance,
    REpsGatherInstance,
    RGatherInstance,
)
from anonratio.instances.errors import (
    AnonratioError,
    InfeasibleInstanceError,
    InfeasibleSolutionError,
    InstanceFormatError,
    UnsupportedInstanceError,
)
from anonratio.instances.gps_rectangles.generators import (
    clustered_points,
    cross_gadget,
    pinwheel_gadget,
    uniform_points,
)
from anonratio.instances.gps_rectangles.instance import GpsRectanglesInstance
from anonratio.instances.io import load_instance, save_instance
from anonratio.instances.kanonymity.gadgets import (
    Gadget,
    graph_representation_pair,
    triangle_gadget,
    triangle_union_gadget,
    triangle_union_graph,
)
from anonratio.instances.kanonymity.generators import (
    binary_table,
    categorical_table,
    planted_table,
    random_hierarchy,
    random_table,
)
from anonratio.instances.kanonymity.instance import (
    KAnonymityInstance,
    nearest_neighbors,
    pairwise_distances,
)
from anonratio.instances.kanonymity.publish import publish
from anonratio.instances.ldiversity import LDiversityInstance
from anonratio.instances.loaders import (
    datasets_dir,
    find_hierarchies,
    load_adult,
    read_hierarchy,
    read_table,
)
from anonratio.instances.ordered_labels.instance import OrderedLabelsInstance
from anonratio.instances.solution import STATUSES, Solution
from anonratio.instances.table import Hierarchy, Table
from anonratio.instances.tcloseness import TClosenessInstance
from anonratio.instances.zip_codes.generators import (
    delaunay_instance,
    grid_instance,
    planted_planar_instance,
)
from anonratio.instances.zip_codes.instance import ZipCodesInstance

__all__ = [
    "LDiversityInstance",
    "TClosenessInstance",
    "RGatherInstance",
    "REpsGatherInstance",
    "KRCenterInstance",
    "CellularInstance",
    "RCellularInstance",
    "OrderedLabelsInstance",
    "ZipCodesInstance",
    "GpsRectanglesInstance",
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
    "Gadget",
    "binary_table",
    "categorical_table",
    "datasets_dir",
    "find_hierarchies",
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
    "instance_from_dict",
    "instance_id",
    "instance_to_dict",
    "lower_bound",
    "nearest_neighbors",
    "pairwise_distances",
    "verify",
]
