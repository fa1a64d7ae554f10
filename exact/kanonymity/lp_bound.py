"""A lower bound for k-anonymity at the scale of real tables: the compact LP on small tables, dual
ascent and column generation or cutting planes, then subset-row cuts above the relaxation
(:mod:`anonratio.exact.kanonymity.subset_row`).

The set-partitioning relaxation (:mod:`anonratio.exact.kanonymity.columns`) over groups of at
least ``k`` copies of the ``u`` unique records::

    min  sum_G cost_G x_G  [+ (sum_j w_j) sum_i del_i]
    s.t. sum_G mult_G(i) x_G [+ del_i] = c_i     for every unique record i,   x, del >= 0

is solved by column generation (:mod:`anonratio.exact.kanonymity.column_generation`): a
restricted master LP (HiGHS, warm-started as columns arrive) gives prices ``pi``;
:class:`~anonratio.exact.kanonymity.box_pricing.BoxLattice` prices every group exactly at a
Wentges-smoothed point ``y = alpha * center + (1 − alpha) * pi``.

**A valid bound at every iteration** (the Lagrangian bound). Every partition has
``sum_G |G| x_G [+ sum_i del_i] = n``; so for any prices ``y``,

    cost(x) = y·c + sum_G rc_G x_G [+ sum_i (w − y_i) del_i] >= y·c + n · min(0, s),

with ``s`` the least reduced cost per copy over all groups (and deletions):
:attr:`~anonratio.exact.kanonymity.box_pricing.Priced.shift`. The prices ``y + min(0, s)`` are
then dual feasible, and the best of them is the *center*. The bound starts from the
nearest-neighbour prices (Aggarwal et al. 2005, §4.1), dual feasible themselves, so it is never
below the nearest-neighbour bound. The loop stops at the time limit, when no negative group is
left at the master's prices (the LP relaxation is solved), or when the bound meets the master's
value.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from time import perf_counter

import numpy as np

from anonratio.exact.kanonymity.box_lp import ascend, box_lp
from anonratio.exact.kanonymity.box_pricing import MAX_LATTICE_NODES, BoxLattice, lattice_nodes
from anonratio.exact.kanonymity.column_generation import RTOL, Master, generate, lagrangian
from anonratio.exact.kanonymity.compact_lp import MAX_PAIRS, closed_boxes, compact_lp
from anonratio.exact.kanonymity.subset_row import SubsetRowBound, proven_bound, subset_row_bound
from anonratio.instances import KAnonymityInstance
from anonratio.instances.kanonymity.instance import nn_prices

__all__ = [
    "BOUND_SOURCES",
    "LPBound",
    "lp_bound",
    "nn_bound",
    "recheck",
    "check_bound",
]

#: the names a bound's ``source`` takes, weakest stage first
BOUND_SOURCES = (
    "nn-distance",
    "compact-lp",
    "dual-ascent",
    "box-lp",
    "lp-lagrangian",
    "subset-row",
)

#: share of ``time_limit`` the compact model may take
COMPACT_SHARE = 0.75
#: the compact model's solve time grows about as (record, box) pairs ** 1.5: measured on Adult
#: samples of 100, 200, 300 and 400 records (32k, 131k, 223k and 359k pairs) in 4, 27, 47-60
#: and 174 s on one core. A model is tried when this estimate from (pairs, seconds) here, with
#: 25 % to spare, fits in its time.
COMPACT_REFERENCE = (131_519, 27.0)


@dataclass
class LPBound:
    """The bound a :func:`lp_bound` run proved, and how.

    Attributes
    ----------
    value : float
        The best valid lower bound (the largest of the nearest-neighbour bound, the best
        Lagrangian bound and the subset-row bound).
    source : str
        One of :data:`BOUND_SOURCES`: which bound won.
    prices : ndarray, shape (u,)
        Dual-feasible prices per copy of each unique record, the best of the relaxation's
        stages: ``prices @ counts == value`` unless ``source == "subset-row"``.
    stages : dict
        Stage name -> ``(bound, seconds)`` for each stage run (``"nn-distance"``, then
        ``"compact-lp"`` on small tables, then ``"dual-ascent"`` and ``"lp-lagrangian"`` or
        ``"box-lp"`` unless the compact model solved the relaxation, then ``"subset-row"`` once
        the relaxation is solved; ``(None, seconds)`` for a compact model too large or out of
        time).
    subset_row : SubsetRowBound or None
        The subset-row stage's result: its prices and cuts price every group (the exact
        rounds enumerate with them when it won).
    lp_value : float or None
        The last restricted master's value (an upper bound on the LP relaxation).
    solved : bool
        True when the LP relaxation was solved (no negative group left): ``value`` is its value.
    iterations : int
        Dual-ascent rounds.
    cg_iterations : int
        Master solves of the column generation (0 when it did not run).
    box_rounds : int
        LP solves of ``box-lp`` (0 when it did not run).
    history : list of (seconds, bound, master value)
    master : Master or None
        The final restricted master (its columns feed a restricted integer program).
    """

    value: float
    source: str
    prices: np.ndarray
    stages: dict = field(default_factory=dict)
    lp_value: float | None = None
    solved: bool = False
    iterations: int = 0
    cg_iterations: int = 0
    box_rounds: int = 0
    history: list = field(default_factory=list)
    master: Master | None = None
    subset_row: SubsetRowBound | None = None


def lp_bound(
    instance: KAnonymityInstance,
    *,
    time_limit: float = 60.0,
    starts: list[np.ndarray] | None = None,
    seed: int = 0,
    max_new: int | None = None,
    lattice: BoxLattice | None = None,
    max_master: int = 4000,
    rtol: float = 1e-4,
    progress: Callable[[float, np.ndarray, str], None] | None = None,
    max_pairs: int = MAX_PAIRS,
    cuts: bool = True,
) -> LPBound:
    """The best lower bound the stages prove within ``time_limit`` seconds.

    1. ``nn-distance``: the nearest-neighbour prices (:func:`nn_prices`).
    1b. ``compact-lp``: when the table's closed boxes form at most ``max_pairs`` (record, box)
       pairs, the whole relaxation as one LP (:mod:`~anonratio.exact.kanonymity.compact_lp`)
       in at most ``COMPACT_SHARE`` of the time, tried only when that time solves the model by
       ``COMPACT_REFERENCE``. When its prices, checked over the lattice, solve the relaxation
       the run goes on to stage 4; else to stage 2.
    2. ``dual-ascent``: :func:`ascend` from them (at most half of the time when column
       generation follows; else until a round gains less than ``rtol``).
    3. ``lp-lagrangian``: column generation around the ascent's prices, when the instance has at
       most ``max_master`` unique records; above that a master over single groups converges too
       slowly to pay, and ``box-lp`` takes over: cutting planes over whole generalization boxes
       (:func:`~anonratio.exact.kanonymity.box_lp.box_lp`).
    4. ``subset-row``: once the relaxation is solved (on a table small enough for column
       generation), subset-row cuts raise the bound in the time left
       (:mod:`~anonratio.exact.kanonymity.subset_row`).

    Every stage's prices are dual feasible, so the bound is valid whenever the time runs out.
    A lattice of more than :data:`~anonratio.exact.kanonymity.box_pricing.MAX_LATTICE_NODES`
    nodes leaves stage 1 alone (``stages["lattice-too-large"]`` holds the node count).

    Parameters
    ----------
    instance : KAnonymityInstance
    time_limit : float
        Seconds for all stages (a sweep in progress finishes first).
    starts : list of ndarray, optional
        Labellings (e.g. FOREST's) whose groups seed the master.
    seed : int
        HiGHS's random seed.
    max_new : int, optional
        Groups added per iteration at most (default ``max(200, u // 2)``).
    lattice : BoxLattice, optional
        A prepared lattice of ``instance``.
    max_master : int
        Largest number of unique records for column generation (``box-lp`` above it).
    rtol : float
        The ascent stops when a round gains less than this share of the bound.
    progress : callable, optional
        Called as ``progress(bound, prices, source)`` with the dual-feasible prices of each
        ascent round and ``box-lp`` round that gains, and with column generation's: a caller may
        use them before the run ends.
    max_pairs : int
        Largest compact model (record-box pairs) stage 1b builds; 0 skips it.
    cuts : bool
        Run stage 4.

    Returns
    -------
    LPBound
        Never below the nearest-neighbour bound.
    """
    t0 = perf_counter()
    deadline = t0 + time_limit
    counts = instance.unique_records[2].astype(float)
    out = nn_bound(instance)
    prices = out.prices
    if lattice is None and lattice_nodes(instance) > MAX_LATTICE_NODES:
        out.stages["lattice-too-large"] = (float(lattice_nodes(instance)), 0.0)
        out.history.append((perf_counter() - t0, out.value, None))
        return out
    lattice = lattice or BoxLattice(instance)
    cap = _deletion_cap(lattice)
    use_master = lattice.u <= max_master
    share = t0 + COMPACT_SHARE * time_limit
    if use_master and max_pairs > 0 and _compact(out, lattice, share, seed, max_pairs):
        if progress is not None:
            progress(out.value, out.prices.copy(), out.source)
        return _cut(out, lattice, deadline, seed, t0, cuts)
    t1 = perf_counter()
    mid = t1 + (deadline - t1) / 2 if use_master else deadline  # the ascent converges first
    up, rounds = ascend(
        lattice, prices, deadline=mid, cap=cap, rtol=rtol, progress=_tagged(progress, "dual-ascent")
    )
    out.iterations = rounds
    _offer(out, float(up @ counts), up, "dual-ascent", perf_counter() - t1)
    if not use_master and perf_counter() < deadline:
        t2 = perf_counter()
        boxed = box_lp(
            lattice,
            out.prices,
            deadline=deadline,
            cap=cap,
            seed=seed,
            progress=_tagged(progress, "box-lp"),
        )
        out.box_rounds = boxed.rounds
        _offer(out, boxed.value, boxed.prices, "box-lp", perf_counter() - t2)
    if use_master and perf_counter() < deadline:
        t2 = perf_counter()
        master = Master(instance, counts, seed)
        master.add_labellings(lattice, starts or [])
        out.master = master
        best, center = generate(out, lattice, master, out.prices, deadline, max_new, t0)
        _offer(out, best, center, "lp-lagrangian", perf_counter() - t2)
        if progress is not None and out.source == "lp-lagrangian":
            progress(out.value, out.prices.copy(), out.source)
    return _cut(out, lattice, deadline, seed, t0, cuts and use_master)


def _cut(out, lattice, deadline, seed, t0, cuts):
    """Stage 4 on a solved relaxation while time is left; the history's last entry."""
    if cuts and out.solved and perf_counter() < deadline:
        t1 = perf_counter()
        found = subset_row_bound(lattice, out.prices, out.value, deadline=deadline, seed=seed)
        out.stages["subset-row"] = (found.value, perf_counter() - t1)
        if found.value > out.value + RTOL * max(1.0, abs(out.value)):  # a gain, not rounding
            out.value, out.source, out.subset_row = found.value, "subset-row", found
    out.history.append((perf_counter() - t0, out.value, out.lp_value))
    return out


def check_bound(bound: LPBound, u: int) -> None:
    """Raise unless ``bound`` is an :class:`LPBound` pricing ``u`` unique records."""
    if not isinstance(bound, LPBound):
        raise TypeError(f"bound must be an LPBound, got {type(bound).__name__}")
    if np.shape(bound.prices) != (u,):
        raise ValueError(
            f"bound: prices for {np.size(bound.prices)} unique records, the instance has {u}"
        )


def recheck(
    bound: LPBound, lattice: BoxLattice, *, deadline: float | None = None
) -> LPBound | None:
    """``bound`` proven again from its own prices, by exhaustive pricing over ``lattice``.

    A bound handed from elsewhere (another process, a caller) is worth what its prices prove:
    this prices every group at ``bound.prices`` (the Lagrangian shift makes them dual feasible)
    and, when the subset-row stage won, at its prices with the cuts' penalty too
    (:func:`~anonratio.exact.kanonymity.subset_row.proven_bound`). The result carries the
    values proven here, whatever ``bound.value`` claims.

    Parameters
    ----------
    bound : LPBound
        From :func:`lp_bound` on the same instance as ``lattice``.
    lattice : BoxLattice
    deadline : float, optional
        A ``perf_counter`` reading.

    Returns
    -------
    LPBound, or None when ``deadline`` passes before the prices are checked.

    Raises
    ------
    ValueError
        If ``bound`` does not price the lattice's unique records.
    """
    check_bound(bound, lattice.u)
    t0 = perf_counter()
    found = lagrangian(lattice, np.asarray(bound.prices, dtype=float), deadline)
    if found is None:
        return None
    value, prices, _ = found
    source = "lp-lagrangian" if bound.source == "subset-row" else bound.source
    out = LPBound(value, source, prices, {source: (value, perf_counter() - t0)})
    out.solved = bound.solved
    sr = bound.subset_row
    if bound.source == "subset-row" and sr is not None:
        t1 = perf_counter()
        value = proven_bound(lattice, sr.prices, sr.cuts, deadline=deadline)
        out.stages["subset-row"] = (value, perf_counter() - t1)
        if value > out.value:
            out.value, out.source = value, "subset-row"
            out.subset_row = replace(sr, value=value)
    return out


def nn_bound(instance: KAnonymityInstance) -> LPBound:
    """Stage 1 alone: the nearest-neighbour prices (:func:`nn_prices`) and their bound."""
    t0 = perf_counter()
    prices = nn_prices(instance)
    value = float(prices @ instance.unique_records[2].astype(float))
    return LPBound(value, "nn-distance", prices, {"nn-distance": (value, perf_counter() - t0)})


def _compact(out, lattice, deadline, seed, max_pairs):
    """Stage 1b: the compact model's relaxation; True when it solved it (prices proven).

    Skipped (False) when the model has more pairs than ``max_pairs`` or than the time left
    solves by :data:`COMPACT_REFERENCE`: a model that runs out of time leaves the later stages
    only what remains.
    """
    t1 = perf_counter()
    pairs, seconds = COMPACT_REFERENCE
    affordable = int(pairs * (max(0.0, deadline - t1) / (1.25 * seconds)) ** (2 / 3))
    found = closed_boxes(lattice, max_pairs=min(max_pairs, affordable), deadline=deadline)
    solved = (
        None
        if found is None
        else compact_lp(lattice, found, deadline=deadline, cap=_deletion_cap(lattice), seed=seed)
    )
    if solved is None:
        out.stages["compact-lp"] = (None, perf_counter() - t1)  # too large, or out of time
        return False
    value, prices = solved
    proven = lagrangian(lattice, prices, None)
    _offer(out, proven[0], proven[1], "compact-lp", perf_counter() - t1)
    out.lp_value = value
    out.solved = proven[0] >= value - RTOL * max(1.0, abs(value))
    return out.solved


def _deletion_cap(lattice):
    """The cost of deleting one copy under row deletion, else None."""
    instance = lattice.instance
    return instance.deletion_cost if instance.row_deletion else None


def _tagged(progress, source):
    """``progress`` for a stage: its reports carry the stage's name."""
    if progress is None:
        return None
    return lambda value, prices: progress(value, prices, source)


def _offer(out: LPBound, value: float, prices: np.ndarray, source: str, seconds: float) -> None:
    """Record a stage; its bound wins when higher."""
    out.stages[source] = (value, seconds)
    if value > out.value:
        out.value, out.source, out.prices = value, source, prices
