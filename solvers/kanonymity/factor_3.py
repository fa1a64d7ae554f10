"""3-anonymity by a minimum-weight 2-factor and cycle decomposition (Aggarwal et al. 2005, §6).

The algorithm computes a minimum-weight 2-factor F (vertex-disjoint cycles of length >= 3) of the
complete graph on the records with edge weight ``w(a, b)``. Lemma 10: ``c_OFAC <= 2/3 · OPT`` on a
binary alphabet. Lemma 11 turns F into clusters of cost ``<= 3 · c_F``: cycles of length 3, 4 and 5
are clusters; a longer cycle C is cut into clusters of consecutive vertices, by ``len(C) mod 3``:

- ``3x``: x clusters of 3;
- ``3x + 1``: x − 1 clusters of 3 and one of 4;
- ``3x + 2``: x − 2 clusters of 3 and two of 4,

choosing, among all such decompositions (every rotation, and for ``3x + 2`` every placement of the
two 4-clusters), the one whose clusters contain the least total weight of cycle edges (the paper's
criterion, ``select="edges"``). Ratio 2 on binary tables.

``select="cost"`` (the default) instead keeps the candidate of least *real* cost. This cannot break
the guarantee: the real cost of the chosen candidate is at most the real cost of the paper's
choice, which Lemma 11 bounds by ``3 · len(C)``. (Checking the paper's own criterion: with inner
edge weight S, a candidate costs at most ``4 S``; averaging S over the rotations gives
``4 (2x+1)/(3x+1) <= 3`` and ``4 (2x+2)/(3x+2) <= 3`` for x >= 2, so it is valid as stated.)

Lemma 11 holds for any alphabet (and any hierarchy, as ``w`` is then a sum of ultrametrics); only
Lemma 10 needs a binary alphabet.

Duplicates. Identical records stay separate vertices joined by 0-weight edges (grouping copies up
front is not provably harmless, see :mod:`anonratio.solvers.kanonymity.min_weight_factor`);
distances are computed on the unique rows and expanded by index.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from anonratio.instances import KAnonymityInstance, Solution
from anonratio.instances.validation import check_choice
from anonratio.solvers.kanonymity.factor_solution import (
    clusters_solution,
    factor_fields,
    factor_run_iv,
    highs_seed,
    remaining_time,
)
from anonratio.solvers.kanonymity.min_weight_factor import (
    _solve_factor,
    component_histogram,
    factor_components,
    factor_lower_bound,
    group_costs,
    record_distances,
)

__all__ = ["two_factor", "two_factor_guarantee", "factor_lower_bound", "SELECT"]

ALGORITHM = "factor-3"

#: how a long cycle's decomposition is chosen among the Lemma 11 candidates
SELECT = ("cost", "edges")


def two_factor_guarantee(
    instance: KAnonymityInstance, solution: Solution | None = None
) -> float | None:
    """Proven ratio of :func:`two_factor` on ``instance``: 2 for k = 3 on a binary alphabet.

    ``None`` for other k, non-binary alphabets, generalization hierarchies and row deletion.
    ``solution`` is not needed: the ratio is known before the run.
    """
    if instance.k != 3 or instance.row_deletion or not instance.is_binary():
        return None
    return 2.0


def _two_factor_iv(
    instance: Any, seed: Any, time_limit: Any, select: Any
) -> tuple[int | None, float | None]:
    out = factor_run_iv(instance, k=3, algorithm=ALGORITHM, seed=seed, time_limit=time_limit)
    check_choice("select", select, SELECT)
    return out


def two_factor(
    instance: KAnonymityInstance,
    *,
    seed: int | np.random.Generator | None = None,
    time_limit: float | None = None,
    select: str = "cost",
) -> Solution:
    """3-anonymity from a minimum-weight 2-factor: cost <= 2 · OPT on a binary alphabet.

    The ratio 2 holds on binary tables without row deletion (Aggarwal et al. 2005, §6, Lemmas
    10–11), when the 2-factor is proven minimum (the default, ``time_limit=None``). On any table
    the cost is at most 3 × the factor weight (Lemma 11). Every cluster has 3, 4 or 5 records.

    Parameters
    ----------
    instance : KAnonymityInstance
        Must have ``k == 3``. Other alphabets, hierarchies and row deletion are accepted (the
        result is feasible and deletes no record) but carry no guarantee.
    seed : int, numpy.random.Generator or None
        Seeds HiGHS (tie-breaking among optimal factors).
    time_limit : float or None
        Seconds for the factor ILP. If HiGHS stops before proving optimality, the best factor found
        is used and the status is ``"time_limit"`` (no guarantee); without any factor the labels
        are ``None``.
    select : {"cost", "edges"}
        How to pick a long cycle's decomposition among the Lemma 11 candidates: least real cost
        (default), or least weight of cycle edges inside clusters (the paper's rule; ties broken
        by real cost). Both keep the guarantee.

    Returns
    -------
    Solution
        ``algorithm="factor-3"``, ``objective`` = the cost of its clusters (computed from
        them; the verifier recomputes it from the labels), ``status`` ``"feasible"``
        (factor optimal) or ``"time_limit"``; ``lower_bound`` = 1.5 × the factor weight on binary
        tables (Lemma 10), else ``None``. ``info``: ``factor_weight``, ``factor_status``,
        ``factor_bound``, ``cycle_lengths`` (histogram), ``cluster_sizes``, ``select``,
        ``guarantee``, ``lower_bound_source``, ``n_unique``, ``factor_time_s``.

    Raises
    ------
    TypeError
        ``instance`` is not a KAnonymityInstance.
    UnsupportedInstanceError
        ``k != 3``.
    ValueError
        ``seed``, ``time_limit`` or ``select`` is invalid.

    Notes
    -----
    O(u² m) for distances over the u unique rows and O(n²) memory, the exact 2-factor ILP
    (:func:`~anonratio.solvers.kanonymity.min_weight_factor.min_weight_factor`; worst-case
    exponential, a second or two for n = 150 random binary records), then O(L² / 6) candidate
    evaluations per cycle of length L (O(1) each, by prefix sums) plus O(L m) cluster costs.

    References
    ----------
    Aggarwal, Feder, Kenthapadi, Motwani, Panigrahy, Thomas, Zhu. "Approximation Algorithms for
    k-Anonymity". Journal of Privacy Technology, 2005, §6 (Lemmas 10–11).

    Examples
    --------
    The paper's tight example for Lemma 11: the optimal 2-factor is one 8-cycle of weight 8, cut
    into two 4-clusters that cost 3 × 8.

    >>> import numpy as np
    >>> from anonratio.instances import KAnonymityInstance, Table
    >>> rows = ["0000", "0001", "0011", "0111", "1111", "1110", "1100", "1000"]
    >>> codes = np.array([[int(c) for c in r] for r in rows])
    >>> inst = KAnonymityInstance(Table(codes, tuple("abcd"), (("0", "1"),) * 4), 3)
    >>> sol = two_factor(inst, seed=0)
    >>> sol.objective, sol.info["factor_weight"], sol.info["cycle_lengths"], sol.lower_bound
    (24.0, 8.0, {8: 1}, 12.0)
    """
    start = time.perf_counter()
    seed_int, time_limit = _two_factor_iv(instance, seed, time_limit, select)
    dist = record_distances(instance)
    factor = _solve_factor(dist, 2, 2, remaining_time(time_limit, start), highs_seed(seed))
    guarantee = two_factor_guarantee(instance) if factor.optimal else None
    fields = factor_fields(instance, factor, ALGORITHM, seed_int, guarantee, {"select": select})
    if factor.edges is None:  # time limit before any factor was found
        return Solution(None, time_s=time.perf_counter() - start, **fields)
    components = factor_components(instance.n, factor.edges)
    hist = component_histogram(components)
    fields["info"]["cycle_lengths"] = {int(key.split("-")[1]): c for key, c in hist.items()}
    groups = _clusters(instance, dist, components, select)
    return clusters_solution(instance, groups, fields, start, "cluster_sizes")


def _clusters(instance, dist, components, select):
    """Cycles of 3 to 5 vertices as clusters, longer ones cut by :func:`_decompose_cycle`."""
    groups = []
    for verts, _ in components:
        if len(verts) <= 5:
            groups.append(verts)
        else:
            groups.extend(_decompose_cycle(instance, dist, verts, select))
    return groups


def _block_sums(values):
    """``f(s, c) = sum_{t < c} values[(s + 3t) % L]`` for arrays ``s >= 0``, ``c >= 0``.

    Stride-3 prefix sums over the cyclic sequence repeated three times (enough for
    ``s + 3c <= 3L``).
    """
    n_v = len(values)
    ext = np.tile(values, 3)
    ext = np.concatenate([ext, np.zeros((-len(ext)) % 3)])
    pref = np.cumsum(ext.reshape(-1, 3), axis=0).ravel()  # pref[p] = sum of ext[p], ext[p-3], ...

    def f(s, c):
        s, c = np.broadcast_arrays(np.asarray(s), np.asarray(c))
        last = s + 3 * (c - 1)
        hi = np.where(c > 0, pref[np.clip(last, 0, 3 * n_v - 1)], 0.0)
        lo = np.where((c > 0) & (s >= 3), pref[np.clip(s - 3, 0, None)], 0.0)
        return hi - lo

    return f


def _decompose_cycle(instance, dist, verts, select):
    """Lemma 11: cut a cycle (walk order, length >= 6) into consecutive clusters of 3 and 4."""
    n_v = len(verts)
    x, r = divmod(n_v, 3)
    pos = np.arange(n_v)
    edge = dist[verts, np.roll(verts, -1)]  # edge[s] = w(verts[s], verts[s + 1])
    inner, real = {}, {}  # per start s and size z: cycle-edge weight inside / real cost
    for z in (3, 4):
        inner[z] = sum(edge[(pos + t) % n_v] for t in range(z - 1))
        real[z] = group_costs(instance, verts[(pos[:, None] + np.arange(z)) % n_v])
    s3_inner, s3_real = _block_sums(inner[3]), _block_sums(real[3])

    # candidates: rotation rot (start of the first cluster) and, for 3x + 2, the number j of
    # 3-clusters between the two 4-clusters (j and x - 2 - j give the same decompositions)
    if r == 0:
        rot, j = np.arange(3), np.zeros(3, dtype=np.int64)
    else:
        js = np.arange((x - 2) // 2 + 1) if r == 2 else np.zeros(1, dtype=np.int64)
        rot, j = (a.ravel() for a in np.meshgrid(pos, js, indexing="ij"))

    def total(s3, four):
        if r == 0:
            return s3(rot, x)
        if r == 1:
            return four[rot] + s3(rot + 4, x - 1)
        second = rot + 4 + 3 * j
        return four[rot] + s3(rot + 4, j) + four[second % n_v] + s3(second + 4, x - 2 - j)

    s_inner = total(s3_inner, inner[4])
    s_real = total(s3_real, real[4])
    scale = max(float(np.abs(s_inner).max()), 1.0)
    s_inner_key = np.round(s_inner / scale, 9)  # ties in the paper's criterion up to rounding
    keys = (s_inner_key, s_real) if select == "cost" else (s_real, s_inner_key)
    best = np.lexsort(keys)[0]

    if r == 0:
        sizes = [3] * x
    elif r == 1:
        sizes = [4] + [3] * (x - 1)
    else:
        sizes = [4] + [3] * int(j[best]) + [4] + [3] * (x - 2 - int(j[best]))
    starts = int(rot[best]) + np.concatenate([[0], np.cumsum(sizes)[:-1]])
    return [verts[(s + np.arange(z)) % n_v] for s, z in zip(starts, sizes, strict=True)]
