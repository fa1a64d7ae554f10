"""Min-Max Bin Covering: single-attribute generalization of unordered labels.

Du, Eppstein, Goodrich and Lueker (WADS 2009, §4) model k-anonymization of one attribute with
unordered labels as *Min-Max Bin Covering*: the items are the labels, an item's size ``x_i`` is the
number of records carrying it, and a partition of the items into bins (equivalence classes) is
feasible when every bin's load ``sum_{i in S_j} x_i`` is at least ``k``. The cost is the largest
load. A feasible partition exists iff ``sum x >= k``.

Labels of a solution are bin ids, one per item (any non-negative integers). The relaxed scheme of
Theorem 11 returns bins that may fall to ``(1 - 2 eps) k``; :func:`verify` checks such a solution
against that floor (*relaxed mode*) and says so in its result (:class:`BinCoveringVerification`).
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
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
)
from anonratio.instances.base import verify as _verify
from anonratio.instances.errors import InfeasibleInstanceError
from anonratio.instances.solution import Solution
from anonratio.instances.validation import as_array, check_counts, check_int, check_number

__all__ = [
    "BinCoveringInstance",
    "BinCoveringVerification",
    "bin_loads",
    "bin_covering_lower_bound",
    "verify_relaxed",
    "check_epsilon",
]


def check_epsilon(epsilon: Any) -> float:
    """Validate the ``epsilon`` of the relaxed scheme (a number in (0, 1/2)); return it as float.

    Examples
    --------
    >>> check_epsilon(0.7)
    Traceback (most recent call last):
    ...
    ValueError: `epsilon` must be a number in (0, 0.5), got 0.7
    """
    return check_number("epsilon", epsilon, low=0, high=0.5, closed="neither")


def _bin_covering_iv(
    sizes: Any, k: Any, names: Any
) -> tuple[np.ndarray, int, tuple[str, ...] | None]:
    k = check_int("k", k, low=1)
    arr = as_array("sizes", sizes)
    if arr.ndim != 1 or arr.size == 0:
        got = f"{sizes!r:.80}" if arr.ndim == 0 else f"shape {arr.shape}"
        raise ValueError(f"`sizes` must be a non-empty 1-D sequence, got {got}")
    arr = check_counts("sizes", sizes, low=1)
    total = int(arr.sum())
    if total < k:
        raise InfeasibleInstanceError(
            f"the item sizes sum to {total}, less than k={k}: no bin can reach k"
        )
    if names is not None:
        if isinstance(names, str | bytes | Mapping) or not isinstance(names, Sequence | np.ndarray):
            raise ValueError(f"`names` must be a sequence of strings or None, got {names!r:.80}")
        bad = [(i, s) for i, s in enumerate(names) if not isinstance(s, str | np.str_)]
        if bad:
            raise ValueError(f"`names` must be strings, got {bad[0][1]!r} at index {bad[0][0]}")
        names = tuple(str(s) for s in names)
        if len(names) != arr.size:
            raise ValueError(f"`names` must have one entry per item ({arr.size}), got {len(names)}")
    return arr, k, names


@register_problem("bin-covering")
@dataclass(frozen=True, eq=False)
class BinCoveringInstance:
    """A Min-Max Bin Covering instance (Du et al. 2009, §4).

    Parameters
    ----------
    sizes : array of positive int, shape (n,)
        Item sizes ``x_i`` (records per label).
    k : int
        Every bin must reach load ``k`` (``k >= 1``); requires ``sum(sizes) >= k``.
    names : sequence of str, optional
        Item labels (e.g. the census names), kept for publishing; part of the content hash.

    Examples
    --------
    >>> inst = BinCoveringInstance([5, 3, 3, 2], k=6)
    >>> inst.total, inst.max_bins
    (13, 2)
    """

    #: the registered problem name (set by :func:`~anonratio.instances.base.register_problem`)
    problem: ClassVar[str]

    sizes: np.ndarray
    k: int
    names: tuple[str, ...] | None = None

    if TYPE_CHECKING:  # what the constructor accepts; __post_init__ normalizes it

        def __init__(
            self, sizes: ArrayLike, k: int, names: Sequence[str] | None = None
        ) -> None: ...

    def __post_init__(self) -> None:
        arr, k, names = _bin_covering_iv(self.sizes, self.k, self.names)
        arr.setflags(write=False)
        object.__setattr__(self, "sizes", arr)
        object.__setattr__(self, "k", k)
        object.__setattr__(self, "names", names)

    @property
    def n(self) -> int:
        """Number of items."""
        return int(self.sizes.size)

    @property
    def params(self) -> dict[str, Any]:
        """The problem parameters of a run: ``{"k": k}``."""
        return {"k": self.k}

    @cached_property
    def total(self) -> int:
        """``S = sum x``."""
        return int(self.sizes.sum())

    @cached_property
    def max_size(self) -> int:
        """The largest item size."""
        return int(self.sizes.max())

    @property
    def max_bins(self) -> int:
        """At most ``floor(S / k)`` bins can each reach ``k`` (and at most ``n``)."""
        return min(self.total // self.k, self.n)

    @cached_property
    def distinct(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(values, counts, inverse)``: distinct sizes (decreasing), their counts, item map."""
        values, inverse, counts = np.unique(-self.sizes, return_inverse=True, return_counts=True)
        return -values, counts, inverse.reshape(-1)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: sizes, ``k`` and (when kept) the names."""
        d: dict[str, Any] = {"sizes": self.sizes.tolist(), "k": self.k}
        if self.names is not None:
            d["names"] = list(self.names)
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Self:
        """The instance of :meth:`to_dict`'s output, validated as the constructor validates."""
        d = instance_fields(d, cls.problem, required=("sizes", "k"), optional=("names",))
        return cls(d["sizes"], d["k"], d.get("names"))


