"""Tests of solvers/ldiversity/metrics.py: the KL-divergence of §6.2."""

import itertools

import numpy as np
import pytest
from bruteforce_ldiversity import make, tables
from hypothesis import given, settings

from anonratio.instances import verify
from anonratio.instances.kanonymity.metrics import METRICS
from anonratio.solvers.ldiversity.metrics import (
    SOLUTION_METRICS,
    domain_sizes,
    kl_divergence,
    published_recoding,
    suppression_counts,
)
from anonratio.solvers.ldiversity.tp_plus import tp_plus


def test_zero_without_stars():
    inst = make([0, 0, 1, 1], [0, 1, 0, 1], 2)
    assert kl_divergence(inst, [0, 0, 1, 1]) == 0.0


def test_hand_computed():
    # two records, one attribute of domain 4, one group with a star: P = 1/2 at (0, s0) and
    # (1, s1); P* = 1/2 * 1/4 at each of them, so KL = ln 4
    inst = make([0, 1], [0, 1], 2, card=4)
    assert kl_divergence(inst, [0, 0]) == pytest.approx(np.log(4))
    # a domain the group covers exactly with one sensitive value loses nothing
    inst = make([0, 1, 0, 1], [0, 0, 1, 1], 2, card=2)
    assert kl_divergence(inst, [0, 0, 0, 0]) == pytest.approx(0.0)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(tables(max_n=9))
def test_nonnegative_and_positive_with_stars(inst):
    sol = tp_plus(inst)
    kl = kl_divergence(inst, sol.labels)
    counts = suppression_counts(inst, sol.labels)
    v = verify(inst, sol)
    assert counts["stars"] == v.stars and counts["suppressed_tuples"] == v.suppressed_tuples
    assert kl >= -1e-12
    if counts["stars"] == 0:
        assert kl == pytest.approx(0.0, abs=1e-12)
    # with domains larger than the table, a star always leaks mass off P's support
    wide = make(inst.table.codes, inst.sensitive.tolist(), inst.l, card=inst.n + 1)
    assert (kl_divergence(wide, sol.labels) > 1e-9) == (counts["stars"] > 0)
    assert domain_sizes(wide).tolist() == [inst.n + 1] * inst.d


def _kl_by_enumeration(inst, labels):
    """Equation (2) by spreading every record's mass over the points of its published cell."""
    codes, s, n = inst.table.codes, inst.sensitive, inst.n
    dom = domain_sizes(inst)
    labels = np.asarray(labels)
    p: dict[tuple, float] = {}
    q: dict[tuple, float] = {}
    for i in range(n):
        point = (*codes[i], s[i])
        p[point] = p.get(point, 0.0) + 1 / n
        group = codes[labels == labels[i]]
        cell = [
            range(dom[j]) if len(set(group[:, j])) > 1 else [codes[i, j]] for j in range(inst.d)
        ]
        volume = np.prod([len(c) for c in cell])
        for qi in itertools.product(*cell):
            q[(*qi, s[i])] = q.get((*qi, s[i]), 0.0) + 1 / (n * volume)
    return sum(px * np.log(px / q[x]) for x, px in p.items())


@settings(max_examples=60, deadline=None, derandomize=True)
@given(tables(max_n=9))
def test_equals_the_enumerated_definition(inst):
    # TP+'s partition and the one-group partition, on the table's own domains and on wider ones
    for table in (inst, make(inst.table.codes, inst.sensitive.tolist(), inst.l, card=4)):
        for labels in (tp_plus(table).labels, np.zeros(table.n, dtype=int)):
            assert kl_divergence(table, labels) == pytest.approx(_kl_by_enumeration(table, labels))


@settings(max_examples=40, deadline=None, derandomize=True)
@given(tables(max_n=9))
def test_a_runs_kl_divergence_is_that_of_its_suppressed_table(inst):
    # the run's metric takes Equation (2) directly; the general recoding's KL agrees with it
    sol = tp_plus(inst)
    general = METRICS["kl-divergence"](published_recoding(inst, sol))
    assert SOLUTION_METRICS["kl-divergence"](inst, sol) == pytest.approx(general)
    assert set(SOLUTION_METRICS) == set(METRICS) - {"c-avg"}
