"""The builder of the ordered-labels instance family (Du et al. 2009, §4): ``build(rng, **params)
-> (instance, meta)``, the protocol of :class:`anonratio.bench.declarations.Family` (declared in
:mod:`anonratio.bench.problems.ordered_labels`).
"""

from __future__ import annotations

from anonratio.instances.ordered_labels import OrderedLabelsInstance
from anonratio.instances.ordered_labels.generators import ordered_random_sizes

__all__ = ["random_sizes"]


def random_sizes(rng, *, n, k, low, high):
    sizes = ordered_random_sizes(n, low=low, high=high, seed=rng)
    return OrderedLabelsInstance(sizes, k), {}
