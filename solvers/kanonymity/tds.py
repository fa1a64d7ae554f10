"""TDS, Top-Down Specialization (Fung, Wang and Yu, ICDE 2005), for k-anonymity.

TDS publishes a *single-dimensional global recoding*: every attribute is recoded by a *cut* of
its taxonomy (a set of taxonomy nodes covering each value exactly once), the same for every
record. It starts from the most general table (every cut the taxonomy's root, one class of all
records) and repeatedly performs the best *specialization*: one node ``v`` of one attribute's cut
replaced by its children, applied to every record generalized to ``v``. A specialization is
*valid* when the privacy requirement still holds after it and *beneficial* when its score is
positive; the best valid and beneficial one is performed until none remains (Algorithm 1 of the
paper, which calls the loop's candidates "valid/beneficial").

The score of a specialization ``v`` (§4.1 of the paper) is

``Score(v) = InfoGain(v) / (AnonyLoss(v) + 1)``

* ``InfoGain(v) = I(T_v) - sum_c |T_c| / |T_v| I(T_c)`` in bits, ``T_v`` the records generalized
  to ``v``, ``T_c`` those going to child ``c`` and ``I`` the entropy of the *class attribute*;
  the class is the table's sensitive attribute (the paper's setting is a classification table;
  Xiao, Yi and Tao, EDBT 2010, §6.2, run TDS with the sensitive attribute in that role);
* ``AnonyLoss(v) = A(T) - A_v(T)``: how much the specialization lowers the table's anonymity
  ``A`` (for k-anonymity the smallest class; one virtual identifier holding every QI attribute,
  so the paper's average over virtual identifiers is this one difference). The ``+ 1`` is the
  authors' code's (``TDPartitioner.cpp``, McGill-DMaS/Privacy-TDS), which avoids a zero divisor.

A table without a sensitive attribute has no class: ``score="distortion"`` (the default there)
replaces ``InfoGain(v)`` by ``|T_v|``, the records whose cell becomes more specific, which is the
authors' code's ``_TD_SCORE_FUNCTION_DISTORTION_BY_ANONYLOSS`` variant.

Where the paper is silent or its structure only serves speed:

* TIPS (Taxonomy Indexed PartitionS) serves speed only; here every round regroups the records
  with numpy (the classes after each candidate specialization are a group-by of (class, child)),
  O(n m log n) a round; ``InfoGain`` depends on ``T_v`` alone and is computed once per node.
  A specialization that is invalid stays invalid (a later specialization only refines the classes
  it would split), so it is never evaluated again, as in the paper.
* Taxonomies are the instance's hierarchies (ARX format); an attribute without one has the
  two-level taxonomy value -> ``*``. A node whose values all lie in one group of the level below
  is the same set as that group and is published as its lowest such group (a chain of single
  children is one node).
* Ties of the score go to the first attribute, then the node with the smallest id (level by
  level, as :func:`~anonratio.instances.kanonymity.recoding.hierarchy_domain` numbers them).
* ``beneficial=False`` also performs zero-score valid specializations (after every positive one),
  so the loop stops only when no valid specialization remains.
* Continuous attributes: the paper grows their taxonomy by information-gain split points; here
  every attribute is categorical with a fixed taxonomy.

The shared loop, :func:`specialize`, takes the privacy requirement as a :class:`Requirement`;
:mod:`anonratio.solvers.ldiversity.tds` runs it with l-eligibility.

References
----------
B. C. M. Fung, K. Wang, P. S. Yu. "Top-Down Specialization for Information and Privacy
Preservation". ICDE 2005, 205-216. (And "Anonymizing Classification Data for Privacy
Preservation", IEEE TKDE 19(5), 2007.)
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from anonratio.instances import KAnonymityInstance, Solution
from anonratio.instances.kanonymity.metrics import generalization_cost
from anonratio.instances.kanonymity.recoding import Recoding, hierarchy_domain, row_ids
from anonratio.instances.table import Hierarchy, Table
from anonratio.instances.validation import check_choice, check_instance, check_seed

__all__ = ["tds", "specialize", "Requirement", "Specialized", "SCORES"]

ALGORITHM = "tds"

#: the numerator of the score: the class attribute's information gain, or ``|T_v|``
SCORES = ("auto", "infogain", "distortion")


@dataclass(frozen=True)
class Requirement:
    """The privacy requirement every class must meet, and the table's anonymity ``A``.

    ``kind="k"``: every class holds at least ``value`` records, ``A`` the smallest class.
    ``kind="l"``: every class is l-eligible (no sensitive value in more than ``1/value`` of it,
    Xiao, Yi and Tao 2010), ``A`` the smallest ``|class| / (largest sensitive count)``.
    """

    kind: str
    value: int

    def passes(self, sizes: np.ndarray, top: np.ndarray) -> np.ndarray:
        """Whether each class (its ``sizes`` and largest sensitive counts ``top``) passes."""
        return sizes >= self.value if self.kind == "k" else self.value * top <= sizes

    def anonymity(self, sizes: np.ndarray, top: np.ndarray) -> np.ndarray:
        """The anonymity of each class, whose minimum is ``A``."""
        return sizes.astype(float) if self.kind == "k" else sizes / np.maximum(top, 1)


@dataclass
class Specialized:
    """The result of :func:`specialize`: the published cut of every record and the steps."""

    cells: np.ndarray  # (n, m) node ids of each attribute's hierarchy_domain
    labels: np.ndarray  # equivalence class of each record
    domains: tuple
    steps: list[dict[str, Any]] = field(default_factory=list)
    evaluated: int = 0
    score: str = "infogain"


class _Taxonomy:
    """One attribute's taxonomy: node ids of :func:`hierarchy_domain`, each node's lowest
    identical node (``canon``) and the current cut (``node`` of each value)."""

    def __init__(self, h: Hierarchy) -> None:
        self.domain, self.offsets = hierarchy_domain(h)
        self.groups = h.groups.astype(np.int64)
        n_values, n_levels = self.groups.shape
        self.levels = self.domain.levels
        canon = np.arange(self.domain.n_nodes)
        for t in range(1, n_levels):  # a group that is one group below is that group
            pairs = np.unique(self.groups[:, t - 1 : t + 1], axis=0)  # (lower, upper)
            upper, count = np.unique(pairs[:, 1], return_counts=True)
            one = pairs[np.isin(pairs[:, 1], upper[count == 1])]
            canon[self.offsets[t] + one[:, 1]] = canon[self.offsets[t - 1] + one[:, 0]]
        self.canon = canon
        root = canon[self.offsets[n_levels - 1]]
        self.node = np.full(n_values, root, dtype=np.int64)

    def children(self) -> np.ndarray:
        """The child node of each value under its current node (``-1`` at a leaf)."""
        level = self.levels[self.node]
        out = np.full(len(self.node), -1, dtype=np.int64)
        inner = np.flatnonzero(level > 0)
        below = level[inner] - 1
        out[inner] = self.canon[self.offsets[below] + self.groups[inner, below]]
        return out

    def label(self, node: int) -> str:
        return self.domain.labels[int(node)]


def _largest_count(group: np.ndarray, s: np.ndarray, n_s: int, n_groups: int) -> np.ndarray:
    """Largest count of one sensitive value in each group."""
    keys, counts = np.unique(group * n_s + s, return_counts=True)
    top = np.zeros(n_groups, dtype=np.int64)
    np.maximum.at(top, keys // n_s, counts)
    return top


def _info_gain(node: np.ndarray, child: np.ndarray, s: np.ndarray, n_s: int):
    """``InfoGain`` (bits) and the exact "gain > 0" of each distinct ``node`` over its records.

    ``IG(v) = sum_{c,s} p(c,s) log2(p(c,s) / (p(c) p(s)))`` within ``T_v``: the entropy drop of
    the class. Positive iff some child's class distribution differs from ``T_v``'s, tested on
    integer counts (``n_cs N != n_c n_s``)."""
    nodes, v = np.unique(node, return_inverse=True)
    _, c = np.unique(child, return_inverse=True)
    n_c_ids = int(c.max()) + 1
    total = np.bincount(v, minlength=len(nodes))
    vs_key = v * n_s + s
    cs_key = (v * n_c_ids + c) * n_s + s
    vc_key = v * n_c_ids + c
    keys, n_cs = np.unique(cs_key, return_counts=True)
    vc = keys // n_s
    vv = vc // n_c_ids
    vs = vv * n_s + keys % n_s
    u_vc, n_vc = np.unique(vc_key, return_counts=True)
    u_vs, n_vs = np.unique(vs_key, return_counts=True)
    nc = n_vc[np.searchsorted(u_vc, vc)]
    ns = n_vs[np.searchsorted(u_vs, vs)]
    big_n = total[vv]
    terms = n_cs / big_n * np.log2(n_cs * big_n / (nc * ns))
    gain = np.bincount(vv, weights=terms, minlength=len(nodes))
    differs = np.bincount(vv, weights=n_cs * big_n != nc * ns, minlength=len(nodes)) > 0
    return nodes, np.maximum(gain, 0.0), differs


def specialize(
    table: Table,
    hierarchies: Sequence[Hierarchy],
    requirement: Requirement,
    *,
    score: str = "auto",
    beneficial: bool = True,
) -> Specialized:
    """Top-down specialization of ``table`` under ``requirement`` (the loop of TDS).

    Parameters
    ----------
    table : Table
        Codes and, for ``score="infogain"`` or l-eligibility, the sensitive attribute.
    hierarchies : sequence of Hierarchy
        The taxonomy of each attribute.
    requirement : Requirement
    score : {"auto", "infogain", "distortion"}
        The score's numerator: the class attribute's ``InfoGain`` (the sensitive attribute),
        ``|T_v|`` or, with ``"auto"``, ``InfoGain`` when the table has a sensitive attribute.
    beneficial : bool
        Only specializations of positive score (the paper); ``False`` also zero-score ones.

    Returns
    -------
    Specialized
    """
    check_instance(table, Table, "table")
    score = check_choice("score", score, SCORES)
    if not isinstance(beneficial, bool | np.bool_):
        raise TypeError(f"`beneficial` must be a bool, got {beneficial!r}")
    if score == "auto":
        score = "infogain" if table.sensitive is not None else "distortion"
    if table.sensitive is None and (score == "infogain" or requirement.kind == "l"):
        raise ValueError(
            f"`score={score!r}` with {requirement.kind}-requirement needs a sensitive attribute "
            "(the class); the table has none"
        )
    codes = table.codes.astype(np.int64)
    n, m = codes.shape
    s = np.zeros(n, np.int64) if table.sensitive is None else table.sensitive.astype(np.int64)
    n_s = int(s.max()) + 1 if n else 1
    tax = [_Taxonomy(h) for h in hierarchies]
    gains: list[dict[int, tuple[float, bool]]] = [{} for _ in range(m)]
    invalid: list[set[int]] = [set() for _ in range(m)]
    steps: list[dict[str, Any]] = []
    evaluated = 0
    radices = [t.domain.n_nodes for t in tax]
    while True:
        cells = [t.node[codes[:, j]] for j, t in enumerate(tax)]
        cls, n_cls = row_ids(cells, radices)
        size = np.bincount(cls, minlength=n_cls)
        top = _largest_count(cls, s, n_s, n_cls) if requirement.kind == "l" else size
        meas = requirement.anonymity(size, top)
        a_before = float(meas.min())
        first = np.zeros(n_cls, dtype=np.int64)
        first[cls] = np.arange(n)  # a record of each class (all share its cells)
        best: tuple[float, int, int] | None = None
        record: dict[str, Any] = {}
        for j, t in enumerate(tax):
            child = t.children()[codes[:, j]]
            node = cells[j]
            rows = np.flatnonzero((child >= 0) & ~np.isin(node, list(invalid[j])))
            if not rows.size:
                continue
            new, inv, nsize = np.unique(
                cls[rows] * t.domain.n_nodes + child[rows], return_inverse=True, return_counts=True
            )
            inv = inv.reshape(-1)
            ntop = _largest_count(inv, s[rows], n_s, len(new)) if requirement.kind == "l" else nsize
            nok, nmeas = requirement.passes(nsize, ntop), requirement.anonymity(nsize, ntop)
            new_node = cells[j][first[new // t.domain.n_nodes]]
            cand, cinv = np.unique(new_node, return_inverse=True)
            ok = np.bincount(cinv, weights=~nok, minlength=len(cand)) == 0
            min_new = np.full(len(cand), np.inf)
            np.minimum.at(min_new, cinv, nmeas)
            # the smallest anonymity among the classes a candidate leaves alone
            class_node = cells[j][first]
            nodes_of_cls, ninv = np.unique(class_node, return_inverse=True)
            node_min = np.full(len(nodes_of_cls), np.inf)
            np.minimum.at(node_min, ninv.reshape(-1), meas)
            order = np.argsort(node_min, kind="stable")
            lowest = nodes_of_cls[order[0]]
            second = node_min[order[1]] if len(order) > 1 else np.inf
            other = np.where(cand == lowest, second, node_min[order[0]])
            loss = a_before - np.minimum(other, min_new)
            invalid[j].update(cand[~ok].tolist())
            evaluated += len(cand)
            gain, positive = _gains(gains[j], cand, node, child, s, n_s, score)
            sc = gain / (loss + 1.0)
            allowed = ok & (positive if beneficial else True)
            for i in np.flatnonzero(allowed):
                key = (float(sc[i]), -j, -int(cand[i]))
                if best is None or key > best:
                    best = key
                    record = {
                        "attribute": table.attributes[j],
                        "node": t.label(cand[i]),
                        "score": float(sc[i]),
                        "gain": float(gain[i]),
                        "anonymity_loss": float(loss[i]),
                    }
        if best is None:
            break
        j, v = -best[1], -best[2]
        t = tax[j]
        under = t.node == v
        t.node[under] = t.children()[under]
        steps.append(record)
    final = [t.node[codes[:, j]] for j, t in enumerate(tax)]
    labels, _ = row_ids(final, radices)
    return Specialized(
        cells=np.array(final, dtype=np.int64).T.reshape(n, m),
        labels=labels,
        domains=tuple(t.domain for t in tax),
        steps=steps,
        evaluated=evaluated,
        score=score,
    )


def _gains(cache, cand, node, child, s, n_s, score):
    """``(gain, gain > 0)`` of each candidate node, from ``cache`` or computed (and cached)."""
    if score == "distortion":
        counts = np.bincount(np.searchsorted(cand, node[np.isin(node, cand)]), minlength=len(cand))
        return counts.astype(float), counts > 0
    todo = np.array([v for v in cand.tolist() if v not in cache], dtype=np.int64)
    if todo.size:
        rows = np.flatnonzero(np.isin(node, todo))
        nodes, gain, differs = _info_gain(node[rows], child[rows], s[rows], n_s)
        for v, g, d in zip(nodes.tolist(), gain.tolist(), differs.tolist(), strict=True):
            cache[v] = (g, d)
    pairs = [cache[v] for v in cand.tolist()]
    return np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs], dtype=bool)


def tds(
    instance: KAnonymityInstance,
    *,
    score: str = "auto",
    beneficial: bool = True,
    seed: int | np.random.Generator | None = None,
) -> Solution:
    """k-anonymity by Top-Down Specialization (Fung, Wang and Yu 2005).

    Parameters
    ----------
    instance : KAnonymityInstance
        The table, ``k`` and the hierarchies in force (its ``model``: under ``"suppression"``
        every taxonomy is value -> ``*``).
    score : {"auto", "infogain", "distortion"}
        ``InfoGain`` of the sensitive attribute as the class (``"auto"`` when the table has
        one), or ``|T_v|`` (see the module docstring).
    beneficial : bool
        Only positive-score specializations (the paper, default), or zero-score ones too.
    seed : int, numpy.random.Generator or None
        Recorded only: TDS is deterministic.

    Returns
    -------
    Solution
        Labels = the classes of the published generalization (global recoding; nothing is
        deleted). ``info``: ``recoding`` (a
        :class:`~anonratio.instances.kanonymity.recoding.Recoding`, scheme ``"global"``),
        ``published_cost`` (its generalization cost), ``cut`` (the published nodes of each
        attribute), ``specializations`` (each step's attribute, node, score, gain and
        anonymity loss), ``candidates_evaluated`` and ``score``.

    Notes
    -----
    No approximation guarantee. At most one round per internal taxonomy node, each
    O(n m log n).
    """
    t0 = time.perf_counter()
    check_instance(instance, KAnonymityInstance, "instance")
    seed_rec = check_seed(seed)
    table = instance.table
    result = specialize(
        table,
        instance.hierarchies,
        Requirement("k", instance.k),
        score=score,
        beneficial=beneficial,
    )
    return Solution(
        labels=result.labels,
        algorithm=ALGORITHM,
        params=dict(instance.params),
        seed=seed_rec,
        status="feasible",
        objective=None,
        time_s=time.perf_counter() - t0,
        info=published_info(table, result),
    )


def published_info(table: Table, result: Specialized) -> dict[str, Any]:
    """The ``info`` of a TDS solution: the recoding, its cut and cost, the cells it publishes
    generalized (``published_stars``: nodes covering more than one value), the steps."""
    rec = Recoding(table, result.domains, result.cells, scheme="global", method=ALGORITHM)
    cut = {}  # the published nodes of each attribute, in the taxonomy's depth-first order
    for j, (a, d) in enumerate(zip(table.attributes, result.domains, strict=True)):
        nodes = np.unique(result.cells[:, j])
        cut[a] = [d.labels[v] for v in nodes[np.argsort(d.lo[nodes], kind="stable")].tolist()]
    return {
        "scheme": "global",
        "recoding": rec,
        "published_cost": generalization_cost(rec),
        "published_stars": sum(
            int(np.count_nonzero(d.size[result.cells[:, j]] > 1))
            for j, d in enumerate(result.domains)
        ),
        "cut": cut,
        "specializations": result.steps,
        "candidates_evaluated": result.evaluated,
        "score": result.score,
    }
