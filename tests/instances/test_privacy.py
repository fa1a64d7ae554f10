"""Privacy models: hand-computed tables, pycanon cross-checks, properties, errors."""

import math
import os

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.instances.equivalence import class_statistics, classes_of
from anonratio.instances.privacy import (
    AlphaKAnonymity,
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    PrivacyModel,
    PSensitiveKAnonymity,
    RecursiveCLDiversity,
    TCloseness,
)
from anonratio.instances.privacy_specs import MODELS, check_published, parse_privacy

# one model of each kind, with parameters that make both outcomes common on small classes
EXAMPLES = [
    KAnonymity(3),
    DistinctLDiversity(2),
    EntropyLDiversity(1.8),
    RecursiveCLDiversity(2, 2),
    AlphaKAnonymity(0.6, 2),
    AlphaKAnonymity(0.5, 2, value=1),
    TCloseness(0.25),
    TCloseness(0.2, "ordered"),
    PSensitiveKAnonymity(2, 3),
]


def _hist(*rows):
    """sizes, hist of classes given as count rows."""
    hist = np.array(rows, dtype=np.int64)
    return hist.sum(axis=1), hist


# -- hand-computed tables ------------------------------------------------------------------


def test_k_anonymity_by_hand():
    classes = [0, 0, 7, 7, 7, -1]
    ok = KAnonymity(2).check(classes)
    assert ok.satisfied and ok.n_classes == 2 and ok.worst == 2.0
    assert ok.message == "2-anonymity: all 2 classes pass; smallest class size 2"
    bad = KAnonymity(3).check(classes)
    assert not bad.satisfied
    assert bad.failing_classes.tolist() == [0] and bad.records_failing == 2
    assert bad.message == "3-anonymity: 1 of 2 classes fail (2 records); smallest class size 2"
    # the withheld record is in no class: a singleton that is withheld does not fail
    assert KAnonymity(2).check([0, 0, -1]).satisfied


def test_no_class_at_all_is_vacuously_satisfied():
    out = DistinctLDiversity(3).check([-1, -1], [0, 1])
    assert out.satisfied and out.n_classes == 0 and math.isnan(out.worst)
    assert KAnonymity(5).check([]).satisfied


def test_distinct_l_diversity_by_hand():
    classes, sens = [0, 0, 0, 1, 1], [0, 1, 2, 0, 0]
    assert DistinctLDiversity(1).check(classes, sens).satisfied
    out = DistinctLDiversity(2).check(classes, sens)
    assert out.failing_classes.tolist() == [1] and out.records_failing == 2 and out.worst == 1
    assert DistinctLDiversity(3).check(classes, sens).failing_classes.tolist() == [1]


def test_entropy_l_diversity_by_hand():
    # {a, b}: H = log 2 exactly at the boundary; {a, a, a, b}: exp(H) = 4 / 3**0.75 = 1.7548
    classes, sens = [0, 0, 1, 1, 1, 1], [0, 1, 0, 0, 0, 1]
    assert EntropyLDiversity(1.75).check(classes, sens).satisfied
    out = EntropyLDiversity(1.76).check(classes, sens)
    assert out.failing_classes.tolist() == [1]
    assert out.worst == pytest.approx(4 / 3**0.75, rel=1e-12)
    assert EntropyLDiversity(2).check([0, 0], [0, 1]).satisfied
    assert not EntropyLDiversity(2.000001).check([0, 0], [0, 1]).satisfied
    # l equally frequent values pass entropy l-diversity exactly (the 1e-12 tolerance)
    for l in range(1, 12):
        assert (
            EntropyLDiversity(l).check(np.zeros(3 * l, int), np.repeat(np.arange(l), 3)).satisfied
        )


def test_recursive_c_l_diversity_by_hand():
    # counts (3, 2, 1): r_1 = 3, for l = 2 the tail is 2 + 1 = 3, for l = 3 it is 1
    classes, sens = [0] * 6, [0, 0, 0, 1, 1, 2]
    assert RecursiveCLDiversity(2, 2).check(classes, sens).satisfied  # 3 < 2 * 3
    assert not RecursiveCLDiversity(1, 2).check(classes, sens).satisfied  # 3 < 1 * 3 is false
    assert RecursiveCLDiversity(1.01, 2).check(classes, sens).satisfied
    assert not RecursiveCLDiversity(3, 3).check(classes, sens).satisfied  # 3 < 3 * 1 is false
    out = RecursiveCLDiversity(3.5, 3).check(classes, sens)
    assert out.satisfied and out.worst == 3.0
    miss = RecursiveCLDiversity(100, 4).check(classes, sens)  # only 3 distinct values
    assert not miss.satisfied and miss.worst == math.inf


