"""Large-neighbourhood search for k-anonymity: small regions of a partition re-solved exactly.

A partition's cost is a sum over its groups. With dual-feasible prices ``y`` (one per copy of
each unique record, e.g. :func:`~anonratio.exact.kanonymity.lp_bound.lp_bound`'s), each group
``g`` has a reduced cost ``rc_g = cost_g − y(g) >= 0``, and the partition's distance to the
bound ``y·c`` is ``sum_g rc_g``. Every partition of the records of a set ``R`` of groups costs at
least ``y(R)``; so re-solving ``R`` gains at most ``sum_{g in R} rc_g``: a group of reduced cost
zero seeds no region.

:func:`region_search` takes the group of largest reduced cost not yet examined, grows a region
around it (the groups holding its records' nearest neighbours and their copies, the largest
reduced cost first, up to ``size`` groups), and solves the region's records exactly with
:func:`~anonratio.exact.kanonymity.cpsat.solve_cpsat` (the region's own partition as the hint, a
short time limit; :func:`~anonratio.exact.kanonymity.ilp.solve_highs` where the weights are not
the fractions CP-SAT's integer objective needs). A cheaper partition replaces the region's groups;
the region's records are then examined. Once every group is, the next pass grows regions of one
more group, up to ``max_size``. The local search's moves (relocations, splits, pair exchanges)
keep two groups two; a region may, e.g., turn two groups of eight records (k = 5) into three.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from time import perf_counter, sleep

import numpy as np

from anonratio.exact.kanonymity.cpsat import solve_cpsat
from anonratio.exact.kanonymity.ilp import solve_highs
from anonratio.instances import KAnonymityInstance
from anonratio.instances.errors import UnsupportedInstanceError
from anonratio.instances.kanonymity.instance import member_costs, nn_prices

__all__ = ["region_search"]


@dataclasses.dataclass
class _Partition:
    """The groups of a partition as member lists, with their costs and reduced costs."""

    instance: KAnonymityInstance
    labels: np.ndarray
    members: list
    cost: np.ndarray
    rc: np.ndarray
    price: np.ndarray  # per record: the price of one copy of its unique record

    @classmethod
    def of(cls, instance, labels, prices):
        labels = np.asarray(labels, dtype=np.int64).copy()
        keep = np.flatnonzero(labels >= 0)
        _, labels[keep] = np.unique(labels[keep], return_inverse=True)
        n_groups = int(labels.max(initial=-1)) + 1
        if n_groups == 0:
            return cls(instance, labels, [], np.zeros(0), np.zeros(0), np.zeros(len(labels)))
        order = keep[np.argsort(labels[keep], kind="stable")]
        members = np.split(order, np.cumsum(np.bincount(labels[keep], minlength=n_groups))[:-1])
        out = cls(instance, labels, list(members), np.zeros(0), np.zeros(0), np.zeros(0))
        out.cost = out.costs(out.members)
        out.reprice(prices)
        return out

    def reprice(self, prices: np.ndarray) -> None:
        """Every group's reduced cost at (new) dual-feasible prices; emptied groups get 0."""
        self.price = np.asarray(prices, dtype=float)[self.instance.unique_records[1]]
        keep = np.flatnonzero(self.labels >= 0)
        held = np.bincount(self.labels[keep], self.price[keep], minlength=len(self.members))
        self.rc = np.where([len(g) > 0 for g in self.members], self.cost - held, 0.0)

    def costs(self, groups: list) -> np.ndarray:
        """The verifier's cost of each group (record arrays)."""
        if not groups:
            return np.zeros(0)
        group = np.repeat(np.arange(len(groups)), [len(g) for g in groups])
        return member_costs(self.instance, group, np.concatenate(groups), len(groups))

    def replace(self, region: np.ndarray, groups: list, cost: np.ndarray) -> None:
        """The groups of ``region`` give way to ``groups`` (new ids at the end)."""
        first = len(self.members)
        for g in region:
            self.members[g] = np.zeros(0, dtype=np.int64)
        self.cost[region] = self.rc[region] = 0.0
        for i, g in enumerate(groups):
            self.labels[g] = first + i
        self.members.extend(groups)
        self.cost = np.r_[self.cost, cost]
        self.rc = np.r_[self.rc, cost - np.array([self.price[g].sum() for g in groups])]


def _neighbourhood(instance: KAnonymityInstance):
    """Per record, the records that are copies or nearest neighbours of its unique record
    (as a function of an array of records)."""
    unique, inverse, _ = instance.unique_records
    index = instance.neighbor_table(2 * instance.k - 1)[0]
    by_unique = np.argsort(inverse, kind="stable")
    start = np.searchsorted(inverse[by_unique], np.arange(len(unique) + 1))

    def near(records: np.ndarray) -> np.ndarray:
        uid = np.unique(np.r_[inverse[records], index[inverse[records]].ravel()])
        size = start[uid + 1] - start[uid]
        offset = np.arange(size.sum()) - np.repeat(np.cumsum(size) - size, size)
        return by_unique[np.repeat(start[uid], size) + offset]

    return near


def _grow(part: _Partition, seed_group: int, size: int, near) -> np.ndarray:
    """A region of up to ``size`` groups around ``seed_group``, breadth first, the neighbouring
    groups of largest reduced cost first."""
    region, frontier = [seed_group], [seed_group]
    while frontier and len(region) < size:
        g = frontier.pop(0)
        found = np.unique(part.labels[near(part.members[g])])
        found = found[(found >= 0) & ~np.isin(found, region)]
        for h in found[np.argsort(-part.rc[found], kind="stable")][: size - len(region)]:
            region.append(int(h))
            frontier.append(int(h))
    return np.array(sorted(region))


