"""Datafly: greedy full-domain generalization, then suppression of the small remainder.

Sweeney (1997; 2002, "Achieving k-anonymity privacy protection using generalization and
suppression", §4.1). While more tuples than ``MaxSup`` lie in equivalence classes that fail the
privacy models, the attribute with the most distinct (generalized) values climbs one level of its
hierarchy; then the failing tuples are suppressed. Sweeney's original threshold is ``k`` tuples;
here it is ``MaxSup``, the suppression limit every full-domain method in the suite takes (as
ARX and anjana do).
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from anonratio.instances import KAnonymityInstance, Solution
from anonratio.instances.privacy import PrivacyModel
from anonratio.solvers.kanonymity.lattice_search import (
    full_domain_solution,
    infeasible_solution,
    lattice_of,
)

__all__ = ["datafly"]

ALGORITHM = "datafly"


def datafly(
    instance: KAnonymityInstance,
    *,
    max_suppression: float = 0.0,
    privacy: PrivacyModel | Sequence[PrivacyModel] | None = None,
    seed: int | np.random.Generator | None = None,
) -> Solution:
    """Datafly's greedy full-domain generalization.

    Parameters
    ----------
    instance : KAnonymityInstance
    max_suppression : float
        ``MaxSup`` as a fraction of the records, in ``[0, 1)``; positive values need
        ``instance.row_deletion``.
    privacy : PrivacyModel or sequence of them, optional
        Models besides ``k``-anonymity, any of them, with or without suppression: the greedy
        walk needs no monotonicity (it may end at the top node with too many failing tuples:
        status ``infeasible``). The suppressed tuples are withheld, and every model holds on
        the released classes; t-closeness against the distribution of the whole table and
        against that of the released records (see
        :class:`~anonratio.solvers.kanonymity.full_domain.Lattice`).
    seed : int, numpy.random.Generator or None
        Recorded only: ties between attributes go to the first.

    Returns
    -------
    Solution
        As :func:`~anonratio.solvers.kanonymity.samarati.samarati` (global recoding);
        ``info["steps"]`` lists the attributes generalized, in order.

    Notes
    -----
    No guarantee: neither k-minimal nor optimal for any metric. At most ``sum_j l_j`` steps,
    each a roll-up of the previous frequency set, O(u · m).
    """
    t0 = time.perf_counter()
    lattice = lattice_of(
        instance,
        max_suppression=max_suppression,
        privacy=privacy,
        algorithm=ALGORITHM,
        prunes=False,
    )
    levels = np.zeros(lattice.m, dtype=np.int64)
    steps: list[str] = []
    fs = lattice.frequency_set(range(lattice.m), levels)
    while True:
        failing = lattice.failing_rows(fs)
        if int(fs.counts[failing].sum()) <= lattice.max_sup:
            break
        open_ = np.flatnonzero(levels < lattice.heights)
        if open_.size == 0:
            return infeasible_solution(instance, lattice, ALGORITHM, seed, t0)
        distinct = [len(np.unique(fs.tuples[:, j])) for j in open_]
        j = int(open_[int(np.argmax(distinct))])
        levels[j] += 1
        steps.append(instance.table.attributes[j])
        fs = lattice.frequency_set(range(lattice.m), levels, fs)
    return full_domain_solution(
        instance,
        lattice,
        levels,
        algorithm=ALGORITHM,
        metric=None,
        seed=seed,
        t0=t0,
        info={"steps": steps},
    )
