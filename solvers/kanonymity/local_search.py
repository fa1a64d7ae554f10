"""Local search over a k-anonymity partition: the best-known solution from FOREST's.

A heuristic without a guarantee of its own, beyond never being worse than its start: it starts
from FOREST's partition (cost at most max(2k − 1, 3k − 5) · OPT, Aggarwal et al. 2005) and
improves it by three moves until none improves or the time limit passes.

* **Relocate** a record from a group of more than ``k`` records to the group of one of its
  ``k − 1`` nearest neighbours, when the two groups' costs fall. All candidate moves of a round
  are priced in one vectorized pass (:func:`member_costs` over every candidate group), and a
  set of improving moves that touch disjoint groups is applied, best first.
* **Split** a group of ``2k`` records or more into two of at least ``k``: its records sorted
  lexicographically in each attribute order, the best cut of each order kept if it lowers the
  cost. (Merging two groups never lowers the generalization cost: the union's box holds each.)
* **Exchange** between two neighbouring groups (a record of one has a record of the other among its
  ``2k − 1`` nearest neighbours): their union is re-split exactly into the cheapest two parts of at
  least ``k`` (:func:`~anonratio.solvers.kanonymity.exchange.best_pair_splits`), which covers every
  relocation and swap between them. Exchanges are dearer, so they join the rounds only once
  relocations and splits find nothing (the partition the two reach alone comes first), each round
  pricing the pairs with a group changed since the last; unions above 18 records (every pair once
  ``k >= 10``) are left alone.

Deleted records (row deletion) stay deleted. The cost of a group is ``|g| sum_j w_j L_gj / l_j``,
the verifier's.
"""

from __future__ import annotations

import time

import numpy as np
from anonratio.instances import KAnonymityInstance, Solution
from anonratio.instances.kanonymity.instance import member_costs
from anonratio.instances.validation import check_instance, check_number, check_seed
from anonratio.solvers.kanonymity.exchange import MAX_UNION, best_pair_splits
from anonratio.solvers.kanonymity.forest import forest

__all__ = ["local_search"]

ALGORITHM = "kanon-local-search"
#: exchanges are priced between the groups of a record and of its NEIGHBORS k − 1 nearest
NEIGHBORS = 2
#: pairs of groups priced between two looks at the clock
_BATCH = 2000


