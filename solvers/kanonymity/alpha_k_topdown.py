"""(alpha, k)-anonymity by top-down local recoding (Wong, Li, Fu and Wang, KDD 2006).

(alpha, k)-anonymity asks every equivalence class to hold at least ``k`` records and a sensitive
value in at most a fraction ``alpha`` of them
(:class:`~anonratio.instances.privacy.AlphaKAnonymity`; Ciriani et al. 2009, Def. 5.2). Wong et
al. give, besides an optimal global recoding, a local-recoding algorithm that works top down:
"starting from a completely generalized table, it selectively specializes the table without
violating (alpha, k)-anonymity" (the survey, §5). The steps, as implemented here:

1. *Top.* Every record is generalized to the top of every hierarchy: one group, the whole
   table. If it fails the models, no release satisfies them ((alpha, k)-anonymity is monotone:
   a class's frequency is a mean of its parts') and the run is ``infeasible``.
2. *Specialize.* A group sits at the lowest common ancestor (LCA) of its records in each
   attribute's hierarchy (local recoding: each group has its own nodes). Specializing attribute
   ``j`` one level splits the group among the children of its LCA node that hold records,
   for this group's records only.
3. *Keep, merge, borrow.* The children that satisfy the models are kept. The records of the
   children that fail are merged into one group that stays at the parent's node. If that group
   still fails, it *borrows* records, one at a time, from the kept children, each time a record
   whose sensitive value lowers the merged group's largest frequency the most (the value it
   holds fewest of), from the largest kept child that still satisfies the models without it.
   When no kept child can give a record, the smallest kept child is merged whole. This ends with
   every group passing: merging every child gives back the parent, which passes.
4. *Choose.* Each attribute not yet at level 0 in the group is tried; the specialization kept
   is the one whose groups have the smallest total cost (the greatest reduction of distortion),
   ties to more groups, then to the first attribute. A specialization that merges everything
   back into one group is not allowable; a group with no allowable specialization is final.
   Groups are specialized independently until all are final.

What could not be retrieved
---------------------------
Only the paper's abstract and the survey's one-sentence summary could be consulted here, not
the algorithm's text. Steps 1, 2 and the keep/merge part of 3 are what both describe (start at
the top, specialize locally one level at a time, keep only children that satisfy (alpha, k),
handle the failing ones together). Chosen here, and documented as such: the borrowing rule
(which value, which donor; donors' records by increasing index), merging whole children when
borrowing cannot proceed, the attribute criterion (the project's cost, which is Wong et al.'s
distortion up to the per-attribute scaling ``w_j / l_j``, the greatest reduction first), and
groups sitting at the LCA of their records (as Mondrian's categorical cuts do) rather than at
the node reached by the specializations, so no specialization is spent on a one-child step.

Privacy
-------
The algorithm enforces ``k``-anonymity, ``AlphaKAnonymity(alpha, k, value)`` (``value=None``:
the frequency of *every* sensitive value, the generalization pycanon implements; an integer:
that code's only, as Wong et al. define it) and any ``privacy`` models given (the publisher
passes the requested ones); an (alpha, k) model among them replaces the default ``alpha``. Any
model is enforced, monotone or not (step 3 ends at the parent), but the borrowing rule targets
the frequency bound; for the other models only merging helps.

References
----------
R. C.-W. Wong, J. Li, A. W.-C. Fu, K. Wang. (alpha, k)-anonymity: an enhanced k-anonymity model
for privacy preserving data publishing. KDD 2006. Journal version: (alpha, k)-anonymous data
publishing, J. Intell. Inf. Syst. 33:209-234, 2009.
V. Ciriani, S. De Capitani di Vimercati, S. Foresti, P. Samarati. Theory of privacy and
anonymity. Algorithms and Theory of Computation Handbook, 2009, §5.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from anonratio.instances import KAnonymityInstance, Solution
from anonratio.instances.kanonymity.instance import member_costs
from anonratio.instances.kanonymity.recoding import Recoding
from anonratio.instances.privacy import AlphaKAnonymity, PrivacyModel
from anonratio.instances.validation import check_instance, check_int, check_seed
from anonratio.solvers.kanonymity.full_domain import privacy_models

__all__ = ["alpha_k_topdown", "requires_sensitive", "DEFAULT_ALPHA"]

ALGORITHM = "alpha-k-topdown"

#: alpha when neither ``alpha`` nor ``privacy`` names one
DEFAULT_ALPHA = 0.5


def requires_sensitive(instance: Any) -> str | None:
    """The registry's ``requires`` check: the instance's table needs a sensitive attribute."""
    if getattr(instance.table, "sensitive", None) is None:
        return "needs a sensitive attribute (`table.sensitive`); the instance's table has none"
    return None


@dataclass(frozen=True)
class _Context:
    """What every step reads: the instance, the sensitive codes and the models to enforce."""

    instance: KAnonymityInstance
    sensitive: np.ndarray
    n_values: int
    models: tuple[PrivacyModel, ...]
    target: AlphaKAnonymity  # the model the borrowing rule lowers
    prior: np.ndarray

    def passes(self, sizes: np.ndarray, hist: np.ndarray) -> np.ndarray:
        """Whether each class (its size and histogram) passes every model."""
        ok = np.ones(sizes.shape, dtype=bool)
        for model in self.models:
            ok &= model.passes(sizes, hist, self.prior)
        return ok

    def histogram(self, rows: np.ndarray) -> np.ndarray:
        return np.bincount(self.sensitive[rows], minlength=self.n_values)


def _lca_levels(ctx: _Context, rows: np.ndarray) -> np.ndarray:
    """The LCA level of the group ``rows`` in each attribute's hierarchy, shape (m,)."""
    codes = ctx.instance.table.codes[rows]
    out = np.zeros(codes.shape[1], dtype=np.int64)
    for j, h in enumerate(ctx.instance.hierarchies):
        g = h.groups[codes[:, j], :-1]
        out[j] = np.count_nonzero(g.max(axis=0) != g.min(axis=0))
    return out


