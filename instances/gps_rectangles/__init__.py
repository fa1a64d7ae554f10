"""GPS rectangles (Du et al. 2009, §3): weighted points and axis-aligned rectangles tiling their
box; the instance, its verifier and lower bound, and the generators and gadgets."""

from .generators import clustered_points, cross_gadget, pinwheel_gadget, uniform_points
from .grid import (
    cells_to_rectangles,
    grid_weights,
    labels_from_cells,
    rectangle_weights,
    rectangles_to_cells,
    solution_from_cells,
)
from .instance import (
    GpsRectanglesInstance,
    RectanglePartitionInstance,
    gps_lower_bound,
    verify_rectangles,
)

__all__ = [
    "GpsRectanglesInstance",
    "RectanglePartitionInstance",
    "verify_rectangles",
    "gps_lower_bound",
    "cells_to_rectangles",
    "rectangles_to_cells",
    "labels_from_cells",
    "rectangle_weights",
    "grid_weights",
    "solution_from_cells",
    "uniform_points",
    "clustered_points",
    "cross_gadget",
    "pinwheel_gadget",
]
