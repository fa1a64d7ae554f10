"""The 3-SAT gadget of the r-gather hardness proof (Aggarwal et al., PODS 2006, §2.1).

A formula in CNF whose every variable occurs in at most 3 clauses becomes a graph ``G`` such
that r-gather (``r > 6``) on the shortest-path metric of ``G`` has a solution of radius 1 if and
only if the formula is satisfiable; otherwise every solution has radius at least 2. So no
polynomial algorithm is better than a 2-approximation unless P = NP, and the gadget instances
test an algorithm against its factor 2 exactly.

* :class:`Formula`: a CNF formula with a brute-force satisfiability check (``n_vars <= 20``).
* :func:`random_formula`: satisfiable (a planted assignment) or unsatisfiable (forcing chains)
  formulas with clauses of 2 or 3 literals, each variable in at most 3 clauses.
* :func:`sat_gadget`: the r-gather instance of a formula, with a witness clustering of radius
  1 when the formula is satisfiable.
"""

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import shortest_path

from anonratio.instances.clustering.instance import RGatherInstance
from anonratio.instances.validation import (
    SeedLike,
    check_instance,
    check_int,
    check_random_state,
)

__all__ = ["Formula", "MAX_BRUTE_FORCE_VARS", "random_formula", "sat_gadget"]

#: the most variables :meth:`Formula.satisfying_assignment` enumerates (2^20 assignments)
MAX_BRUTE_FORCE_VARS = 20

#: clauses of the unsatisfiable core: (a1 | b)(a1 | ~b) force a1, (~a1 | a2) passes it on,
#: (~a2 | c)(~a2 | ~c) refute a2; variables a1=1, b=2, a2=3, c=4, each in at most 3 clauses
_UNSAT_CORE = ((1, 2), (1, -2), (-1, 3), (-3, 4), (-3, -4))


@dataclass(frozen=True)
class Formula:
    """A CNF formula: ``clauses`` of literals ``+v`` (``x_v``) or ``-v`` (not ``x_v``),
    variables ``1 .. n_vars``.

    Examples
    --------
    >>> Formula(2, ((1, 2), (-1,), (-2,))).satisfiable()
    False
    >>> Formula(2, ((1, 2), (-1,))).satisfying_assignment().tolist()
    [False, True]
    """

    n_vars: int
    clauses: tuple[tuple[int, ...], ...]

    def __post_init__(self) -> None:
        n = check_int("n_vars", self.n_vars, low=1)
        clauses = tuple(tuple(int(x) for x in c) for c in self.clauses)
        for j, c in enumerate(clauses):
            if not c:
                raise ValueError(f"`clauses[{j}]` is empty")
            for lit in c:
                if lit == 0 or abs(lit) > n:
                    raise ValueError(
                        f"`clauses[{j}]` has literal {lit}; literals are +v or -v with "
                        f"v in [1, n_vars={n}]"
                    )
        object.__setattr__(self, "n_vars", n)
        object.__setattr__(self, "clauses", clauses)

    def occurrences(self) -> np.ndarray:
        """How many clauses each variable ``1 .. n_vars`` occurs in (index ``v - 1``)."""
        count = np.zeros(self.n_vars, dtype=np.int64)
        for c in self.clauses:
            count[np.unique(np.abs(c)) - 1] += 1
        return count

    def evaluate(self, assignment: Any) -> bool:
        """Whether the assignment (``n_vars`` booleans, ``x_v`` at index ``v - 1``) satisfies
        every clause."""
        x = np.asarray(assignment, dtype=bool).reshape(-1)
        if x.size != self.n_vars:
            raise ValueError(f"`assignment` must have n_vars = {self.n_vars} entries, got {x.size}")
        return all(any(x[abs(t) - 1] == (t > 0) for t in c) for c in self.clauses)

    def satisfying_assignment(self) -> np.ndarray | None:
        """A satisfying assignment (the first in binary order), or ``None``, by enumerating all
        ``2^n_vars`` assignments, vectorized (``n_vars <= 20``)."""
        n = self.n_vars
        if n > MAX_BRUTE_FORCE_VARS:
            raise ValueError(
                f"brute force needs n_vars <= {MAX_BRUTE_FORCE_VARS}, got n_vars = {n}"
            )
        codes = np.arange(1 << n, dtype=np.int64)
        ok = np.ones(codes.size, dtype=bool)
        for c in self.clauses:
            sat = np.zeros(codes.size, dtype=bool)
            for t in c:
                bit = ((codes >> (abs(t) - 1)) & 1).astype(bool)
                sat |= bit if t > 0 else ~bit
            ok &= sat
        hits = np.flatnonzero(ok)
        if hits.size == 0:
            return None
        return ((int(hits[0]) >> np.arange(n)) & 1).astype(bool)

    def satisfiable(self) -> bool:
        """Whether some assignment satisfies the formula (brute force, ``n_vars <= 20``)."""
        return self.satisfying_assignment() is not None


