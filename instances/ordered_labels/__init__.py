"""Ordered labels (Du et al. 2009, §4 remark): consecutive intervals of an ordered domain; the
instance, its verifier and lower bound, and the generator."""

from .generators import ordered_random_instance, ordered_random_sizes
from .instance import (
    OrderedIntervalsInstance,
    OrderedLabelsInstance,
    interval_weights,
    ordered_lower_bound,
)

__all__ = [
    "OrderedLabelsInstance",
    "OrderedIntervalsInstance",
    "ordered_lower_bound",
    "interval_weights",
    "ordered_random_sizes",
    "ordered_random_instance",
]
