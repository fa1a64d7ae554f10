"""The builders of the GPS-rectangle instance families (Du et al. 2009, §3): ``build(rng, **params)
-> (instance, meta)``, the protocol of :class:`anonratio.bench.declarations.Family` (declared in
:mod:`anonratio.bench.problems.gps_rectangles`).
"""

from __future__ import annotations

from anonratio.instances.gps_rectangles import (
    clustered_points,
    cross_gadget,
    pinwheel_gadget,
    uniform_points,
)

__all__ = ["uniform", "clustered", "cross", "pinwheel"]


def uniform(rng, *, n, k, weight_max, grid):
    inst = uniform_points(n, k=k, weight_max=weight_max, grid=grid or None, seed=rng)
    return inst, {}


def clustered(rng, *, n, k, n_clusters, spread, weight_max):
    inst = clustered_points(
        n, k=k, n_clusters=n_clusters, spread=spread, weight_max=weight_max, seed=rng
    )
    return inst, {}


def _gadget_meta(meta):
    keep = ("optimum", "lower_bound", "kdtree_cost", "description", "witness_labels")
    out = {key: meta[key] for key in keep if key in meta}
    out["optimum"] = float(out["optimum"])
    return out


def cross(rng, *, k):
    inst, meta = cross_gadget(k)
    return inst, _gadget_meta(meta)


def pinwheel(rng, *, k):
    inst, meta = pinwheel_gadget(k)
    return inst, _gadget_meta(meta)