def _random_clauses(
    rng: np.random.Generator, n_vars: int, n_clauses: int, truth: np.ndarray
) -> list[list[int]]:
    """``n_clauses`` clauses of 2-3 distinct variables, each variable in at most 3 clauses,
    every clause satisfied by ``truth``."""
    size = rng.integers(2, 3, size=n_clauses, endpoint=True)
    size[:] = np.minimum(size, n_vars)
    excess = int(size.sum()) - 3 * n_vars  # shrink clauses until 3 slots per variable suffice
    if excess > 0:
        size[rng.choice(np.flatnonzero(size == 3), size=excess, replace=False)] = 2
    size = np.sort(size)[::-1]  # 3-clauses first
    # which variables fill the slots: each variable at most 3 times, in runs of equal variables
    slots = np.sort(rng.choice(3 * n_vars, size=int(size.sum()), replace=False)) // 3
    slots = rng.permutation(n_vars)[slots]
    clauses: list[list[int]] = [[] for _ in range(n_clauses)]
    if n_clauses >= 3:
        # column by column: a run of <= 3 equal variables lands in distinct clauses
        order = [j for col in range(3) for j in range(n_clauses) if size[j] > col]
        for j, v in zip(order, slots.tolist(), strict=True):
            clauses[j].append(v + 1)
    else:  # at most 2 clauses: every variable fits, draw each clause's variables directly
        for j in range(n_clauses):
            clauses[j] = (rng.choice(n_vars, size=int(size[j]), replace=False) + 1).tolist()
    for c in clauses:
        sign = rng.choice([-1, 1], size=len(c))
        if not any(truth[v - 1] == (s > 0) for v, s in zip(c, sign, strict=True)):
            t = rng.integers(len(c))
            sign[t] = -sign[t]  # the assignment now satisfies the clause
        c[:] = [int(s) * v for v, s in zip(c, sign, strict=True)]
    return clauses


def _shuffled(rng: np.random.Generator, n_vars: int, clauses: list[list[int]]) -> Formula:
    """Rename the variables and flip their polarity at random, shuffle clauses and literals
    (satisfiability and occurrence counts are unchanged)."""
    name = rng.permutation(n_vars) + 1
    flip = rng.choice([-1, 1], size=n_vars)
    out = []
    for j in rng.permutation(len(clauses)):
        c = [int(np.sign(t) * flip[abs(t) - 1] * name[abs(t) - 1]) for t in clauses[j]]
        out.append(tuple(c[i] for i in rng.permutation(len(c))))
    return Formula(n_vars, tuple(out))


