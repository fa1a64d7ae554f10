"""Tests of instances/kanonymity/metrics.py: hand-computed values, the cost of FOREST solutions,
the KL-divergence against a brute force over every point of the domain."""

import itertools
import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.instances import Hierarchy, KAnonymityInstance, LDiversityInstance, Table, verify
from anonratio.instances.kanonymity import kl_divergence as KL
from anonratio.instances.kanonymity import metrics as M
from anonratio.instances.kanonymity import random_table
from anonratio.instances.kanonymity import recoding as R
from anonratio.instances.kanonymity.recoding import Domain, Recoding, hierarchy_domain
from anonratio.solvers.kanonymity import k_anonymize
from anonratio.solvers.ldiversity.metrics import kl_divergence as ldiversity_kl

AGE = Hierarchy.from_rows(
    [["20", "20-30", "*"], ["30", "20-30", "*"], ["40", "40-60", "*"], ["60", "40-60", "*"]],
    attribute="age",
)


def _table(sensitive=None):
    """5 records (age, b): age has a 2-level numeric hierarchy, b is suppression only (3 values);
    weights (2, 1). Value counts: age 20:2, 30:1, 40:1, 60:1; b b0:1, b1:3, b2:1."""
    codes = np.array([[0, 0], [1, 1], [2, 1], [3, 1], [0, 2]])
    values = (AGE.labels[0], ("b0", "b1", "b2"))
    return Table(codes, ("age", "b"), values, (AGE, None), [2.0, 1.0], sensitive)


def _local():
    """Groups {0, 1} -> (20-30, *), {2, 3} -> (40-60, b1); record 4 deleted (suppressed)."""
    inst = KAnonymityInstance(_table(), 2, "generalization", row_deletion=True)
    return inst, Recoding.from_partition(inst, [0, 0, 1, 1, -1])


def _global():
    """Full-domain (age level 1, b level 0), record 4 suppressed: classes (20-30, b0) = {0},
    (20-30, b1) = {1}, (40-60, b1) = {2, 3}."""
    return Recoding.full_domain(_table(), [1, 0], [False, False, False, False, True])


# -- hand-computed values -----------------------------------------------------------------------
def test_local_recoding_by_hand():
    inst, rec = _local()
    assert rec.to_dataframe(suppressed_rows="star").values.tolist() == [
        ["20-30", "*"],
        ["20-30", "*"],
        ["40-60", "b1"],
        ["40-60", "b1"],
        ["*", "*"],
    ]
    assert len(rec.to_dataframe()) == 4  # the suppressed tuple withheld
    # b = * on records 0, 1 (2 stars) + 2 cells of the suppressed tuple
    assert M.stars(rec) == 4.0
    # records 0, 1: 2 * 1/2 + 1 * 1/1 = 2 each; records 2, 3: 2 * 1/2 = 1 each; deleted: 2 + 1
    assert M.generalization_cost(rec) == 9.0 == verify(inst, [0, 0, 1, 1, -1]).cost
    # 2^2 + 2^2 + n * |S| = 4 + 4 + 5
    assert M.discernibility(rec) == 13.0
    # (5 - 1) records / 2 classes / k = 2
    assert M.average_class_size(rec, 2) == 1.0
    # spans: 20-30 = 10/40, 40-60 = 20/40, * = 1, b1 = 0
    # (2 * (2 * 0.25 + 1) + 2 * (2 * 0.5 + 0) + 3) / (5 * 3) = (3 + 2 + 3) / 15
    assert M.ncp(rec) == pytest.approx(8 / 15)
    # cells level/height: 2 * (1/2 + 1) + 2 * (1/2 + 0) + 2 = 6, over 10 cells
    assert M.precision(rec) == pytest.approx(0.6)
    # -log2(c(v)/c(node)): r0 log2(3/2) + log2(5/1), r1 log2(3/1) + log2(5/3),
    # r2 and r3 log2(2/1) + log2(3/3), r4 (suppressed) log2(5/2) + log2(5/1)
    # = log2(3/2 * 5 * 3 * 5/3 * 4 * 5/2 * 5) = log2(1875)
    assert M.non_uniform_entropy(rec) == pytest.approx(math.log2(1875))
    # P = 1/5 on (20,b0), (30,b1), (40,b1), (60,b1), (20,b2); P*: class 0 spreads 2/5 over
    # 2 x 3 points (1/15 each), class 1 2/5 over 2 points (1/5 each), the suppressed tuple 1/5
    # over 12 points (1/60 each): P* = 1/12, 1/12, 13/60, 13/60, 1/12
    expected = (3 * math.log(12 / 5) + 2 * math.log(12 / 13)) / 5
    for method in KL.KL_METHODS:
        assert M.kl_divergence(rec, method=method) == pytest.approx(expected, rel=1e-12)


