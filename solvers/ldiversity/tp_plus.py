"""TP+: TP, then the Hilbert heuristic on TP's residue set (Xiao, Yi and Tao 2010, §5.6, §6.1)."""

from __future__ import annotations

from time import perf_counter

import numpy as np

from anonratio.instances import Solution
from anonratio.instances.ldiversity.instance import LDiversityInstance
from anonratio.instances.validation import check_instance, check_seed

from .hilbert import hilbert_partition
from .tp import _finish, residue_stars, tp_partition

__all__ = ["tp_plus"]


def tp_plus(
    instance: LDiversityInstance,
    *,
    seed: int | np.random.Generator | None = None,
) -> Solution:
    """TP+ (§6.1): TP's partition with its residue ``R`` split by Hilbert into smaller l-eligible
    groups. Same guarantee as TP (O(l d) for stars, Theorem 5.19 and §5.6).

    The QI-groups TP keeps are untouched (no stars); ``R`` (l-eligible) is split by
    :func:`~anonratio.solvers.ldiversity.hilbert.hilbert_partition` (Hilbert order, then
    l-diverse groups of nearby records), and the split is kept only when it costs less than
    ``R`` as one group, so TP+ never costs more than TP in either objective.

    Parameters
    ----------
    instance : LDiversityInstance
    seed : ignored
        Deterministic; recorded when an int.

    Returns
    -------
    Solution
        ``info``: TP's fields (``phase``, ``moved``, ``residue``, ``h1``, ...), ``tp_cost`` (TP's
        cost), ``residue_groups`` (groups R was cut into), ``stars``, ``suppressed_tuples``,
        ``guarantee`` (TP's bound applied to TP+'s cost; see
        :func:`~anonratio.solvers.ldiversity.tp.tp_guarantee`).

    Notes
    -----
    TP's time plus Hilbert's on ``|R|`` records.

    References
    ----------
    Xiao, Yi and Tao, EDBT 2010, §5.6 ("combined with any heuristic suppression algorithm") and
    §6.1 (TP+); Ghinita et al., VLDB 2007 (Hilbert).
    """
    t0 = perf_counter()
    check_instance(instance, LDiversityInstance)
    seed_rec = check_seed(seed)
    labels, info = tp_partition(instance)
    codes = np.asarray(instance.table.codes)
    rows = np.flatnonzero(labels == labels.max()) if info["residue"] else np.zeros(0, np.int64)
    whole_stars = residue_stars(codes, rows)
    info["residue_attributes"] = whole_stars // rows.size if rows.size else 0
    whole = whole_stars if instance.objective == "stars" else (rows.size if whole_stars else 0)
    info["tp_cost"] = int(whole)
    info["residue_groups"] = 1 if rows.size else 0
    if rows.size:
        sub, hinfo = hilbert_partition(instance, rows)
        if hinfo["cost"] < whole:
            labels = labels.copy()
            labels[rows] = labels.max() + sub
            info["residue_groups"] = hinfo["n_groups"]
    return _finish(instance, labels, info, "tp-plus", seed_rec, t0)
