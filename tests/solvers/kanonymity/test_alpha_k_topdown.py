"""(alpha, k)-anonymity by top-down local recoding (Wong, Li, Fu and Wang, KDD 2006)."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import anonratio
from anonratio.bench.registry import REGISTRY, generate
from anonratio.instances import Hierarchy, KAnonymityInstance, Table, verify
from anonratio.instances.privacy import AlphaKAnonymity, DistinctLDiversity
from anonratio.solvers.kanonymity import k_anonymize
from anonratio.solvers.kanonymity.alpha_k_topdown import DEFAULT_ALPHA, alpha_k_topdown


def _sensitive_instance(family="kanon-random", seed=0, **params):
    instance, _ = generate(family, seed=seed, **params)
    return instance


def _alpha_k_holds(instance, labels, alpha, value=None):
    model = AlphaKAnonymity(alpha, instance.k, value)
    return model.check(labels, instance.table.sensitive).satisfied


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize(
    ("family", "params"),
    [
        ("kanon-random", {"n": 300, "m": 4, "k": 5, "sensitive": 3}),
        ("kanon-random", {"n": 200, "m": 3, "k": 3, "sensitive": 4, "zipf": 1.0}),
        ("kanon-binary", {"n": 40, "m": 6, "k": 3, "sensitive": 3}),
    ],
)
def test_verified_and_alpha_k_holds_on_every_class(family, params, seed):
    instance = _sensitive_instance(family, seed, **params)
    solution = alpha_k_topdown(instance, seed=seed)
    assert solution.status == "feasible"
    assert solution.algorithm == "alpha-k-topdown"
    check = verify(instance, solution)  # the independent verifier: every group >= k records
    assert check.feasible
    assert _alpha_k_holds(instance, solution.labels, DEFAULT_ALPHA)
    # the classes actually published (groups with equal rows merge) pass too
    published = solution.info["recoding"].classes
    assert _alpha_k_holds(instance, published, DEFAULT_ALPHA)
    worst = AlphaKAnonymity(DEFAULT_ALPHA, instance.k).check(
        solution.labels, instance.table.sensitive
    )
    assert solution.info["max_frequency"] == pytest.approx(worst.worst)
    assert solution.info["max_frequency"] <= DEFAULT_ALPHA
    assert solution.info["n_groups"] == len(np.unique(solution.labels))


def _zip_table(sensitive):
    """One attribute, zip codes 1301 1302 1401 1402 under 130* / 140* under *."""
    groups = [[0, 0, 0], [1, 0, 0], [2, 1, 0], [3, 1, 0]]
    labels = (("1301", "1302", "1401", "1402"), ("130*", "140*"), ("*",))
    codes = [[0], [0], [1], [1], [2], [2], [3], [3], [3], [3]]
    return Table(
        codes,
        ("zip",),
        (labels[0],),
        hierarchies=(Hierarchy(groups, labels),),
        sensitive=sensitive,
        sensitive_name="disease",
        sensitive_values=("hiv", "none"),
    )


def test_hand_checked_specializations_and_borrowing():
    # records 0..9: zips 1301 1301 1302 1302 1401 1401 1402 1402 1402 1402, hiv on 0 2 4 5.
    # Top: hiv 4/10 passes. Specializing * gives 130* {0..3} (hiv 2/4) and 140* {4..9} (2/6),
    # both kept. 130* gives 1301 {0,1} and 1302 {2,3}, each hiv 1/2: kept, final. 140* gives
    # 1401 {4,5} (hiv 2/2, fails) and 1402 {6..9} (0/4): {4,5} borrows the lowest-indexed
    # records of 1402 until hiv <= 1/2: 6 (2/3, still failing), then 7 (2/4); 1402 keeps
    # {8, 9} (2 = k records). Cost: {4,5,6,7} sits at 140*, level 1 of 2: 4 * 1/2 = 2.
    table = _zip_table([0, 1, 0, 1, 0, 0, 1, 1, 1, 1])
    instance = KAnonymityInstance(table, 2, "generalization")
    solution = alpha_k_topdown(instance, alpha=0.5, value=0)
    assert solution.labels.tolist() == [0, 0, 1, 1, 2, 2, 2, 2, 3, 3]
    assert verify(instance, solution).cost == pytest.approx(2.0)
    assert solution.info["max_frequency"] == pytest.approx(0.5)
    assert solution.info["specializations"] == 3
    published = solution.info["recoding"].to_dataframe()["zip"].tolist()
    assert published == ["1301", "1301", "1302", "1302"] + ["140*"] * 4 + ["1402", "1402"]


def test_every_value_bounded_by_default():
    # hiv on 0 2 4 5 9. value=None bounds "none" too: 1401 {4,5} (hiv 2/2) and 1402 {6..9}
    # (none 3/4) both fail, merge back into 140*, which stays one group (hiv 3/6).
    table = _zip_table([0, 1, 0, 1, 0, 0, 1, 1, 1, 0])
    instance = KAnonymityInstance(table, 2, "generalization")
    solution = alpha_k_topdown(instance)
    assert solution.labels.tolist() == [0, 0, 1, 1, 2, 2, 2, 2, 2, 2]
    assert solution.info["max_frequency"] == pytest.approx(0.5)
    # alpha = 0.75: 1402 passes (3/4) and gives {4,5} one "none" record, its lowest-indexed (6):
    # {4,5,6} has hiv 2/3 and {7,8,9} none 2/3; cost 3 records at 140*, 3 * 1/2
    loose = alpha_k_topdown(instance, alpha=0.75)
    assert loose.labels.tolist() == [0, 0, 1, 1, 2, 2, 2, 3, 3, 3]
    assert loose.info["max_frequency"] == pytest.approx(2 / 3)
    assert verify(instance, loose).cost == pytest.approx(1.5)


@settings(max_examples=12, deadline=None, derandomize=True)
@given(
    n=st.integers(6, 10),
    m=st.integers(2, 4),
    k=st.integers(2, 3),
    sensitive=st.integers(2, 3),
    seed=st.integers(0, 2**16),
)
def test_feasible_and_never_below_the_exact_optimum(n, m, k, sensitive, seed):
    instance = _sensitive_instance("kanon-binary", seed, n=n, m=m, k=k, sensitive=sensitive)
    solution = alpha_k_topdown(instance, seed=seed)
    counts = np.bincount(instance.table.sensitive)
    if counts.max() / n > DEFAULT_ALPHA:  # the whole table fails: nothing can pass
        assert solution.status == "infeasible" and solution.labels is None
        return
    assert solution.status == "feasible"
    check = verify(instance, solution)
    assert check.feasible
    assert _alpha_k_holds(instance, solution.labels, DEFAULT_ALPHA)
    exact = REGISTRY["kanon-highs"].run(instance, seed=0, time_limit=60.0)
    assert exact.status == "optimal"
    assert check.cost >= verify(instance, exact).cost - 1e-9


def test_an_instance_without_a_sensitive_attribute_is_refused():
    instance = _sensitive_instance("kanon-binary", 0, n=10, m=4, k=3)
    assert instance.table.sensitive is None
    reason = REGISTRY["alpha-k-topdown"].supports(instance)
    assert reason is not None and "sensitive attribute" in reason
    with pytest.raises(ValueError, match="needs a sensitive attribute"):
        alpha_k_topdown(instance)


@pytest.mark.parametrize("alpha", [0, -0.1, 1.5, math.nan])
def test_bad_alpha_is_refused(alpha):
    instance = _sensitive_instance(n=30, k=3, sensitive=3)
    with pytest.raises(ValueError, match="`alpha`"):
        alpha_k_topdown(instance, alpha=alpha)


def test_bad_alpha_type_and_value_are_refused():
    instance = _sensitive_instance(n=30, k=3, sensitive=3)
    with pytest.raises((TypeError, ValueError), match="`alpha`"):
        alpha_k_topdown(instance, alpha="half")
    with pytest.raises(ValueError, match="`value`"):
        alpha_k_topdown(instance, value=3)  # codes 0..2
    with pytest.raises(TypeError, match="`privacy`"):
        alpha_k_topdown(instance, privacy=["(0.5, 3)-anonymity"])


def test_a_table_failing_alpha_as_a_whole_is_infeasible():
    table = _zip_table([0, 0, 0, 0, 0, 0, 1, 1, 1, 1])  # hiv 6/10 > 0.5
    solution = alpha_k_topdown(KAnonymityInstance(table, 2, "generalization"))
    assert solution.status == "infeasible" and solution.labels is None
    assert solution.info["max_frequency"] == pytest.approx(0.6)


def test_privacy_models_are_enforced_and_an_alpha_model_replaces_the_default():
    instance = _sensitive_instance(n=300, m=4, k=4, sensitive=4, zipf=1.0)
    loose = AlphaKAnonymity(0.8, 4)
    solution = alpha_k_topdown(instance, privacy=loose)
    assert "(0.5, 4)-anonymity" not in solution.info["privacy"]
    assert "(0.8, 4)-anonymity" in solution.info["privacy"]
    assert _alpha_k_holds(instance, solution.labels, 0.8)
    both = alpha_k_topdown(instance, alpha=0.5, privacy=[loose, DistinctLDiversity(3)])
    assert _alpha_k_holds(instance, both.labels, 0.5)
    l3 = DistinctLDiversity(3).check(both.labels, instance.table.sensitive)
    assert l3.satisfied


def test_registry_name_dispatch_and_seed_recorded():
    instance = _sensitive_instance(n=60, k=3, sensitive=3)
    a = k_anonymize(instance, method="alpha-k-topdown", seed=5)
    b = REGISTRY["alpha-k-topdown"].run(instance, seed=5)
    assert a.seed == 5
    assert np.array_equal(a.labels, b.labels)


def _frame(n=400, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.integers(20, 60, n).astype(str),
            "sex": rng.choice(["F", "M"], n),
            "zip": rng.choice(["100", "101", "102", "110", "111"], n),
            "disease": rng.choice(["flu", "hiv", "cold", "none"], n, p=[0.4, 0.2, 0.2, 0.2]),
        }
    )


def test_publish_through_anonymize_checks_alpha_k():
    df = _frame()
    before = df.copy()
    published, result = anonratio.anonymize(
        df,
        ["age", "sex", "zip"],
        k=5,
        algorithm="alpha-k-topdown",
        sensitive="disease",
        privacy="alpha-k-anonymity:alpha=0.45,k=5",
    )
    pd.testing.assert_frame_equal(df, before)  # the input is untouched
    assert list(published.columns) == list(df.columns)
    assert published.index.equals(df.index)
    assert published["disease"].equals(df["disease"])
    models = {c.model: c for c in result.checks}
    assert models["(0.45, 5)-anonymity"].satisfied
    assert models["(0.45, 5)-anonymity"].worst <= 0.45
    assert result.recoding == "local recoding"
    # the published cells themselves: records with equal QI cells form the classes
    classes = published.groupby(["age", "sex", "zip"]).ngroup().to_numpy()
    codes = pd.factorize(published["disease"])[0]
    assert AlphaKAnonymity(0.45, 5).check(classes, codes).satisfied


@pytest.mark.parametrize("family", ["kanon-binary", "kanon-random"])
def test_the_families_sensitive_option_is_balanced_and_keeps_the_qi_codes(family):
    plain = _sensitive_instance(family, 3, n=31, k=3)
    with_s = _sensitive_instance(family, 3, n=31, k=3, sensitive=3)
    assert plain.table.sensitive is None
    assert np.array_equal(plain.table.codes, with_s.table.codes)
    assert sorted(np.bincount(with_s.table.sensitive).tolist()) == [10, 10, 11]
