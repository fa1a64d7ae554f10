"""2-anonymity by a minimum-weight [1,2]-factor (Aggarwal et al. 2005, §5).

The algorithm computes a minimum-weight [1,2]-factor F of the complete graph on the records, with
edge weight ``w(a, b)``, and makes each component of F a cluster. Its cost is at most
``3 · c_OFAC`` (Lemma 8) while ``c_OFAC <= OPT / 2`` on a binary alphabet (Lemma 9) and
``c_OFAC <= 2/3 · OPT`` for suppression on any alphabet (end of §5): ratio 1.5 and 2.

Component shapes. A [1,2]-factor is a disjoint union of paths (>= 1 edge) and cycles (>= 3
vertices). With positive weights a *minimum* one has only single edges and 2-edge paths: dropping
an edge of a cycle, or an inner edge of a path with >= 3 edges, leaves a [1,2]-factor of smaller
weight (the paper's argument). Weights can be 0 (identical records), and then an optimal factor may
contain longer paths and cycles of equal weight, which the ILP may return. Every component with
more than 3 vertices is therefore cut into consecutive runs of 2 and 3 vertices, by a dynamic
program that minimizes the real cost of the runs. Cutting only removes edges, so the result is
still a [1,2]-factor of weight <= c_OFAC, i.e. a minimum one whose components are edges and
2-paths, and Lemma 8 applies to it unchanged. A triangle (3-cycle) stays one cluster: it is the
cluster of the 2-path left after dropping its heaviest edge.

Duplicates. Identical records stay separate vertices joined by 0-weight edges (grouping copies up
front is not provably harmless, see :mod:`anonratio.solvers.kanonymity.min_weight_factor`);
distances are computed on the unique rows and expanded by index.
"""

from __future__ import annotations

import time

import numpy as np

from anonratio.instances import KAnonymityInstance, Solution
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

__all__ = ["one_two_factor", "one_two_factor_guarantee", "factor_lower_bound"]

ALGORITHM = "factor-2"


def one_two_factor_guarantee(
    instance: KAnonymityInstance, solution: Solution | None = None
) -> float | None:
    """Proven ratio of :func:`one_two_factor` on ``instance``: 1.5, 2 or None.

    1.5 for k = 2 on a binary alphabet (Theorem 6), 2 for k = 2 with suppression on any alphabet
    (end of §5); ``None`` for other k, generalization hierarchies of height > 1 and row deletion.
    ``solution`` is not needed: the ratio is known before the run.
    """
    if instance.k != 2 or instance.row_deletion:
        return None
    if instance.is_binary():
        return 1.5
    if instance.is_suppression():
        return 2.0
    return None


def _one_two_factor_iv(instance, seed, time_limit):
    return factor_run_iv(instance, k=2, algorithm=ALGORITHM, seed=seed, time_limit=time_limit)


