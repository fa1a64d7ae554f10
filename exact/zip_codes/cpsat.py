"""Exact connected partition of a planar graph with CP-SAT (Du et al. 2009, §2).

Each part is modelled as a tree of the graph rooted at the part's smallest node; the parts'
weights are computed by a flow that every node sends to its root. With ``A`` the arcs ``u -> v``
of both orientations of every edge:

* ``a[u, v]`` (bool): ``u`` is the parent of ``v`` in its part's tree; ``root[v]`` (bool): ``v``
  is a part's root. Every node has one parent or is a root: ``root[v] + sum_u a[u, v] = 1``.
* ``lab[v]`` in ``[0, v]``: the part's root; ``a[u, v] => lab[v] = lab[u]``,
  ``root[v] => lab[v] = v``. Since ``lab[v] <= v``, the root is the part's smallest node
  (symmetry breaking), and ``lab`` is the solution's labels.
* ``g[u, v]`` in ``[0, T]``, zero unless ``a[u, v]``: the weight of ``v``'s subtree; conservation
  ``sum_in g + P[v] = w_v + sum_out g`` with ``P[v]`` (the part weight at a root, 0 elsewhere)
  in ``{0} ∪ [k, T]``, ``P[v] <= T root[v]``, ``P[v] >= k root[v]``. ``T`` is an upper bound
  on the optimum (``S``, a hint's cost or a given ``upper_bound``).
* Connectivity: parent arcs must not close a cycle. Summing the weight conservation over a
  rootless cycle component gives ``sum w = 0``, so the weight flow alone excludes cycles unless
  nodes of weight 0 exist. ``connectivity="flow"`` then adds a unit flow (``h[u, v]``: nodes in
  ``v``'s subtree, ``sum_in h + C[v] = 1 + sum_out h``, ``C[v] <= n root[v]``);
  ``connectivity="depth"`` adds depths instead (``a[u, v] => depth[v] = depth[u] + 1``).
* Objective: minimize ``M >= P[v]`` for all ``v``, with ``M >=`` the instance lower bound;
  redundant ``sum_v P[v] = S``, ``p = sum_v root[v] <= floor(S / k)`` and ``p M >= S``.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from time import perf_counter
from typing import Any

import numpy as np
from ortools.sat.python import cp_model

from anonratio.exact.options import check_hint_labels, check_upper_bound
from anonratio.exact.run import check_run_options, run_cpsat
from anonratio.instances import Solution, verify
from anonratio.instances.validation import check_choice, check_instance
from anonratio.instances.zip_codes.instance import (
    ZipCodesInstance,
    part_weights,
    planar_lower_bound,
)

__all__ = ["solve_cpsat", "CONNECTIVITY", "tree_hint"]

CONNECTIVITY = ("flow", "depth", "canonical")


def _solve_iv(instance, time_limit, seed, threads, hint, upper_bound, connectivity):
    """Validate the arguments; return ``(time_limit, seed, threads, hint_labels, upper_bound)``."""
    check_instance(instance, ZipCodesInstance)
    time_limit, solver_seed, threads = check_run_options(time_limit, seed, threads)
    check_choice("connectivity", connectivity, CONNECTIVITY)
    upper_bound = check_upper_bound(upper_bound)
    if upper_bound is not None:  # weights are integers: so is any part weight
        upper_bound = int(np.floor(upper_bound + 1e-9))
    labels = check_hint_labels(instance, hint)
    return time_limit, solver_seed, threads, labels, upper_bound


# ---------------------------------------------------------------------------------------------
# bounds and hint
# ---------------------------------------------------------------------------------------------
def _bounds(instance, hint_labels, upper_bound, connectivity):
    """``(lb, ub, info)``: the instance lower bound and ``T``, the least of ``S``, the hint's cost
    and ``upper_bound``."""
    lb, lb_source = planar_lower_bound(instance)
    ub = instance.total_weight
    info = {"connectivity": connectivity}
    if hint_labels is not None:
        ub = min(ub, int(part_weights(instance, hint_labels)[1].max()))
        info["hint_cost"] = ub
    if upper_bound is not None:
        ub = min(ub, upper_bound)
    info.update(lower_bound_used=int(lb), lower_bound_source=lb_source, upper_bound_used=int(ub))
    return lb, ub, info


def tree_hint(
    instance: ZipCodesInstance, labels: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Parents, roots and subtree weights/sizes/depths of a feasible partition.

    Each part gets a BFS tree from its smallest node, every node's parent being its smallest
    neighbour one level up (the tree ``connectivity="canonical"`` requires). Returns ``parent``
    (−1 at roots), ``lab`` (root per node), ``sub_w``, ``sub_n`` and ``depth`` arrays.
    """
    n, g, w = instance.n, instance.graph, instance.weights
    labels = np.asarray(labels)
    parent = np.full(n, -1, dtype=np.int64)
    lab = np.empty(n, dtype=np.int64)
    depth = np.zeros(n, dtype=np.int64)
    order = []
    seen = np.zeros(n, dtype=bool)
    for r in range(n):
        if seen[r]:
            continue
        seen[r] = True
        lab[r] = r
        queue = deque([r])
        while queue:
            u = queue.popleft()
            order.append(u)
            for v in g.adj[u]:
                if not seen[v] and labels[v] == labels[u]:
                    seen[v] = True
                    parent[v], lab[v], depth[v] = u, r, depth[u] + 1
                    queue.append(v)
    for v in range(n):  # canonical parent: the smallest neighbour one level up
        if parent[v] >= 0:
            parent[v] = min(
                u for u in g.adj[v] if labels[u] == labels[v] and depth[u] == depth[v] - 1
            )
    sub_w, sub_n = w.astype(np.int64).copy(), np.ones(n, dtype=np.int64)
    for v in reversed(order):
        if parent[v] >= 0:
            sub_w[parent[v]] += sub_w[v]
            sub_n[parent[v]] += sub_n[v]
    return parent, lab, sub_w, sub_n, depth


