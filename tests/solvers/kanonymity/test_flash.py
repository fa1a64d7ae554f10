"""Flash (Kohlmayer et al. 2012): every node tagged as a check of every node would tag it, the
same optimum as the exhaustive search and Incognito, the binary search on paths, clear errors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kanon_examples import survey_instance

from anonratio.instances import Hierarchy, KAnonymityInstance, Table, verify
from anonratio.instances.errors import UnsupportedInstanceError
from anonratio.instances.kanonymity import random_table
from anonratio.instances.privacy import (
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    PSensitiveKAnonymity,
)
from anonratio.solvers.kanonymity.flash import FlashHistory, flash, flash_tags, strategy_order
from anonratio.solvers.kanonymity.full_domain import NODE_METRICS, Lattice, max_suppressed
from anonratio.solvers.kanonymity.incognito import exhaustive_lattice, incognito

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True)


def _instance(seed, n, m, k, *, deletion=False, sensitive=False, levels=(1, 3)):
    table = random_table(n, m, cardinality=(2, 6), levels=levels, seed=seed)
    if sensitive:
        s = np.random.default_rng(seed).integers(0, 3, n)
        table = Table(
            table.codes, table.attributes, table.values, table.hierarchies, None, s, "s", "xyz"
        )
    return KAnonymityInstance(table, k, "generalization", deletion)


def _checked_tags(lattice):
    """The reference: every node of the lattice checked on its own frequency set."""
    return np.array([lattice.satisfies(lattice.node_set(v)) for v in lattice.all_nodes()])


params = st.tuples(
    st.integers(0, 10_000),
    st.integers(6, 40),
    st.integers(1, 4),
    st.integers(2, 4),
    st.sampled_from([0.0, 0.1, 0.25]),
    st.sampled_from(NODE_METRICS),
)


@SETTINGS
@given(params)
def test_flash_returns_the_optimum_of_the_exhaustive_search_and_incognito(p):
    seed, n, m, k, sup, metric = p
    inst = _instance(seed, n, m, min(k, n), deletion=sup > 0)
    a = flash(inst, max_suppression=sup, metric=metric)
    b = exhaustive_lattice(inst, max_suppression=sup, metric=metric)
    c = incognito(inst, max_suppression=sup, metric=metric)
    assert a.status == b.status == c.status == "feasible"
    assert a.info["levels"] == b.info["levels"] == c.info["levels"]
    assert a.info["n_satisfying"] == b.info["n_satisfying"]
    assert a.info["metric_value"] == pytest.approx(b.info["metric_value"], rel=1e-9)
    assert a.info["suppressed"] <= max_suppressed(sup, n)
    np.testing.assert_array_equal(a.labels, b.labels)
    verify(inst, a)  # the independent verifier: k-anonymous, suppression only under deletion


@SETTINGS
@given(params)
def test_every_tag_equals_a_check_of_the_node(p):
    """Predictive tagging under a monotone model (k-anonymity and distinct l-diversity, with a
    suppression budget) never tags a node otherwise than checking it would."""
    seed, n, m, k, sup, _ = p
    inst = _instance(seed, n, m, min(k, n), deletion=sup > 0, sensitive=True)
    models = (KAnonymity(inst.k), DistinctLDiversity(2))
    lattice = Lattice(inst.table, inst.hierarchies, models, max_suppressed(sup, n))
    nodes, ok, checked = flash_tags(lattice)
    np.testing.assert_array_equal(nodes, lattice.all_nodes())
    np.testing.assert_array_equal(ok, _checked_tags(lattice))
    assert 1 <= checked <= len(nodes)


def test_predictive_tagging_checks_a_fraction_of_a_larger_lattice():
    inst = _instance(11, 400, 6, 5, deletion=True, levels=(2, 3))
    lattice = Lattice(inst.table, inst.hierarchies, (KAnonymity(5),), max_suppressed(0.04, 400))
    nodes, ok, checked = flash_tags(lattice)
    np.testing.assert_array_equal(ok, _checked_tags(lattice))
    assert 0 < ok.sum() < len(nodes)
    assert checked < len(nodes) / 2


def test_binary_search_on_a_chain_checks_logarithmically_many_nodes():
    """One attribute with a hierarchy of 15 levels: the lattice is one path of 16 nodes, searched
    by bisection (at most ceil(log2(17)) = 5 checks, where a linear scan takes up to 16)."""
    n_values, height = 16, 15
    groups = np.column_stack([np.arange(n_values) >> t for t in range(height)])
    groups = np.column_stack([groups, np.zeros(n_values, dtype=int)])
    labels = tuple(
        tuple(f"t{t}g{g}" for g in range(int(groups[:, t].max()) + 1)) for t in range(height + 1)
    )
    h = Hierarchy(groups, labels)
    codes = np.repeat(np.arange(n_values), np.arange(1, n_values + 1))[:, None]
    table = Table(codes, ("a",), (labels[0],), (h,))
    for k in (1, 3, 40, len(codes)):
        lattice = Lattice(table, (h,), (KAnonymity(max(k, 1)),), 0)
        _, ok, checked = flash_tags(lattice)
        np.testing.assert_array_equal(ok, _checked_tags(lattice))
        assert checked <= 5


def test_with_a_suppression_budget_the_survey_example():
    """Ciriani et al. (2009), Example 3.2: k = 3, MaxSup = 2; Flash returns the exhaustive
    search's best node for every metric, suppressing at most 2 tuples."""
    inst = survey_instance()
    for metric in NODE_METRICS:
        a = flash(inst, max_suppression=0.2, metric=metric)
        b = exhaustive_lattice(inst, max_suppression=0.2, metric=metric)
        assert a.info["levels"] == b.info["levels"], metric
        assert a.info["suppressed"] <= 2
        verify(inst, a)
    # without the budget the same table needs a higher node
    strict = flash(inst, metric="precision")
    assert strict.info["suppressed"] == 0
    assert sum(strict.info["levels"].values()) > 2


