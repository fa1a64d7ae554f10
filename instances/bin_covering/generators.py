"""Min-Max Bin Covering instances: random sizes, 3-Partition gadgets, 1990 Census names.

* :func:`uniform_instance`, :func:`zipf_instance`: random item sizes.
* :func:`planted_three_partition`: 3-Partition yes-instances (Du et al. 2009, §4, Theorem 5):
  ``3m`` sizes in ``(B/4, B/2)`` forming ``m`` triples of sum ``B``, with ``k = B``, so the
  optimum is exactly ``B``.
* :func:`three_partition_no_instance`: sizes in ``(B/4, B/2)`` summing to ``mB`` with no triple
  of sum ``B``; by the reduction of Theorem 5 the optimum is at least ``ceil(mB / (m - 1))``.
* :func:`census_names` / :func:`census_instance`: the 1990 U.S. Census name-frequency lists
  FEMALE-1990, MALE-1990 and LAST-1990 of the paper's §5, read from the ``names`` package.
"""

from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

from anonratio.instances.bin_covering.instance import BinCoveringInstance
from anonratio.instances.errors import InstanceFormatError
from anonratio.instances.validation import (
    SeedLike,
    check_choice,
    check_int,
    check_number,
    check_random_state,
)

__all__ = [
    "CENSUS_FILES",
    "uniform_instance",
    "zipf_instance",
    "planted_three_partition",
    "three_partition_no_instance",
    "census_names",
    "census_instance",
]

#: data set name -> file inside the ``names`` package
CENSUS_FILES = {
    "FEMALE-1990": "dist.female.first",
    "MALE-1990": "dist.male.first",
    "LAST-1990": "dist.all.last",
}


def uniform_instance(
    n: int, *, k: int, low: int = 1, high: int | None = None, seed: SeedLike = None
) -> BinCoveringInstance:
    """``n`` item sizes drawn uniformly from the integers ``[low, high]`` (default ``high = k``).

    Raises :class:`~anonratio.instances.InfeasibleInstanceError` when the sizes sum below ``k``.

    Examples
    --------
    >>> uniform_instance(5, k=10, seed=0).n
    5
    """
    n = check_int("n", n, low=1)
    k = check_int("k", k, low=1)
    low = check_int("low", low, low=1)
    high = check_int("high", k if high is None else high, low=low, low_name="low")
    rng = check_random_state(seed)
    return BinCoveringInstance(rng.integers(low, high, size=n, endpoint=True), k)


def zipf_instance(
    n: int,
    *,
    k: int,
    exponent: float = 2.0,
    max_size: int | None = None,
    seed: SeedLike = None,
) -> BinCoveringInstance:
    """``n`` Zipf-distributed sizes ``P(x) ~ x^-exponent`` (``exponent > 1``), at most ``max_size``.

    Values above ``max_size`` (default ``max(k, 1000)``) are redrawn, so the distribution is the
    Zipf law truncated to ``[1, max_size]``.

    Examples
    --------
    >>> int(zipf_instance(50, k=20, seed=1).sizes.min())
    1
    """
    n = check_int("n", n, low=1)
    k = check_int("k", k, low=1)
    exponent = check_number("exponent", exponent, low=1, closed="neither", finite=False)
    max_size = max(k, 1000) if max_size is None else check_int("max_size", max_size, low=1)
    rng = check_random_state(seed)
    sizes = rng.zipf(exponent, size=n)
    for _ in range(10_000):
        bad = sizes > max_size
        if not bad.any():
            break
        sizes[bad] = rng.zipf(exponent, size=int(bad.sum()))
    else:  # pragma: no cover - needs max_size tiny and exponent near 1
        sizes = np.minimum(sizes, max_size)
    return BinCoveringInstance(sizes, k)


def _triple_range(B: int) -> tuple[int, int]:
    """Integers strictly inside ``(B/4, B/2)``: ``4w > B`` and ``2w < B``."""
    return B // 4 + 1, (B - 1) // 2


def _check_B(B: Any) -> tuple[int, int, int]:
    B = check_int("B", B, low=1)
    lo, hi = _triple_range(B)
    if lo > hi or 3 * lo > B or 3 * hi < B:
        raise ValueError(
            f"`B` must admit three integers in (B/4, B/2) summing to B, got B={B} "
            "(any B >= 9 works)"
        )
    return B, lo, hi


def planted_three_partition(
    m: int, *, B: int | None = None, seed: SeedLike = None
) -> tuple[BinCoveringInstance, dict[str, Any]]:
    """A 3-Partition yes-instance as Min-Max Bin Covering with ``k = B``: optimum exactly ``B``.

    ``m`` triples are drawn uniformly among integer triples in ``(B/4, B/2)`` of sum ``B``
    (default ``B = 100``), then all ``3m`` items are shuffled. Every bin reaches ``B`` and the
    sizes sum to ``mB``, so the planted partition is optimal (Du et al. 2009, Theorem 5).

    Returns
    -------
    instance : BinCoveringInstance
    meta : dict
        ``{"family": "bc-3partition-yes", "m", "B", "optimum": B, "planted": labels}``.

    Examples
    --------
    >>> inst, meta = planted_three_partition(3, B=40, seed=0)
    >>> inst.k, inst.total, meta["optimum"]
    (40, 120, 40)
    """
    m = check_int("m", m, low=1)
    B, lo, hi = _check_B(100 if B is None else B)
    rng = check_random_state(seed)
    w = np.empty((m, 3), dtype=np.int64)
    for t in range(m):  # a: any value leaving room for b, c in [lo, hi]
        a = int(rng.integers(max(lo, B - 2 * hi), min(hi, B - 2 * lo), endpoint=True))
        b = int(rng.integers(max(lo, B - a - hi), min(hi, B - a - lo), endpoint=True))
        w[t] = (a, b, B - a - b)
    planted = np.repeat(np.arange(m), 3)
    perm = rng.permutation(3 * m)
    inst = BinCoveringInstance(w.reshape(-1)[perm], B)
    meta = {
        "family": "bc-3partition-yes",
        "m": m,
        "B": B,
        "optimum": B,
        "planted": planted[perm].tolist(),
    }
    return inst, meta


