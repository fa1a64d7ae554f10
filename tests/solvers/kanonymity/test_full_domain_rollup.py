"""The frequency sets of the lattice searches: a set rolled up from any set below it (of a
superset of its attributes) equals the set computed from the table, and holds only two integer
arrays of its own size (a representative distinct row and a count per row)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.instances import KAnonymityInstance, Table
from anonratio.instances.kanonymity import random_table
from anonratio.instances.privacy import DistinctLDiversity, KAnonymity
from anonratio.solvers.kanonymity.full_domain import Lattice

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True)


def _lattice(seed, n, m, sensitive):
    table = random_table(n, m, cardinality=(2, 7), levels=(1, 3), seed=seed)
    models = [KAnonymity(2)]
    if sensitive:
        s = np.random.default_rng(seed).integers(0, 3, n)
        table = Table(
            table.codes, table.attributes, table.values, table.hierarchies, None, s, "s", "xyz"
        )
        models.append(DistinctLDiversity(2))
    inst = KAnonymityInstance(table, 2, "generalization")
    return Lattice(table, inst.hierarchies, tuple(models), 0)


def _content(lattice, fs):
    """The set as {(tuple, sensitive): count}, from the table's records (brute force)."""
    out = {}
    for row, count in zip(fs.tuples.tolist(), fs.counts.tolist(), strict=True):
        out[tuple(row)] = out.get(tuple(row), 0) + count
    return out


def _brute(lattice, attrs, levels):
    t = lattice.table
    cols = [lattice.groups[a][lv][t.codes[:, a]] for a, lv in zip(attrs, levels, strict=True)]
    if lattice.sensitive:
        cols.append(t.sensitive)
    out = {}
    for row in zip(*cols, strict=True) if cols else [()] * t.n_records:
        key = tuple(int(v) for v in row)
        out[key] = out.get(key, 0) + 1
    return out


@SETTINGS
@given(st.integers(0, 10_000), st.integers(5, 60), st.integers(1, 4), st.booleans(), st.data())
def test_a_rolled_up_set_equals_the_set_from_the_table(seed, n, m, sensitive, data):
    lattice = _lattice(seed, n, m, sensitive)
    nodes = lattice.all_nodes()
    low = nodes[data.draw(st.integers(0, len(nodes) - 1))]
    high = np.maximum(low, nodes[data.draw(st.integers(0, len(nodes) - 1))])
    attrs = sorted(data.draw(st.sets(st.integers(0, m - 1), min_size=1)))
    source = lattice.frequency_set(range(m), low)
    for fs in (
        lattice.frequency_set(attrs, high[attrs], source),  # roll-up and projection
        lattice.frequency_set(attrs, high[attrs]),  # from the table's distinct rows
    ):
        assert _content(lattice, fs) == _brute(lattice, attrs, high[attrs])
        assert fs.counts.sum() == n and len(fs.counts) == len(_brute(lattice, attrs, high[attrs]))
        # every row's class: rows share a class exactly when they share their QI tuple
        qi = [tuple(r[: len(attrs)]) for r in fs.tuples.tolist()]
        cls = fs.row_class.tolist()
        assert len(set(qi)) == fs.n_classes == len(set(cls))
        assert all((qi[i] == qi[j]) == (cls[i] == cls[j]) for i in range(len(qi)) for j in range(i))


def test_a_set_holds_a_representative_and_a_count_per_row():
    lattice = _lattice(3, 200, 4, False)
    fs = lattice.node_set(lattice.heights // 2)
    assert not hasattr(fs, "__dict__")  # no other state (slots)
    held = [v for v in (getattr(fs, s) for s in type(fs).__slots__) if isinstance(v, np.ndarray)]
    assert sum(a.size for a in held) == 2 * len(fs.counts)
    # the representative generalizes to the row's tuple
    t = lattice.table
    for c, a in enumerate(fs.attrs):
        rep_codes = lattice.groups[a][fs.levels[c]][t.codes[:, a]]
        first = {int(r): i for i, r in reversed(list(enumerate(lattice._inverse)))}
        assert np.array_equal(fs.column(c), rep_codes[[first[int(r)] for r in fs.rep]])


@SETTINGS
@given(st.integers(0, 10_000), st.integers(5, 60), st.integers(1, 4), st.booleans(), st.data())
def test_a_rollup_source_holds_the_rows_of_the_set_and_counts_no_check(seed, n, m, sensitive, data):
    """:meth:`Lattice.rollup` (a set to roll others up from, under k-anonymity alone built by
    counting keys) holds the same rows as the set from the table, in an order of its own, and
    is no check of the models."""
    lattice = _lattice(seed, n, m, sensitive)
    nodes = lattice.all_nodes()
    low = nodes[data.draw(st.integers(0, len(nodes) - 1))]
    high = np.maximum(low, nodes[data.draw(st.integers(0, len(nodes) - 1))])
    for source in (None, lattice.frequency_set(range(m), low)):
        checks = lattice.checks
        fs = lattice.rollup(range(m), high, source)
        assert lattice.checks == checks
        assert _content(lattice, fs) == _brute(lattice, range(m), high)
        assert fs.levels == tuple(high.tolist()) and fs.counts.dtype == np.int64