@pytest.mark.parametrize("metric", NODE_METRICS)
def test_the_optimum_holds_where_the_metric_is_not_monotone(metric):
    """With suppression a node above a satisfying node may cost less (it suppresses fewer
    tuples, each charged as fully generalized): on these tables each metric drops along some
    edge between satisfying nodes, and Flash still returns the exhaustive search's node."""
    seed = 10 if metric in ("precision", "generalization-cost") else 0
    inst = _instance(seed, 30, 3, 3, deletion=True)
    lattice = Lattice(inst.table, inst.hierarchies, (KAnonymity(3),), max_suppressed(0.25, 30))
    ok = _checked_tags(lattice)
    nodes = lattice.all_nodes()
    drops = [
        (v, w)
        for v in nodes[ok]
        for w in nodes[ok]
        if (w - v).sum() == 1
        and np.all(w >= v)
        and lattice.utility(metric, w) < lattice.utility(metric, v) - 1e-9
    ]
    assert drops
    a = flash(inst, max_suppression=0.25, metric=metric)
    b = exhaustive_lattice(inst, max_suppression=0.25, metric=metric)
    assert a.info["levels"] == b.info["levels"]
    assert a.info["metric_value"] == pytest.approx(b.info["metric_value"], rel=1e-9)


def test_models_beyond_k_anonymity_hold_in_the_output():
    inst = _instance(5, 60, 3, 3, deletion=True, sensitive=True)
    models = [DistinctLDiversity(2), PSensitiveKAnonymity(2, 3)]
    sol = flash(inst, max_suppression=0.1, privacy=models)
    ref = incognito(inst, max_suppression=0.1, privacy=models)
    assert sol.status == "feasible" and sol.info["levels"] == ref.info["levels"]
    for p in models:
        assert p.check(sol.labels, inst.table.sensitive).satisfied


def test_infeasible_when_even_the_top_node_fails():
    inst = _instance(1, 12, 2, 3)
    table = Table(
        inst.table.codes,
        inst.table.attributes,
        inst.table.values,
        inst.table.hierarchies,
        None,
        np.zeros(12, dtype=int),  # one sensitive value: no class is 2-diverse
        "s",
        ("x",),
    )
    sol = flash(KAnonymityInstance(table, 3, "generalization"), privacy=DistinctLDiversity(2))
    assert sol.status == "infeasible" and sol.labels is None


def test_strategy_orders_by_height_then_relative_level_then_kept_values():
    inst = _instance(3, 50, 3, 2, levels=(2, 3))
    lattice = Lattice(inst.table, inst.hierarchies, (KAnonymity(2),), 0)
    nodes = lattice.all_nodes()
    rank = strategy_order(lattice, nodes)
    assert sorted(rank) == list(range(len(nodes)))
    order = nodes[np.argsort(rank)]
    assert np.all(np.diff(order.sum(axis=1)) >= 0)  # height first
    assert rank[0] == 0 and rank[-1] == len(nodes) - 1  # bottom first, top last
    rel = (order / np.maximum(lattice.heights, 1)).mean(axis=1)
    same = np.diff(order.sum(axis=1)) == 0
    assert np.all(np.diff(rel)[same] >= -1e-12)  # then the mean relative level


def test_history_serves_the_smallest_set_below_and_drops_the_least_recently_used():
    inst = _instance(2, 80, 3, 2, levels=(2, 2))
    lattice = Lattice(inst.table, inst.hierarchies, (KAnonymity(2),), 0)
    history = FlashHistory(3, capacity=2)
    bottom, mid, top = np.zeros(3, int), np.array([1, 0, 1]), lattice.heights.copy()
    assert history.below(top) is None
    history.add(mid, lattice.node_set(mid))
    assert history.below(np.array([0, 1, 0])) is None  # held, but not below; a slot is empty
    history = FlashHistory(3, capacity=2)
    history.add(bottom, lattice.node_set(bottom))
    history.add(mid, lattice.node_set(mid))
    assert history.below(top).levels == tuple(mid)  # fewer rows than the bottom
    assert history.below(np.array([0, 1, 0])).levels == (0, 0, 0)  # mid is not below
    history.below(bottom)  # the bottom was used last: mid goes
    history.add(top, lattice.node_set(top))
    assert history.below(np.array([2, 2, 2])).levels == tuple(top)
    assert history.below(np.array([1, 0, 1])).levels == (0, 0, 0)


