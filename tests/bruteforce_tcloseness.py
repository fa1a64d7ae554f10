"""Brute-force t-closeness optima for the tests (on ``pythonpath``:
``from bruteforce_tcloseness import tcloseness_optimum``).

Every set partition of the records is tried; group sizes, EMDs and stars are recomputed here from
the raw codes, not through the verifier or the models under test.
"""

import numpy as np
from hypothesis import strategies as st

from anonratio.instances.table import Table
from anonratio.instances.tcloseness import TClosenessInstance

__all__ = ["MAX_N", "set_partitions", "emd", "tcloseness_optimum", "make", "tables"]

#: the largest table brute force accepts (Bell(7) = 877 partitions)
MAX_N = 7


def set_partitions(n):
    """Every partition of ``range(n)`` as a labels list (restricted growth strings)."""

    def grow(prefix, top):
        if len(prefix) == n:
            yield list(prefix)
            return
        for g in range(top + 2):
            yield from grow([*prefix, g], max(top, g))

    yield from grow([0], 0) if n else iter([[]])


def emd(group_values, all_values, n_values, ground):
    """EMD of Li et al. 2007 (§4.1) between a group's and the table's sensitive distributions,
    computed as a transport cost: equal ground ``1/2 sum |p - q|``, ordered ground ``sum_i |P_i -
    Q_i| / (S - 1)`` over the cumulative distributions."""
    p = np.bincount(group_values, minlength=n_values) / len(group_values)
    q = np.bincount(all_values, minlength=n_values) / len(all_values)
    if ground == "equal":
        return 0.5 * float(np.abs(p - q).sum())
    if n_values == 1:
        return 0.0
    return float(np.abs(np.cumsum(p - q)).sum()) / (n_values - 1)


def tcloseness_optimum(instance):
    """``(optimum, labels)``: the fewest stars over every feasible partition (``n <= MAX_N``)."""
    n = instance.n
    assert n <= MAX_N, f"brute force takes n <= {MAX_N}, got {n}"
    codes = np.asarray(instance.table.codes)
    s = np.asarray(instance.sensitive)
    best, best_labels = None, None
    for labels in set_partitions(n):
        labels = np.asarray(labels)
        total = 0
        for g in range(labels.max() + 1):
            rows = np.flatnonzero(labels == g)
            if rows.size < instance.k:
                break
            if emd(s[rows], s, instance.n_values, instance.ground) > instance.t + 1e-12:
                break
            block = codes[rows]
            total += rows.size * int(np.count_nonzero(block.min(0) != block.max(0)))
        else:
            if best is None or total < best:
                best, best_labels = total, labels
    return best, best_labels


def make(codes, sensitive, t, k=1, ground="equal", n_values=None):
    """An instance from raw codes (``n_values`` sensitive values, default the largest + 1)."""
    codes = np.asarray(codes, dtype=np.int64)
    sensitive = np.asarray(sensitive, dtype=np.int64)
    n_values = int(sensitive.max()) + 1 if n_values is None else n_values
    table = Table(
        codes,
        [f"a{j}" for j in range(codes.shape[1])],
        [[str(v) for v in range(int(codes[:, j].max()) + 1)] for j in range(codes.shape[1])],
        sensitive=sensitive,
        sensitive_values=[str(v) for v in range(n_values)],
    )
    return TClosenessInstance(table, t, k, ground)


@st.composite
def tables(draw, max_n=MAX_N):
    """Small instances: ``n <= max_n``, 1-3 columns of 1-3 values, 1-3 sensitive values."""
    n = draw(st.integers(1, max_n))
    d = draw(st.integers(1, 3))
    card = draw(st.integers(1, 3))
    m = draw(st.integers(1, 3))
    codes = draw(
        st.lists(st.lists(st.integers(0, card - 1), min_size=d, max_size=d), min_size=n, max_size=n)
    )
    sens = draw(st.lists(st.integers(0, m - 1), min_size=n, max_size=n))
    t = draw(st.sampled_from([0.0, 0.1, 0.2, 0.3, 0.5, 1.0]))
    k = draw(st.integers(1, max(1, min(3, n))))
    ground = draw(st.sampled_from(["equal", "ordered"]))
    return make(codes, sens, t, k, ground, n_values=m)
