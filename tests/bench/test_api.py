"""The Python API (anonratio.anonymize, solve, sweep) and the example of docs/api.md."""

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import anonratio
from anonratio.instances import KAnonymityInstance, verify
from anonratio.instances.errors import InfeasibleInstanceError
from anonratio.instances.kanonymity import random_table
from anonratio.instances.privacy import DistinctLDiversity, TCloseness
from anonratio.instances.privacy_specs import check_published

#: the Python API page of the checkout's docs (its example is the first ``python`` block)
API_PAGE = Path(__file__).resolve().parents[2] / "docs" / "api.md"


def _readme_example() -> str:
    text = API_PAGE.read_text(encoding="utf-8")
    return re.search(r"```python\n(.*?)```", text, re.S).group(1)


def test_the_readme_example_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    exec(compile(_readme_example(), str(API_PAGE), "exec"), {})
    out = capsys.readouterr().out
    assert "incognito (global recoding)" in out
    assert "distinct 2-diversity: ok" in out


def _frame(seed=0, n=60):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.integers(20, 70, n),
            "zip": rng.choice(["13053", "13068", "14850", "14853"], n),
            "sex": rng.choice(["F", "M"], n),
            "disease": rng.choice(["flu", "cancer", "heart", "none"], n),
            "id": np.arange(n),
        }
    )


HIER = {
    "age": {a: [f"{a // 10 * 10}s", "<40" if a < 40 else ">=40"] for a in range(20, 70)},
    "zip": {z: [z[:4] + "*", z[:3] + "**"] for z in ["13053", "13068", "14850", "14853"]},
}


@pytest.mark.parametrize(
    "algorithm", ["forest", "mondrian", "mondrian-relaxed", "samarati", "incognito", "datafly"]
)
def test_anonymize_publishes_the_input_shape_and_verifies(algorithm):
    df = _frame()
    before = df.copy()
    published, result = anonratio.anonymize(
        df,
        qi=["age", "zip", "sex"],
        k=4,
        hierarchies=HIER,
        algorithm=algorithm,
        sensitive="disease",
    )
    pd.testing.assert_frame_equal(df, before)  # the input is never modified
    assert list(published.columns) == list(df.columns) and len(published) == len(df)
    assert published["id"].tolist() == df["id"].tolist()  # other columns kept as they are
    assert (published["disease"] == df["disease"]).all()
    (check,) = check_published(published, ["age", "zip", "sex"], None, ["k-anonymity:k=4"])
    assert check.satisfied
    assert result.recoding == (
        "global recoding" if algorithm in ("samarati", "incognito", "datafly") else "local recoding"
    )
    assert result.lower_bound <= result.cost + 1e-9
    assert result.certified_ratio == pytest.approx(result.published_cost / result.lower_bound)
    assert result.published_cost >= result.cost - 1e-9
    assert set(result.metrics) >= {"stars", "discernibility", "c-avg", "non-uniform-entropy"}
    assert result.metrics["generalization-cost"] == pytest.approx(result.published_cost)


def test_privacy_models_hold_in_the_published_table():
    df = _frame(1, 80)
    qi = ["age", "zip", "sex"]
    published, result = anonratio.anonymize(
        df,
        qi=qi,
        k=3,
        hierarchies=HIER,
        algorithm="incognito",
        sensitive="disease",
        privacy=[DistinctLDiversity(2)],
        max_suppression=0.05,
    )
    assert all(c.satisfied for c in result.checks) and len(result.checks) == 2
    assert result.n_suppressed <= 4
    kept = published[~(published[qi] == "*").all(axis=1)]
    for c in check_published(kept, qi, "disease", ["k-anonymity:k=3", "l-diversity:l=2"]):
        assert c.satisfied, c.message
    # t-closeness is monotone only without suppression
    with pytest.raises(ValueError, match="not monotone with tuple suppression"):
        anonratio.anonymize(
            df,
            qi,
            3,
            hierarchies=HIER,
            algorithm="incognito",
            sensitive="disease",
            privacy=TCloseness(0.6),
            max_suppression=0.05,
        )
    _, result = anonratio.anonymize(
        df,
        qi,
        3,
        hierarchies=HIER,
        algorithm="incognito",
        sensitive="disease",
        privacy=TCloseness(0.6, "ordered"),
    )
    assert [c.satisfied for c in result.checks] == [True, True]


