"""The builders of the l-diversity instance families (Xiao, Yi and Tao 2010): ``build(rng,
**params) -> (instance, meta)``, the protocol of :class:`anonratio.bench.declarations.Family`
(declared in :mod:`anonratio.bench.problems.ldiversity`).
"""

from __future__ import annotations

from typing import Any

from anonratio.instances.adult import ADULT_QI
from anonratio.instances.ldiversity import LDiversityInstance
from anonratio.instances.ldiversity.gadgets import random_3dm_gadget
from anonratio.instances.ldiversity.generators import planted_instance, random_instance, sal_like
from anonratio.instances.loaders import load_adult

__all__ = ["ADULT_LDIV_QI", "random", "sal", "planted", "three_dm", "adult"]


#: the Adult QI attributes of the l-diversity family (occupation is the sensitive attribute)
ADULT_LDIV_QI = tuple(c for c in ADULT_QI if c != "occupation")


def random(rng, *, n, d, cardinality, m, l, skew, objective):
    instance, meta = random_instance(
        n, d=d, cardinality=cardinality, m=m, l=l, skew=skew, objective=objective, seed=rng
    )
    return instance, {k: v for k, v in meta.items() if k in ("optimum", "lower_bound")}


def sal(rng, *, n, d, l, objective, projection):
    instance, _ = sal_like(n, d=d, l=l, objective=objective, seed=rng, projection=projection)
    return instance, {}


def planted(rng, *, n_groups, d, cardinality, m, l, group_size, objective):
    instance, meta = planted_instance(
        n_groups,
        d=d,
        cardinality=cardinality,
        m=m,
        l=l,
        group_size=group_size or None,
        objective=objective,
        seed=rng,
    )
    return instance, {"optimum": float(meta.get("optimum", 0.0))}


def three_dm(rng, *, q, t, has_matching):
    instance, meta = random_3dm_gadget(q, t, has_matching=has_matching, seed=rng)
    extra: dict[str, Any] = {"has_matching": bool(meta["has_matching"])}
    for key in ("optimum", "lower_bound", "threshold"):
        if meta.get(key) is not None:
            extra[key] = float(meta[key])
    return instance, extra


def adult(rng, *, n, d, l, objective):
    table = load_adult(qi=ADULT_LDIV_QI[:d], sensitive="occupation", hierarchies=False)
    table = table.sample(n, rng)
    instance = LDiversityInstance(table, l, objective)
    return instance, {"dataset": "adult", "n_records": table.n_records}
