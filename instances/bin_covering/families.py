"""The builders of the Min-Max Bin Covering instance families (Du et al. 2009, §4-§5):
``build(rng, **params) -> (instance, meta)``, the protocol of
:class:`anonratio.bench.declarations.Family` (declared in
:mod:`anonratio.bench.problems.bin_covering`).
"""

from __future__ import annotations

from anonratio.instances.bin_covering import (
    CENSUS_FILES,
    census_instance,
    planted_three_partition,
    three_partition_no_instance,
    uniform_instance,
    zipf_instance,
)

__all__ = ["uniform", "zipf", "three_partition_yes", "three_partition_no", "census"]


def uniform(rng, *, n, k, low, high):
    return uniform_instance(n, k=k, low=low, high=high or None, seed=rng), {}


def zipf(rng, *, n, k, exponent, max_size):
    return zipf_instance(n, k=k, exponent=exponent, max_size=max_size or None, seed=rng), {}


def three_partition_yes(rng, *, m, B):
    instance, meta = planted_three_partition(m, B=B, seed=rng)
    extra = {"optimum": float(meta["optimum"]), "B": meta["B"], "m": meta["m"]}
    extra["planted"] = meta["planted"]
    return instance, extra


def three_partition_no(rng, *, m, B):
    instance, meta = three_partition_no_instance(m, B=B, seed=rng)
    bound = float(meta["optimum_lower_bound"])
    return instance, {"lower_bound": bound, "B": meta["B"], "m": meta["m"]}


def census(rng, *, dataset, k, min_frequency):
    if dataset not in CENSUS_FILES:
        raise ValueError(
            f"parameter `dataset` must be one of {sorted(CENSUS_FILES)}, got {dataset!r}"
        )
    instance = census_instance(dataset, k=k, min_frequency=min_frequency)
    extra = {"dataset": dataset, "total": instance.total, "max_size": instance.max_size}
    return instance, extra
