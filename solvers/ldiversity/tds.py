"""TDS, Top-Down Specialization (Fung, Wang and Yu, ICDE 2005), for l-diversity: the baseline of
Xiao, Yi and Tao (EDBT 2010, §6.2, Figures 7-8).

Xiao et al. modify TDS, "initially designed for k-anonymity", into an l-diversity algorithm
without giving the modification; here it is the loop of
:func:`anonratio.solvers.kanonymity.tds.specialize` with

* the privacy requirement: every class l-eligible (no sensitive value in more than ``1/l`` of
  it), in place of every class holding ``k`` records;
* the class attribute of ``InfoGain``: the sensitive attribute;
* the anonymity ``A`` of ``AnonyLoss = A(T) - A_v(T)``: the smallest ``|class| / h(class)``
  (``h`` the largest sensitive count), the largest ``l`` every class is eligible for, as a real.

Taxonomies are the table's hierarchies; an attribute without one (the SAL-like and Adult tables
of this problem have none) has the two-level taxonomy value -> ``*``.

The published table is a global recoding: each cell is a taxonomy node. The partition (the
labels) is its classes, and the verifier counts the stars of that partition (the attributes not
constant on a class), the problem's objective. Xiao et al. compare the *generalized* table by
its KL-divergence (§6.2, Eq. (2): a generalized cell uniform over the node's values), the
``kl-divergence`` of :data:`anonratio.solvers.ldiversity.metrics.SOLUTION_METRICS` (a run's
``utility``, on request), computed from ``info["recoding"]``. It can exceed
:func:`anonratio.solvers.ldiversity.metrics.kl_divergence` of the labels, which stars only the
attributes not constant on a class: TDS publishes an unspecialized attribute's node for every
record, constant on the class or not (``info["published_stars"]`` counts those cells).
"""

from __future__ import annotations

import time

import numpy as np

from anonratio.instances import Solution
from anonratio.instances.ldiversity.instance import LDiversityInstance, group_stats
from anonratio.instances.validation import check_instance, check_seed
from anonratio.solvers.kanonymity.tds import Requirement, published_info, specialize

__all__ = ["ldiv_tds"]

ALGORITHM = "ldiv-tds"


def ldiv_tds(
    instance: LDiversityInstance,
    *,
    beneficial: bool = True,
    seed: int | np.random.Generator | None = None,
) -> Solution:
    """l-diversity by Top-Down Specialization (Fung et al. 2005; Xiao et al. 2010, §6.2).

    Parameters
    ----------
    instance : LDiversityInstance
    beneficial : bool
        Only specializations of positive ``InfoGain`` (the paper, default), or zero-gain ones too
        (then the loop stops only when no valid specialization remains).
    seed : int, numpy.random.Generator or None
        Recorded only: TDS is deterministic.

    Returns
    -------
    Solution
        Labels = the classes of the published generalization; ``objective`` the instance's
        objective of that partition. ``info``: ``stars``, ``suppressed_tuples`` and the fields of
        :func:`~anonratio.solvers.kanonymity.tds.tds` (``recoding``, ``cut``,
        ``specializations``, ...).

    Notes
    -----
    No approximation guarantee. At most one round per internal taxonomy node, each
    O(n d log n).
    """
    t0 = time.perf_counter()
    check_instance(instance, LDiversityInstance, "instance")
    seed_rec = check_seed(seed)
    table = instance.table
    hierarchies = [table.hierarchy(j) for j in range(table.n_attributes)]
    result = specialize(
        table, hierarchies, Requirement("l", instance.l), score="infogain", beneficial=beneficial
    )
    info = published_info(table, result)
    _, sizes, differ, _ = group_stats(instance, result.labels)
    stars, tuples = int(sizes @ differ), int(sizes[differ > 0].sum())
    info.update(stars=stars, suppressed_tuples=tuples)
    return Solution(
        labels=result.labels,
        algorithm=ALGORITHM,
        params=dict(instance.params),
        seed=seed_rec,
        status="feasible",
        objective=float(stars if instance.objective == "stars" else tuples),
        time_s=time.perf_counter() - t0,
        info=info,
    )
