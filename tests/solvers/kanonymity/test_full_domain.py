"""Samarati, Incognito and Datafly (survey of Ciriani et al. 2009, §3.2; Sweeney 2002): the
lattice searches against an exhaustive one, k-minimality, the published tables, clear errors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kanon_examples import survey_instance

from anonratio.instances import KAnonymityInstance, Table, verify
from anonratio.instances.kanonymity import random_table
from anonratio.instances.kanonymity.recoding import Recoding
from anonratio.instances.privacy import (
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    PSensitiveKAnonymity,
)
from anonratio.solvers.kanonymity.datafly import datafly
from anonratio.solvers.kanonymity.full_domain import NODE_METRICS, Lattice, max_suppressed
from anonratio.solvers.kanonymity.incognito import exhaustive_lattice, incognito
from anonratio.solvers.kanonymity.samarati import samarati

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True)


def _instance(seed, n, m, k, *, deletion=False, sensitive=False):
    table = random_table(n, m, cardinality=(2, 6), levels=(1, 3), seed=seed)
    if sensitive:
        rng = np.random.default_rng(seed)
        s = rng.integers(0, 3, n)
        table = Table(
            table.codes,
            table.attributes,
            table.values,
            table.hierarchies,
            None,
            s,
            "s",
            ("x", "y", "z"),
        )
    return KAnonymityInstance(table, k, "generalization", deletion)


def _satisfies(instance, levels, models, max_sup):
    """Brute force: the table published at ``levels`` and its failing classes."""
    t = instance.table
    keys = np.column_stack(
        [instance.hierarchies[j].groups[t.codes[:, j], lv] for j, lv in enumerate(levels)]
    )
    _, cls = np.unique(keys, axis=0, return_inverse=True)
    cls = cls.reshape(-1)
    failing = np.zeros(t.n_records, dtype=bool)
    for c in np.unique(cls):
        members = cls == c
        for p in models:
            if not p.check(
                np.zeros(members.sum(), dtype=int),
                None if t.sensitive is None else t.sensitive[members],
            ).satisfied:
                failing |= members
    return failing.sum() <= max_sup


params = st.tuples(
    st.integers(0, 10_000),
    st.integers(6, 30),
    st.integers(1, 4),
    st.integers(2, 4),
    st.sampled_from([0.0, 0.1, 0.25]),
    st.sampled_from(NODE_METRICS),
)


@SETTINGS
@given(params)
def test_incognito_equals_the_exhaustive_search(p):
    seed, n, m, k, sup, metric = p
    inst = _instance(seed, n, m, min(k, n), deletion=sup > 0)
    a = incognito(inst, max_suppression=sup, metric=metric)
    b = exhaustive_lattice(inst, max_suppression=sup, metric=metric)
    assert a.status == b.status == "feasible"
    assert a.info["levels"] == b.info["levels"]
    assert a.info["n_satisfying"] == b.info["n_satisfying"]
    assert a.info["metric_value"] == pytest.approx(b.info["metric_value"], rel=1e-9)
    np.testing.assert_array_equal(a.labels, b.labels)
    verify(inst, a)  # k-anonymous, suppressed tuples only under row deletion


@SETTINGS
@given(params)
def test_samarati_is_k_minimal_at_the_lowest_height(p):
    seed, n, m, k, sup, metric = p
    inst = _instance(seed, n, m, min(k, n), deletion=sup > 0)
    sol = samarati(inst, max_suppression=sup, metric=metric)
    verify(inst, sol)
    lattice = Lattice(inst.table, inst.hierarchies, (KAnonymity(inst.k),), max_suppressed(sup, n))
    nodes = lattice.all_nodes()
    ok = np.array([_satisfies(inst, v, (KAnonymity(inst.k),), lattice.max_sup) for v in nodes])
    levels = np.array(list(sol.info["levels"].values()))
    assert ok[np.all(nodes == levels, axis=1)].all()
    assert levels.sum() == nodes[ok].sum(axis=1).min()  # the lowest satisfying height
    # among the nodes at that height it is the best for the metric (as the exhaustive search)
    at = nodes[ok & (nodes.sum(axis=1) == levels.sum())]
    values = [lattice.utility(metric, v) for v in at]
    assert sol.info["metric_value"] == pytest.approx(min(values), rel=1e-9)


@SETTINGS
@given(params)
def test_lattice_agrees_with_a_brute_force_check(p):
    seed, n, m, k, sup, _ = p
    inst = _instance(seed, n, m, min(k, n), deletion=sup > 0, sensitive=True)
    models = (KAnonymity(inst.k), DistinctLDiversity(2))
    lattice = Lattice(inst.table, inst.hierarchies, models, max_suppressed(sup, n))
    for v in lattice.all_nodes():
        assert lattice.satisfies(lattice.node_set(v)) == _satisfies(
            inst, v, models, lattice.max_sup
        )


@SETTINGS
@given(params)
def test_datafly_output_satisfies_and_suppresses_at_most_maxsup(p):
    seed, n, m, k, sup, _ = p
    inst = _instance(seed, n, m, min(k, n), deletion=sup > 0)
    sol = datafly(inst, max_suppression=sup)
    verify(inst, sol)
    assert sol.info["suppressed"] <= max_suppressed(sup, n)
    assert len(sol.info["steps"]) == sum(sol.info["levels"].values())
    rec = sol.info["recoding"]
    assert isinstance(rec, Recoding) and rec.scheme == "global"
    np.testing.assert_array_equal(rec.classes, sol.labels)


def test_published_cost_counts_levels_and_suppressed_tuples():
    inst = _instance(3, 40, 3, 4, deletion=True)
    sol = incognito(inst, max_suppression=0.1, metric="generalization-cost")
    rec = sol.info["recoding"]
    levels = np.array(list(sol.info["levels"].values()))
    kept = ~rec.suppressed
    expected = kept.sum() * float(np.sum(levels / inst.heights)) + rec.n_suppressed * 3
    assert sol.info["published_cost"] == pytest.approx(expected)
    # the partition cost (lowest common levels per class) never exceeds the published cost
    assert verify(inst, sol).cost <= sol.info["published_cost"] + 1e-9


def test_the_survey_example_of_samarati():
    """Ciriani et al. (2009), Example 3.2: k = 3, MaxSup = 2 on the table of Figure 1 returns
    the distance vector [1, 1, 0] (Zip one level up, MaritalStatus one level, Sex kept)."""
    inst = survey_instance()
    sol = samarati(inst, max_suppression=0.2, metric="precision")
    assert sol.info["levels"] == {"zip": 1, "marital": 1, "sex": 0}
    assert sol.info["suppressed"] <= 2


def test_errors_name_the_parameter():
    inst = _instance(0, 20, 3, 3)
    with pytest.raises(ValueError, match="row_deletion"):
        incognito(inst, max_suppression=0.1)
    with pytest.raises(ValueError, match="max_suppression"):
        samarati(_instance(0, 20, 3, 3, deletion=True), max_suppression=1.5)
    with pytest.raises(ValueError, match="metric"):
        incognito(inst, metric="beauty")
    with pytest.raises(ValueError, match="sensitive"):
        incognito(inst, privacy=DistinctLDiversity(2))
    sens = _instance(0, 20, 3, 3, deletion=True, sensitive=True)
    with pytest.raises(ValueError, match="monotone"):  # entropy l-diversity under suppression
        incognito(sens, max_suppression=0.1, privacy=EntropyLDiversity(2))
    with pytest.raises(TypeError, match="privacy"):
        samarati(inst, privacy=["l=2"])


def test_models_beyond_k_anonymity_hold_in_the_output():
    inst = _instance(5, 60, 3, 3, deletion=True, sensitive=True)
    models = [DistinctLDiversity(2), PSensitiveKAnonymity(2, 3)]
    for f in (samarati, incognito, datafly):
        sol = f(inst, max_suppression=0.1, privacy=models)
        assert sol.status == "feasible"
        for p in models:
            assert p.check(sol.labels, inst.table.sensitive).satisfied


def test_infeasible_when_even_the_top_node_fails():
    inst = _instance(1, 12, 2, 3, sensitive=True)
    s = np.zeros(12, dtype=int)  # one sensitive value: no class is 2-diverse
    table = Table(
        inst.table.codes,
        inst.table.attributes,
        inst.table.values,
        inst.table.hierarchies,
        None,
        s,
        "s",
        ("x",),
    )
    inst = KAnonymityInstance(table, 3, "generalization")
    for f in (samarati, incognito, datafly):
        sol = f(inst, privacy=DistinctLDiversity(2))
        assert sol.status == "infeasible" and sol.labels is None


@SETTINGS
@given(params)
def test_node_utility_equals_the_metric_of_the_published_table(p):
    """The lattice computes each metric from a node's frequency set; the metrics module from the
    published recoding. They must agree on every node, suppressed tuples included."""
    from anonratio.instances.kanonymity import metrics

    seed, n, m, k, sup, metric = p
    inst = _instance(seed, n, m, min(k, n), deletion=True)
    lattice = Lattice(inst.table, inst.hierarchies, (KAnonymity(inst.k),), max_suppressed(sup, n))
    for v in lattice.all_nodes()[:: max(1, len(lattice.all_nodes()) // 12)]:
        rec = lattice.recoding(v, "test")
        expected = metrics.METRICS[metric](rec)
        assert lattice.utility(metric, v) == pytest.approx(expected, rel=1e-9, abs=1e-9)