def test_alpha_k_anonymity_by_hand():
    # Ciriani et al. 2009, Figure 18: the last block holds the sensitive value twice in 3 tuples
    classes = [0, 0, 0, 1, 1, 1, 2, 2, 2]
    hiv = [1, 0, 0, 0, 1, 0, 1, 1, 0]
    out = AlphaKAnonymity(0.4, 3, value=1).check(classes, hiv)
    assert out.failing_classes.tolist() == [2] and out.worst == pytest.approx(2 / 3)
    assert AlphaKAnonymity(2 / 3, 3, value=1).check(classes, hiv).satisfied
    assert not AlphaKAnonymity(2 / 3, 4, value=1).check(classes, hiv).satisfied
    # value=None: the most frequent value of each class (1 - 1/3 in blocks 0 and 1)
    assert AlphaKAnonymity(2 / 3, 3).check(classes, hiv).satisfied
    assert not AlphaKAnonymity(0.66, 3).check(classes, hiv).satisfied
    assert AlphaKAnonymity(0.3, 2).check([0] * 10, list(range(3)) * 3 + [3]).worst == 0.3
    assert AlphaKAnonymity(0.3, 2).check([0] * 10, list(range(3)) * 3 + [3]).satisfied
    # a value absent from the data has frequency 0; n_values is widened to cover it
    assert AlphaKAnonymity(0.1, 1, value=5).check([0, 0], [0, 1]).worst == 0.0


def test_t_closeness_ordered_salary_example():
    """Li, Li and Venkatasubramanian 2007, §4.1: salaries 3k..11k, one record each."""
    classes = [0, 0, 0, 1, 2, 1, 2, 2, 1]  # P1 = {3k,4k,5k}, P2 = {6k,8k,11k}, P3 = the rest
    sens = np.arange(9)
    ordered = TCloseness(0.375, "ordered").check(classes, sens)
    assert ordered.satisfied and ordered.worst == pytest.approx(0.375)
    stats = class_statistics(classes, sens)
    emd = TCloseness(1, "ordered").measure(stats[1], stats[2], stats[3])
    assert emd[:2] == pytest.approx([0.375, 1 / 6])
    assert TCloseness(0.37, "ordered").check(classes, sens).failing_classes.tolist() == [0]
    # equal ground distance: 1/2 * (3 * |1/3 - 1/9| + 6 * 1/9) = 2/3 for every class
    assert TCloseness(0.5).check(classes, sens).worst == pytest.approx(2 / 3)


def test_t_closeness_prior_counts_withheld_records_and_n_values():
    # prior over all 4 records = (1/2, 1/2); the published class {a} is 1/2 away
    assert TCloseness(0.5).check([0, -1, -1, -1], [0, 1, 1, 0]).worst == pytest.approx(0.5)
    # ordered: one value -> EMD 0; n_values widens the domain and the 1/(S-1) normalization
    assert TCloseness(0, "ordered").check([0, 1], [0, 0]).worst == 0.0
    # classes {a}, {b}, prior (1/2, 1/2, 0): cumulative differences (1/2, 0, 0) / (S - 1)
    assert TCloseness(1, "ordered").check([0, 1], [0, 1]).worst == pytest.approx(0.5)
    wide = TCloseness(1, "ordered").check([0, 1], [0, 1], n_values=3)
    assert wide.worst == pytest.approx(0.25)


def test_p_sensitive_k_anonymity_by_hand():
    classes, sens = [0, 0, 0, 1, 1, 1, 1], [0, 1, 1, 2, 2, 2, 2]
    out = PSensitiveKAnonymity(2, 3).check(classes, sens)
    assert out.failing_classes.tolist() == [1] and out.worst == 1.0
    assert PSensitiveKAnonymity(1, 3).check(classes, sens).satisfied
    assert not PSensitiveKAnonymity(1, 4).check(classes, sens).satisfied


