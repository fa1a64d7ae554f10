"""Ordered labels: cut an ordered domain into consecutive intervals.

The labels of a single quasi-identifying attribute come from an ordered universe (ages, dates,
numeric codes); ``sizes[i]`` is the number of records with the ``i``-th label in that order. A
feasible generalization cuts the sequence into consecutive intervals of weight at least ``k``; the
objective is the weight of the heaviest interval (minimized). Du, Eppstein, Goodrich and Lueker
(2009, §4) remark that this one-dimensional problem is solvable optimally by a simple greedy
algorithm; :mod:`anonratio.exact.ordered_labels.ordered_greedy` implements a provably optimal
method.

Labels give the interval id per item; every id must occupy one run of consecutive positions.

Lower bound: ``max(k, max_i x_i, ceil(S / floor(S / k)))`` (at most ``floor(S / k)`` intervals),
and for an item lighter than ``k`` the lighter of its two neighbouring pairs (its interval must
extend to the left or to the right).
"""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Self

import numpy as np
from numpy.typing import ArrayLike

from anonratio.instances.base import (
    Verification,
    _labels_of,
    finish_verification,
    instance_fields,
    lower_bound,
    register_problem,
    verify,
)
from anonratio.instances.errors import InfeasibleInstanceError, InstanceFormatError
from anonratio.instances.validation import as_array, check_counts, check_int

__all__ = [
    "OrderedLabelsInstance",
    "OrderedIntervalsInstance",
    "ordered_lower_bound",
    "interval_weights",
]


def _ordered_iv(sizes: Any, k: Any) -> tuple[np.ndarray, int]:
    k = check_int("k", k, low=1)
    raw = as_array("sizes", sizes, error=InstanceFormatError)
    if raw.ndim != 1 or raw.size == 0:
        got = f"{sizes!r:.80}" if raw.ndim == 0 else f"shape {raw.shape}"
        raise InstanceFormatError(
            f"`sizes` must be a non-empty 1-D sequence of integers, got {got}"
        )
    out = check_counts("sizes", sizes, where="position", error=InstanceFormatError)
    total = int(out.sum())
    if total < k:
        raise InfeasibleInstanceError(
            f"the total size {total} is below k={k}: no interval can reach weight k"
        )
    out.setflags(write=False)
    return out, k


@register_problem("ordered-labels")
@dataclass(frozen=True, eq=False)
class OrderedLabelsInstance:
    """Cut an ordered sequence of item sizes into consecutive intervals of weight ``>= k``.

    Parameters
    ----------
    sizes : sequence of int
        Non-negative record count per label, in the domain's order.
    k : int
        Every interval must weigh at least ``k >= 1``; needs ``sum(sizes) >= k``.

    Raises
    ------
    InstanceFormatError
        Empty, multi-dimensional, negative or non-integer sizes.
    InfeasibleInstanceError
        Total size below ``k``.
    ValueError
        ``k`` not an integer ``>= 1``.

    Examples
    --------
    >>> inst = OrderedLabelsInstance([2, 1, 2, 2, 2], 3)
    >>> verify(inst, [0, 0, 0, 1, 1]).cost, lower_bound(inst)
    (5.0, (4.0, 'neighbour'))
    """

    #: the registered problem name (set by :func:`~anonratio.instances.base.register_problem`)
    problem: ClassVar[str]

    sizes: np.ndarray
    k: int

    if TYPE_CHECKING:  # what the constructor accepts; __post_init__ normalizes it

        def __init__(self, sizes: ArrayLike, k: int) -> None: ...

    def __post_init__(self) -> None:
        sizes, k = _ordered_iv(self.sizes, self.k)
        object.__setattr__(self, "sizes", sizes)
        object.__setattr__(self, "k", k)

    @property
    def n(self) -> int:
        """Number of labels."""
        return len(self.sizes)

    @property
    def params(self) -> dict[str, Any]:
        """The problem parameters of a run: ``{"k": k}``."""
        return {"k": self.k}

    @property
    def total_size(self) -> int:
        """The sum of the sizes."""
        return int(self.sizes.sum())

    @property
    def kappa(self) -> int:
        """``max(k, max_i x_i)``."""
        return max(self.k, int(self.sizes.max()))

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: ``{"sizes": [...], "k": k}``."""
        return {"sizes": self.sizes.tolist(), "k": self.k}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Self:
        """The instance of :meth:`to_dict`'s output, validated as the constructor validates."""
        d = instance_fields(d, cls.problem, required=("sizes", "k"))
        return cls(d["sizes"], d["k"])


def interval_weights(
    instance: OrderedLabelsInstance, labels: ArrayLike
) -> tuple[np.ndarray, np.ndarray]:
    """``(starts, weights)`` of the runs of equal labels, in order."""
    lab = np.asarray(labels)
    starts = np.flatnonzero(np.r_[True, lab[1:] != lab[:-1]])
    return starts, np.add.reduceat(instance.sizes, starts)


@verify.register
def _verify_ordered(
    instance: OrderedLabelsInstance, solution: Any, *, strict: bool = True
) -> Verification:
    labels, violations = _labels_of(solution, instance.n)
    if labels is None:
        return finish_verification(violations, None, strict)
    if np.any(labels < 0):
        bad = int(np.flatnonzero(labels < 0)[0])
        violations.append(f"every item needs an interval id >= 0 (item {bad} has {labels[bad]})")
        return finish_verification(violations, None, strict)
    starts, weights = interval_weights(instance, labels)
    run_labels = labels[starts]
    ids, runs = np.unique(run_labels, return_counts=True)
    for p in ids[runs > 1][:5]:
        where = starts[run_labels == p].tolist()
        violations.append(
            f"label {int(p)} is not one interval of consecutive items (runs start at {where})"
        )
    if not violations:
        for s, w in zip(starts, weights, strict=True):
            if w < instance.k:
                violations.append(
                    f"interval {int(labels[s])} (from item {int(s)}) weighs {int(w)}, "
                    f"less than k={instance.k}"
                )
    value = float(weights.max()) if not violations else None
    return finish_verification(violations, value, strict)


def ordered_lower_bound(instance: OrderedLabelsInstance) -> tuple[int, str]:
    """``(value, source)``: the best of the bounds in the module docstring. O(n)."""
    x, k = instance.sizes, instance.k
    s_total = instance.total_size
    cands: dict[str, int] = {
        "k": k,
        "max-size": int(x.max()),
        "part-count": -(-s_total // (s_total // k)),
    }
    if len(x) > 1:
        left = np.r_[np.iinfo(np.int64).max, x[:-1]]
        right = np.r_[x[1:], np.iinfo(np.int64).max]
        light = x < k
        if np.any(light):
            ext = x[light] + np.minimum(left[light], right[light])
            cands["neighbour"] = int(ext.max())
    source = max(cands, key=lambda name: cands[name])
    return cands[source], source


@lower_bound.register
def _lower_bound_ordered(instance: OrderedLabelsInstance) -> tuple[float, str]:
    """``max(k, max x, part-count, neighbour)``; see the module docstring."""
    value, source = ordered_lower_bound(instance)
    return float(value), source


#: former name, kept so that existing code keeps working
OrderedIntervalsInstance = OrderedLabelsInstance