@pytest.mark.parametrize(("width", "top"), [(3, 2), (9, 4), (9, 127), (20, 1)])
def test_history_below_is_the_smallest_held_set_at_or_below_level_by_level(width, top):
    """The packed comparison of the history (one or several words) answers as comparing the
    levels one by one."""

    class Held:  # only its size is read
        def __init__(self, rows):
            self.counts = np.zeros(rows)

    rng = np.random.default_rng(width + top)
    history = FlashHistory(width, capacity=16, top=top)
    held = []
    for _ in range(12):
        node = rng.integers(0, top + 1, width)
        fs = Held(int(rng.integers(1, 100)))
        history.add(node, fs)
        held.append((node, fs))
    for _ in range(200):
        node = rng.integers(0, top + 1, width)
        below = [fs for v, fs in held if np.all(v <= node)]
        got = history.below(node)
        if not below:
            assert got is None
        else:
            assert len(got.counts) == min(len(fs.counts) for fs in below)
            assert any(got is fs for fs in below)


def test_every_set_is_rolled_up_from_a_set_below_and_anchors_replace_the_table():
    """Each check and each anchor reads a set of a node at or below its own; on a lattice whose
    low nodes are tagged by prediction, anchors (meets of nodes that lacked a small source)
    serve the checks that would read the table's rows, and the tags stay those of checking
    every node."""
    inst = _instance(3, 1000, 6, 5, deletion=True, levels=(2, 3))
    lattice = Lattice(inst.table, inst.hierarchies, (KAnonymity(5),), max_suppressed(0.04, 1000))
    reads, inside = [], []
    check, rollup = lattice.check, lattice.rollup

    def spy_check(attrs, levels, source=None, keep=True):
        if not inside:  # not the count of a rollup
            reads.append(("check", tuple(levels), source))
        return check(attrs, levels, source, keep)

    def spy_rollup(attrs, levels, source):
        reads.append(("anchor", tuple(levels), source))
        inside.append(1)
        try:
            return rollup(attrs, levels, source)
        finally:
            inside.pop()

    lattice.check, lattice.rollup = spy_check, spy_rollup
    nodes, ok, checked = flash_tags(lattice)
    lattice.check, lattice.rollup = check, rollup
    for _, levels, source in reads:
        assert source is None or all(s <= t for s, t in zip(source.levels, levels, strict=True))
    anchors = sum(kind == "anchor" for kind, _, _ in reads)
    from_table = sum(kind == "check" and source is None for kind, _, source in reads)
    assert anchors > 0 and from_table < anchors
    assert checked == sum(kind == "check" for kind, _, _ in reads)
    np.testing.assert_array_equal(ok, _checked_tags(lattice))


def test_errors_name_the_parameter():
    inst = _instance(0, 20, 3, 3)
    with pytest.raises(ValueError, match="row_deletion"):
        flash(inst, max_suppression=0.1)
    with pytest.raises(ValueError, match="max_suppression"):
        flash(_instance(0, 20, 3, 3, deletion=True), max_suppression=1.5)
    with pytest.raises(ValueError, match="metric"):
        flash(inst, metric="beauty")
    with pytest.raises(ValueError, match="sensitive"):
        flash(inst, privacy=DistinctLDiversity(2))
    sens = _instance(0, 20, 3, 3, deletion=True, sensitive=True)
    with pytest.raises(ValueError, match="monotone"):  # entropy l-diversity under suppression
        flash(sens, max_suppression=0.1, privacy=EntropyLDiversity(2))
    with pytest.raises(TypeError, match="privacy"):
        flash(inst, privacy=["l=2"])
    with pytest.raises(TypeError, match="instance"):
        flash(inst.table)


def test_a_lattice_beyond_the_node_limit_is_refused(monkeypatch):
    import anonratio.solvers.kanonymity.full_domain as fd

    monkeypatch.setattr(fd, "MAX_NODES", 10)
    with pytest.raises(UnsupportedInstanceError, match="nodes"):
        flash(_instance(0, 20, 3, 2, levels=(2, 2)))


def test_a_lattice_too_large_is_refused_by_the_declaration(monkeypatch):
    from anonratio.bench.registry import REGISTRY, generate
    from anonratio.solvers.kanonymity import full_domain as fd

    inst, _ = generate("kanon-random", seed=0, n=12, m=3, k=2)
    assert REGISTRY["flash"].supports(inst) is None
    monkeypatch.setattr(fd, "MAX_NODES", 1)
    for name in ("flash", "incognito", "samarati"):
        assert "lattice has" in REGISTRY[name].supports(inst)
