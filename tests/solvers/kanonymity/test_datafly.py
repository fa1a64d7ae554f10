"""Datafly (Sweeney 2002, §4.1) under privacy models that lose the generalization property with
tuple suppression: the greedy walk needs no pruning, so it takes them, and its release (the
suppressed tuples withheld) satisfies every model; the README says which algorithm takes what."""

import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.instances import KAnonymityInstance, Table
from anonratio.instances import privacy as P
from anonratio.instances.kanonymity import random_table
from anonratio.solvers.kanonymity.datafly import datafly
from anonratio.solvers.kanonymity.full_domain import max_suppressed
from anonratio.solvers.kanonymity.incognito import incognito
from anonratio.solvers.kanonymity.samarati import samarati

#: the page that lists the privacy models (docs/api.md, "Privacy models")
README = Path(__file__).resolve().parents[3] / "docs" / "api.md"

#: one instance of every model the README lists, none of them monotone with suppression
NON_MONOTONE = (
    P.EntropyLDiversity(2),
    P.RecursiveCLDiversity(3, 2),
    P.AlphaKAnonymity(0.7, 2),
    P.TCloseness(0.3),
    P.TCloseness(0.3, "ordered"),
)


def _instance(seed: int, n: int, m: int, k: int, n_sensitive: int = 3) -> KAnonymityInstance:
    table = random_table(n, m, cardinality=(2, 6), levels=(1, 3), seed=seed)
    s = np.random.default_rng(seed).integers(0, n_sensitive, n)
    values = tuple(f"s{v}" for v in range(n_sensitive))
    table = Table(
        table.codes, table.attributes, table.values, table.hierarchies, None, s, "s", values
    )
    return KAnonymityInstance(table, k, "generalization", True)


def _release_passes(sol, inst, models) -> None:
    """Every model holds on the released classes: against the whole table's distribution (Li et
    al.'s t-closeness) and against the released records' own (what a reader of the file sees)."""
    labels, sens = sol.labels, inst.table.sensitive
    kept = labels >= 0
    n_values = len(inst.table.sensitive_values)
    for p in (P.KAnonymity(inst.k), *models):
        assert p.check(labels, sens, n_values=n_values).satisfied, p
        assert p.check(labels[kept], sens[kept], n_values=n_values).satisfied, p


@pytest.mark.parametrize("model", NON_MONOTONE, ids=str)
def test_datafly_takes_models_that_are_not_monotone_with_suppression(model):
    inst = _instance(3, 60, 3, 3)
    sol = datafly(inst, max_suppression=0.1, privacy=model)
    assert sol.status == "feasible"
    assert sol.info["suppressed"] <= max_suppressed(0.1, 60)
    _release_passes(sol, inst, [model])


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    st.integers(0, 10_000),
    st.integers(8, 40),
    st.integers(1, 3),
    st.integers(2, 4),
    st.sampled_from([0.05, 0.15, 0.3]),
    st.sampled_from(NON_MONOTONE),
)
def test_datafly_release_satisfies_every_model(seed, n, m, k, sup, model):
    inst = _instance(seed, n, m, min(k, n))
    sol = datafly(inst, max_suppression=sup, privacy=[model])
    if sol.status == "infeasible":  # even the top node fails: one class of all n records
        assert not model.check(np.zeros(n, int), inst.table.sensitive).satisfied
        return
    assert sol.info["suppressed"] <= max_suppressed(sup, n)
    _release_passes(sol, inst, [model])


def test_t_closeness_is_checked_against_the_released_records():
    """Suppressing the failing class changes the distribution of the released records: a class
    close to the whole table may then be far from the release, and is suppressed too."""
    # the share of s0: 6/11 in the table; class A (s1, s1) at distance 6/11 fails t = 0.3,
    # B (s0, s1, s1) at 0.21 and C (5 x s0, s1) at 0.29 pass. Without A the release has 6/9:
    # B is at 1/3 from it and fails, C at 1/6 passes (and alone, at 0).
    codes = np.array([[0]] * 2 + [[1]] * 3 + [[2]] * 6)
    s = np.array([1, 1, 0, 1, 1, 0, 0, 0, 0, 0, 1])
    table = Table(codes, ("a",), (("a0", "a1", "a2"),), None, None, s, "s", ("s0", "s1"))
    inst = KAnonymityInstance(table, 2, "generalization", True)
    model = P.TCloseness(0.3)
    sol = datafly(inst, max_suppression=0.5, privacy=model)
    assert sol.status == "feasible" and sol.info["levels"] == {"a": 0}
    np.testing.assert_array_equal(sol.labels < 0, [True] * 5 + [False] * 6)
    _release_passes(sol, inst, [model])
    # with room for A only, level 0 does not do: the top node (one class, EMD 0) is released
    sol = datafly(inst, max_suppression=0.3, privacy=model)
    assert sol.info["levels"] == {"a": 1} and sol.info["suppressed"] == 0
    _release_passes(sol, inst, [model])


def _privacy_paragraph() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index("**Privacy models**")
    return " ".join(text[start : text.index("\n\n", start)].split())


def test_readme_says_which_algorithm_takes_which_model():
    """The README lists the models that stay monotone with suppression (the ones Samarati and
    Incognito take with ``max_suppression > 0``) and says Datafly takes any: both hold."""
    paragraph = _privacy_paragraph()
    assert "Datafly takes any" in paragraph
    listed = re.search(r"with tuple suppression, only (.+?) stay monotone", paragraph)
    assert listed is not None, paragraph
    names = {
        "k-anonymity": P.KAnonymity,
        "distinct l-diversity": P.DistinctLDiversity,
        "p-sensitive k-anonymity": P.PSensitiveKAnonymity,
    }
    stated = {names[x.strip()] for x in re.split(r",| and ", listed.group(1)) if x.strip()}
    models = (P.KAnonymity(3), P.DistinctLDiversity(2), P.PSensitiveKAnonymity(2, 3), *NON_MONOTONE)
    assert {type(p) for p in models} == {
        c for c in vars(P).values() if isinstance(c, type) and issubclass(c, P.PrivacyModel)
    } - {P.PrivacyModel}  # every model the suite has
    inst = _instance(3, 60, 3, 3)
    for p in models:
        assert datafly(inst, max_suppression=0.1, privacy=p).status in ("feasible", "infeasible")
        for search in (samarati, incognito):
            if type(p) in stated:
                search(inst, max_suppression=0.1, privacy=p)
            else:
                with pytest.raises(ValueError, match="not monotone with tuple suppression"):
                    search(inst, max_suppression=0.1, privacy=p)