def random_formula(
    n_vars: int, n_clauses: int, *, satisfiable: bool = True, seed: SeedLike = None
) -> Formula:
    """A random CNF formula: clauses of 2 or 3 literals, each variable in at most 3 clauses.

    * ``satisfiable=True``: a random assignment is planted and every clause drawn is made true
      by it (one literal flipped when needed). Needs ``n_vars >= 2`` and
      ``2 n_clauses <= 3 n_vars``.
    * ``satisfiable=False``: the core ``(a1 | b)(a1 | ~b)(~a1 | a2)(~a2 | c)(~a2 | ~c)`` (forcing
      ``a1``, then ``a2``, then ``c`` and ``~c``) on 4 variables, plus random satisfiable padding
      clauses on the other variables; then variables are renamed and their polarity flipped at
      random, clauses and literals shuffled. Needs ``n_vars >= 4``, ``n_clauses >= 5``, and
      padding room as above (``n_vars - 4 >= 2`` and ``2 (n_clauses - 5) <= 3 (n_vars - 4)``
      when ``n_clauses > 5``).

    Examples
    --------
    >>> f = random_formula(6, 5, satisfiable=False, seed=0)
    >>> f.satisfiable(), int(f.occurrences().max()) <= 3
    (False, True)
    """
    n_vars = check_int("n_vars", n_vars, low=2)
    n_clauses = check_int("n_clauses", n_clauses, low=1)
    rng = check_random_state(seed)
    if satisfiable:
        if 2 * n_clauses > 3 * n_vars:
            raise ValueError(
                f"`n_clauses` must be at most 3 n_vars / 2 = {3 * n_vars // 2} (each variable in "
                f"at most 3 clauses of >= 2 literals), got {n_clauses}"
            )
        truth = rng.random(n_vars) < 0.5
        return _shuffled(rng, n_vars, _random_clauses(rng, n_vars, n_clauses, truth))
    n_core = len(_UNSAT_CORE)
    check_int("n_vars", n_vars, low=4)
    check_int("n_clauses", n_clauses, low=n_core)
    n_pad, m_pad = n_vars - 4, n_clauses - n_core
    if m_pad and (n_pad < 2 or 2 * m_pad > 3 * n_pad):
        raise ValueError(
            f"`n_clauses` = {n_clauses} leaves {m_pad} padding clauses for {n_pad} free "
            f"variables; an unsatisfiable formula needs n_vars >= 6 and "
            f"n_clauses <= 5 + 3 (n_vars - 4) / 2 when n_clauses > 5"
        )
    clauses = [list(c) for c in _UNSAT_CORE]
    if m_pad:
        pad = _random_clauses(rng, n_pad, m_pad, rng.random(n_pad) < 0.5)
        clauses += [[int(np.sign(t)) * (abs(t) + 4) for t in c] for c in pad]
    return _shuffled(rng, n_vars, clauses)


def _gadget_graph(formula: Formula, r: int) -> tuple[sp.csr_matrix, dict[str, Any]]:
    """The graph of §2.1 and the index of every node: variable ``i`` (0-based) owns nodes
    ``i r`` (``v_i^T``), ``i r + 1`` (``v_i^F``) and ``i r + 2 .. i r + r - 1`` (``S_i``); clause
    ``j`` is node ``n_vars r + j``."""
    n, m = formula.n_vars, len(formula.clauses)
    base = np.arange(n) * r
    true, false = base, base + 1
    s_nodes = base[:, None] + 2 + np.arange(r - 2)[None, :]
    clause = n * r + np.arange(m)
    lits = [np.asarray(c, dtype=np.int64) for c in formula.clauses] or [np.zeros(0, np.int64)]
    lit_var = np.abs(np.concatenate(lits)) - 1
    lit_pos = np.concatenate(lits) > 0
    lit_clause = np.repeat(clause, [len(c) for c in formula.clauses])
    src = np.concatenate(
        [true, np.repeat(true, r - 2), np.repeat(false, r - 2), lit_clause]
    ).astype(np.int64)
    dst = np.concatenate(
        [
            false,
            s_nodes.reshape(-1),
            s_nodes.reshape(-1),
            np.where(lit_pos, true[lit_var], false[lit_var]),
        ]
    ).astype(np.int64)
    size = n * r + m
    graph = sp.csr_matrix((np.ones(src.size), (src, dst)), shape=(size, size))
    roles = {
        "true_nodes": true.tolist(),
        "false_nodes": false.tolist(),
        "s_nodes": s_nodes.tolist(),
        "clause_nodes": clause.tolist(),
    }
    return graph, roles


