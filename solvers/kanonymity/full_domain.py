"""The generalization lattice of full-domain recoding, shared by Samarati, Incognito, Flash and
Datafly.

A *full-domain* (global) generalization publishes every attribute ``j`` of the whole table at one
level ``L_j`` of its hierarchy; the vectors ``L`` ordered componentwise form the *generalization
lattice* (distance vectors; survey of Ciriani et al. 2009, §3.2.1), of height ``sum_j l_j``.
Records in equivalence classes that fail the privacy model are suppressed (withheld), up to
``MaxSup`` tuples.

Everything here works on *frequency sets* (LeFevre et al. 2005): the distinct generalized tuples
with their counts (and sensitive-value histogram). A node's frequency set is computed from the
table's distinct rows, or *rolled up* from the frequency set of any node below it, which has
fewer rows; it is held as two integer arrays of its size, a representative distinct row and a
count per row (:class:`FrequencySet`), so that many can be kept. The utility of a node
(:data:`NODE_METRICS`) is computed from its frequency set and the attributes' value counts,
equal to the metric of the published table (:mod:`anonratio.instances.kanonymity.metrics`)
without building it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from anonratio.instances.errors import UnsupportedInstanceError
from anonratio.instances.kanonymity.metrics import star_nodes
from anonratio.instances.kanonymity.recoding import Recoding, hierarchy_domain
from anonratio.instances.privacy import KAnonymity, PrivacyModel, TCloseness
from anonratio.instances.table import Hierarchy, Table
from anonratio.instances.validation import check_choice, check_instance
from anonratio.solvers.kanonymity.frequency_keys import (
    BlockKeys,
    distinct_rows,
    factorize,
    gathered_key,
    k_suppressed,
    mixed_key,
)

__all__ = [
    "Lattice",
    "FrequencySet",
    "NODE_METRICS",
    "privacy_models",
    "max_suppressed",
]

#: utilities a lattice search can minimize, each computed from a node's frequency set
NODE_METRICS = (
    "non-uniform-entropy",
    "precision",
    "generalization-cost",
    "discernibility",
    "ncp",
    "stars",
)

#: largest lattice (number of nodes) Samarati and the exhaustive search enumerate
MAX_NODES = 5_000_000


class FrequencySet:
    """The distinct generalized tuples of a node, with their counts, kept as integer arrays.

    Row ``r`` stands for the ``counts[r]`` records whose tuple generalizes, at the node's
    ``levels`` of ``attrs``, to that of the table's distinct row ``rep[r]`` (an index into the
    lattice's base rows, like a snapshot of ARX's history: the tuple itself is not stored, and a
    roll-up reads the base rows' group ids at the new levels). With a sensitive attribute in play
    a row is a distinct (tuple, sensitive value) pair and ``row_class[r]`` is its equivalence
    class, ``0 .. n_classes - 1``; without one every row is its own class.
    """

    __slots__ = ("attrs", "levels", "counts", "rep", "n_classes", "_row_class", "_lattice")

    def __init__(self, attrs, levels, counts, rep, row_class, n_classes, lattice) -> None:
        self.attrs = tuple(attrs)
        self.levels = tuple(levels)
        self.counts = counts
        self.rep = rep
        self.n_classes = int(n_classes)
        self._row_class = row_class
        self._lattice = lattice

    @property
    def row_class(self) -> np.ndarray:
        """The equivalence class of each row."""
        if self._row_class is None:
            return np.arange(len(self.counts))
        return self._row_class

    def column(self, c: int) -> np.ndarray:
        """The group ids of attribute ``attrs[c]`` at its level, one per row."""
        return self._lattice._base_cols[self.attrs[c]][self.levels[c]][self.rep]

    @property
    def sensitive(self) -> np.ndarray:
        """The sensitive code of each row (with a sensitive attribute in play)."""
        return self._lattice._base_sensitive[self.rep]

    @property
    def tuples(self) -> np.ndarray:
        """The distinct rows, shape ``(len(counts), len(attrs) [+ 1])`` (the sensitive code
        last), gathered on each call."""
        cols = [self.column(c) for c in range(len(self.attrs))]
        if self._lattice.sensitive:
            cols.append(self.sensitive)
        if not cols:
            return np.zeros((len(self.counts), 0), dtype=np.int64)
        return np.column_stack(cols)


def privacy_models(
    k: int, privacy: PrivacyModel | Sequence[PrivacyModel] | None, table: Table
) -> tuple[PrivacyModel, ...]:
    """``k``-anonymity plus the given models; ``ValueError`` naming ``privacy`` when one needs a
    sensitive attribute the table lacks or is not a :class:`PrivacyModel`."""
    given = () if privacy is None else (privacy,) if isinstance(privacy, PrivacyModel) else privacy
    models: list[PrivacyModel] = [KAnonymity(k)]
    for p in given:
        if not isinstance(p, PrivacyModel):
            raise TypeError(f"`privacy` must hold PrivacyModel objects, got {type(p).__name__}")
        if p.needs_sensitive and table.sensitive is None:
            raise ValueError(f"`privacy` model {p} needs a sensitive attribute; the table has none")
        models.append(p)
    return tuple(models)


def max_suppressed(max_suppression: float, n: int, row_deletion: bool = True) -> int:
    """``MaxSup``: the number of tuples a suppression limit (a fraction of ``n``) allows.

    Raises ``ValueError`` naming ``max_suppression`` outside ``[0, 1)``, or positive while
    ``row_deletion`` is false (the instance does not allow withholding records).
    """
    try:
        value = float(max_suppression)
    except (TypeError, ValueError):
        raise ValueError(f"`max_suppression` must be a number, got {max_suppression!r}") from None
    if not 0.0 <= value < 1.0:
        raise ValueError(f"`max_suppression` must be in [0, 1), got {max_suppression!r}")
    if value > 0 and not row_deletion:
        raise ValueError(
            f"`max_suppression`={max_suppression!r} suppresses tuples, which needs an instance "
            f"with row_deletion=True"
        )
    return int(np.floor(value * n + 1e-9))


class Lattice:
    """The full-domain generalization lattice of a table under privacy models.

    Parameters
    ----------
    table : Table
    hierarchies : tuple of Hierarchy
        The hierarchy in force per attribute.
    models : tuple of PrivacyModel
        Every class of a published table must pass all of them (or be suppressed).
    max_sup : int
        ``MaxSup``: at most this many tuples may be suppressed.

    Notes
    -----
    Samarati and Incognito prune with the generalization property, so they are correct only for
    models that keep it under suppression (:attr:`PrivacyModel.monotone_with_suppression`, or
    :attr:`~PrivacyModel.monotone` when ``max_sup`` is 0): :meth:`check_models` refuses the
    others. Datafly walks the lattice without pruning and takes any model.

    The suppressed tuples are withheld from the release, so a node's passing classes are checked
    as released: t-closeness, whose reference distribution is the table's, must hold against the
    whole table's distribution (Li et al. 2007) and against that of the released records (what a
    reader of the published file sees); a class failing the latter is suppressed too, until no
    released class fails (:meth:`failing_rows`).
    """

    def __init__(
        self,
        table: Table,
        hierarchies: Sequence[Hierarchy],
        models: Sequence[PrivacyModel],
        max_sup: int,
    ) -> None:
        check_instance(table, Table, "table")
        self.table = table
        self.hierarchies = tuple(hierarchies)
        self.models = tuple(models)
        self.max_sup = int(max_sup)
        self.heights = np.array([h.height for h in self.hierarchies], dtype=np.int64)
        if np.any(self.heights > 127):  # nodes are compared as int8
            j = int(np.argmax(self.heights))
            raise UnsupportedInstanceError(
                f"the hierarchy of attribute {table.attributes[j]!r} has {self.heights[j]} levels; "
                f"the lattice searches take at most 127"
            )
        self.m = table.n_attributes
        self.n = table.n_records
        self.sensitive = any(p.needs_sensitive for p in self.models)
        only = self.models[0] if len(self.models) == 1 else None
        self._k_only = only.k if isinstance(only, KAnonymity) and not self.sensitive else None
        # models whose test reads the distribution of the records: rechecked on the release
        self._released = tuple(p for p in self.models if isinstance(p, TCloseness))
        codes = table.codes.astype(np.int64)
        self.prior: np.ndarray | None
        # a model that needs the sensitive attribute was refused above when the table has none
        if self.sensitive and table.sensitive is not None:
            codes = np.column_stack([codes, table.sensitive.astype(np.int64)])
            self.n_sensitive = len(table.sensitive_values or ())
            self.prior = np.bincount(table.sensitive, minlength=self.n_sensitive) / self.n
        else:
            self.n_sensitive, self.prior = 0, None
        rows, self._inverse, self.base_counts = distinct_rows(codes)  # _inverse: record -> row
        # groups[j][t]: value code -> group id at level t;  n_groups[j][t]: their number
        self.groups = [h.groups.T.astype(np.int64) for h in self.hierarchies]
        self.n_groups = [g.max(axis=1) + 1 for g in self.groups]
        self._radix = [[int(v) for v in n] for n in self.n_groups]  # the same, as Python ints
        # the distinct rows' group ids at every level, computed once: every frequency set reads
        # its rows' tuples here (FrequencySet.rep)
        self._base_cols = [
            [g[t][rows[:, j]] for t in range(len(g))] for j, g in enumerate(self.groups)
        ]
        self._base_sensitive = rows[:, -1] if self.sensitive else None
        self._blocks = BlockKeys(self._base_cols, self._radix)  # the keys of check()
        self._terms: dict[tuple[str, int], np.ndarray] = {}  # _attribute_terms, once each
        self._base_weights = self.base_counts.astype(np.float64)  # what np.bincount reads
        self.checks = 0  # frequency sets evaluated against the models
        self._value_counts = [
            np.bincount(table.codes[:, j], minlength=h.n_values)
            for j, h in enumerate(self.hierarchies)
        ]

    def held_values(self, j: int) -> np.ndarray:
        """The value codes of attribute ``j`` the table holds, increasing."""
        return np.flatnonzero(self._value_counts[j])

    # -- validation -------------------------------------------------------------------------
    def check_models(self, algorithm: str) -> None:
        """Refuse a model a pruning lattice search (Samarati, Incognito) cannot prune with (see
        the class notes): ``UnsupportedInstanceError``, a ``ValueError``."""
        for p in self.models:
            ok = p.monotone_with_suppression if self.max_sup > 0 else p.monotone
            if not ok:
                why = "with tuple suppression" if self.max_sup > 0 else ""
                raise UnsupportedInstanceError(
                    f"`privacy` model {p} is not monotone {why}: {algorithm} needs a model "
                    f"with the generalization property"
                    + ("; use max_suppression=0" if self.max_sup > 0 and p.monotone else "")
                )

    # -- frequency sets ---------------------------------------------------------------------
    def frequency_set(
        self,
        attrs: Sequence[int],
        levels: Sequence[int] | np.ndarray,
        source: FrequencySet | None = None,
    ) -> FrequencySet:
        """The frequency set of ``attrs`` at ``levels``, rolled up from ``source`` (a frequency
        set of a superset of ``attrs`` at levels no higher) or from the table's distinct rows.

        O(u · |attrs|) for the ``u`` rows of the source, with hashing (no sort).
        """
        attrs, levels = tuple(int(a) for a in attrs), tuple(int(t) for t in levels)
        if source is None:
            return self._aggregate(attrs, levels, None, self.base_counts)[0]
        return self._aggregate(attrs, levels, source.rep, source.counts)[0]

    def _aggregate(self, attrs, levels, rep, weights) -> tuple[FrequencySet, np.ndarray]:
        """The frequency set of the base rows ``rep`` (all of them when ``None``) weighted by
        ``weights``, and the row of each input row."""
        cols = [self._base_cols[a][t] for a, t in zip(attrs, levels, strict=True)]
        sens = self._base_sensitive
        if rep is not None:
            cols = [c[rep] for c in cols]
            sens = sens[rep] if sens is not None else None
        radix = [self._radix[a][t] for a, t in zip(attrs, levels, strict=True)]
        qcode, n_classes = factorize(mixed_key(cols, radix, len(weights))[0], span=math.prod(radix))
        row_class = None
        if sens is not None:
            codes, uniq = factorize(qcode * self.n_sensitive + sens, uniques=True)
            row_class = uniq // self.n_sensitive
        else:
            codes = qcode
        counts = np.bincount(codes, weights=weights).astype(np.int64)
        first = np.empty(len(counts), dtype=np.int64)  # a base row of each new row
        first[codes[::-1]] = np.arange(len(codes) - 1, -1, -1) if rep is None else rep[::-1]
        return FrequencySet(attrs, levels, counts, first, row_class, n_classes, self), codes

    def classes(self, fs: FrequencySet) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(class of each row, class sizes, class histograms)`` of a frequency set (the
        histograms count the sensitive codes; no columns without a sensitive attribute)."""
        cls = fs.row_class
        sizes = np.bincount(cls, weights=fs.counts, minlength=fs.n_classes).astype(np.int64)
        if not self.sensitive:
            return cls, sizes, np.zeros((fs.n_classes, 0), dtype=np.int64)
        flat = cls * self.n_sensitive + fs.sensitive
        hist = np.bincount(flat, weights=fs.counts, minlength=fs.n_classes * self.n_sensitive)
        return cls, sizes, hist.astype(np.int64).reshape(fs.n_classes, self.n_sensitive)

    def failing_rows(self, fs: FrequencySet) -> np.ndarray:
        """Whether each row of ``fs`` lies in a class that fails some model."""
        return self._failing(fs)[0]

    def _failing(self, fs: FrequencySet) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(failing rows, class of each row, sizes of the passing classes)``."""
        self.checks += 1
        cls, sizes, hist = self.classes(fs)
        ok = np.ones(len(sizes), dtype=bool)
        for p in self.models:
            ok &= p.passes(sizes, hist, self.prior)
        if self._released and self.max_sup > 0:
            ok = self._check_released(ok, sizes, hist)
        return ~ok[cls], cls, sizes[ok]

    def _check_released(self, ok: np.ndarray, sizes: np.ndarray, hist: np.ndarray) -> np.ndarray:
        """The classes that pass the distribution-reading models against the distribution of
        the released records too, failing classes suppressed until none fails (each round
        suppresses at least one class; stops once more than ``MaxSup`` tuples are suppressed,
        as the node fails then whatever follows)."""
        while int(sizes[~ok].sum()) <= self.max_sup:
            released = hist[ok].sum(axis=0)
            if released.sum() == 0:
                break
            again = ok.copy()
            for p in self._released:
                again &= p.passes(sizes, hist, released / released.sum())
            if np.array_equal(again, ok):
                break
            ok = again
        return ok

    def satisfies(self, fs: FrequencySet) -> bool:
        """Whether the node of ``fs`` needs at most ``MaxSup`` suppressed tuples."""
        if self._k_only is not None:  # k-anonymity alone: every row is its own class
            self.checks += 1
            counts = fs.counts
            return int(counts[counts < self._k_only].sum()) <= self.max_sup
        return int(fs.counts[self.failing_rows(fs)].sum()) <= self.max_sup

    def check(
        self,
        attrs: Sequence[int],
        levels: Sequence[int] | np.ndarray,
        source: FrequencySet | None = None,
        keep: Callable[[bool], float] | bool = True,
    ) -> tuple[bool, FrequencySet | None]:
        """:meth:`satisfies` of the frequency set of ``attrs`` at ``levels`` (rolled up as
        :meth:`frequency_set` does), and that set when ``keep`` is true or when it has at most
        ``keep(satisfies)`` rows, else ``None``.

        Under ``k``-anonymity alone the classes' sizes are counted over the keys of the rows
        without building the set unless it is kept.
        """
        if self._k_only is None:
            fs = self.frequency_set(attrs, levels, source)
            ok = self.satisfies(fs)
            kept = len(fs.counts) <= keep(ok) if callable(keep) else keep
            return ok, fs if kept else None
        self.checks += 1
        attrs = attrs if type(attrs) is tuple else tuple(int(a) for a in attrs)
        levels = tuple(levels.tolist()) if isinstance(levels, np.ndarray) else tuple(levels)
        cols, radix = self._blocks.columns(attrs, levels)
        rep, weights = (None, self._base_weights) if source is None else (source.rep, source.counts)
        key, bound = gathered_key(cols, radix, rep, len(weights))
        max_sup = self.max_sup
        rule = (lambda small: keep(small <= max_sup)) if callable(keep) else keep
        small, first, counts = k_suppressed(key, bound, weights, self._k_only, rule, rep)
        if first is None or counts is None:
            return small <= max_sup, None
        return small <= max_sup, FrequencySet(attrs, levels, counts, first, None, len(counts), self)

    def rollup(
        self, attrs: Sequence[int], levels: Sequence[int] | np.ndarray, source: FrequencySet | None
    ) -> FrequencySet:
        """A frequency set of ``attrs`` at ``levels`` to roll others up from: the rows of
        :meth:`frequency_set`, in an order of their own under ``k``-anonymity alone (built as
        :meth:`check` builds a kept set; not counted among the checks)."""
        if self._k_only is None:
            return self.frequency_set(attrs, levels, source)
        checks = self.checks
        fs = self.check(attrs, levels, source, keep=True)[1]
        self.checks = checks
        assert fs is not None  # keep=True: always built
        return fs

    # -- nodes ------------------------------------------------------------------------------
    def all_nodes(self) -> np.ndarray:
        """Every node of the lattice, shape ``(prod(l_j + 1), m)``, in lexicographic order."""
        size = float(np.prod(self.heights + 1.0))
        if size > MAX_NODES:
            raise UnsupportedInstanceError(
                f"the generalization lattice has {size:.3g} nodes, more than {MAX_NODES:,}: "
                f"use incognito or datafly, or fewer `qi` attributes"
            )
        grids = np.meshgrid(*[np.arange(h + 1) for h in self.heights], indexing="ij")
        return np.column_stack([g.reshape(-1) for g in grids]).astype(np.int64)

    def node_set(self, levels: Sequence[int] | np.ndarray) -> FrequencySet:
        """The frequency set of a full node (all attributes)."""
        return self.frequency_set(range(self.m), levels)

    def recoding(self, levels: Sequence[int] | np.ndarray, method: str) -> Recoding:
        """The published table of a node: the records of failing classes suppressed."""
        lv = tuple(int(t) for t in levels)
        fs, row = self._aggregate(tuple(range(self.m)), lv, None, self.base_counts)
        failing = self.failing_rows(fs)[row[self._inverse]]
        return Recoding.full_domain(
            self.table, levels, failing, hierarchies=self.hierarchies, method=method
        )

    # -- utility ----------------------------------------------------------------------------
    def separable_bounds(self, metric: str, nodes: np.ndarray) -> np.ndarray:
        """A lower bound on ``metric`` at every node of ``nodes``: its value with no tuple
        suppressed, a sum of per-attribute terms (so monotone along the lattice); ``-inf`` for
        discernibility, which has no such form."""
        check_choice("metric", metric, NODE_METRICS)
        if metric == "discernibility":
            return np.full(len(nodes), -np.inf)
        total = np.zeros(len(nodes))
        for j in range(self.m):
            total += self._attribute_terms(metric, j)[nodes[:, j]]
        return total

    def _attribute_terms(self, metric: str, j: int) -> np.ndarray:
        """Per level of attribute ``j``: its share of ``metric`` with no tuple suppressed
        (computed once per lattice; read only)."""
        got = self._terms.get((metric, j))
        if got is None:
            got = self._terms[(metric, j)] = self._compute_terms(metric, j)
        return got

    def _compute_terms(self, metric: str, j: int) -> np.ndarray:
        h, c = self.hierarchies[j], self._value_counts[j]
        levels = np.arange(h.height + 1)
        w = float(self.table.weights[j])
        if metric == "generalization-cost":
            return self.n * w * levels / h.height
        if metric == "precision":
            return levels / h.height / self.m
        if metric == "stars":
            return self.n * self._star_levels(j).astype(float)
        out = np.zeros(h.height + 1)
        d, offsets = hierarchy_domain(h)
        for t in levels:
            g = h.groups[:, t]
            if metric == "non-uniform-entropy":
                cg = np.bincount(g, weights=c)[g]
                nz = c > 0
                out[t] = -np.sum(c[nz] * np.log2(c[nz] / cg[nz]))
            else:  # ncp
                total_w = self.n * self.table.weights.sum()
                out[t] = w * np.sum(c * d.span[offsets[t] + g]) / total_w
        return out

    def _star_levels(self, j: int) -> np.ndarray:
        """Per level of attribute ``j``: whether it publishes a star in every cell (one group
        covering the whole domain, :func:`~anonratio.instances.kanonymity.metrics.star_nodes`:
        the top, or an intermediate level that is already one group)."""
        h = self.hierarchies[j]
        d, offsets = hierarchy_domain(h)
        return star_nodes(d)[offsets[:-1] + h.groups[0, :]]

    def utility(
        self, metric: str, levels: Sequence[int] | np.ndarray, fs: FrequencySet | None = None
    ) -> float:
        """``metric`` of the table published at ``levels`` (failing classes suppressed)."""
        check_choice("metric", metric, NODE_METRICS)
        lv = np.asarray(levels, dtype=np.int64)
        fs = self.node_set(lv) if fs is None else fs
        failing, _, passing_sizes = self._failing(fs)
        n, m, w = self.n, self.m, self.table.weights
        s = int(fs.counts[failing].sum())
        if metric == "discernibility":
            return float(np.sum(passing_sizes.astype(float) ** 2) + s * n)
        base = float(self.separable_bounds(metric, lv[None, :])[0])
        if s == 0:
            return base
        cnt = fs.counts[failing].astype(float)
        extra = 0.0  # what suppressing those rows adds to the unsuppressed value
        for j in range(m):
            h, t = self.hierarchies[j], int(lv[j])
            if metric == "generalization-cost":
                extra += s * w[j] * (1 - t / h.height)
            elif metric == "precision":
                extra += s * (1 - t / h.height) / (n * m)
            elif metric == "stars":
                extra += s * (not self._star_levels(j)[t])
            elif metric == "non-uniform-entropy":
                cg = np.bincount(h.groups[:, t], weights=self._value_counts[j])
                extra += float(cnt @ np.log2(n / cg[fs.column(j)[failing]]))
            else:  # ncp
                d, offsets = hierarchy_domain(h)
                span = d.span[offsets[t] + fs.column(j)[failing]]
                extra += w[j] * float(cnt @ (1 - span)) / (n * w.sum())
        return base + extra


def node_label(lattice: Lattice, levels: Sequence[int] | np.ndarray) -> dict[str, int]:
    """``{attribute: level}`` of a node, for reports."""
    return {a: int(t) for a, t in zip(lattice.table.attributes, levels, strict=True)}