def test_full_domain_recoding_by_hand():
    rec = _global()
    assert M.stars(rec) == 2.0  # only the suppressed tuple's 2 cells
    # published cost: 4 records at age level 1 (2 * 1/2 each) + the suppressed tuple (2 + 1)
    assert M.generalization_cost(rec) == 7.0
    assert M.discernibility(rec) == 1 + 1 + 4 + 5.0  # classes of sizes 1, 1, 2; 5 * 1
    assert M.average_class_size(rec, 2) == pytest.approx(4 / 3 / 2)
    # (2 * 0.25 * 2 + 2 * 0.5 * 2 + 3) / 15
    assert M.ncp(rec) == pytest.approx(6 / 15)
    assert M.precision(rec) == pytest.approx((4 * 0.5 + 2) / 10)
    # r0 log2(3/2), r1 log2(3), r2 and r3 log2(2), r4 log2(5/2) + log2(5): log2(225)
    assert M.non_uniform_entropy(rec) == pytest.approx(math.log2(225))
    # P* = 1/10 + 1/60 on (20,b0), (30,b1); 1/5 + 1/60 on (40,b1), (60,b1); 1/60 on (20,b2)
    expected = (2 * math.log(12 / 7) + 2 * math.log(12 / 13) + math.log(12)) / 5
    for method in KL.KL_METHODS:
        assert M.kl_divergence(rec, method=method) == pytest.approx(expected, rel=1e-12)


def test_kl_with_sensitive_by_hand():
    # sensitive (x, y, x, x, y): class 0 = {r0: x, r1: y} spreads 1/5 per value over 6 points
    rec = Recoding.from_partition(
        KAnonymityInstance(_table([0, 1, 0, 0, 1]), 2, "generalization", True), [0, 0, 1, 1, -1]
    )
    # P* (1/30 + 0 for (20,b0,x); (30,b1,y): 1/30 + 1/60; (40,b1,x), (60,b1,x): 1/5;
    # (20,b2,y): 1/30 + 1/60
    expected = (math.log(6) + 2 * math.log(4) + 2 * math.log(1)) / 5
    for method in KL.KL_METHODS:
        assert M.kl_divergence(rec, method=method) == pytest.approx(expected, rel=1e-12)


def test_identity_release_loses_nothing():
    rec = Recoding.full_domain(_table([0, 1, 0, 0, 1]), [0, 0])
    values = M.utility(rec, k=1)
    assert values["discernibility"] == 1 + 1 + 1 + 1 + 1  # every record its own class
    assert values["c-avg"] == 1.0
    for name in ("stars", "generalization-cost", "ncp", "precision"):
        assert values[name] == 0.0
    # the same sum of c log2 c, in node order and in value order: equal up to rounding
    assert values["non-uniform-entropy"] == pytest.approx(0.0, abs=1e-12)
    assert values["kl-divergence"] == pytest.approx(0.0, abs=1e-15)


def test_range_domain_covering_everything_is_a_star():
    # one attribute of 3 values in the order 2, 0, 1; nodes [0-2] (everything), [0-1], values
    order = np.array([1, 2, 0])
    lo, hi = np.array([0, 0, 0, 1, 2]), np.array([2, 1, 0, 1, 2])
    dom = Domain(
        order, lo, hi, ("*", "2-0", "2", "0", "1"), [1, 1, 0, 0, 0], 1, [1, 2 / 3, 0, 0, 0]
    )
    table = Table([[0], [1], [2], [2]], ("a",), (("0", "1", "2"),))
    rec = Recoding(table, (dom,), [[0], [0], [1], [2]])
    assert M.stars(rec) == 2.0
    assert M.ncp(rec) == pytest.approx((1 + 1 + 2 / 3 + 0) / 4)
    # classes {0, 1} (the whole range), {2} ([2-0]), {3} (value 2): boxes overlap at value 2
    # and at value 0 ([2-0] covers it); P = 1/4, 1/4, 1/2 on values 0, 1, 2 and
    # P*(0) = 2/4/3 + 1/4/2 = 1/6 + 1/8, P*(1) = 1/6, P*(2) = 1/6 + 1/8 + 1/4
    q = [1 / 6 + 1 / 8, 1 / 6, 1 / 6 + 1 / 8 + 1 / 4]
    expected = sum(p * math.log(p / x) for p, x in zip([0.25, 0.25, 0.5], q, strict=True))
    for method in KL.KL_METHODS:
        assert M.kl_divergence(rec, method=method) == pytest.approx(expected, rel=1e-12)