def three_partition_no_instance(
    m: int, *, B: int | None = None, seed: SeedLike = None
) -> tuple[BinCoveringInstance, dict[str, Any]]:
    """A 3-Partition no-instance as Min-Max Bin Covering with ``k = B``.

    ``3m`` *even* sizes in ``(B/4, B/2)`` summing to ``mB`` with ``B`` odd and ``m`` even: every
    triple has an even sum, so none sums to ``B``. By Theorem 5's argument at most ``m - 1`` bins
    can be covered, so the optimum is at least ``ceil(mB / (m - 1))`` (> ``B``). Default
    ``B = 101``.

    Returns
    -------
    instance : BinCoveringInstance
    meta : dict
        ``{"family": "bc-3partition-no", "m", "B", "optimum_lower_bound"}``.

    Examples
    --------
    >>> inst, meta = three_partition_no_instance(2, B=41, seed=0)
    >>> inst.total, meta["optimum_lower_bound"]
    (82, 82)
    """
    m = check_int("m", m, low=2)
    if m % 2:
        raise ValueError(f"`m` must be even (a parity no-instance needs m*B even), got {m}")
    B, lo, hi = _check_B(101 if B is None else B)
    if B % 2 == 0:
        raise ValueError(f"`B` must be odd (triples of even sizes then never sum to B), got {B}")
    lo_e, hi_e = lo + (lo % 2), hi - (hi % 2)
    if lo_e > hi_e or 3 * m * lo_e > m * B or 3 * m * hi_e < m * B:
        raise ValueError(f"`B` must admit even sizes in (B/4, B/2) averaging B/3, got B={B}")
    rng = check_random_state(seed)
    w = 2 * rng.integers(lo_e // 2, hi_e // 2, size=3 * m, endpoint=True)
    diff = m * B - int(w.sum())  # even: adjust by steps of 2 within the bounds
    while diff:
        room = np.flatnonzero(w < hi_e) if diff > 0 else np.flatnonzero(w > lo_e)
        take = rng.choice(room, size=min(room.size, abs(diff) // 2), replace=False)
        w[take] += 2 if diff > 0 else -2
        diff = m * B - int(w.sum())
    inst = BinCoveringInstance(w, B)
    meta = {
        "family": "bc-3partition-no",
        "m": m,
        "B": B,
        "optimum_lower_bound": -(-m * B // (m - 1)),
    }
    return inst, meta


@lru_cache(maxsize=8)
def _read_census(dataset: str) -> tuple[tuple[str, ...], np.ndarray]:
    text = resources.files("names").joinpath(CENSUS_FILES[dataset]).read_text(encoding="ascii")
    names: list[str] = []
    freq: list[str] = []
    for line_no, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 4:
            raise InstanceFormatError(
                f"{CENSUS_FILES[dataset]} line {line_no}: expected 4 columns "
                f"(name, frequency, cumulative, rank), got {len(parts)}"
            )
        names.append(parts[0])
        freq.append(parts[1])
    sizes = np.rint(np.asarray(freq, dtype=np.float64) * 1000).astype(np.int64)
    return tuple(names), sizes


def census_names(
    dataset: str, *, min_frequency: float = 0.001
) -> tuple[tuple[str, ...], np.ndarray]:
    """Names and item sizes of a 1990 Census name list (Du et al. 2009, §5).

    Parameters
    ----------
    dataset : {"FEMALE-1990", "MALE-1990", "LAST-1990"}
    min_frequency : float
        Keep names whose frequency (in percent, 3 decimals) is at least this (default 0.001%).

    Returns
    -------
    names : tuple of str
    sizes : ndarray of int64
        ``round(frequency * 1000)``, i.e. thousandths of a percent, in file order (decreasing).

    Examples
    --------
    >>> names, sizes = census_names("MALE-1990")
    >>> names[0], int(sizes[0])
    ('JAMES', 3318)
    """
    check_choice("dataset", dataset, CENSUS_FILES)
    min_frequency = check_number("min_frequency", min_frequency)
    names, sizes = _read_census(dataset)
    keep = np.flatnonzero(sizes >= max(1, round(min_frequency * 1000)))
    return tuple(names[i] for i in keep), sizes[keep]


def census_instance(
    dataset: str, *, k: int, min_frequency: float = 0.001, with_names: bool = False
) -> BinCoveringInstance:
    """The census list ``dataset`` as a :class:`BinCoveringInstance` with parameter ``k``.

    ``with_names=True`` keeps the names on the instance (they enter its content hash).

    Examples
    --------
    >>> census_instance("FEMALE-1990", k=3000).n
    4275
    """
    names, sizes = census_names(dataset, min_frequency=min_frequency)
    return BinCoveringInstance(sizes, check_int("k", k, low=1), names if with_names else None)
