"""Problem models, validation, the independent verifier, lower bounds, generators and loaders.

The shared core (:mod:`.base` dispatch of ``verify`` / ``lower_bound`` and JSON,
:mod:`.solution`, :mod:`.errors`, :mod:`.validation`, :mod:`.io`, :mod:`.table`, :mod:`.loaders`)
sits beside one subpackage per problem: :mod:`.kanonymity`, :mod:`.bin_covering`,
:mod:`.zip_codes`, :mod:`.gps_rectangles`, :mod:`.ordered_labels`, :mod:`.clustering`,
:mod:`.ldiversity`, :mod:`.tcloseness`. Its names load on first use
(importing this package imports none of the problems, nor pandas, scipy or networkx); an instance
type registers with the dispatchers when its module is imported, and reading an instance file of
a problem not yet imported imports it (:func:`~.base.instance_from_dict`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from anonratio.instances.lazy_exports import LazyExports

if TYPE_CHECKING:  # the names below, for type checkers and readers
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

#: public name -> the module that defines it, imported on first use
_WHERE = {
    "LDiversityInstance": "anonratio.instances.ldiversity",
    "TClosenessInstance": "anonratio.instances.tcloseness",
    "RGatherInstance": "anonratio.instances.clustering",
    "REpsGatherInstance": "anonratio.instances.clustering",
    "KRCenterInstance": "anonratio.instances.clustering",
    "CellularInstance": "anonratio.instances.clustering",
    "RCellularInstance": "anonratio.instances.clustering",
    "OrderedLabelsInstance": "anonratio.instances.ordered_labels.instance",
    "ZipCodesInstance": "anonratio.instances.zip_codes.instance",
    "GpsRectanglesInstance": "anonratio.instances.gps_rectangles.instance",
    "clustered_points": "anonratio.instances.gps_rectangles.generators",
    "cross_gadget": "anonratio.instances.gps_rectangles.generators",
    "delaunay_instance": "anonratio.instances.zip_codes.generators",
    "grid_instance": "anonratio.instances.zip_codes.generators",
    "pinwheel_gadget": "anonratio.instances.gps_rectangles.generators",
    "planted_planar_instance": "anonratio.instances.zip_codes.generators",
    "uniform_points": "anonratio.instances.gps_rectangles.generators",
    "BinCoveringInstance": "anonratio.instances.bin_covering.instance",
    "BinCoveringVerification": "anonratio.instances.bin_covering.instance",
    "census_instance": "anonratio.instances.bin_covering.generators",
    "census_names": "anonratio.instances.bin_covering.generators",
    "planted_three_partition": "anonratio.instances.bin_covering.generators",
    "three_partition_no_instance": "anonratio.instances.bin_covering.generators",
    "uniform_instance": "anonratio.instances.bin_covering.generators",
    "verify_relaxed": "anonratio.instances.bin_covering.instance",
    "zipf_instance": "anonratio.instances.bin_covering.generators",
    "Gadget": "anonratio.instances.kanonymity.gadgets",
    "binary_table": "anonratio.instances.kanonymity.generators",
    "categorical_table": "anonratio.instances.kanonymity.generators",
    "datasets_dir": "anonratio.instances.loaders",
    "find_hierarchies": "anonratio.instances.loaders",
    "graph_representation_pair": "anonratio.instances.kanonymity.gadgets",
    "load_adult": "anonratio.instances.loaders",
    "load_instance": "anonratio.instances.io",
    "planted_table": "anonratio.instances.kanonymity.generators",
    "publish": "anonratio.instances.kanonymity.publish",
    "random_hierarchy": "anonratio.instances.kanonymity.generators",
    "random_table": "anonratio.instances.kanonymity.generators",
    "read_hierarchy": "anonratio.instances.loaders",
    "read_table": "anonratio.instances.loaders",
    "save_instance": "anonratio.instances.io",
    "triangle_gadget": "anonratio.instances.kanonymity.gadgets",
    "triangle_union_gadget": "anonratio.instances.kanonymity.gadgets",
    "triangle_union_graph": "anonratio.instances.kanonymity.gadgets",
    "PROBLEMS": "anonratio.instances.base",
    "STATUSES": "anonratio.instances.solution",
    "AnonratioError": "anonratio.instances.errors",
    "Hierarchy": "anonratio.instances.table",
    "InfeasibleInstanceError": "anonratio.instances.errors",
    "InfeasibleSolutionError": "anonratio.instances.errors",
    "InstanceFormatError": "anonratio.instances.errors",
    "KAnonymityInstance": "anonratio.instances.kanonymity.instance",
    "Solution": "anonratio.instances.solution",
    "Table": "anonratio.instances.table",
    "UnsupportedInstanceError": "anonratio.instances.errors",
    "Verification": "anonratio.instances.base",
    "instance_from_dict": "anonratio.instances.base",
    "instance_id": "anonratio.instances.base",
    "instance_to_dict": "anonratio.instances.base",
    "lower_bound": "anonratio.instances.base",
    "nearest_neighbors": "anonratio.instances.kanonymity.instance",
    "pairwise_distances": "anonratio.instances.kanonymity.instance",
    "verify": "anonratio.instances.base",
}


_EXPORTS = LazyExports(__name__, {name: f"{module}:{name}" for name, module in _WHERE.items()})


def __getattr__(name: str) -> Any:
    return _EXPORTS.load(name)


def __dir__() -> list[str]:
    return _EXPORTS.names()
