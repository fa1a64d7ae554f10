"""The builders of the clustering instance families (Aggarwal et al. 2006): ``build(rng,
**params) -> (instance, meta)``, the protocol of :class:`anonratio.bench.declarations.Family`
(declared in :mod:`anonratio.bench.problems.clustering`). :func:`points` draws the points of a
point family (:data:`DRAWS`) and makes the problem's instance over them; :func:`planted` builds a
planted instance with its optimum; :func:`sat` the 3-SAT gadget of §2.1.

References
----------
G. Aggarwal, T. Feder, K. Kenthapadi, S. Khuller, R. Panigrahy, D. Thomas, A. Zhu. "Achieving
Anonymity via Clustering". PODS 2006.
"""

from __future__ import annotations

from typing import Any

from anonratio.instances.clustering.gadgets import random_formula, sat_gadget
from anonratio.instances.clustering.generators import (
    facility_costs,
    gaussian_points,
    heavy_tailed_points,
    make_instance,
    outlier_points,
    planted_instance,
    uniform_points,
)

__all__ = ["DRAWS", "points", "planted", "sat"]


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


#: point kind -> ``draw(rng, params) -> (points, meta)``
DRAWS = {"uniform": uniform, "gaussian": gaussian, "outliers": outliers, "heavy": heavy}


def _instance(problem: str, points: Any, rng: Any, params: dict[str, Any]) -> Any:
    """The problem's instance over ``points`` with the family's problem parameters."""
    kwargs: dict[str, Any] = {n: params[n] for n in ("r", "k", "epsilon") if n in params}
    if "facility" in params:
        kwargs["facility_costs"] = facility_costs(
            points, kind=params["facility"], scale=params["facility_scale"], seed=rng
        )
    return make_instance(problem, points, **kwargs)


def points(rng: Any, *, problem: str, kind: str, **params: Any) -> tuple[Any, dict[str, Any]]:
    """``problem``'s instance over points drawn by ``DRAWS[kind]`` (its ``n_outliers`` in meta)."""
    drawn, meta = DRAWS[kind](rng, params)
    extra = {key: value for key, value in meta.items() if key in ("n_outliers",)}
    return _instance(problem, drawn, rng, params), extra


def planted(rng: Any, *, problem: str, **p: Any) -> tuple[Any, dict[str, Any]]:
    """A planted ``problem`` instance: groups of exactly r points far apart; meta optimum."""
    groups = p["groups"] if "groups" in p else p["k"]
    instance, meta = planted_instance(
        problem,
        groups=groups,
        r=p["r"],
        radius=(p["radius_low"], p["radius_high"]),
        dim=p["dim"],
        n_outliers=p.get("n_outliers", 0),
        seed=rng,
    )
    return instance, {"optimum": float(meta["optimum"])}