def _borrow(ctx: _Context, hist: np.ndarray, kept: np.ndarray, merged: np.ndarray) -> tuple:
    """Step 3 on counts: the merged group's histogram and, per kept child, the records of each
    value it gives away; children merged whole are dropped from ``kept``.

    Returns ``(kept, given)``: the children still kept and ``given[c, v]``, the records of value
    ``v`` child ``c`` gives to the merged group.
    """
    s = ctx.n_values
    given = np.zeros_like(hist)
    kept = kept.copy()
    eye = np.eye(s, dtype=hist.dtype)
    while not ctx.passes(np.array([merged.sum()]), merged[None, :])[0]:
        donors = np.flatnonzero(kept)
        if donors.size == 0:  # cannot happen: merging every child gives the passing parent
            raise AssertionError("the merged group fails with every child merged")
        left = hist[donors] - given[donors]  # (D, S)
        after = (left[:, None, :] - eye[None, :, :]).reshape(-1, s)
        can = ctx.passes(after.sum(axis=1), after).reshape(donors.size, s) & (left > 0)
        if not can.any():  # merge the smallest kept child whole
            d = donors[np.argmin(left.sum(axis=1))]
            merged = merged + hist[d] - given[d]
            given[d] = hist[d]
            kept[d] = False
            continue
        values = np.flatnonzero(can.any(axis=0))
        trial = merged[None, :] + eye[values]
        measure = ctx.target.measure(trial.sum(axis=1), trial, ctx.prior)
        v = values[np.lexsort((values, merged[values], measure))[0]]
        able = donors[can[:, v]]
        d = able[np.argmax((hist[able] - given[able]).sum(axis=1))]
        given[d, v] += 1
        merged = merged.copy()
        merged[v] += 1
    return kept, given


