"""Generators of ordered-labels instances (Du, Eppstein, Goodrich and Lueker 2009, §4 remark)."""

import numpy as np

from anonratio.instances.ordered_labels.instance import OrderedLabelsInstance
from anonratio.instances.validation import SeedLike, check_int, check_random_state

__all__ = ["ordered_random_sizes", "ordered_random_instance"]


def ordered_random_sizes(
    n: int, *, low: int = 0, high: int = 10, seed: SeedLike = None
) -> np.ndarray:
    """``n`` label sizes uniform in the integers ``[low, high]`` (int64).

    Examples
    --------
    >>> ordered_random_sizes(5, low=1, high=3, seed=0).tolist()
    [3, 2, 2, 1, 1]
    """
    n = check_int("n", n, low=1)
    low, high = check_int("low", low), check_int("high", high)
    if not 0 <= low <= high:
        raise ValueError(
            f"parameters `low`, `high` must satisfy 0 <= low <= high, got {low}, {high}"
        )
    rng = check_random_state(seed)
    return rng.integers(low, high, size=n, endpoint=True).astype(np.int64)


def ordered_random_instance(
    n: int, k: int, *, low: int = 0, high: int = 10, seed: SeedLike = None
) -> OrderedLabelsInstance:
    """An :class:`OrderedLabelsInstance` of ``n`` uniform sizes in ``[low, high]`` and ``k``.

    Examples
    --------
    >>> ordered_random_instance(5, 4, low=1, high=3, seed=0).sizes.tolist()
    [3, 2, 2, 1, 1]
    """
    return OrderedLabelsInstance(ordered_random_sizes(n, low=low, high=high, seed=seed), k)