def one_two_factor(
    instance: KAnonymityInstance,
    *,
    seed: int | np.random.Generator | None = None,
    time_limit: float | None = None,
) -> Solution:
    """2-anonymity from a minimum-weight [1,2]-factor: cost <= 1.5 · OPT (binary), <= 2 · OPT.

    The ratio is 1.5 when the table is binary and 2 for suppression on any alphabet (Aggarwal et
    al. 2005, Theorem 6 and §5), both without row deletion and only when the factor is proven
    minimum (the default, ``time_limit=None``). Every cluster has 2 or 3 records.

    Parameters
    ----------
    instance : KAnonymityInstance
        Must have ``k == 2``. Generalization hierarchies and row deletion are accepted (the
        result is feasible, never deletes a record) but carry no guarantee.
    seed : int, numpy.random.Generator or None
        Seeds HiGHS (tie-breaking among optimal factors).
    time_limit : float or None
        Seconds for the factor ILP. If HiGHS stops before proving optimality, the best factor found
        is used and the status is ``"time_limit"`` (no guarantee); without any factor the labels
        are ``None``.

    Returns
    -------
    Solution
        ``algorithm="factor-2"``, ``objective`` = the cost of its clusters (computed from
        them; the verifier recomputes it from the labels), ``status`` ``"feasible"``
        (factor optimal) or ``"time_limit"``; ``lower_bound`` = :func:`factor_lower_bound`'s value
        where proven (else ``None``). ``info``: ``factor_weight``, ``factor_status``,
        ``factor_bound``, ``components`` (shape histogram of the factor, e.g. ``{"path-2": 5}``),
        ``group_sizes``, ``guarantee``, ``lower_bound_source``, ``n_unique``, ``factor_time_s``.

    Raises
    ------
    TypeError
        ``instance`` is not a KAnonymityInstance.
    UnsupportedInstanceError
        ``k != 2``.
    ValueError
        ``seed`` or ``time_limit`` is invalid.

    Notes
    -----
    O(u² m) for the distances over the u unique rows and O(n²) memory, then the exact factor ILP
    (:func:`~anonratio.solvers.kanonymity.min_weight_factor.min_weight_factor`; worst-case
    exponential, about a second for n = 150 and a few seconds for n = 500 random binary records),
    then O(n m) to split the components and cost the clusters.

    References
    ----------
    Aggarwal, Feder, Kenthapadi, Motwani, Panigrahy, Thomas, Zhu. "Approximation Algorithms for
    k-Anonymity". Journal of Privacy Technology, 2005, §5 (Lemmas 8–9, Theorem 6).

    Examples
    --------
    >>> import numpy as np
    >>> from anonratio.instances import KAnonymityInstance, Table
    >>> codes = np.array([[0, 0, 0], [0, 0, 1], [1, 1, 0], [1, 1, 1], [1, 0, 1]])
    >>> inst = KAnonymityInstance(Table(codes, ("a", "b", "c"), (("0", "1"),) * 3), 2)
    >>> sol = one_two_factor(inst, seed=0)
    >>> sol.objective, sol.info["factor_weight"], sol.lower_bound
    (8.0, 3.0, 6.0)
    """
    start = time.perf_counter()
    seed_int, time_limit = _one_two_factor_iv(instance, seed, time_limit)
    dist = record_distances(instance)
    factor = _solve_factor(dist, 1, 2, remaining_time(time_limit, start), highs_seed(seed))
    guarantee = one_two_factor_guarantee(instance) if factor.optimal else None
    fields = factor_fields(instance, factor, ALGORITHM, seed_int, guarantee)
    if factor.edges is None:  # time limit before any factor was found
        return Solution(None, time_s=time.perf_counter() - start, **fields)
    components = factor_components(instance.n, factor.edges)
    fields["info"]["components"] = component_histogram(components)
    groups = _clusters(instance, components)
    return clusters_solution(instance, groups, fields, start, "group_sizes")


def _clusters(instance, components):
    """The components of the factor as clusters, those of more than 3 vertices cut by
    :func:`_split`."""
    groups: list[np.ndarray] = []
    for verts, cycle in components:
        groups.extend([verts] if len(verts) <= 3 else _split(instance, verts, cycle))
    return groups


def _split(instance, verts, cycle):
    """Cut a path or cycle (in walk order, > 3 vertices) into runs of 2 and 3 of least real cost.

    A cycle has a run starting at position 0, 1 or 2 (runs are at most 3 long), so it is solved as
    the best of the three paths obtained by cutting it there.
    """
    n_v = len(verts)
    pos = np.arange(n_v)
    # cost[z][s]: cost of the run of z vertices starting at position s (wrapping on a cycle)
    cost = {}
    for z in (2, 3):
        run = (pos[:, None] + np.arange(z)) % n_v
        c = group_costs(instance, verts[run])
        if not cycle:
            c[n_v - z + 1 :] = np.inf  # a path's runs do not wrap
        cost[z] = c
    best: tuple[float, list[tuple[int, int]] | None] = (np.inf, None)
    for offset in (0, 1, 2) if cycle else (0,):
        value, starts = _path_dp(n_v, lambda s, z, o=offset: cost[z][(s + o) % n_v])
        if value < best[0]:
            best = (value, [((s + offset) % n_v, z) for s, z in starts])
    runs = best[1]
    assert runs is not None  # runs of 2 and 3 cover any path of more than 3 vertices
    return [verts[(s + np.arange(z)) % n_v] for s, z in runs]


def _path_dp(n_v, run_cost):
    """Cheapest cut of positions ``0..n_v-1`` into consecutive runs of 2 or 3."""
    f = np.full(n_v + 1, np.inf)
    f[0] = 0.0
    last = np.zeros(n_v + 1, dtype=np.int64)
    for i in range(2, n_v + 1):
        for z in (2, 3):
            if i >= z and f[i - z] + run_cost(i - z, z) < f[i]:
                f[i] = f[i - z] + run_cost(i - z, z)
                last[i] = z
    starts, i = [], n_v
    while i > 0:
        starts.append((i - last[i], int(last[i])))
        i -= last[i]
    return f[n_v], starts[::-1]
