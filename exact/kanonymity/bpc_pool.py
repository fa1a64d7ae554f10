"""The reduced-cost pool of kanon-bpc: every group within reach of the root's bound, priced by a
product instead of a sweep.

Once the root's master is solved, its prices ``y0`` (made dual feasible: ``pi0``) prove
``LB0 = pi0·c``, and every partition costs ``LB0 + sum_G rc0_G z_G + ...`` with every
``rc0_G = cost_G − pi0(G) >= 0`` (:mod:`~anonratio.exact.kanonymity.columns`). The pool holds every
group with ``rc0_G <= delta`` (enumerated box by box over the lattice,
:func:`~anonratio.exact.kanonymity.box_enumeration.box_groups`, or from representatives,
:func:`~anonratio.exact.kanonymity.columns.enumerate_groups`), with ``delta`` as large as the
pool's cap allows. At a node's prices ``y``, a group outside it has

    rc_G = rc0_G + (pi0 − y)(G) > delta − top((y − pi0)^+),

``top`` the sum of the ``2k − 1`` largest positive parts over copies. So when
``delta >= top((y − pi0)^+)``, no group outside the pool has a negative reduced cost and the pool
alone prices the node exactly (:meth:`ReducedCostPool.covers`); and when ``delta >= U − LB0``
(``U`` the incumbent's cost), no partition cheaper than the incumbent uses a group outside it, so
the search may ignore those groups altogether: every bound it proves then holds for the
partitions cheaper than ``U``, the only ones left to find.
"""

from __future__ import annotations

from time import perf_counter

import numpy as np

from anonratio.exact.kanonymity.box_enumeration import Timeout as BoxTimeout
from anonratio.exact.kanonymity.box_enumeration import box_groups
from anonratio.exact.kanonymity.box_pricing import BoxLattice
from anonratio.exact.kanonymity.columns import KAnonData, Timeout, enumerate_groups, incidence
from anonratio.exact.kanonymity.incumbents import group_cost

__all__ = ["ReducedCostPool", "build_pool", "POOL_MAX"]

#: groups the pool holds at most
POOL_MAX = 300_000

#: each enumeration the pool's cap stops is tried again with ``delta`` divided by this
SHRINK = 2.0


class ReducedCostPool:
    """Every group of reduced cost at most ``delta`` at the dual-feasible prices ``pi0``.

    Attributes
    ----------
    members : ndarray of int64, shape (N, 2k − 1)
    cost : ndarray, shape (N,)
    pi0 : ndarray, shape (u,)
        Dual-feasible prices (objective units).
    lb0 : float
        ``pi0 @ counts``.
    delta : float
        Every group outside the pool has ``rc0 > delta``.
    """

    def __init__(self, d: KAnonData, members, cost, pi0, delta: float) -> None:
        self.d, self.members, self.cost = d, members, cost
        self.pi0, self.delta = pi0, float(delta)
        self.lb0 = float(pi0 @ d.counts)
        self._at = incidence(members, d.u).T.tocsr()  # (N, u)
        self._reps = np.minimum(d.counts, d.width)  # copies a group may hold of each record

    def __len__(self) -> int:
        return len(self.cost)

    def reduced_costs(self, y: np.ndarray, among: np.ndarray | None = None) -> np.ndarray:
        """The reduced cost at ``y`` of each of the pool's groups (or of those ``among``)."""
        if among is None:
            return self.cost - self._at @ y
        return self.cost[among] - self._at[among] @ y

    def negative(self, y: np.ndarray, tol: float, among: np.ndarray | None = None) -> np.ndarray:
        """Indices of the pool's groups (of those ``among``) with reduced cost below ``-tol``
        at ``y``."""
        neg = np.flatnonzero(self.reduced_costs(y, among) < -tol)
        return neg if among is None else among[neg]

    def covers(self, y: np.ndarray, incumbent: float) -> bool:
        """Whether no group outside the pool can enter at ``y``: none has a negative reduced
        cost there, or none can be in a partition cheaper than ``incumbent``."""
        if self.delta >= incumbent - self.lb0:
            return True
        up = np.maximum(y - self.pi0, 0.0)
        order = np.argsort(-up, kind="stable")
        take = np.minimum(np.cumsum(self._reps[order]), self.d.width)
        take = np.diff(take, prepend=0)
        return self.delta >= float(take @ up[order])


def build_pool(
    d: KAnonData,
    lattice: BoxLattice | None,
    pi0: np.ndarray,
    delta: float,
    *,
    deadline: float,
    max_columns: int = POOL_MAX,
) -> ReducedCostPool | None:
    """The pool of every group with ``rc <= delta`` at ``pi0`` (dual feasible, objective units),
    or at ``delta / SHRINK^t`` for the first ``t`` whose groups fit ``max_columns``; None when
    the deadline comes first or ``delta`` would drop below one cost unit's millionth."""
    while delta > 1e-6 * max(1.0, float(pi0 @ d.counts)) and perf_counter() < deadline:
        try:
            if lattice is not None:
                members, _, complete = box_groups(
                    lattice,
                    pi0 / d.scale,
                    delta / d.scale,
                    max_columns=max_columns,
                    deadline=deadline,
                )
            else:
                found, _, complete = enumerate_groups(
                    d, pi0, delta, max_columns=max_columns, deadline=deadline
                )
                members = found.members
        except (Timeout, BoxTimeout):
            return None
        if complete:
            return ReducedCostPool(d, members, group_cost(d, members), pi0, delta)
        delta /= SHRINK
    return None