@settings(derandomize=True, max_examples=60, deadline=None)
@given(
    records=st.lists(st.tuples(st.integers(-1, 4), st.integers(0, 3)), min_size=1, max_size=40),
    c=st.sampled_from([0.5, 1, 1.5, 2, 3]),
    l=st.integers(1, 4),
)
def test_recursive_and_withheld_records_against_a_loop(records, c, l):
    """A per-class Python loop of Def. 4.3; withheld records change nothing but the prior."""
    classes, sens = (np.array(x) for x in zip(*records, strict=True))
    out = RecursiveCLDiversity(c, l).check(classes, sens, n_values=4)
    expected = []
    for g in sorted(set(classes.tolist()) - {-1}):
        r = sorted(np.bincount(sens[classes == g]).tolist(), reverse=True)
        r = [x for x in r if x]
        if not (len(r) >= l and r[0] < c * sum(r[l - 1 :])):
            expected.append(g)
    assert out.failing_classes.tolist() == expected
    kept = classes >= 0
    for model in EXAMPLES:
        if isinstance(model, TCloseness):
            continue
        a = model.check(classes, sens, n_values=4)
        b = model.check(classes[kept], sens[kept], n_values=4)
        assert a.failing_classes.tolist() == b.failing_classes.tolist()
        assert a.records_failing == b.records_failing and a.n_classes == b.n_classes


# -- names, specs, parsing -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "text", "spec"),
    [
        (KAnonymity(5), "5-anonymity", "k-anonymity:k=5"),
        (DistinctLDiversity(3), "distinct 3-diversity", "l-diversity:l=3"),
        (EntropyLDiversity(3), "entropy 3-diversity", "entropy-l-diversity:l=3"),
        (EntropyLDiversity(2.5), "entropy 2.5-diversity", "entropy-l-diversity:l=2.5"),
        (RecursiveCLDiversity(2, 3), "recursive (2, 3)-diversity", "recursive-l-diversity:c=2,l=3"),
        (AlphaKAnonymity(0.5, 5), "(0.5, 5)-anonymity", "alpha-k-anonymity:alpha=0.5,k=5"),
        (
            AlphaKAnonymity(0.5, 5, value=2),
            "(0.5, 5)-anonymity of value 2",
            "alpha-k-anonymity:alpha=0.5,k=5,value=2",
        ),
        (TCloseness(0.2), "0.2-closeness (equal EMD)", "t-closeness:t=0.2"),
        (
            TCloseness(0.2, "ordered"),
            "0.2-closeness (ordered EMD)",
            "t-closeness:t=0.2,ground=ordered",
        ),
        (PSensitiveKAnonymity(2, 5), "2-sensitive 5-anonymity", "p-sensitive:p=2,k=5"),
    ],
)
def test_names_specs_round_trip(model, text, spec):
    assert str(model) == text
    assert model.spec == spec
    assert parse_privacy(spec) == model
    assert parse_privacy(f" {spec.replace(',', ' , ')} ") == model
    assert MODELS[spec.split(":")[0]] is type(model)


def test_monotonicity_flags():
    flags = {cls.key: (cls.monotone, cls.monotone_with_suppression) for cls in MODELS.values()}
    assert all(m for m, _ in flags.values())
    assert {k for k, (_, s) in flags.items() if s} == {"k-anonymity", "l-diversity", "p-sensitive"}
    assert KAnonymity.needs_sensitive is False
    assert all(cls.needs_sensitive for cls in MODELS.values() if cls is not KAnonymity)


# -- monotonicity: properties and the documented counterexamples ---------------------------

_rows = st.lists(st.integers(0, 4), min_size=3, max_size=3).filter(any)


@settings(derandomize=True, max_examples=300, deadline=None)
@given(a=_rows, b=_rows, prior=_rows)
def test_monotone_models_keep_merged_passing_classes(a, b, prior):
    sizes, hist = _hist(a, b, np.add(a, b))
    q = np.asarray(prior) / sum(prior)
    for model in EXAMPLES:
        ok = model.passes(sizes, hist, q)
        if model.monotone and ok[0] and ok[1]:
            assert ok[2], (model, a, b)
        if model.monotone_with_suppression and ok[0]:
            assert ok[2], (model, a, b)


