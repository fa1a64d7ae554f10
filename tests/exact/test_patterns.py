"""Tests of exact/patterns.py: the QI patterns the l-diversity and t-closeness models share."""

import numpy as np
import pytest

from anonratio.exact.patterns import decode_counts, pattern_counts, pattern_pairs


def test_pairs_star_only_what_varies_and_drop_useless_stars():
    qcodes = np.array([[0, 5, 1], [1, 5, 1]])  # attribute 1 and 2 never vary
    patterns, pair_q, pair_p, stars = pattern_pairs(qcodes)
    assert {tuple(p) for p in patterns} == {(0, 5, 1), (1, 5, 1), (-1, 5, 1)}
    assert stars.tolist() == [int(np.sum(p == -1)) for p in patterns]
    # every pair is compatible: the pattern equals its QI-group wherever it has no star
    for q, p in zip(pair_q, pair_p, strict=True):
        keep = patterns[p] != -1
        assert np.array_equal(patterns[p][keep], qcodes[q][keep])


def test_tuples_keep_each_group_and_the_table_pattern():
    qcodes = np.array([[0, 1], [1, 1], [1, 0]])
    patterns, pair_q, _, stars = pattern_pairs(qcodes, tuples=True)
    assert {tuple(p) for p in patterns} == {(0, 1), (1, 1), (1, 0), (-1, -1)}
    assert sorted(stars.tolist()) == [0, 0, 0, 2] and pair_q.size == 6


@pytest.mark.parametrize("tuples", [False, True])
def test_counts_of_a_partition_decode_back_to_it(tuples):
    codes = np.array([[0, 0], [0, 0], [0, 1], [1, 1], [1, 1]])
    value = np.array([0, 1, 0, 1, 0])
    qcodes, qi_group = np.unique(codes, axis=0, return_inverse=True)
    qi_group = qi_group.reshape(-1)
    patterns, pair_q, pair_p, _ = pattern_pairs(qcodes, tuples=tuples)
    labels = np.array([0, 0, 1, 1, 1])
    y = pattern_counts(patterns, pair_q, pair_p, qi_group, value, 2, codes, labels, tuples=tuples)
    assert y.sum() == 5
    decoded = decode_counts(pair_q, pair_p, qi_group, value, y)
    # the same groups (numbered by their patterns, so compared as partitions)
    assert np.array_equal(decoded[:, None] == decoded, labels[:, None] == labels)
