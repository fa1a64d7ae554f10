"""A cheap valid lower bound on the stars of t-closeness by suppression.

A group without a star lies inside one *QI-group* (the records with one QI vector). A QI-group
``Q`` is *forced* when no group inside it can be feasible:

* ``|Q| < k``; or
* every distribution ``p`` supported on the sensitive values present in ``Q`` (the set ``A``) is
  farther than ``t`` from the table's distribution ``q``. The nearest such ``p`` moves each unit
  of ``q``'s mass to the nearest value of ``A``: any ``p`` on ``A`` must receive all of ``q``'s
  mass at values ``A``, at ground distance at least ``dist(v, A)`` from ``v``, and this move
  attains it. So ``min_p EMD(p, q) = sum_v q_v dist(v, A)``, ``dist`` the ground distance (1 off
  ``A`` for the equal ground, ``|i - j| / (S - 1)`` to the nearest ``j`` in ``A`` for the
  ordered one). The distribution of any group of records of ``Q`` is such a ``p``.
"""

from __future__ import annotations

import numpy as np

from anonratio.instances.base import lower_bound

from .instance import TClosenessInstance

__all__ = ["forced_groups", "nearest_emd", "tcloseness_lower_bound"]

#: margin of the "farther than t" test: above the verifier's 1e-12 and the sums' rounding
MARGIN = 1e-9


def nearest_emd(present: np.ndarray, prior: np.ndarray, ground: str) -> np.ndarray:
    """``min_p EMD(p, prior)`` over distributions ``p`` on each row's present values.

    ``present`` is a boolean ``(g, S)`` matrix (each row with a true entry), ``prior`` the
    table's distribution; O(g S).
    """
    g, s = present.shape
    if ground == "equal" or s <= 1:
        return (~present).astype(float) @ prior
    idx = np.arange(s)
    left = np.maximum.accumulate(np.where(present, idx, -s), axis=1)
    right = np.minimum.accumulate(np.where(present, idx, 2 * s)[:, ::-1], axis=1)[:, ::-1]
    dist = np.minimum(idx - left, right - idx) / (s - 1)
    return dist @ prior


def forced_groups(instance: TClosenessInstance) -> np.ndarray:
    """Whether each QI-group is forced (module docstring): none of its subsets is feasible."""
    q = instance.qi_group
    g, s = int(q.max()) + 1, instance.n_values
    hist = np.bincount(q * s + instance.sensitive, minlength=g * s).reshape(g, s)
    sizes = hist.sum(axis=1)
    far = nearest_emd(hist > 0, instance.prior, instance.ground) > instance.t + MARGIN
    return (sizes < instance.k) | far


def tcloseness_lower_bound(instance: TClosenessInstance) -> tuple[float, str]:
    """``(value, source)``: ``max(F + [one forced QI-group], k)`` when ``F > 0``, else 0.

    ``F`` is the number of records in forced QI-groups (:func:`forced_groups`).

    Proof. No group without a star lies inside a forced QI-group (module docstring), so each of
    the ``F`` records is in a group with a star and costs at least one star; the stars are at
    least the records of starred groups. Each group has ``>= k`` records, so when ``F > 0`` the
    starred groups hold ``>= k`` records. A starred group holds records of two QI-groups (its
    members disagree on a column): when all forced records are in one QI-group, the starred
    group of one of them holds a record outside it, so ``>= F + 1`` records are starred.
    """
    forced = forced_groups(instance)
    sizes = np.bincount(instance.qi_group)
    f = int(sizes[forced].sum())
    if f == 0:
        return 0.0, "no forced QI-group"
    value = max(f + int(np.count_nonzero(forced) == 1), instance.k)
    return float(value), "records of forced QI-groups (each starred), at least k"


@lower_bound.register
def _lower_bound_tcloseness(instance: TClosenessInstance) -> tuple[float, str]:
    return tcloseness_lower_bound(instance)