@pytest.mark.parametrize(
    ("model", "a", "b", "prior"),
    [  # the counterexamples of the docstrings: class a passes, a merged with b fails
        (EntropyLDiversity(2), [1, 1], [3, 0], None),
        (RecursiveCLDiversity(2, 2), [1, 1], [2, 0], None),
        (AlphaKAnonymity(0.5, 2), [1, 1], [3, 0], None),
        (TCloseness(0.2), [1, 1], [4, 0], [0.5, 0.5]),
        (TCloseness(0.2, "ordered"), [1, 1], [4, 0], [0.5, 0.5]),
    ],
)
def test_not_monotone_with_suppression(model, a, b, prior):
    assert model.monotone and not model.monotone_with_suppression
    sizes, hist = _hist(a, b, np.add(a, b))
    assert model.passes(sizes, hist, None if prior is None else np.array(prior)).tolist() == [
        True,
        False,
        False,
    ]


# -- pycanon ---------------------------------------------------------------------------------


def _against_pycanon(df, qi, sa, numeric):
    """Assert every model agrees with pycanon's value on ``df`` (no withheld rows)."""
    from pycanon import anonymity

    k = anonymity.k_anonymity(df, qi)
    assert check_published(df, qi, None, KAnonymity(k))[0].satisfied
    assert not check_published(df, qi, None, KAnonymity(k + 1))[0].satisfied
    l = anonymity.l_diversity(df, qi, [sa])
    ours = check_published(df, qi, sa, [DistinctLDiversity(l), DistinctLDiversity(l + 1)])
    assert [c.satisfied for c in ours] == [True, False]
    # pycanon: int(min exp(H)), the floor of our worst
    ent = anonymity.entropy_l_diversity(df, qi, [sa])
    worst = check_published(df, qi, sa, EntropyLDiversity(1))[0].worst
    assert ent == math.floor(worst) or math.isclose(worst, ent + 1, rel_tol=1e-9)
    assert check_published(df, qi, sa, EntropyLDiversity(ent))[0].satisfied
    if not math.isclose(worst, ent + 1, rel_tol=1e-9):
        assert not check_published(df, qi, sa, EntropyLDiversity(ent + 1))[0].satisfied
    alpha, k2 = anonymity.alpha_k_anonymity(df, qi, [sa])
    assert k2 == k
    edge = [AlphaKAnonymity(alpha, k), AlphaKAnonymity(np.nextafter(alpha, 0), k)]
    edge.append(AlphaKAnonymity(alpha, k + 1))
    assert [c.satisfied for c in check_published(df, qi, sa, edge)] == [True, False, False]
    t = anonymity.t_closeness(df, qi, [sa])
    ground = "ordered" if numeric else "equal"
    got = check_published(df, qi, sa, [TCloseness(t, ground), TCloseness(max(t - 1e-9, 0), ground)])
    assert got[0].worst == pytest.approx(t, rel=1e-9, abs=1e-12)
    assert got[0].satisfied and (t < 1e-9 or not got[1].satisfied)


@pytest.mark.pycanon
@settings(derandomize=True, max_examples=25, deadline=None)
@given(
    data=st.lists(
        st.tuples(st.integers(0, 2), st.integers(0, 1), st.integers(0, 3)), min_size=2, max_size=30
    ),
    numeric=st.booleans(),
)
def test_pycanon_agrees_on_random_tables(data, numeric):
    df = pd.DataFrame(data, columns=["a", "b", "s"])
    if df["s"].nunique() < 2:  # pycanon's ordered EMD divides by (m - 1)
        df.loc[0, "s"] = (df.loc[0, "s"] + 1) % 4
    if not numeric:
        df["s"] = df["s"].map(dict(enumerate("wxyz")))
    _against_pycanon(df, ["a", "b"], "s", numeric)


@pytest.mark.pycanon
def test_pycanon_recursive_c_l_differs_from_the_definition():
    """pycanon 1.3.6 sorts counts *increasingly*: c = floor(r_min / (sum of the top m-l+1) + 1).

    Machanavajjhala et al. 2007 (Def. 4.3) sort them decreasingly and need r_1 < c (r_l + ...
    + r_m). Only pycanon's l (the distinct l) matches ours; its c is reported, not compared.
    """
    from pycanon import anonymity

    df = pd.DataFrame({"q": [0] * 4, "s": ["a", "a", "a", "b"]})
    c, l = anonymity.recursive_c_l_diversity(df, ["q"], ["s"])
    assert (c, l) == (1, 2)  # floor(1/3 + 1); by the definition counts (3, 1) need c > 3
    got = check_published(
        df, ["q"], "s", [RecursiveCLDiversity(3, 2), RecursiveCLDiversity(3.01, 2)]
    )
    assert [g.satisfied for g in got] == [False, True] and got[0].worst == 3.0
    assert check_published(df, ["q"], "s", DistinctLDiversity(l))[0].satisfied