def _specialize(ctx: _Context, rows: np.ndarray, j: int, level: int) -> list[np.ndarray] | None:
    """The groups of specializing attribute ``j`` of group ``rows`` (at LCA level ``level``) one
    level, after step 3; None when they merge back into one group."""
    h = ctx.instance.hierarchies[j]
    keys = h.groups[ctx.instance.table.codes[rows, j], level - 1]
    _, child = np.unique(keys, return_inverse=True)
    child = child.reshape(-1)
    n_children = int(child.max()) + 1
    sens = ctx.sensitive[rows]
    hist = np.bincount(child * ctx.n_values + sens, minlength=n_children * ctx.n_values)
    hist = hist.reshape(n_children, ctx.n_values)
    ok = ctx.passes(hist.sum(axis=1), hist)
    if ok.all():
        return [rows[child == c] for c in range(n_children)]
    kept, given = _borrow(ctx, hist, ok, hist[~ok].sum(axis=0))
    if np.count_nonzero(kept) == 0:
        return None
    to_merged = ~kept[child]
    for c in np.flatnonzero(kept & (given.sum(axis=1) > 0)):
        for v in np.flatnonzero(given[c]):
            members = np.flatnonzero((child == c) & (sens == v))
            to_merged[members[: given[c, v]]] = True  # the lowest-indexed records of value v
    groups = [rows[to_merged]]
    groups += [rows[(child == c) & ~to_merged] for c in np.flatnonzero(kept)]
    return groups


def _groups_cost(ctx: _Context, groups: list[np.ndarray]) -> float:
    """The verifier's cost of ``groups`` (each at the LCA of its records)."""
    ids = np.repeat(np.arange(len(groups)), [g.size for g in groups])
    return float(member_costs(ctx.instance, ids, np.concatenate(groups), len(groups)).sum())


def _best_specialization(ctx: _Context, rows: np.ndarray) -> list[np.ndarray] | None:
    """Step 4: the allowable specialization of the cheapest groups, or None."""
    best, best_key = None, None
    for j, level in enumerate(_lca_levels(ctx, rows)):
        if level == 0:
            continue
        groups = _specialize(ctx, rows, j, int(level))
        if groups is None:
            continue
        key = (_groups_cost(ctx, groups), -len(groups), j)
        if best_key is None or key < best_key:
            best, best_key = groups, key
    return best


def _topdown(ctx: _Context) -> tuple[np.ndarray, int]:
    """Steps 2-4 from the top: the final groups as labels (by first record) and the number of
    specializations kept."""
    n = ctx.instance.n
    stack, final, steps = [np.arange(n)], [], 0
    while stack:
        rows = stack.pop()
        groups = _best_specialization(ctx, rows)
        if groups is None:
            final.append(rows)
            continue
        steps += 1
        stack.extend(groups)
    final.sort(key=lambda g: int(g.min()))
    labels = np.empty(n, dtype=np.int64)
    for i, g in enumerate(final):
        labels[g] = i
    return labels, steps


def _context(instance, alpha, value, privacy) -> _Context:
    """Validate the options and gather the models to enforce."""
    table = instance.table
    reason = requires_sensitive(instance)
    if reason is not None:
        raise ValueError(f"{ALGORITHM} {reason}")
    n_values = len(table.sensitive_values or ()) or int(table.sensitive.max()) + 1
    value = check_int("value", value, low=0, high=n_values - 1, allow_none=True)
    k_anonymity, *given = privacy_models(instance.k, privacy, table)
    alphas = [p for p in given if isinstance(p, AlphaKAnonymity)]
    own = []
    if alpha is not None or value is not None or not alphas:
        own = [AlphaKAnonymity(DEFAULT_ALPHA if alpha is None else alpha, instance.k, value)]
    models = (k_anonymity, *own, *given)
    prior = np.bincount(table.sensitive, minlength=n_values) / max(instance.n, 1)
    target = (own or alphas)[0]
    return _Context(instance, np.asarray(table.sensitive), n_values, models, target, prior)