@dataclass(frozen=True)
class BinCoveringVerification(Verification):
    """:class:`~anonratio.instances.base.Verification` plus the bin statistics of the partition.

    ``relaxed`` is True when the solution was checked against the relaxed floor
    ``(1 - 2 epsilon) k`` of Theorem 11 instead of ``k``; ``floor`` is the load every bin had to
    reach. ``strictly_feasible`` says whether every bin reaches ``k`` (the true constraint), and
    ``min_load_ratio`` how far below ``k`` the lightest bin is (lightest load / k).
    ``overfull_ratio`` is the heaviest load / k, the quantity of the paper's Figure 7.
    """

    relaxed: bool = False
    epsilon: float | None = None
    floor: float = 0.0
    n_bins: int = 0
    min_load: int | None = None
    max_load: int | None = None
    min_load_ratio: float | None = None
    overfull_ratio: float | None = None
    strictly_feasible: bool = False

    #: the result columns: relaxed mode, whether every bin reaches k, the lightest bin / k,
    #: Figure 7's overfull ratio and the number of bins
    COLUMNS: ClassVar[tuple[str, ...]] = (
        "relaxed",
        "strictly_feasible",
        "min_load_ratio",
        "overfull_ratio",
        "n_bins",
    )


def bin_loads(instance: BinCoveringInstance, labels: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Bin ids (sorted) and their loads for a label vector with non-negative ids."""
    ids, inverse = np.unique(np.asarray(labels), return_inverse=True)
    loads = np.bincount(inverse.reshape(-1), weights=instance.sizes, minlength=ids.size)
    return ids, np.rint(loads).astype(np.int64)


@_verify.register
def _verify_bin_covering(
    instance: BinCoveringInstance,
    solution: Any,
    *,
    strict: bool = True,
    relaxed: float | bool | None = None,
) -> BinCoveringVerification:
    """Check a bin assignment; ``relaxed`` = None (auto), False (floor k) or an ``epsilon``.

    In auto mode a :class:`Solution` whose ``info["relaxed"]`` is true (the relaxed scheme's
    output) is checked against ``(1 - 2 epsilon) k`` with ``epsilon = params["epsilon"]``; the
    floor is recomputed here from ``epsilon``, never taken from the solver. Everything else is
    checked against ``k``.
    """
    eps = None
    if relaxed is None:
        if isinstance(solution, Solution) and solution.info.get("relaxed"):
            eps = check_epsilon(solution.params.get("epsilon"))
    elif relaxed is not False:
        eps = check_epsilon(relaxed)
    k = instance.k
    floor = k if eps is None else (1.0 - 2.0 * eps) * k
    labels, violations = _labels_of(solution, instance.n)
    extra: dict[str, Any] = {"relaxed": eps is not None, "epsilon": eps, "floor": float(floor)}
    if labels is None:
        finish_verification(violations, None, strict)
        return BinCoveringVerification(False, None, violations, **extra)
    if np.any(labels < 0):
        violations.append(
            f"{int(np.count_nonzero(labels < 0))} items have a negative label; "
            "every item must be put in a bin (labels >= 0)"
        )
        finish_verification(violations, None, strict)
        return BinCoveringVerification(False, None, violations, **extra)
    ids, loads = bin_loads(instance, labels)
    low = np.flatnonzero(loads < floor - 1e-9)
    what = "k" if eps is None else f"(1-2*epsilon)*k={floor:g} (relaxed, epsilon={eps:g})"
    for j in low[:5]:
        violations.append(f"bin {int(ids[j])} has load {int(loads[j])}, less than {what}")
    if low.size > 5:
        violations.append(f"... {low.size - 5} more bins are below the floor")
    stats: dict[str, Any] = {
        "n_bins": int(ids.size),
        "min_load": int(loads.min()),
        "max_load": int(loads.max()),
        "min_load_ratio": float(loads.min() / k),
        "overfull_ratio": float(loads.max() / k),
        "strictly_feasible": bool(loads.min() >= k),
    }
    if violations:
        finish_verification(violations, None, strict)
        return BinCoveringVerification(False, None, violations, **extra, **stats)
    return BinCoveringVerification(True, float(loads.max()), [], **extra, **stats)


def verify_relaxed(
    instance: BinCoveringInstance, solution: Any, *, epsilon: float, strict: bool = True
) -> BinCoveringVerification:
    """Verify against the relaxed floor ``(1 - 2 epsilon) k`` of Theorem 11 (Du et al. 2009)."""
    return _verify_bin_covering(instance, solution, strict=strict, relaxed=check_epsilon(epsilon))


def bin_covering_lower_bound(instance: BinCoveringInstance) -> tuple[int, str]:
    """``(value, source)``: ``max(k, max x, ceil(S / floor(S/k)))`` and which term attains it.

    Every bin reaches ``k``; the largest item lies in some bin; at most ``floor(S/k)`` bins
    exist, so some bin holds at least ``S / floor(S/k)`` (loads are integers: round up).
    """
    k, s = instance.k, instance.total
    terms = {"k": k, "max-size": instance.max_size, "S/floor(S/k)": -(-s // (s // k))}
    source = max(terms, key=lambda name: terms[name])
    return int(terms[source]), source


@lower_bound.register
def _lower_bound_bin_covering(instance: BinCoveringInstance) -> tuple[float, str]:
    value, source = bin_covering_lower_bound(instance)
    return float(value), source