# ---------------------------------------------------------------------------------------------
# the model
# ---------------------------------------------------------------------------------------------
@dataclass
class _ZipModel:
    """A CP-SAT model of the module docstring and its variables (lists indexed by arc or node).

    ``arcs`` holds ``(u, v)`` for both orientations of every edge (edge ``e`` is arcs ``e`` and
    ``e + m``); ``into[v]`` / ``out[v]`` are the arcs entering / leaving ``v``.
    """

    model: cp_model.CpModel
    arcs: list
    into: list
    out: list
    a: list = field(default_factory=list)  # a[i]: arc i = (u, v) is a tree arc (u parent of v)
    root: list = field(default_factory=list)  # root[v]: v is its part's root
    lab: list = field(default_factory=list)  # lab[v]: the root (= smallest node) of v's part
    g: list = field(default_factory=list)  # g[i]: weight of the subtree below arc i
    P: list = field(default_factory=list)  # P[v]: the part's weight at its root, else 0
    M: Any = None  # the heaviest part (objective)
    h: list | None = None  # h[i]: nodes in the subtree below arc i ("flow" cycle cut)
    depth: list | None = None  # depth[v]: distance to the root in the part's tree
    same: list | None = None  # same[e]: edge e's ends share a part ("canonical")


def _arcs(instance):
    """Both orientations of every edge, and the arcs into and out of each node."""
    arcs = [(int(u), int(v)) for u, v in instance.edges] + [
        (int(v), int(u)) for u, v in instance.edges
    ]
    into: list[list[int]] = [[] for _ in range(instance.n)]
    out: list[list[int]] = [[] for _ in range(instance.n)]
    for i, (u, v) in enumerate(arcs):
        out[u].append(i)
        into[v].append(i)
    return arcs, into, out


