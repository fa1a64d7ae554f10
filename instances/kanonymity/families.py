"""The builders of the k-anonymity instance families: ``build(rng, **params) -> (instance,
meta)``, the protocol of :class:`anonratio.bench.declarations.Family` (declared in
:mod:`anonratio.bench.problems.kanonymity`). ``meta`` holds what a construction proves
(``optimum``, ``lower_bound``, ``upper_bound``) and notes.

References
----------
G. Aggarwal, T. Feder, K. Kenthapadi, R. Motwani, R. Panigrahy, D. Thomas, A. Zhu.
"Approximation Algorithms for k-Anonymity". Journal of Privacy Technology, 2005.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from anonratio.instances.base import verify
from anonratio.instances.kanonymity.gadgets import (
    graph_representation_pair,
    triangle_union_gadget,
)
from anonratio.instances.kanonymity.generators import categorical_table, planted_table, random_table
from anonratio.instances.kanonymity.instance import KAnonymityInstance
from anonratio.instances.loaders import load_adult
from anonratio.instances.validation import check_int

__all__ = [
    "binary",
    "categorical",
    "ternary",
    "random",
    "planted",
    "triangles",
    "cycle_8",
    "gap_pair",
    "adult",
    "CYCLE_8",
]


def _kanon(table, p):
    return KAnonymityInstance(table, p["k"], p["model"], p["row_deletion"])


def _with_sensitive(table, rng, sensitive):
    """``table`` with a sensitive attribute of ``sensitive`` values (none when 0), drawn after
    the QI codes (so ``sensitive=0`` leaves a family's tables as they were): each value occurs
    ``floor(n/S)`` or ``ceil(n/S)`` times, in random order, so the most frequent one has relative
    frequency ``ceil(n/S)/n`` (at most 0.5 once ``S >= 2`` and ``n`` is even or ``S >= 3``)."""
    s = check_int("sensitive", sensitive, low=0)
    if s == 0:
        return table
    codes = rng.permutation(np.arange(table.n_records) % s)
    return dataclasses.replace(
        table,
        sensitive=codes,
        sensitive_name="sensitive",
        sensitive_values=tuple(f"s{v}" for v in range(s)),
    )


def binary(rng, *, n, m, k, row_deletion, sensitive=0):
    table = _with_sensitive(categorical_table(n, m, 2, seed=rng), rng, sensitive)
    return KAnonymityInstance(table, k, "suppression", row_deletion), {}


def categorical(rng, **p):
    return _kanon(categorical_table(p["n"], p["m"], p["alphabet"], seed=rng), p), {}


def ternary(rng, **p):
    return _kanon(categorical_table(p["n"], p["m"], 3, seed=rng), p), {}


def random(rng, **p):
    zipf = p["zipf"] or None
    table = random_table(
        p["n"], p["m"], cardinality=p["cardinality"], levels=p["levels"], zipf=zipf, seed=rng
    )
    return _kanon(_with_sensitive(table, rng, p.get("sensitive", 0)), p), {}


def planted(rng, **p):
    table, labels = planted_table(
        p["n"],
        p["m"],
        n_groups=p["n_groups"],
        noise=p["noise"],
        cardinality=p["cardinality"],
        levels=p["levels"] or None,
        seed=rng,
        return_labels=True,
    )
    instance = _kanon(table, p)
    extra = {}
    if np.bincount(labels).min() >= instance.k:  # the planted partition is feasible
        extra["upper_bound"] = verify(instance, labels).cost
    return instance, extra


def triangles(rng, *, n_triangles, n_vertices, preliminary):
    g = triangle_union_gadget(n_triangles, n_vertices, seed=rng, preliminary=preliminary)
    extra = {
        "optimum": g.optimum,
        "lower_bound": g.lower_bound,
        "m": g.info["m"],
        "t": g.info["t"],
        "description": g.description,
    }
    return g.instance, extra


#: the eight 4-bit records of Aggarwal et al. 2005, §6: the optimal 2-factor is the 8-cycle
#: through them in this order, and the cycle decomposition pays 3 times its weight (case (f))
CYCLE_8 = ("0000", "0001", "0011", "0111", "1111", "1110", "1100", "1000")


def cycle_8(rng):
    codes = np.array([[int(b) for b in row] for row in CYCLE_8])
    table = categorical_table(8, 4, 2, seed=0)
    table = type(table)(codes, table.attributes, table.values)
    return KAnonymityInstance(table, 3, "suppression"), {
        "description": "the tight example of the 2-factor step (2005 §6, case (f), x = 2)"
    }


def gap_pair(rng, *, k, member):
    if member not in ("first", "second"):
        raise ValueError(f"parameter `member` must be 'first' or 'second', got {member!r}")
    first, second = graph_representation_pair(k)
    g, other = (first, second) if member == "first" else (second, first)
    extra = {
        "optimum": g.optimum,
        "other_optimum": other.optimum,
        "pair_distance": g.info["pair_distance"],
        "description": g.description,
    }
    return g.instance, extra


def adult(rng, *, n, k, model, row_deletion, qi):
    table = load_adult(qi=qi).sample(n, rng)
    instance = KAnonymityInstance(table, k, model, row_deletion)
    return instance, {"dataset": "adult", "n_records": int(table.n_records)}
