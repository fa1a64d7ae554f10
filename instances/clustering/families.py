"""The builders of the clustering instance families (Aggarwal et al. 2006): the point draws
``draw(rng, params) -> (points, meta)`` of the point families and the 3-SAT gadget's
``sat(rng, **params) -> (instance, meta)`` (declared in :mod:`anonratio.bench.problems.clustering`).

References
----------
G. Aggarwal, T. Feder, K. Kenthapadi, S. Khuller, R. Panigrahy, D. Thomas, A. Zhu. "Achieving
Anonymity via Clustering". PODS 2006.
"""

from __future__ import annotations

from typing import Any

from anonratio.instances.clustering.gadgets import random_formula, sat_gadget
from anonratio.instances.clustering.generators import (
    gaussian_points,
    heavy_tailed_points,
    outlier_points,
    uniform_points,
)

__all__ = ["uniform", "gaussian", "outliers", "heavy", "sat"]


def uniform(rng, p):
    return uniform_points(p["n"], dim=p["dim"], seed=rng)


def gaussian(rng, p):
    sizes = [p["cluster_size"]] * p["n_clusters"]
    return gaussian_points(sizes, dim=p["dim"], spread=p["spread"], seed=rng)


def outliers(rng, p):
    return outlier_points(p["n"], n_outliers=p["n_outliers"], dim=p["dim"], seed=rng)


def heavy(rng, p):
    return heavy_tailed_points(p["n"], dim=p["dim"], tail=p["tail"], seed=rng)


def sat(rng, *, n_vars, n_clauses, satisfiable, r):
    formula = random_formula(n_vars, n_clauses, satisfiable=satisfiable, seed=rng)
    instance, meta = sat_gadget(formula, r=r)
    extra: dict[str, Any] = {"satisfiable": bool(meta["satisfiable"])}
    for key in ("optimum", "lower_bound"):
        if key in meta:
            extra[key] = float(meta[key])
    return instance, extra