def sat_gadget(formula: Formula, *, r: int = 7) -> tuple[RGatherInstance, dict[str, Any]]:
    """The r-gather instance of §2.1: radius 1 if and only if ``formula`` is satisfiable.

    Per variable ``x_i`` two adjacent nodes ``v_i^T`` and ``v_i^F`` and a set ``S_i`` of
    ``r - 2`` nodes adjacent to both; per clause ``C_j`` a node ``u_j`` adjacent to the nodes of
    its literals. Distances are shortest paths (``scipy.sparse.csgraph.shortest_path``).

    With ``r > 6`` (required: ``r >= 7``) a cluster of radius 1 centered at ``v`` lies in the
    closed neighbourhood ``N[v]``: a clause node (``|N[u_j]| <= 4``) or an ``S_i`` node
    (``|N| = 3``) cannot be a center, ``v_i^T`` and ``v_i^F`` cannot both be (``|N[v_i^T] u
    N[v_i^F]| <= r + 6 < 2r``) while one must be (``S_i`` is only adjacent to them), and each
    ``u_j`` needs a center among its literals: the centers are a satisfying assignment.
    Conversely an assignment gives the clustering of ``meta["witness_*"]``.

    Nodes of different connected components (e.g. a variable in no clause) are put at distance
    ``D = max(2, largest finite distance)``. This keeps a metric: ``d(i, j) <= d(i, m) +
    d(m, j)`` holds inside a component (shortest paths); if ``i, j`` are in different components
    then ``m`` is outside one of them, so the right side is ``>= D = d(i, j)``; and if ``i, j``
    share a component but ``m`` does not, the right side is ``2D >= D >= d(i, j)``. Since ``D >
    1`` the pairs at distance ``<= 1`` are exactly the edges of ``G``, so "radius 1 iff
    satisfiable" is unchanged, and all distances are integers, so an unsatisfiable formula
    forces radius ``>= 2``.

    Parameters
    ----------
    formula : Formula
        Satisfiability is decided by brute force, so ``n_vars <= 20``.
    r : int
        The r-gather parameter, ``>= 7``.

    Returns
    -------
    instance : RGatherInstance
        ``metric="precomputed"``, ``n = n_vars r + n_clauses``.
    meta : dict
        ``satisfiable``; ``lower_bound`` (1.0, or 2.0 when unsatisfiable); ``optimum`` (1.0,
        satisfiable only); the node roles ``true_nodes``, ``false_nodes``, ``s_nodes``,
        ``clause_nodes``; when satisfiable ``assignment``, ``witness_labels`` and
        ``witness_centers`` (one cluster per variable, centered at ``v_i^T`` if ``x_i`` else
        ``v_i^F``, holding ``v_i^T``, ``v_i^F``, ``S_i`` and the clauses assigned to it).

    Examples
    --------
    >>> inst, meta = sat_gadget(Formula(3, ((1, -2), (2, 3, -1))), r=7)
    >>> inst.n, meta["satisfiable"], meta["optimum"]
    (23, True, 1.0)
    """
    formula = check_instance(formula, Formula, "formula")
    r = check_int("r", r, low=7)
    graph, roles = _gadget_graph(formula, r)
    dist = shortest_path(graph, method="D", directed=False, unweighted=True)
    finite = np.isfinite(dist)
    far = max(2.0, float(dist[finite].max()))
    dist[~finite] = far
    inst = RGatherInstance(dist, r=r, metric="precomputed")
    assignment = formula.satisfying_assignment()
    meta: dict[str, Any] = {
        "family": "r-gather-3sat",
        "n_vars": formula.n_vars,
        "clauses": [list(c) for c in formula.clauses],
        "r": r,
        "satisfiable": assignment is not None,
        "lower_bound": 1.0 if assignment is not None else 2.0,
        "far_distance": far,
        **roles,
    }
    if assignment is not None:
        meta["optimum"] = 1.0
        meta.update(_witness(formula, r, assignment, roles))
    return inst, meta


def _witness(
    formula: Formula, r: int, assignment: np.ndarray, roles: dict[str, Any]
) -> dict[str, Any]:
    """The radius-1 clustering of a satisfying assignment: cluster ``i`` per variable."""
    labels = np.repeat(np.arange(formula.n_vars), r)
    clause_label = [
        next(abs(t) - 1 for t in c if assignment[abs(t) - 1] == (t > 0)) for c in formula.clauses
    ]
    labels = np.concatenate([labels, np.asarray(clause_label, dtype=np.int64)])
    centers = np.where(assignment, roles["true_nodes"], roles["false_nodes"])
    return {
        "assignment": assignment.tolist(),
        "witness_labels": labels.tolist(),
        "witness_centers": centers.tolist(),
    }
