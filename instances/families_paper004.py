"""Instance families of the three geometric/ordered problems of Du et al. (2009, §2–§4).

Registered in :data:`anonratio.instances.families.FAMILIES` when that module is imported (it
imports this one at its end), with the same conventions: seeded builders, defaults whose types
drive the coercion of command-line strings, ``meta["optimum"]`` where the construction proves it.

* zip codes (connected planar partition, §2): ``zip-delaunay``, ``zip-grid``, ``zip-planted``
  (planted parts of weight exactly ``k``: optimum ``k``);
* GPS rectangles (§3): ``gps-uniform``, ``gps-clustered``, ``gps-cross`` (Theorem 4's worst
  case, optimum ``5k - 4``), ``gps-pinwheel`` (non-guillotine optimum ``k``);
* ordered labels (§4): ``ordered-random`` (uniform integer sizes in ``[low, high]``).

References
----------
Du, Eppstein, Goodrich, Lueker. "On the Approximability of Geometric and Geographic
Generalization and the Min-Max Bin Covering Problem". WADS 2009, §2 (zip codes), §3 (GPS
rectangles, Theorem 4), §4 (ordered labels).

Examples
--------
>>> from anonratio.instances.families import generate
>>> inst, meta = generate("zip-planted", seed=0, n="12", n_parts=3, k=4)
>>> meta["optimum"], inst.n
(4.0, 12)
"""

import numpy as np

from .families import FAMILIES, Family, register_family
from .gps_data import clustered_points, cross_gadget, pinwheel_gadget, uniform_points
from .ordered import OrderedIntervalsInstance
from .planar_data import WEIGHT_KINDS, delaunay_instance, grid_instance, planted_planar_instance

__all__ = ["PAPER004_FAMILIES", "ordered_random_sizes"]


def _weight_kind(weights):
    if weights not in WEIGHT_KINDS:
        raise ValueError(f"parameter `weights` must be one of {WEIGHT_KINDS}, got {weights!r}")
    return weights


# ---------------------------------------------------------------------------------------------
# zip codes (§2)
# ---------------------------------------------------------------------------------------------
def _zip_delaunay(rng, *, n, k, weights, max_weight, three_connected):
    inst = delaunay_instance(
        n,
        k,
        weights=_weight_kind(weights),
        max_weight=max_weight,
        three_connected=three_connected,
        seed=rng,
    )
    return inst, {}


def _zip_grid(rng, *, rows, cols, k, weights, max_weight):
    inst = grid_instance(
        rows, cols, k, weights=_weight_kind(weights), max_weight=max_weight, seed=rng
    )
    return inst, {}


def _zip_planted(rng, *, n, n_parts, k):
    inst, planted = planted_planar_instance(n, n_parts, k, seed=rng)
    return inst, {"optimum": float(k), "planted": np.asarray(planted).tolist()}


# ---------------------------------------------------------------------------------------------
# GPS rectangles (§3)
# ---------------------------------------------------------------------------------------------
def _gps_uniform(rng, *, n, k, weight_max, grid):
    inst = uniform_points(n, k=k, weight_max=weight_max, grid=grid or None, seed=rng)
    return inst, {}


def _gps_clustered(rng, *, n, k, n_clusters, spread, weight_max):
    inst = clustered_points(
        n, k=k, n_clusters=n_clusters, spread=spread, weight_max=weight_max, seed=rng
    )
    return inst, {}


def _gadget_meta(meta):
    keep = ("optimum", "lower_bound", "kdtree_cost", "description", "witness_labels")
    out = {key: meta[key] for key in keep if key in meta}
    out["optimum"] = float(out["optimum"])
    return out


def _gps_cross(rng, *, k):
    inst, meta = cross_gadget(k)
    return inst, _gadget_meta(meta)


def _gps_pinwheel(rng, *, k):
    inst, meta = pinwheel_gadget(k)
    return inst, _gadget_meta(meta)