def alpha_k_topdown(
    instance: KAnonymityInstance,
    *,
    alpha: float | None = None,
    value: int | None = None,
    privacy: PrivacyModel | Sequence[PrivacyModel] | None = None,
    seed: int | np.random.Generator | None = None,
) -> Solution:
    """(alpha, k)-anonymity by Wong et al.'s top-down local recoding (see the module docstring).

    Parameters
    ----------
    instance : KAnonymityInstance
        Its table needs a sensitive attribute (``table.sensitive``). Hierarchies in force
        (suppression-only under ``model="suppression"``) are the ones specialized.
    alpha : float, optional
        The largest relative frequency of a sensitive value in a class, in ``(0, 1]``; default
        ``DEFAULT_ALPHA`` (0.5), unless ``privacy`` holds an
        :class:`~anonratio.instances.privacy.AlphaKAnonymity` model (and ``value`` is not
        given), which then replaces it: the publisher passes only ``privacy``.
    value : int, optional
        The sensitive code whose frequency ``alpha`` bounds (Wong et al.'s single sensitive
        value); default every value's.
    privacy : PrivacyModel or sequence of them, optional
        Further models to enforce on every class (the publisher passes the requested ones).
    seed : int, numpy.random.Generator or None
        Recorded only: the algorithm is deterministic.

    Returns
    -------
    Solution
        ``labels`` the final groups (``0 .. P-1`` by first record), status ``feasible``, or
        ``infeasible`` with no labels when the whole table fails the models. ``info``:
        ``recoding`` (each group at its LCA, local), ``privacy`` (the models enforced),
        ``max_frequency`` (the largest relative frequency of the bounded sensitive value(s) over
        the groups, from the project's checker), ``n_groups``, ``specializations``, ``scheme``.

    Raises
    ------
    TypeError
        ``instance`` not a KAnonymityInstance, ``privacy`` holding a non-model.
    ValueError
        The table has no sensitive attribute, ``alpha`` outside ``(0, 1]``, ``value`` not a
        sensitive code, a ``privacy`` model needing what the table lacks.

    Notes
    -----
    Guarantee: none for the cost (a heuristic); every group satisfies the models, never a record
    deleted. Assumes nothing of the models (non-monotone ones are enforced by merging). Time:
    each specialization tried costs O(r (m + sum_j l_j)) on a group of ``r`` records, plus
    O(b D S^2) for ``b`` borrowed records from ``D`` children over ``S`` sensitive values; a group
    tries at most ``m`` attributes and the groups form a tree of at most ``n / k`` leaves, so
    O(n m (m + sum_j l_j) depth) without borrowing, depth <= sum_j l_j.
    """
    check_instance(instance, KAnonymityInstance)
    seed = check_seed(seed)
    start = time.perf_counter()
    ctx = _context(instance, alpha, value, privacy)
    whole = ctx.histogram(np.arange(instance.n))
    info: dict[str, Any] = {"privacy": [str(m) for m in ctx.models], "scheme": "local"}
    if not ctx.passes(np.array([instance.n]), whole[None, :])[0]:
        top = ctx.target.measure(np.array([instance.n]), whole[None, :], ctx.prior)
        return Solution(
            None,
            ALGORITHM,
            params=instance.params,
            seed=seed,
            status="infeasible",
            time_s=time.perf_counter() - start,
            info={**info, "max_frequency": float(top[0])},
        )
    labels, steps = _topdown(ctx)
    check = ctx.target.check(labels, ctx.sensitive, n_values=ctx.n_values)
    if not all(m.check(labels, ctx.sensitive, n_values=ctx.n_values).satisfied for m in ctx.models):
        raise AssertionError(f"{ALGORITHM} produced a class failing its models: {check.message}")
    info.update(
        recoding=Recoding.from_partition(instance, labels, method=ALGORITHM),
        max_frequency=float(check.worst),
        n_groups=int(labels.max()) + 1,
        specializations=steps,
    )
    return Solution(
        labels,
        ALGORITHM,
        params=instance.params,
        seed=seed,
        status="feasible",
        time_s=time.perf_counter() - start,
        info=info,
    )