def _wait(refresh, more_prices, deadline, pause=0.2):
    """The next prices ``refresh`` brings while ``more_prices()`` holds, before ``deadline``."""
    while perf_counter() < deadline and more_prices():
        fresh = refresh()
        if fresh is not None:
            return fresh
        sleep(min(pause, max(0.0, deadline - perf_counter())))
    return refresh()


def _subinstance(instance: KAnonymityInstance, records: np.ndarray) -> KAnonymityInstance:
    """The k-anonymity instance of ``records`` alone (no sensitive column, no deletion)."""
    table = dataclasses.replace(
        instance.table,
        codes=instance.table.codes[records],
        sensitive=None,
        sensitive_name=None,
        sensitive_values=None,
    )
    return KAnonymityInstance(table, instance.k, instance.model)


def region_search(
    instance: KAnonymityInstance,
    labels: np.ndarray,
    *,
    deadline: float,
    prices: np.ndarray | None = None,
    size: int = 3,
    max_size: int = 8,
    region_time: float = 0.25,
    seed: int = 0,
    refresh: Callable[[], np.ndarray | None] | None = None,
    more_prices: Callable[[], bool] | None = None,
) -> tuple[np.ndarray, dict]:
    """Improve a feasible partition region by region until ``deadline``.

    Parameters
    ----------
    instance : KAnonymityInstance
    labels : ndarray of int, shape (n,)
        A feasible partition (``-1``: a deleted record, which stays deleted).
    deadline : float
        A ``perf_counter`` reading: no region solve starts after it, none runs past it.
    prices : ndarray, shape (u,), optional
        Dual-feasible prices per copy of each unique record (default: the nearest-neighbour
        prices), which order the groups and prove regions optimal.
    size, max_size : int
        Groups per region in the first pass, and at most (each pass adds one).
    region_time : float
        Seconds per region solve at most: a solve that runs out of time still returns the
        hint or better, and on full Adult (k = 5) many short solves gain more than fewer long ones.
    seed : int
        The solvers' random seed.
    refresh : callable, optional
        Called before each region; a price vector it returns (dual feasible, e.g. from a bound
        computed alongside) replaces ``prices`` from then on.
    more_prices : callable, optional
        Whether ``refresh`` may still bring new prices. When every pass is done and it says so,
        the search waits for them (until the deadline) and starts its passes again under them,
        instead of ending.

    Returns
    -------
    labels : ndarray of int64, shape (n,)
        A partition at most as dear as ``labels`` (group ids renumbered).
    info : dict
        ``region_solves``, ``region_improved``, ``region_gain`` (cost removed), ``region_passes``,
        ``region_restarts`` (passes begun again under new prices) and ``region_search_s``. The
        search ends at the deadline or once every group of positive reduced cost has been in a
        region of ``max_size`` groups (and ``more_prices`` says no more are coming).

    Notes
    -----
    A solve costs CP-SAT's exact pipeline on ``size (2k − 1)`` records at most; the search
    keeps every group's cost and reduced cost up to date, so a step is ``O(n)`` besides.
    """
    t0 = perf_counter()
    prices = nn_prices(instance) if prices is None else prices
    part = _Partition.of(instance, labels, prices)
    if not part.members:
        return part.labels, dict(
            region_solves=0,
            region_improved=0,
            region_gain=0.0,
            region_passes=0,
            region_restarts=0,
            region_search_s=0.0,
        )
    near = _neighbourhood(instance)
    tol = 1e-9 * (1.0 + float(part.cost.sum()))
    examined = part.labels < 0
    info = dict(region_solves=0, region_improved=0, region_gain=0.0, region_restarts=0)
    passes, solve = 1, solve_cpsat
    while perf_counter() < deadline:
        fresh = refresh() if refresh is not None else None
        if fresh is not None:
            part.reprice(fresh)
        open_ = np.bincount(part.labels[~examined], minlength=len(part.members)) > 0
        pending = np.flatnonzero(open_ & (part.rc > tol))
        if not len(pending):
            if passes <= max_size - size:
                passes += 1
                examined = part.labels < 0
                continue
            waits = refresh is not None and more_prices is not None
            fresh = _wait(refresh, more_prices, deadline) if waits else None
            if fresh is None:
                break
            part.reprice(fresh)  # every group again, ordered by the new reduced costs
            passes, examined = 1, part.labels < 0
            info["region_restarts"] += 1
            continue
        region = _grow(part, int(pending[np.argmax(part.rc[pending])]), size + passes - 1, near)
        records = np.concatenate([part.members[g] for g in region])
        examined[records] = True
        hint = np.searchsorted(region, part.labels[records])
        time_limit = min(region_time, deadline - perf_counter())
        if time_limit <= 0:
            break
        sub = _subinstance(instance, records)
        try:
            solved = solve(sub, time_limit=time_limit, seed=seed, hint=hint)
        except UnsupportedInstanceError:  # weights CP-SAT cannot scale to integers
            solve = solve_highs
            solved = solve(sub, time_limit=time_limit, seed=seed, hint=hint)
        info["region_solves"] += 1
        if solved.labels is None:
            continue
        new = [records[solved.labels == g] for g in np.unique(solved.labels)]
        cost = part.costs(new)
        gain = float(part.cost[region].sum() - cost.sum())
        if gain > tol:
            part.replace(region, new, cost)
            info["region_improved"] += 1
            info["region_gain"] += gain
    info.update(region_passes=passes, region_search_s=perf_counter() - t0)
    out = part.labels.copy()
    keep = out >= 0
    _, out[keep] = np.unique(out[keep], return_inverse=True)
    return out, info