def test_kl_matches_the_ldiversity_metric():
    """Under suppression, the l-diversity KL-divergence (stars uniform over the domain) agrees."""
    table = random_table(40, 3, cardinality=(2, 5), seed=3)
    table = Table(
        table.codes, table.attributes, table.values, table.hierarchies, None, np.arange(40) % 3
    )
    labels = np.arange(40) // 8
    rec = Recoding.from_partition(KAnonymityInstance(table, 2, "suppression"), labels)
    expected = ldiversity_kl(LDiversityInstance(table, 2), labels)
    for method in KL.KL_METHODS:
        assert M.kl_divergence(rec, method=method) == pytest.approx(expected, rel=1e-10)


# -- generalization cost of FOREST solutions -------------------------------------------------------
@settings(derandomize=True, max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(4, 14),
    m=st.integers(1, 3),
    k=st.integers(2, 3),
    model=st.sampled_from(["suppression", "generalization"]),
    row_deletion=st.booleans(),
)
def test_generalization_cost_is_the_verified_cost(seed, n, m, k, model, row_deletion):
    table = random_table(n, m, cardinality=(2, 4), levels=(1, 3), seed=seed)
    inst = KAnonymityInstance(table, k, model, row_deletion)
    labels = np.asarray(k_anonymize(inst, method="forest", seed=0).labels)
    variants = [labels]
    if row_deletion:  # delete a whole group: still feasible
        variants.append(np.where(labels == labels.max(), -1, labels))
    for lab in variants:
        rec = Recoding.from_partition(inst, lab)
        assert M.generalization_cost(rec) == pytest.approx(verify(inst, lab).cost, rel=1e-12)
        if model == "suppression":  # l_j = 1 and unit weights: the cost counts the stars
            assert M.generalization_cost(rec) == pytest.approx(M.stars(rec))


# -- KL-divergence: exact against a brute force ----------------------------------------------------
def _brute_kl(rec):
    """KL from P* evaluated at every point of QI x SA by testing every record's box."""
    t = rec.table
    n = t.n_records
    s = np.zeros(n, int) if t.sensitive is None else t.sensitive
    n_s = 1 if t.sensitive is None else len(t.sensitive_values)
    sizes = [d.n_values for d in rec.domains]
    q_all = {}
    for x in itertools.product(*map(range, sizes)):
        for v in range(n_s):
            total = 0.0
            for i in range(n):
                if s[i] != v:
                    continue
                if rec.suppressed[i]:
                    total += 1 / (n * math.prod(sizes))
                elif all(d.covers([rec.cells[i, j]], [x[j]])[0] for j, d in enumerate(rec.domains)):
                    total += 1 / (
                        n
                        * math.prod(int(d.size[rec.cells[i, j]]) for j, d in enumerate(rec.domains))
                    )
            q_all[x, v] = total
    assert sum(q_all.values()) == pytest.approx(1.0)  # P* is a distribution
    p = Counter((tuple(int(c) for c in t.codes[i]), int(s[i])) for i in range(n))
    return sum(c / n * math.log(c / n / q_all[x]) for x, c in p.items())


def _random_recoding(seed, n, m, ranges, sensitive, suppress):
    rng = np.random.default_rng(seed)
    table = random_table(n, m, cardinality=(2, 4), levels=(1, 3), seed=rng)
    if sensitive:
        table = Table(
            table.codes,
            table.attributes,
            table.values,
            table.hierarchies,
            rng.uniform(0.5, 2, m),
            rng.integers(0, 2, n),
            "s",
            ("x", "y"),
        )
    domains, cells = [], np.empty((n, m), dtype=np.int64)
    for j, h in enumerate(table.hierarchies):
        codes = table.codes[:, j]
        if ranges:  # every interval of a random order: Mondrian-like overlapping ranges
            v = h.n_values
            lo, hi = (
                np.array(a)
                for a in zip(*[(a, b) for a in range(v) for b in range(a, v)], strict=True)
            )
            span = np.where(hi > lo, (hi - lo + 1) / v, 0.0)
            d = Domain(
                rng.permutation(v),
                lo,
                hi,
                [f"{a}-{b}" for a, b in zip(lo, hi, strict=True)],
                (hi > lo).astype(int),
                1,
                span,
            )
            rank = d.order[codes]
            ok = (lo[None, :] <= rank[:, None]) & (rank[:, None] <= hi[None, :])
            cells[:, j] = [rng.choice(np.flatnonzero(row)) for row in ok]
        else:  # a random level per cell: local recoding with nested, overlapping nodes
            d, offsets = hierarchy_domain(h)
            level = rng.integers(0, h.height + 1, n)
            cells[:, j] = offsets[level] + h.groups[codes, level]
        domains.append(d)
    suppressed = rng.random(n) < (0.25 if suppress else 0.0)
    return Recoding(table, tuple(domains), cells, suppressed)


