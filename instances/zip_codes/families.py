"""The builders of the zip-code instance families (Du et al. 2009, §2): ``build(rng, **params)
-> (instance, meta)``, the protocol of :class:`anonratio.bench.declarations.Family` (declared in
:mod:`anonratio.bench.problems.zip_codes`).
"""

from __future__ import annotations

import numpy as np

from anonratio.instances.validation import check_choice
from anonratio.instances.zip_codes import (
    WEIGHT_KINDS,
    delaunay_instance,
    grid_instance,
    planted_planar_instance,
)

__all__ = ["delaunay", "grid", "planted"]


def _weight_kind(weights):
    return check_choice("weights", weights, WEIGHT_KINDS)


def delaunay(rng, *, n, k, weights, max_weight, three_connected):
    inst = delaunay_instance(
        n,
        k,
        weights=_weight_kind(weights),
        max_weight=max_weight,
        three_connected=three_connected,
        seed=rng,
    )
    return inst, {}


def grid(rng, *, rows, cols, k, weights, max_weight):
    inst = grid_instance(
        rows, cols, k, weights=_weight_kind(weights), max_weight=max_weight, seed=rng
    )
    return inst, {}


def planted(rng, *, n, n_parts, k):
    inst, planted = planted_planar_instance(n, n_parts, k, seed=rng)
    return inst, {"optimum": float(k), "planted": np.asarray(planted).tolist()}
