"""Brute-force l-diversity optima for the tests (on ``pythonpath``:
``from bruteforce_ldiversity import ldiversity_optimum``).

Group costs are recomputed here from the raw codes, not through the verifier under test.
"""

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st

from anonratio.instances.ldiversity.instance import LDiversityInstance
from anonratio.instances.table import Table

__all__ = [
    "ldiversity_optimum",
    "ldiversity_optima",
    "MAX_N",
    "make",
    "tables",
    "random_instance",
]

#: the largest table the DP accepts (3^n subset pairs)
MAX_N = 12


def _group_costs(instance):
    """``(stars, tuples)`` per subset mask, ``-1`` where the subset is not l-eligible.

    The masks of highest bit ``b`` extend those below ``2**b`` by record ``b``: their sizes,
    sensitive-value counts and per-attribute least and greatest codes, one numpy step per record.
    """
    n, l = instance.n, instance.l
    codes = np.asarray(instance.table.codes, dtype=np.int64)
    s = np.asarray(instance.sensitive, dtype=np.int64)
    size = 1 << n
    rows = np.zeros(size, dtype=np.int64)
    counts = np.zeros((size, int(s.max()) + 1), dtype=np.int64)
    lo = np.empty((size, codes.shape[1]), dtype=np.int64)
    hi = np.empty_like(lo)
    lo[0], hi[0] = np.iinfo(np.int64).max, np.iinfo(np.int64).min
    for b in range(n):
        new = slice(1 << b, 2 << b)
        rows[new] = rows[: 1 << b] + 1
        counts[new] = counts[: 1 << b]
        counts[new, s[b]] += 1
        lo[new] = np.minimum(lo[: 1 << b], codes[b])
        hi[new] = np.maximum(hi[: 1 << b], codes[b])
    differ = np.count_nonzero(lo != hi, axis=1)
    eligible = (l * counts.max(axis=1) <= rows) & (rows > 0)
    stars = np.where(eligible, rows * differ, -1)
    tuples = np.where(eligible, np.where(differ > 0, rows, 0), -1)
    return stars, tuples


def _partition_dp(cost):
    """Minimum total cost of a partition of the full set into subsets with ``cost >= 0``."""
    size = cost.size
    inf = np.iinfo(np.int64).max // 4
    best = [inf] * size
    best[0] = 0
    for mask in range(1, size):
        low = mask & -mask
        rest = mask ^ low
        sub = rest
        out = inf
        while True:  # every group holding the lowest record of mask
            group = sub | low
            c = cost[group]
            if c >= 0 and best[mask ^ group] < inf:
                out = min(out, int(c) + best[mask ^ group])
            if sub == 0:
                break
            sub = (sub - 1) & rest
        best[mask] = out
    return best[size - 1]


def ldiversity_optima(instance):
    """``{"stars": ..., "tuples": ...}``: both exact optima of a tiny l-diversity instance.

    A DP over subsets of the records (``n <= MAX_N``; 9 or fewer keeps it under a second): the
    group holding the lowest record of a subset is enumerated over the subsets of the rest.
    Groups must be l-eligible (``l * max sensitive count <= size``); a group costs
    ``size x (non-constant QI attributes)`` stars, and ``size`` suppressed tuples if some QI
    attribute is not constant on it (else 0).
    """
    if instance.n > MAX_N:
        raise ValueError(f"brute force is for n <= {MAX_N}, got n = {instance.n}")
    stars, tuples = _group_costs(instance)
    return {"stars": _partition_dp(stars), "tuples": _partition_dp(tuples)}


def ldiversity_optimum(instance, objective=None):
    """The exact optimum of ``instance`` for ``objective`` (default: the instance's own)."""
    objective = instance.objective if objective is None else objective
    if objective not in ("stars", "tuples"):
        raise ValueError(f"`objective` must be 'stars' or 'tuples', got {objective!r}")
    return ldiversity_optima(instance)[objective]


def make(codes, s, l, objective="stars", card=None):
    codes = np.asarray(codes, dtype=np.int64).reshape(len(s), -1)
    d = codes.shape[1]
    card = int(codes.max()) + 1 if card is None else card
    m = int(max(s)) + 1
    t = Table(
        codes,
        [f"a{j}" for j in range(d)],
        [[str(v) for v in range(card)]] * d,
        sensitive=s,
        sensitive_values=[str(v) for v in range(m)],
    )
    return LDiversityInstance(t, l, objective)


@st.composite
def tables(draw, max_n=9, max_l=4):
    """Random small tables, the whole table l-eligible; few QI values so QI-groups form."""
    n = draw(st.integers(2, max_n))
    l = draw(st.integers(2, min(max_l, n)))
    d = draw(st.integers(1, 3))
    card = draw(st.integers(1, 3))
    m = draw(st.integers(l, l + 3))
    codes = draw(st.lists(st.integers(0, card - 1), min_size=n * d, max_size=n * d))
    s = draw(st.lists(st.integers(0, m - 1), min_size=n, max_size=n))
    assume(l * max(np.bincount(s)) <= n)
    objective = draw(st.sampled_from(["stars", "tuples"]))
    return make(codes, s, l, objective, card=card)


def random_instance(seed, *, n=None, n_max=9, d=None, card=None, m=None, l=None, objective=None):
    """A random l-eligible table drawn from ``seed`` (sensitive values balanced, then shuffled)."""
    rng = np.random.default_rng(seed)
    m = m or int(rng.integers(2, 5))
    l = l or int(rng.integers(2, m + 1))
    n = n or int(rng.integers(l, n_max + 1))
    d = d or int(rng.integers(1, 4))
    card = card or int(rng.integers(2, 4))
    objective = objective or ("stars", "tuples")[int(rng.integers(0, 2))]
    codes = rng.integers(0, card, size=(n, d))
    # l-eligible: cycle through l values (each at most ceil(n / l) <= n / l times when l | n)
    n -= n % l
    codes = codes[:n]
    s = rng.permutation(np.arange(n) % m if m <= l else rng.integers(0, m, size=n))
    counts = np.bincount(s, minlength=m)
    if l * counts.max() > n:
        s = rng.permutation(np.arange(n) % l)
    table = Table(
        codes,
        [f"a{j}" for j in range(d)],
        [[str(x) for x in range(card)]] * d,
        sensitive=s,
        sensitive_values=[f"s{x}" for x in range(max(m, l))],
    )
    return LDiversityInstance(table, l, objective)