@settings(derandomize=True, max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(1, 9),
    m=st.integers(1, 3),
    ranges=st.booleans(),
    sensitive=st.booleans(),
    suppress=st.booleans(),
)
def test_kl_is_exact(seed, n, m, ranges, sensitive, suppress):
    rec = _random_recoding(seed, n, m, ranges, sensitive, suppress)
    expected = _brute_kl(rec)
    for method in KL.KL_METHODS:
        assert M.kl_divergence(rec, method=method) == pytest.approx(expected, rel=1e-9, abs=1e-12)


@settings(derandomize=True, max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(1, 12),
    m=st.integers(1, 3),
    ranges=st.booleans(),
    suppress=st.booleans(),
)
def test_normalized_metrics_lie_in_the_unit_interval(seed, n, m, ranges, suppress):
    rec = _random_recoding(seed, n, m, ranges, True, suppress)
    values = M.utility(rec, k=1)
    assert 0.0 <= values["ncp"] <= 1.0
    assert 0.0 <= values["precision"] <= 1.0
    assert values["non-uniform-entropy"] >= -1e-9 and values["kl-divergence"] >= -1e-12
    cells = n * m
    assert values["stars"] <= cells and values["discernibility"] <= n * n
    assert values["stars"] >= rec.n_suppressed * m


# -- utility and validation ---------------------------------------------------------------------
def test_utility_computes_the_named_metrics():
    _, rec = _local()
    assert list(M.utility(rec)) == [name for name in M.METRICS if name != "c-avg"]
    assert M.utility(rec, 2)["c-avg"] == 1.0
    assert M.utility(rec, metrics="stars") == {"stars": 4.0}
    assert M.utility(rec, metrics=["ncp", "discernibility"]) == {
        "ncp": pytest.approx(8 / 15),
        "discernibility": 13.0,
    }


def test_validation_errors():
    _, rec = _local()
    with pytest.raises(ValueError, match=r"`metrics` must be one of .*'stars'.*got 'loss'"):
        M.utility(rec, metrics=["stars", "loss"])
    with pytest.raises(ValueError, match=r"`k` must be an integer >= 1, got None"):
        M.utility(rec, metrics="c-avg")
    with pytest.raises(ValueError, match=r"`k` must be an integer >= 1, got 0"):
        M.average_class_size(rec, 0)
    with pytest.raises(ValueError, match=r"`method` must be one of .*got 'grid'"):
        M.kl_divergence(rec, method="grid")
    with pytest.raises(TypeError, match=r"`rec` must be a Recoding, got Table"):
        M.stars(_table())


def test_everything_suppressed():
    rec = Recoding.full_domain(_table(), [0, 0], np.ones(5, bool))
    assert math.isnan(M.average_class_size(rec, 2))
    assert M.discernibility(rec) == 25.0
    assert M.stars(rec) == 10.0 and M.precision(rec) == 1.0 and M.ncp(rec) == 1.0
    # P* uniform over the 12 points: KL = sum P ln(P * 12)
    assert M.kl_divergence(rec) == pytest.approx(math.log(12 / 5))


@pytest.mark.parametrize("seed", range(8))
def test_kl_is_exact_with_renumbered_keys_and_tiny_blocks(seed, monkeypatch):
    """Force the int64 key renumbering and the block loop of box stabbing on small tables."""
    monkeypatch.setattr(R, "KEY_CAP", 8)
    monkeypatch.setattr(KL, "KEY_CAP", 8)
    monkeypatch.setattr(KL, "_BLOCK", 2)
    rec = _random_recoding(seed, 9, 3, seed % 2 == 0, True, True)
    expected = _brute_kl(rec)
    for method in KL.KL_METHODS:
        assert M.kl_divergence(rec, method=method) == pytest.approx(expected, rel=1e-9)