def _add_trees(zm, instance, lb, ub):
    """Variables and constraints of the rooted trees, the weight flow and the objective."""
    model, arcs, into, out = zm.model, zm.arcs, zm.into, zm.out
    n, k, s_total = instance.n, instance.k, instance.total_weight
    w = [int(x) for x in instance.weights]
    LE = cp_model.LinearExpr
    cap = max(ub, 0)

    # a[i]: arc i = (u, v) is a tree arc, u the parent of v; root[v]: v is its part's root.
    zm.a = a = [model.new_bool_var(f"a_{u}_{v}") for u, v in arcs]
    zm.root = root = [model.new_bool_var(f"root_{v}") for v in range(n)]
    # lab[v]: the root (= smallest node) of v's part.
    zm.lab = lab = [model.new_int_var(0, v, f"lab_{v}") for v in range(n)]
    # g[i]: weight of the subtree below arc i; P[v]: the part's weight at its root, else 0.
    zm.g = g = [model.new_int_var(0, cap, f"g_{u}_{v}") for u, v in arcs]
    dom = cp_model.Domain.from_intervals([[0, 0]] + ([[k, cap]] if cap >= k else []))
    zm.P = P = [model.new_int_var_from_domain(dom, f"P_{v}") for v in range(n)]
    # M: the heaviest part (objective).
    zm.M = M = model.new_int_var(min(int(lb), cap), cap, "M")

    for v in range(n):
        # One parent or a root.
        model.add(root[v] + LE.sum([a[i] for i in into[v]]) == 1)
        # A root labels its part; lab[v] <= v makes it the part's smallest node.
        model.add(lab[v] == v).only_enforce_if(root[v])
        # Weight conservation: what v passes up = its weight + what its children pass up.
        model.add(LE.sum([g[i] for i in into[v]]) + P[v] == w[v] + LE.sum([g[i] for i in out[v]]))
        # A part weighs k .. T at its root and nothing elsewhere; M is the heaviest part.
        model.add(P[v] <= cap * root[v])
        model.add(P[v] >= k * root[v])
        model.add(P[v] <= M)
    for i, (u, v) in enumerate(arcs):
        # Parent and child share the part; no flow on non-tree arcs.
        model.add(lab[v] == lab[u]).only_enforce_if(a[i])
        model.add(g[i] <= cap * a[i])
    for i in range(len(instance.edges)):  # at most one orientation of an edge
        model.add_bool_or([~a[i], ~a[i + len(instance.edges)]])
    # Redundant: parts add up to S; at most floor(S / k) parts.
    model.add(LE.sum(P) == s_total)
    n_parts = model.new_int_var(1, max(1, s_total // k), "n_parts")
    model.add(n_parts == LE.sum(root))
    # Redundant: n_parts * M >= S (the heaviest part is at least the average).
    prod = model.new_int_var(0, max(1, s_total // k) * cap, "n_parts_times_M")
    model.add_multiplication_equality(prod, [n_parts, M])
    model.add(prod >= s_total)


def _add_flow_cut(zm, n):
    """``connectivity="flow"``: a unit flow to the root excludes cycles of zero-weight nodes."""
    model, into, out, a, root = zm.model, zm.into, zm.out, zm.a, zm.root
    LE = cp_model.LinearExpr
    # h[i]: nodes in the subtree below arc i; C[v]: the part's size at its root.
    zm.h = h = [model.new_int_var(0, n, f"h_{u}_{v}") for u, v in zm.arcs]
    C = [model.new_int_var(0, n, f"C_{v}") for v in range(n)]
    for v in range(n):
        # Node conservation: v passes up itself and its children's subtrees, to a root only.
        model.add(LE.sum([h[i] for i in into[v]]) + C[v] == 1 + LE.sum([h[i] for i in out[v]]))
        model.add(C[v] <= n * root[v])
    for i in range(len(zm.arcs)):
        # No flow on non-tree arcs.
        model.add(h[i] <= n * a[i])


def _add_depths(zm, n):
    """Depths in the part's tree (a cycle cut, and the BFS levels of ``"canonical"``)."""
    model = zm.model
    # depth[v]: distance to the root in the part's tree.
    zm.depth = depth = [model.new_int_var(0, n - 1, f"depth_{v}") for v in range(n)]
    for i, (u, v) in enumerate(zm.arcs):
        # A child is one level below its parent ...
        model.add(depth[v] == depth[u] + 1).only_enforce_if(zm.a[i])
    for v in range(n):
        # ... and a root is at level 0.
        model.add(depth[v] == 0).only_enforce_if(zm.root[v])


def _add_canonical(zm, instance):
    """``connectivity="canonical"``: each partition has exactly one model tree.

    Depths are BFS distances inside the part and a node's parent is its smallest neighbour one
    level up.
    """
    model, arcs, a, lab, depth = zm.model, zm.arcs, zm.a, zm.lab, zm.depth
    m_e = len(instance.edges)
    # same[e]: the ends of edge e are in the same part.
    zm.same = same = [model.new_bool_var(f"same_{u}_{v}") for u, v in instance.edges]
    for e, (u, v) in enumerate(instance.edges):
        u, v = int(u), int(v)
        # same[e] <=> equal labels; a tree arc joins nodes of one part.
        model.add(lab[u] == lab[v]).only_enforce_if(same[e])
        model.add(lab[u] != lab[v]).only_enforce_if(~same[e])
        model.add_implication(a[e], same[e])
        model.add_implication(a[e + m_e], same[e])
        # BFS levels: neighbours in one part are at most one level apart.
        model.add(depth[v] <= depth[u] + 1).only_enforce_if(same[e])
        model.add(depth[u] <= depth[v] + 1).only_enforce_if(same[e])
    edge_of = {}
    for e, (u, v) in enumerate(instance.edges):
        edge_of[int(u), int(v)] = edge_of[int(v), int(u)] = e
    for v in range(instance.n):
        # The parent is the smallest neighbour one level up: a smaller neighbour u2 in the part
        # is not one level up.
        ins = sorted(zm.into[v], key=lambda i: arcs[i][0])
        for j, i in enumerate(ins):
            for i2 in ins[:j]:
                u2 = arcs[i2][0]
                model.add(depth[u2] >= depth[v]).only_enforce_if([a[i], same[edge_of[u2, v]]])


def _build_model(instance, lb, ub, connectivity):
    """The CP-SAT model of the module docstring, minimizing the heaviest part ``M``."""
    arcs, into, out = _arcs(instance)
    zm = _ZipModel(cp_model.CpModel(), arcs, into, out)
    _add_trees(zm, instance, lb, ub)
    need_cycle_cut = any(int(x) == 0 for x in instance.weights)
    if need_cycle_cut and connectivity == "flow":
        _add_flow_cut(zm, instance.n)
    elif need_cycle_cut or connectivity == "canonical":
        _add_depths(zm, instance.n)
    if connectivity == "canonical":
        _add_canonical(zm, instance)
    zm.model.minimize(zm.M)
    return zm


def _add_hint(zm, instance, hint_labels, hint_cost):
    """A complete hint: the canonical trees of a feasible partition (:func:`tree_hint`)."""
    model, arcs = zm.model, zm.arcs
    parent, hlab, sub_w, sub_n, hdepth = tree_hint(instance, hint_labels)
    for i, (u, v) in enumerate(arcs):
        on = bool(parent[v] == u)
        model.add_hint(zm.a[i], on)
        model.add_hint(zm.g[i], int(sub_w[v]) if on else 0)
        if zm.h is not None:
            model.add_hint(zm.h[i], int(sub_n[v]) if on else 0)
    for v in range(instance.n):
        model.add_hint(zm.root[v], bool(parent[v] < 0))
        model.add_hint(zm.lab[v], int(hlab[v]))
        model.add_hint(zm.P[v], int(sub_w[v]) if parent[v] < 0 else 0)
        if zm.depth is not None:
            model.add_hint(zm.depth[v], int(hdepth[v]))
    if zm.same is not None:
        for e, (u, v) in enumerate(instance.edges):
            model.add_hint(zm.same[e], bool(hint_labels[u] == hint_labels[v]))
    model.add_hint(zm.M, int(hint_cost))


# ---------------------------------------------------------------------------------------------
# solve and decode
# ---------------------------------------------------------------------------------------------
def _decode(instance, zm, run, lb, ub, info):
    """``(labels, objective, status, bound)`` of a run: parts numbered from the roots' labels,
    checked by :func:`verify`, the bound at least the instance lower bound."""
    labels = objective = None
    if run.has_solution:
        _, labels = np.unique([run.value(x) for x in zm.lab], return_inverse=True)
        labels = labels.astype(np.int64).reshape(-1)
        objective = run.objective
    status, bound = run.status, run.bound
    info.update(run.info)
    if labels is not None:
        check = verify(instance, labels, strict=False)
        if not check.feasible:  # never expected: the model is wrong if this fires
            status, info["reason"] = "error", "; ".join(check.violations[:3])
    bound = max(bound if bound is not None else -np.inf, float(lb))
    if status == "optimal":
        bound = objective
    elif status == "infeasible":
        bound = None
        info["reason"] = f"no partition costs at most upper_bound={ub}"
    elif status == "error":
        bound = None
    return labels, objective, status, bound


def solve_cpsat(
    instance: ZipCodesInstance,
    *,
    time_limit: float = 60.0,
    seed: int | None = 0,
    threads: int = 1,
    hint: Solution | np.ndarray | None = None,
    upper_bound: float | None = None,
    connectivity: str = "flow",
    parameters: dict[str, Any] | None = None,
) -> Solution:
    """Optimal connected partition (zip codes) with CP-SAT: the least possible heaviest part.

    Partitions the nodes into connected parts of weight at least ``k`` minimizing the heaviest
    part, and proves it optimal (``status="optimal"``, ``lower_bound == objective``) unless the
    time limit stops the search (``status="time_limit"`` with the best partition found and the
    proven bound). The model is the rooted-tree flow model of the module docstring.

    Parameters
    ----------
    instance : ZipCodesInstance
    time_limit : float
        Seconds for CP-SAT (``max_time_in_seconds``), > 0.
    seed : int or None
        CP-SAT's ``random_seed`` (None means 0); recorded as given.
    threads : int
        CP-SAT workers (``num_workers``), >= 1.
    hint : Solution or array of int, optional
        A feasible partition to start from (e.g. the spanning-tree split); its cost caps ``T``.
    upper_bound : float, optional
        A known upper bound on the optimum; one below it makes the run ``infeasible``.
    connectivity : {"flow", "depth", "canonical"}
        How cycles of zero-weight nodes are excluded (module docstring); ``"canonical"`` also
        makes each partition's tree unique (BFS trees, smallest parent).
    parameters : mapping, optional
        More CP-SAT ``SatParameters`` fields (e.g. ``{"linearization_level": 2}``).

    Returns
    -------
    Solution
        ``algorithm="zip-cpsat"``; ``info``: ``lower_bound_used``, ``upper_bound_used``,
        ``connectivity``, CP-SAT statistics.

    Notes
    -----
    ``O(m)`` Booleans and integers (``2m`` arcs) plus ``O(n)`` node variables; exponential time
    in the worst case (NP-hard already for unit weights and ``k = 3``, Du et al. 2009, §2). In
    practice small graphs only (about 40 nodes at most).

    References
    ----------
    W. Du, D. Eppstein, M. T. Goodrich, G. S. Lueker, WADS 2009, §2 (problem; NP-hardness).

    Examples
    --------
    >>> import networkx as nx
    >>> from anonratio.instances.zip_codes.instance import ZipCodesInstance
    >>> inst = ZipCodesInstance(nx.path_graph(5), [2, 1, 1, 2, 1], 3)
    >>> sol = solve_cpsat(inst, time_limit=10)
    >>> sol.status, sol.objective
    ('optimal', 4.0)
    """
    t0 = perf_counter()
    time_limit, solver_seed, threads, hint_labels, upper_bound = _solve_iv(
        instance, time_limit, seed, threads, hint, upper_bound, connectivity
    )
    lb, ub, info = _bounds(instance, hint_labels, upper_bound, connectivity)
    zm = _build_model(instance, lb, ub, connectivity)
    if hint_labels is not None:
        _add_hint(zm, instance, hint_labels, info["hint_cost"])
    run = run_cpsat(
        zm.model, time_limit=time_limit, seed=solver_seed, threads=threads, parameters=parameters
    )
    labels, objective, status, bound = _decode(instance, zm, run, lb, ub, info)
    return Solution.with_bound(
        labels,
        "zip-cpsat",
        params={
            **instance.params,
            "time_limit": time_limit,
            "threads": threads,
            "upper_bound": upper_bound,
            "hint": hint is not None,
            "connectivity": connectivity,
        },
        seed=seed,
        status=status,
        objective=objective,
        bound=bound,
        t0=t0,
        info=info,
    )
