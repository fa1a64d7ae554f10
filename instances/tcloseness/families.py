"""The builder of the t-closeness instance family: ``build(rng, **params) -> (instance, meta)``,
the protocol of :class:`anonratio.bench.declarations.Family` (declared in
:mod:`anonratio.bench.problems.tcloseness`).
"""

from __future__ import annotations

from anonratio.instances.tcloseness import random_instance

__all__ = ["random"]


def random(rng, *, n, d, cardinality, m, t, k, skew, correlation, ground):
    instance, _ = random_instance(
        n,
        d=d,
        cardinality=cardinality,
        m=m,
        t=t,
        k=k,
        skew=skew,
        correlation=correlation,
        ground=ground,
        seed=rng,
    )
    return instance, {}