def test_unsupported_pairs_and_bad_input_name_the_parameter():
    df = _frame()
    with pytest.raises(ValueError, match="`privacy` is not supported by algorithm 'forest'"):
        anonratio.anonymize(
            df,
            ["age", "zip"],
            3,
            algorithm="forest",
            sensitive="disease",
            privacy="l-diversity:l=2",
        )
    with pytest.raises(ValueError, match="'mondrian', which does not take tuple suppression"):
        anonratio.anonymize(df, ["age"], 3, algorithm="mondrian", max_suppression=0.1)
    with pytest.raises(ValueError, match="model"):
        anonratio.anonymize(df, ["age"], 3, algorithm="incognito", privacy="beauty:x=1")
    with pytest.raises(ValueError, match="sensitive"):
        anonratio.anonymize(df, ["age"], 3, algorithm="incognito", privacy="l-diversity:l=2")
    with pytest.raises(ValueError, match="algorithm"):
        anonratio.anonymize(df, ["age"], 3, algorithm="no-such-thing")
    with pytest.raises(ValueError, match="`qi`"):
        anonratio.anonymize(df, ["height"], 3)
    with pytest.raises(TypeError, match="hierarchies"):
        anonratio.anonymize(df, ["age"], 3, hierarchies={"age": 5})
    with pytest.raises(ValueError, match="metric"):
        anonratio.anonymize(df, ["age"], 3, algorithm="incognito", metric="beauty")


def test_a_missing_hierarchy_falls_back_to_suppression_with_a_warning():
    from anonratio.instances.hierarchy_rows import HierarchyWarning

    with pytest.warns(HierarchyWarning, match="sex"):
        _, result = anonratio.anonymize(
            _frame(), ["age", "sex"], 3, hierarchies={"age": HIER["age"]}
        )
    assert result.checks[0].satisfied


def test_infeasible_models_raise():
    df = _frame(2, 12).assign(disease="flu")  # one sensitive value: nothing is 2-diverse
    with pytest.raises(InfeasibleInstanceError, match="2-diversity"):
        anonratio.anonymize(
            df,
            ["age"],
            3,
            hierarchies={"age": HIER["age"]},
            algorithm="datafly",
            sensitive="disease",
            privacy="l-diversity:l=2",
        )


def test_solve_runs_and_verifies_a_registered_algorithm():
    inst = KAnonymityInstance(random_table(30, 3, seed=1), 3, "generalization", True)
    sol = anonratio.solve(inst, "incognito", max_suppression=0.1, metric="precision")
    assert sol.algorithm == "incognito" and verify(inst, sol).feasible
    assert anonratio.solve(inst, "forest").algorithm == "forest"
    with pytest.raises(ValueError, match="algorithm 'forest' does not take `max_suppression`"):
        anonratio.solve(inst, "forest", max_suppression=0.1)
    with pytest.raises(ValueError, match="cannot run"):
        anonratio.solve(inst, "factor-2")  # k = 3


STUDY = """
name = "api"
time_limit = 10

[[sweep]]
family = "kanon-binary"
seeds = [0]
algorithms = ["forest", "datafly", "kanon-cpsat"]
grid = { n = [8], m = [4], k = [2] }
"""


def test_sweep_returns_the_tidy_results_and_keeps_them_on_disk(tmp_path):
    study = tmp_path / "api.toml"
    study.write_text(STUDY)
    df = anonratio.sweep(study, out=tmp_path / "out", n_jobs=1)
    assert sorted(df["algorithm"]) == ["datafly", "forest", "kanon-cpsat"]
    assert (df["status"].isin(["optimal", "feasible"])).all() and df["verified"].all()
    assert (tmp_path / "out").exists() and any((tmp_path / "out").iterdir())
    again = anonratio.sweep(study, out=tmp_path / "out", n_jobs=1)  # resumes: nothing reruns
    pd.testing.assert_series_equal(again["cost"], df["cost"])
