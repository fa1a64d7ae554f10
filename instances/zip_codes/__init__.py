"""Zip codes (Du et al. 2009, §2): connected parts of a node-weighted planar graph; the instance,
its verifier and lower bound, and the Delaunay, grid and planted generators."""

from .generators import (
    WEIGHT_KINDS,
    delaunay_graph,
    delaunay_instance,
    grid_instance,
    hull_chords,
    planted_planar_instance,
    random_weights,
)
from .instance import PlanarPartitionInstance, ZipCodesInstance, part_weights, planar_lower_bound

__all__ = [
    "ZipCodesInstance",
    "PlanarPartitionInstance",
    "planar_lower_bound",
    "part_weights",
    "WEIGHT_KINDS",
    "random_weights",
    "delaunay_graph",
    "hull_chords",
    "delaunay_instance",
    "grid_instance",
    "planted_planar_instance",
]