# ---------------------------------------------------------------------------------------------
# ordered labels (§4)
# ---------------------------------------------------------------------------------------------
def ordered_random_sizes(n, *, low=0, high=10, seed=None):
    """``n`` label sizes uniform in the integers ``[low, high]`` (int64).

    Examples
    --------
    >>> ordered_random_sizes(5, low=1, high=3, seed=0).tolist()
    [3, 2, 2, 1, 1]
    """
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
        raise ValueError(f"parameter `n` must be an integer >= 1, got {n!r}")
    if not 0 <= low <= high:
        raise ValueError(
            f"parameters `low`, `high` must satisfy 0 <= low <= high, got {low}, {high}"
        )
    rng = np.random.default_rng(seed)
    return rng.integers(low, high, size=int(n), endpoint=True).astype(np.int64)


def _ordered_random(rng, *, n, k, low, high):
    sizes = ordered_random_sizes(n, low=low, high=high, seed=rng)
    return OrderedIntervalsInstance(sizes, k), {}


_DU = "Du et al. 2009"

#: the families registered by this module
PAPER004_FAMILIES = (
    Family(
        "zip-delaunay",
        "zip-codes",
        f"Delaunay triangulation of n uniform points, node weights `weights` up to max_weight, "
        f"parts of weight >= k ({_DU}, §2); three_connected resamples until 3-connected",
        {"n": 20, "k": 15, "weights": "uniform", "max_weight": 10, "three_connected": False},
        _zip_delaunay,
    ),
    Family(
        "zip-grid",
        "zip-codes",
        f"rows x cols grid graph (a Hamiltonian path: degree-2 spanning tree, ratio 3), node "
        f"weights `weights` up to max_weight ({_DU}, §2)",
        {"rows": 4, "cols": 5, "k": 15, "weights": "uniform", "max_weight": 10},
        _zip_grid,
    ),
    Family(
        "zip-planted",
        "zip-codes",
        f"Delaunay graph with a planted partition into n_parts connected parts of weight exactly "
        f"k ({_DU}, §2); meta optimum = k",
        {"n": 20, "n_parts": 4, "k": 10},
        _zip_planted,
    ),
    Family(
        "gps-uniform",
        "gps-rectangles",
        f"n points uniform in the unit square (grid > 0: on a grid x grid integer lattice, "
        f"duplicates merged), weights in [1, weight_max] ({_DU}, §3)",
        {"n": 10, "k": 5, "weight_max": 3, "grid": 0},
        _gps_uniform,
    ),
    Family(
        "gps-clustered",
        "gps-rectangles",
        f"n points in n_clusters Gaussian clusters of standard deviation spread, weights in "
        f"[1, weight_max] ({_DU}, §3)",
        {"n": 12, "k": 5, "n_clusters": 3, "spread": 0.05, "weight_max": 3},
        _gps_clustered,
    ),
    Family(
        "gps-cross",
        "gps-rectangles",
        f"Theorem 4's worst case ({_DU}, §3): multiplicity k with k-1 at N, S, E, W; no "
        f"admissible cut, kd-tree cost 5k-4; meta optimum = 5k-4",
        {"k": 3},
        _gps_cross,
    ),
    Family(
        "gps-pinwheel",
        "gps-rectangles",
        f"the cross plus unit corner helpers ({_DU}, §3): the non-guillotine pinwheel has "
        f"optimum k, kd-tree and the best guillotine partition 2k-1; meta optimum = k",
        {"k": 3},
        _gps_pinwheel,
    ),
    Family(
        "ordered-random",
        "ordered-labels",
        f"n ordered label sizes uniform in the integers [low, high], consecutive intervals of "
        f"weight >= k ({_DU}, §4)",
        {"n": 30, "k": 10, "low": 0, "high": 10},
        _ordered_random,
    ),
)

for _fam in PAPER004_FAMILIES:
    # the same definitions imported a second time (a doctest run by file path) are no conflict
    if getattr(FAMILIES.get(_fam.name), "description", None) != _fam.description:
        register_family(_fam)
del _fam
