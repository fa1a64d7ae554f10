"""Local search over a k-anonymity partition: the best-known solution from FOREST's and the box
greedy's.

A heuristic without a guarantee of its own, beyond never being worse than FOREST. It has two
starts: FOREST's partition (cost at most max(2k − 1, 3k − 5) · OPT, Aggarwal et al. 2005) and the
box greedy's (:mod:`~anonratio.solvers.kanonymity.box_greedy`, where the generalization lattice
has at most ``MAX_NODES`` nodes and the greedy ends within the time limit). From the cheaper
first, then from the other while the time lasts, three moves improve the partition until none
does; the cheapest result is returned. On tables with hierarchies the box greedy's start is far
the cheaper (UCI Adult, k = 5: 21,805 against FOREST's 35,862; a generated table of 10^5
records: 338,576 against 595,248), and the moves end far lower from it than from FOREST's
(432,382 on that table); on small tables either descent may end lower, so both run.

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

from anonratio.instances import KAnonymityInstance, Solution, verify
from anonratio.instances.kanonymity.instance import member_costs
from anonratio.instances.validation import check_instance, check_number, check_seed
from anonratio.solvers.kanonymity.box_greedy import box_greedy_until, unsupported
from anonratio.solvers.kanonymity.exchange import MAX_UNION, best_pair_splits
from anonratio.solvers.kanonymity.forest import forest
from anonratio.solvers.kanonymity.group_objective import labels_cost

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
    start: Solution | np.ndarray | None = None,
) -> Solution:
    """The cheapest partition the moves reach from FOREST's and from the box greedy's, the
    cheaper start first, within the time limit (module docstring).

    Parameters
    ----------
    instance : KAnonymityInstance
    seed : int, numpy.random.Generator or None
        Passed to FOREST (recorded; the box greedy and the search are deterministic).
    time_limit : float
        Seconds (> 0) for the whole search, from its start: FOREST always runs, the box greedy
        only until the limit (checked at every lattice node), then the descents, checked
        between rounds, so a round may run past it. The first descent always runs; the second
        only while time is left.
    start : Solution or array of int, optional
        A feasible partition to descend from instead of the two starts (e.g. to study the
        moves): the result is then never worse than it, and FOREST's guarantee no longer
        applies.

    Returns
    -------
    Solution
        ``status="feasible"``; ``objective`` the partition's cost, never above FOREST's (nor
        ``start``'s); ``lower_bound`` FOREST's (the nearest-neighbour bound; None with
        ``start``); ``info``: ``start``, the start of the partition returned (``"forest"``,
        ``"box-greedy"`` or ``"given"``), ``start_cost`` (that start's cost), ``descended`` (the
        starts descended from, in order), ``forest_cost``, ``box_greedy_cost`` (None when the
        lattice is too large or the time limit came first; both None with ``start``), and
        ``rounds``, ``relocations``, ``splits``, ``exchanges`` over both descents.

    Raises
    ------
    ValueError
        If ``time_limit <= 0`` or ``start`` is not a feasible partition of ``instance``.

    Notes
    -----
    The starts: FOREST, and the box greedy in ``O(N_L m u)`` (``N_L`` lattice nodes). A
    relocation round prices ``O(n k)`` candidates, each over the two groups' members: O(n k²
    m l) per round for groups of O(k) records; a split tries ``m`` orders and every cut; an
    exchange round prices ``O(n k)`` pairs of groups, each in ``O(2^s m)`` for a union of ``s``
    records (``s <= 18``).

    References
    ----------
    G. Aggarwal et al., "Approximation Algorithms for k-Anonymity", 2005, §4 (the start).
    """
    check_instance(instance, KAnonymityInstance)
    recorded = check_seed(seed)
    time_limit = check_number("time_limit", time_limit, low=0, closed="neither")
    given = _check_start(instance, start)
    t0 = time.perf_counter()
    deadline = t0 + time_limit
    forest_cost = greedy_cost = bound = None
    if given is None:
        first = forest(instance, seed=seed)
        starts = [_as_start("forest", first)]
        forest_cost, bound = first.objective, first.lower_bound
        greedy = None if unsupported(instance) else box_greedy_until(instance, deadline, seed=seed)
        if greedy is not None:
            greedy_cost = greedy.objective
            starts.append(_as_start("box-greedy", greedy))
        starts.sort(key=lambda s: s[2])  # the cheaper first (stable: FOREST on a tie)
    else:
        starts = [("given", *given)]
    best, counts = None, dict.fromkeys(("rounds", "relocations", "splits", "exchanges"), 0)
    descended: list[str] = []
    for name, labels, cost in starts:
        if descended and time.perf_counter() >= deadline:
            break  # the first start is always descended
        labels, moves = _descend(instance, np.array(labels, dtype=np.int64), deadline)
        descended.append(name)
        for key, value in moves.items():
            counts[key] += value
        objective = labels_cost(instance, labels)
        if best is None or objective < best[1]:
            best = (labels, objective, name, cost)
    assert best is not None
    labels, objective, start_name, start_cost = best
    return Solution(
        labels,
        ALGORITHM,
        params=instance.params,
        seed=recorded,
        status="feasible",
        objective=objective,
        lower_bound=bound,
        time_s=time.perf_counter() - t0,
        info={
            "start": start_name,
            "start_cost": start_cost,
            "descended": descended,
            "forest_cost": forest_cost,
            "box_greedy_cost": greedy_cost,
            **counts,
        },
    )


def _descend(instance, labels, deadline):
    """The moves from ``labels`` (changed in place) until none improves or ``deadline`` passes:
    ``(labels, counts of rounds and moves)``."""
    n_groups = int(labels.max()) + 1 if (labels >= 0).any() else 0
    rounds = relocations = splits = exchanges = 0
    dirty = np.ones(n_groups, dtype=bool)  # groups whose exchanges are priced next
    exchanging = False
    while time.perf_counter() < deadline:
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
            swapped, dirty = _exchanges(instance, labels, n_groups, dirty, deadline=deadline)
        relocations += moved
        splits += split
        exchanges += swapped
        if moved + split + swapped == 0:
            break
    moves = dict(rounds=rounds, relocations=relocations, splits=splits, exchanges=exchanges)
    return labels, moves


def _check_start(instance, start):
    """``(labels, cost)`` of a given start (None for none); ``ValueError`` unless feasible."""
    if start is None:
        return None
    labels = start.labels if isinstance(start, Solution) else start
    if labels is None:
        raise ValueError("`start` must be a Solution with labels or a labels array, got none")
    check = verify(instance, np.asarray(labels), strict=False)
    if not check.feasible or check.cost is None:
        raise ValueError(f"`start` must be a feasible partition: {check.violations[0]}")
    return np.asarray(labels, dtype=np.int64), float(check.cost)


def _as_start(name: str, solution: Solution) -> tuple[str, np.ndarray, float]:
    """``(name, labels, cost)`` of a heuristic's solution (both always set) as a start."""
    assert solution.labels is not None and solution.objective is not None
    return name, solution.labels, solution.objective