@pytest.fixture(scope="module")
def adult():
    if not os.environ.get("ANONRATIO_DATASETS"):
        pytest.skip("ANONRATIO_DATASETS is not set: the UCI Adult data is absent")
    from anonratio.instances.loaders import load_adult

    return load_adult(qi=["age", "sex", "race", "marital-status"], sensitive="occupation")


def _generalized(table, levels):
    """A DataFrame of the table's QIs at the given hierarchy levels (ARX hierarchies)."""
    cols = {}
    for j, level in enumerate(levels):
        h = table.hierarchy(j)
        groups = h.groups[table.codes[:, j], level]
        cols[table.attributes[j]] = np.asarray(h.labels[level], dtype=object)[groups]
    return pd.DataFrame(cols)


@pytest.mark.pycanon
def test_pycanon_agrees_on_adult_categorical(adult):
    df = _generalized(adult, [2, 0, 1, 1])
    df["occupation"] = np.asarray(adult.sensitive_values, dtype=object)[adult.sensitive]
    _against_pycanon(df, list(adult.attributes), "occupation", numeric=False)


@pytest.mark.pycanon
def test_pycanon_agrees_on_adult_ordered_age(adult):
    """Age (74 values) as a numerical sensitive attribute: pycanon's ordered EMD."""
    df = _generalized(adult, [4, 0, 0, 1]).drop(columns="age")
    df["age"] = np.asarray(adult.values[0], dtype=object)[adult.codes[:, 0]].astype(int)
    _against_pycanon(df, ["sex", "race", "marital-status"], "age", numeric=True)


# -- published DataFrames --------------------------------------------------------------------


def test_classes_of_withheld_rows_and_partial_suppression():
    df = pd.DataFrame(
        {"zip": ["13*", "13*", "*", "*", "14*", "13*"], "age": ["2*", "2*", "*", "3*", "*", "2*"]}
    )
    # every row of a release is in a class, a row of * too
    assert classes_of(df, ["zip", "age"]).tolist() == [0, 0, 1, 2, 3, 0]
    assert classes_of(df, "zip").tolist() == [0, 0, 1, 1, 2, 0]
    # a release that kept its suppressed tuples as rows of * names them
    assert classes_of(df, ["zip", "age"], suppressed="*").tolist() == [0, 0, -1, 1, 2, 0]
    assert classes_of(df, "zip", suppressed="*").tolist() == [0, 0, -1, -1, 1, 0]
    assert classes_of(df.iloc[2:3], ["zip", "age"], suppressed="*").tolist() == [-1]
    nan = pd.DataFrame({"a": [1.0, np.nan, np.nan]})
    assert classes_of(nan, ["a"]).tolist() == [0, 1, 1]


def test_check_published_counts_a_table_at_the_top_node_as_one_class():
    """A table published at the top of every hierarchy is one class of every record, not a table
    of withheld rows with no class to check."""
    df = pd.DataFrame({"zip": ["*"] * 4, "age": ["*"] * 4, "disease": ["a", "b", "a", "c"]})
    k4, l3, l4 = check_published(
        df, ["zip", "age"], "disease", ["k-anonymity:k=4", "l-diversity:l=3", "l-diversity:l=4"]
    )
    assert k4.satisfied and k4.worst == 4 and "all 1 classes pass" in k4.message
    assert l3.satisfied and l3.worst == 3
    assert not l4.satisfied


def test_check_published_codes_numbers_in_numeric_order():
    # one record per class, prior uniform over 3 values: the middle value's class has ordered
    # EMD (1/3 + 1/3) / 2 = 1/3, the two ends (2/3 + 1/3) / 2 = 1/2. In numeric order 10 is in
    # the middle; in string order ("10" < "100" < "9") it would be "100".
    spec = "t-closeness:t=0.4,ground=ordered"
    for salary in (["9", "10", "100"], [9, 10, 100], ["9.0", "10", "1e2"]):
        df = pd.DataFrame({"q": ["x", "y", "z"], "salary": salary})
        (out,) = check_published(df, ["q"], "salary", spec)
        assert out.failing_classes.tolist() == [0, 2], salary
        assert out.worst == pytest.approx(0.5)
    words = pd.DataFrame({"q": ["x", "y", "z"], "salary": ["c", "a", "b"]})  # a < b < c
    assert check_published(words, ["q"], "salary", spec)[0].failing_classes.tolist() == [0, 1]