def _members(labels: np.ndarray, n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """Records sorted by group and each group's start (``starts[g] .. starts[g + 1]``)."""
    keep = np.flatnonzero(labels >= 0)
    order = keep[np.argsort(labels[keep], kind="stable")]
    starts = np.searchsorted(labels[order], np.arange(n_groups + 1))
    return order, starts


def _expand(order: np.ndarray, starts: np.ndarray, groups: np.ndarray) -> tuple[np.ndarray, ...]:
    """Membership pairs ``(i, record)`` of every record of ``groups[i]``."""
    size = starts[groups + 1] - starts[groups]
    rep = np.repeat(np.arange(len(groups)), size)
    offset = np.arange(len(rep)) - np.repeat(np.cumsum(size) - size, size)
    return rep, order[np.repeat(starts[groups], size) + offset]


def _relocations(instance: KAnonymityInstance, labels: np.ndarray, n_groups: int) -> int:
    """One round of relocations; the number applied."""
    k = instance.k
    order, starts = _members(labels, n_groups)
    sizes = np.diff(starts)
    cost = member_costs(instance, labels[order], order, n_groups)
    unique, inverse, _ = instance.unique_records
    index = instance.neighbor_table(k - 1)[0]
    # candidates (record r, target group b): the groups of r's nearest neighbours' records
    movable = np.flatnonzero((labels >= 0) & (sizes[np.maximum(labels, 0)] > k))
    if len(movable) == 0:
        return 0
    first_of = np.full(len(unique), -1)
    first_of[inverse[::-1]] = np.arange(len(labels))[::-1]  # one record per unique row
    near = first_of[index[inverse[movable]]]
    r = np.repeat(movable, near.shape[1])
    b = labels[near.ravel()]
    ok = (b >= 0) & (b != labels[r])
    r, b = r[ok], b[ok]
    pair = np.unique(r * n_groups + b)
    r, b = pair // n_groups, pair % n_groups
    if len(r) == 0:
        return 0
    a = labels[r]
    # cost of a without r: a's members minus r
    rep, member = _expand(order, starts, a)
    keep = member != r[rep]
    without = member_costs(instance, rep[keep], member[keep], len(r))
    # cost of b with r
    rep, member = _expand(order, starts, b)
    with_r = member_costs(instance, np.r_[rep, np.arange(len(r))], np.r_[member, r], len(r))
    gain = cost[a] + cost[b] - without - with_r
    tol = 1e-9 * (1.0 + float(cost.sum()))
    best = np.flatnonzero(gain > tol)
    best = best[np.argsort(-gain[best], kind="stable")]
    touched = np.zeros(n_groups, dtype=bool)
    applied = 0
    for i in best:
        if touched[a[i]] or touched[b[i]]:
            continue
        touched[a[i]] = touched[b[i]] = True
        labels[r[i]] = b[i]
        applied += 1
    return applied


def _split(instance: KAnonymityInstance, members: np.ndarray) -> np.ndarray | None:
    """The best cut of ``members`` (>= 2k records) into two parts of >= k, over sorted orders
    of the codes; ``None`` unless it is cheaper than the group."""
    k, m = instance.k, instance.table.codes.shape[1]
    codes = instance.table.codes[members]
    whole = float(member_costs(instance, np.zeros(len(members), dtype=np.int64), members, 1)[0])
    cuts = np.arange(k, len(members) - k + 1)
    best, best_part = whole, None
    for shift in range(m):
        keys = [codes[:, (shift + j) % m] for j in range(m)][::-1]
        order = members[np.lexsort(keys)]
        # every cut at once: part 1 = order[:c], part 2 = order[c:]
        group = 2 * np.arange(len(cuts))[:, None] + (np.arange(len(order)) >= cuts[:, None])
        group = group.ravel()
        rows = np.tile(order, len(cuts))
        cost = member_costs(instance, group, rows, 2 * len(cuts)).reshape(-1, 2).sum(axis=1)
        i = int(np.argmin(cost))
        if cost[i] < best - 1e-9 * (1.0 + whole):
            best, best_part = float(cost[i]), order[cuts[i] :]
    return best_part


def _pairs(instance: KAnonymityInstance, labels: np.ndarray, n_groups: int, dirty: np.ndarray):
    """Neighbouring group pairs ``(a, b)``, ``a < b``, with a group in ``dirty`` (bool per
    group): a record of one has a record of the other among its ``2k − 1`` nearest neighbours."""
    unique, inverse, _ = instance.unique_records
    index = instance.neighbor_table(NEIGHBORS * instance.k - 1)[0]
    first_of = np.full(len(unique), -1)
    first_of[inverse[::-1]] = np.arange(len(labels))[::-1]
    keep = np.flatnonzero(labels >= 0)
    near = first_of[index[inverse[keep]]]
    a = np.repeat(labels[keep], near.shape[1])
    b = labels[near.ravel()]
    ok = (b >= 0) & (a != b)
    a, b = np.minimum(a[ok], b[ok]), np.maximum(a[ok], b[ok])
    pair = np.unique(a * n_groups + b)
    a, b = pair // n_groups, pair % n_groups
    ok = dirty[a] | dirty[b]
    return a[ok], b[ok]


def _exchanges(
    instance: KAnonymityInstance,
    labels: np.ndarray,
    n_groups: int,
    dirty: np.ndarray,
    deadline: float = np.inf,
):
    """One round of exchanges (module docstring) on the pairs touching ``dirty`` groups; past
    ``deadline`` (a ``perf_counter`` reading) no further batch of pairs is priced, and the
    exchanges found so far are applied.

    Returns the number applied and the groups they changed (bool per group). Both parts of a
    split hold at least ``k`` records, so no group empties."""
    order, starts = _members(labels, n_groups)
    sizes = np.diff(starts)
    cost = member_costs(instance, labels[order], order, n_groups)
    a, b = _pairs(instance, labels, n_groups, dirty)
    union = sizes[a] + sizes[b]
    ok = union <= MAX_UNION
    a, b, union = a[ok], b[ok], union[ok]
    tol = 1e-9 * (1.0 + float(cost.sum()))
    found = []  # (gain, a, b, members, first part)
    batches = [
        i[lo : lo + _BATCH]
        for s in np.unique(union)
        for i in [np.flatnonzero(union == s)]
        for lo in range(0, len(i), _BATCH)
    ]
    for i in batches:
        if time.perf_counter() > deadline:
            break
        s = int(union[i[0]])
        ra, ma = _expand(order, starts, a[i])
        rb, mb = _expand(order, starts, b[i])
        members = np.empty((len(i), s), dtype=np.int64)
        col_a = np.arange(len(ra)) - np.repeat(np.cumsum(sizes[a[i]]) - sizes[a[i]], sizes[a[i]])
        col_b = np.arange(len(rb)) - np.repeat(np.cumsum(sizes[b[i]]) - sizes[b[i]], sizes[b[i]])
        members[ra, col_a] = ma
        members[rb, sizes[a[i]][rb] + col_b] = mb
        new, part = best_pair_splits(instance, members)
        gain = cost[a[i]] + cost[b[i]] - new
        for t in np.flatnonzero(gain > tol):
            found.append((float(gain[t]), int(a[i][t]), int(b[i][t]), members[t], part[t]))
    found.sort(key=lambda f: -f[0])
    touched = np.zeros(n_groups, dtype=bool)
    applied = 0
    for _, ga, gb, members, part in found:
        if touched[ga] or touched[gb]:
            continue
        touched[ga] = touched[gb] = True
        labels[members[part]] = ga
        labels[members[~part]] = gb
        applied += 1
    return applied, touched


def local_search(
    instance: KAnonymityInstance,
    *,
    seed: int | np.random.Generator | None = None,
    time_limit: float = 60.0,
) -> Solution:
    """Improve FOREST's partition by relocations, splits and exchanges (module docstring).

    Parameters
    ----------
    instance : KAnonymityInstance
    seed : int, numpy.random.Generator or None
        Passed to FOREST (recorded; the search itself is deterministic).
    time_limit : float
        Seconds (> 0); checked between rounds, so a round may run past it.

    Returns
    -------
    Solution
        ``status="feasible"``; ``objective`` the partition's cost, never above FOREST's;
        ``info``: ``start_cost`` (FOREST's), ``rounds``, ``relocations``, ``splits``,
        ``exchanges``.

    Notes
    -----
    A relocation round prices ``O(n k)`` candidates, each over the two groups' members: O(n k²
    m l) per round for groups of O(k) records; a split tries ``m`` orders and every cut; an
    exchange round prices ``O(n k)`` pairs of groups, each in ``O(2^s m)`` for a union of ``s``
    records (``s <= 18``).

    References
    ----------
    G. Aggarwal et al., "Approximation Algorithms for k-Anonymity", 2005, §4 (the start).
    """
    check_instance(instance, KAnonymityInstance)
    check_seed(seed)
    time_limit = check_number("time_limit", time_limit, low=0, closed="neither")
    start = time.perf_counter()
    first = forest(instance, seed=seed)
    labels = np.array(first.labels, dtype=np.int64)
    n_groups = int(labels.max()) + 1 if (labels >= 0).any() else 0
    rounds = relocations = splits = exchanges = 0
    dirty = np.ones(n_groups, dtype=bool)  # groups whose exchanges are priced next
    exchanging = False
    while time.perf_counter() - start < time_limit:
        rounds += 1
        before = labels.copy()
        moved = _relocations(instance, labels, n_groups)
        split = 0
        order, starts = _members(labels, n_groups)
        for g in np.flatnonzero(np.diff(starts) >= 2 * instance.k):
            part = _split(instance, order[starts[g] : starts[g + 1]])
            if part is not None:
                labels[part] = n_groups
                n_groups += 1
                split += 1
        dirty = np.r_[dirty, np.ones(n_groups - len(dirty), dtype=bool)]
        changed = labels != before
        dirty[np.r_[labels[changed], before[changed]]] = True  # deleted records stay deleted
        swapped = 0
        exchanging = exchanging or moved + split == 0  # once the cheap moves ran dry
        if exchanging:
            swapped, dirty = _exchanges(
                instance, labels, n_groups, dirty, deadline=start + time_limit
            )
        relocations += moved
        splits += split
        exchanges += swapped
        if moved + split + swapped == 0:
            break
    order, starts = _members(labels, n_groups)
    objective = float(member_costs(instance, labels[order], order, n_groups).sum())
    deleted = int((labels < 0).sum())
    return Solution(
        labels,
        ALGORITHM,
        params=instance.params,
        seed=first.seed,
        status="feasible",
        objective=objective + deleted * instance.deletion_cost,
        lower_bound=first.lower_bound,
        time_s=time.perf_counter() - start,
        info={
            "start_cost": first.objective,
            "rounds": rounds,
            "relocations": relocations,
            "splits": splits,
            "exchanges": exchanges,
        },  # fmt: skip
    )
