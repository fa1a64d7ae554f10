"""Anonymity via clustering (Aggarwal et al., PODS 2006): r-gather, (r, eps)-gather,
(k, r)-center, cellular and r-cellular clustering — the instances, the verifier and lower bounds,
and the generators."""

from .instance import (
    CLUSTERING_PROBLEMS,
    CellularInstance,
    ClusteringInstance,
    KRCenterInstance,
    RCellularInstance,
    REpsGatherInstance,
    RGatherInstance,
    check_facility_costs,
    check_points,
)
from .metric import METRICS, PointMetric
from .verify import (
    ClusteringVerification,
    best_centers,
    cluster_radii,
    clustering_cost,
    clustering_info,
    clustering_lower_bound,
)

__all__ = [
    "CLUSTERING_PROBLEMS",
    "ClusteringInstance",
    "RGatherInstance",
    "REpsGatherInstance",
    "KRCenterInstance",
    "CellularInstance",
    "RCellularInstance",
    "check_points",
    "check_facility_costs",
    "METRICS",
    "PointMetric",
    "ClusteringVerification",
    "best_centers",
    "cluster_radii",
    "clustering_cost",
    "clustering_info",
    "clustering_lower_bound",
]