# -- errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: KAnonymity(0), r"`k` must be an integer >= 1, got 0"),
        (lambda: KAnonymity(2.0), r"`k` must be an integer >= 1, got 2.0"),
        (lambda: DistinctLDiversity(True), r"`l` must be an integer >= 1"),
        (lambda: EntropyLDiversity(0.5), r"`l` must be a finite number >= 1, got 0.5"),
        (lambda: RecursiveCLDiversity(0, 2), r"`c` must be a positive finite number, got 0"),
        (lambda: AlphaKAnonymity(0, 2), r"`alpha` must be a number in \(0, 1\], got 0"),
        (lambda: AlphaKAnonymity(1.5, 2), r"`alpha` must be a number in \(0, 1\]"),
        (lambda: AlphaKAnonymity(0.5, 2, value=-1), r"`value` must be an integer >= 0 or None"),
        (lambda: TCloseness(1.5), r"`t` must be a number in \[0, 1\], got 1.5"),
        (lambda: TCloseness(0.2, "emd"), r"`ground` must be one of \['equal', 'ordered'\]"),
        (lambda: PSensitiveKAnonymity(6, 5), r"`p` must be an integer in \[1, k=5\], got 6"),
        (lambda: parse_privacy("diversity:l=2"), r"`model` must be one of \['alpha-k-anonym"),
        (lambda: parse_privacy("k-anonymity:j=3"), r"`parameter of k-anonymity` must be one of"),
        (lambda: parse_privacy("k-anonymity"), r"lacks parameter\(s\) \['k'\]"),
        (lambda: parse_privacy("k-anonymity:k=5,k=6"), r"gives parameter 'k' twice"),
        (lambda: parse_privacy("k-anonymity:k"), r"parameter 'k' must read name=value"),
        (lambda: parse_privacy("k-anonymity:k=2.5"), r"`k` must be an integer >= 1, got 2.5"),
        (lambda: DistinctLDiversity(2).check([0, 0]), r"`sensitive` is required by distinct"),
        (lambda: KAnonymity(2).check([0, 0], [0]), r"`sensitive` must have one code per record"),
        (lambda: KAnonymity(2).check([0, -2]), r"`classes` must be integers >= -1, got -2 at"),
        (lambda: KAnonymity(2).check([0.0, 1.0]), r"`classes` must hold integer codes"),
        (lambda: KAnonymity(2).check([[0, 1]]), r"`classes` must be a 1-d array"),
        (lambda: DistinctLDiversity(2).check([0, 0], [0, -1]), r"`sensitive` must be integ"),
        (lambda: DistinctLDiversity(2).check([0], [3], n_values=2), r"`n_values` must be an"),
        (
            lambda: AlphaKAnonymity(0.5, 1, value=3).check([0], [0], n_values=2),
            r"`value` must be a sensitive code < 2, got 3",
        ),
        (lambda: TCloseness(0.1).passes(*_hist([1, 1]), None), r"`prior` must be 2 probabil"),
        (lambda: classes_of(pd.DataFrame({"a": [1]}), ["b"]), r"`qi` must name columns"),
        (lambda: classes_of({"a": [1]}, ["a"]), r"`frame` must be a pandas.DataFrame, got dict"),
        (
            lambda: check_published(pd.DataFrame({"a": [1]}), ["a"], "s", "l-diversity:l=2"),
            r"`sensitive` must name a column of `frame`, got 's'",
        ),
        (lambda: check_published(pd.DataFrame({"a": [1]}), ["a"], None, [3]), r"`models` must"),
    ],
)
def test_errors_name_the_parameter(make, match):
    kind = TypeError if match.startswith(("`frame`", "`models`")) else ValueError
    with pytest.raises(kind, match=match):
        make()


def test_base_class_is_abstract():
    with pytest.raises(NotImplementedError):
        PrivacyModel().passes(*_hist([1]), None)
