"""The integer keys of the lattice searches: the distinct rows as ``np.unique(axis=0)`` gives
them, and a node checked by counting keys (:meth:`Lattice.check`) answers as its frequency set
does, keeping the same set when asked."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.instances import KAnonymityInstance, Table
from anonratio.instances.kanonymity import random_table
from anonratio.instances.privacy import DistinctLDiversity, KAnonymity
from anonratio.solvers.kanonymity import frequency_keys
from anonratio.solvers.kanonymity.frequency_keys import distinct_rows, k_suppressed, mixed_key
from anonratio.solvers.kanonymity.full_domain import Lattice

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True)


@SETTINGS
@given(st.integers(0, 10_000), st.integers(1, 80), st.integers(1, 5), st.integers(1, 40))
def test_distinct_rows_are_those_of_np_unique_in_the_same_order(seed, n, m, high):
    codes = np.random.default_rng(seed).integers(0, high, (n, m))
    rows, inverse, counts = distinct_rows(codes)
    want = np.unique(codes, axis=0, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(rows, want[0])
    np.testing.assert_array_equal(inverse, want[1].reshape(-1))
    np.testing.assert_array_equal(counts, want[2])


def test_distinct_rows_of_huge_codes_fall_back_to_np_unique():
    codes = np.array([[2**40, 3, 2**30], [1, 2**40, 5], [2**40, 3, 2**30]], dtype=np.int64)
    rows, inverse, counts = distinct_rows(codes)
    np.testing.assert_array_equal(rows, [[1, 2**40, 5], [2**40, 3, 2**30]])
    np.testing.assert_array_equal(inverse, [1, 0, 1])
    np.testing.assert_array_equal(counts, [1, 2])


@pytest.mark.parametrize("dense", [True, False])
def test_k_suppressed_counts_the_tuples_of_small_classes_by_bincount_and_by_hash(
    monkeypatch, dense
):
    if not dense:  # every key span counts as large: the hash path
        monkeypatch.setattr(frequency_keys, "DENSE_MIN", -(10**9))
    key, bound = mixed_key([np.array([0, 1, 0, 2, 2]), np.array([1, 1, 1, 0, 0])], [3, 2], 5)
    weights = np.array([1.0, 4.0, 1.0, 2.0, 1.0])  # classes (0,1): 2, (1,1): 4, (2,0): 3
    small, first, counts = k_suppressed(key, bound, weights, 3, keep=False)
    assert small == 2 and first is None and counts is None
    small, first, counts = k_suppressed(key, bound, weights, 3, keep=lambda s: 3 if s == 2 else -1)
    assert small == 2
    # a row of each class, with the class's count
    assert sorted(key[first].tolist()) == sorted(set(key.tolist()))
    assert {int(key[r]): c for r, c in zip(first, counts, strict=True)} == {
        int(key[0]): 2,
        int(key[1]): 4,
        int(key[3]): 3,
    }
    dropped = k_suppressed(key, bound, weights, 5, keep=lambda s: -1 if s == 9 else 3)
    assert dropped[1:] == (None, None)  # all 9 tuples in small classes: the rule says drop
    assert k_suppressed(key, bound, weights, 3, keep=lambda s: 2)[1:] == (None, None)  # 3 rows


def _lattice(seed, n, m, sensitive, max_sup):
    table = random_table(n, m, cardinality=(2, 7), levels=(1, 3), seed=seed)
    models = [KAnonymity(3)]
    if sensitive:
        s = np.random.default_rng(seed).integers(0, 3, n)
        table = Table(
            table.codes, table.attributes, table.values, table.hierarchies, None, s, "s", "xyz"
        )
        models.append(DistinctLDiversity(2))
    inst = KAnonymityInstance(table, 3, "generalization", True)
    return Lattice(table, inst.hierarchies, tuple(models), max_sup)


def _content(fs):
    """The set as sorted (tuple, count) pairs."""
    return sorted(zip(map(tuple, fs.tuples.tolist()), fs.counts.tolist(), strict=True))


def _recorder(seen, rows):
    """A ``keep`` rule that records its argument and keeps the satisfying sets of at most
    ``rows`` rows."""

    def keep(ok):
        seen.append(ok)
        return rows if ok else -1

    return keep


@SETTINGS
@given(
    st.integers(0, 10_000),
    st.integers(5, 60),
    st.integers(1, 4),
    st.booleans(),
    st.integers(0, 6),
    st.data(),
)
def test_a_check_answers_as_the_frequency_set_and_keeps_the_same_set(
    seed, n, m, sensitive, max_sup, data
):
    lattice = _lattice(seed, n, m, sensitive, max_sup)
    nodes = lattice.all_nodes()
    low = nodes[data.draw(st.integers(0, len(nodes) - 1))]
    high = np.maximum(low, nodes[data.draw(st.integers(0, len(nodes) - 1))])
    attrs = sorted(data.draw(st.sets(st.integers(0, m - 1), min_size=1)))
    want = lattice.frequency_set(attrs, high[attrs])
    for source in (None, lattice.frequency_set(range(m), low)):
        ok, fs = lattice.check(attrs, high[attrs], source)
        assert ok == lattice.satisfies(want)
        np.testing.assert_array_equal(np.sort(fs.counts), np.sort(want.counts))
        assert _content(fs) == _content(want)
        assert lattice.check(attrs, high[attrs], source, keep=False) == (ok, None)
        for rows in (len(want.counts), len(want.counts) - 1):
            seen: list[bool] = []
            ok2, kept = lattice.check(attrs, high[attrs], source, keep=_recorder(seen, rows))
            assert seen == [ok] and ok2 == ok
            assert (kept is not None) == (ok and rows == len(want.counts))


@pytest.mark.parametrize("combos", [1, 4, 64])
def test_block_keys_equal_the_mixed_key_of_the_columns(monkeypatch, combos):
    monkeypatch.setattr(frequency_keys, "BLOCK_COMBOS", combos)
    lattice = _lattice(5, 40, 4, False, 0)
    blocks = frequency_keys.BlockKeys(lattice._base_cols, lattice._radix)
    assert [a for a, _ in blocks.blocks] == sorted({a for a, _ in blocks.blocks})
    assert blocks.blocks[0][0] == 0 and blocks.blocks[-1][1] == 4
    u = len(lattice.base_counts)
    for attrs in [(0, 1, 2, 3), (0, 2), (1, 2, 3), (3,)]:
        for node in lattice.all_nodes()[:, attrs]:
            levels = tuple(int(t) for t in node)
            want = mixed_key(
                [lattice._base_cols[j][t] for j, t in zip(attrs, levels, strict=True)],
                [lattice._radix[j][t] for j, t in zip(attrs, levels, strict=True)],
                u,
            )
            got = mixed_key(*blocks.columns(attrs, levels), u)
            np.testing.assert_array_equal(got[0], want[0])
            assert got[1] == want[1]


@pytest.mark.parametrize("wide", [False, True])
def test_gathered_key_is_the_mixed_key_of_the_gathered_columns(wide):
    """The key combined while gathering equals :func:`mixed_key` of the gathered columns (the
    same integers while the radix product fits, the same equalities once it is compressed)."""
    rng = np.random.default_rng(3)
    radix = [2**40, 2**30, 7] if wide else [5, 3, 7]
    cols = [rng.integers(0, min(r, 4), 50) for r in radix]
    rep = rng.integers(0, 50, 30)
    got, bound = frequency_keys.gathered_key(cols, radix, rep, len(rep))
    want, want_bound = mixed_key([c[rep] for c in cols], radix, len(rep))
    assert bound == want_bound
    if wide:  # compressed: rows equal exactly when they agree
        same = got[:, None] == got[None, :]
        np.testing.assert_array_equal(same, want[:, None] == want[None, :])
    else:
        np.testing.assert_array_equal(got, want)
    whole, _ = frequency_keys.gathered_key(cols, radix, None, 50)
    np.testing.assert_array_equal(whole, mixed_key(cols, radix, 50)[0])
    assert whole is not cols[0]  # never the caller's column itself, updated in place


@pytest.mark.parametrize("dense", [True, False])
def test_k_suppressed_names_the_kept_rows_by_rep(monkeypatch, dense):
    """With ``rep`` the row of each class is given as its entry of ``rep`` (a base row)."""
    if not dense:
        monkeypatch.setattr(frequency_keys, "DENSE_MIN", -(10**9))
    key = np.array([3, 1, 3, 0, 1])
    weights = np.array([2, 1, 4, 7, 1])
    rep = np.array([40, 41, 42, 43, 44])
    small, first, counts = k_suppressed(key, 4, weights, 3, True, rep)
    assert small == 2  # the class of key 1: 2 tuples
    by_key = {int(key[list(rep).index(r)]): int(c) for r, c in zip(first, counts, strict=True)}
    assert by_key == {0: 7, 1: 2, 3: 6}
    assert set(first.tolist()) <= set(rep.tolist())
