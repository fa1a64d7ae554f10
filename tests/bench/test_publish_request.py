"""Validation of a publishing request (bench/publish/request.py), on both doors: every option a
path cannot enforce is refused, clusters are published only with r >= 2, and bad option values
end at the boundary (exit status 2, one line naming the option, the value and the rule; a
``ValueError`` in Python) instead of coming back as run failures."""

import json

import numpy as np
import pandas as pd
import pytest

import anonratio
from anonratio.bench.cli.parser import main

ROWS = [
    (str(20 + (7 * i) % 40), "MF"[i % 2], f"1305{i % 4}", ["flu", "cold", "hiv"][i % 3])
    for i in range(30)
]
QI = ["age", "sex", "zip"]


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "data.csv"
    path.write_text("age;sex;zip;disease\n" + "".join(";".join(r) + "\n" for r in ROWS))
    return path


@pytest.fixture
def frame():
    return pd.DataFrame(ROWS, columns=["age", "sex", "zip", "disease"])


def _refused(capsys, data, tmp_path, *argv):
    """Run ``anonymize`` expecting a refusal: exit 2, one stderr line, nothing written."""
    out = tmp_path / "out.csv"
    code = main(["anonymize", str(data), "--out", str(out), *map(str, argv), "--json"])
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert code == 2 and doc["kind"] == "bad_input", doc
    assert len(captured.err.strip().splitlines()) == 1
    assert not out.exists() and not (tmp_path / "out.clusters.csv").exists()
    return doc["error"]


# -- options a path cannot enforce -------------------------------------------------------------
@pytest.mark.parametrize(
    ("extra", "option"),
    [
        (["--privacy", "k-anonymity:k=10"], "--privacy"),
        (["--privacy", "l-diversity:l=3"], "--privacy"),
        (["--max-suppression", "0.1"], "--max-suppression"),
        (["--metric", "precision"], "--metric"),
    ],
)
def test_the_l_diversity_path_refuses_what_it_cannot_enforce(data, tmp_path, capsys, extra, option):
    error = _refused(
        capsys, data, tmp_path, "--qi", "age,sex,zip", "--l", 2, "--sensitive", "disease", *extra
    )
    assert error.startswith(f"`{option}` is not supported by algorithm 'tp-plus'")
    assert "no l-diversity algorithm takes it" in error


@pytest.mark.parametrize(
    ("extra", "option"),
    [
        (["--sensitive", "disease", "--privacy", "l-diversity:l=2"], "--privacy"),
        (["--max-suppression", "0.1"], "--max-suppression"),
        (["--metric", "stars"], "--metric"),
    ],
)
@pytest.mark.parametrize("algorithm", ["r-gather", "r-cellular"])
def test_the_cluster_path_refuses_what_it_cannot_enforce(
    data, tmp_path, capsys, extra, option, algorithm
):
    error = _refused(
        capsys, data, tmp_path, "--qi", "age", "--k", 3, "--algorithm", algorithm, *extra
    )
    assert error.startswith(f"`{option}` is not supported by algorithm '{algorithm}'")
    assert f"no {algorithm} algorithm takes it" in error


def test_the_api_refuses_the_same_options(frame):
    with pytest.raises(ValueError, match="`privacy` is not supported by algorithm 'tp-plus'"):
        anonratio.anonymize(
            frame, ["age", "zip"], l=2, sensitive="disease", privacy="k-anonymity:k=10"
        )
    with pytest.raises(ValueError, match="`privacy` is not supported by algorithm 'r-gather'"):
        anonratio.anonymize(
            frame, ["age"], 3, algorithm="r-gather", sensitive="disease", privacy="l-diversity:l=2"
        )
    with pytest.raises(ValueError, match="`max_suppression` is not supported by .*'tp-plus'"):
        anonratio.anonymize(frame, ["age"], l=2, sensitive="disease", max_suppression=0.1)


def test_a_refusal_recommends_only_algorithms_that_take_the_option(data, tmp_path, capsys):
    from anonratio.bench.registry import REGISTRY

    error = _refused(
        capsys,
        data,
        tmp_path,
        "--qi",
        "age",
        "--k",
        3,
        "--algorithm",
        "datafly",
        "--metric",
        "precision",
    )
    assert error.startswith("`--metric` is not supported by algorithm 'datafly'")
    named = error.split("algorithms that take it: ")[1].split(", ")
    assert "datafly" not in named and set(named) >= {"samarati", "incognito"}
    assert all("metric" in REGISTRY[name]._accepts for name in named)


# -- publishing clusters needs r >= 2 ----------------------------------------------------------
@pytest.mark.parametrize("algorithm", ["r-gather", "greedy-gather", "r-cellular"])
def test_clusters_are_not_published_with_r_1(data, tmp_path, capsys, algorithm):
    error = _refused(capsys, data, tmp_path, "--qi", "age", "--k", 1, "--algorithm", algorithm)
    assert error.startswith("`--k` must be an integer >= 2 to publish clusters")
    assert error.endswith("got 1")


def test_the_api_refuses_r_1_but_the_problem_keeps_it(frame):
    from anonratio.instances.clustering import RGatherInstance

    with pytest.raises(ValueError, match="`k` must be an integer >= 2 to publish clusters"):
        anonratio.anonymize(frame, ["age"], 1, algorithm="r-gather")
    points = frame[["age"]].astype(float).to_numpy()
    solution = anonratio.solve(RGatherInstance(points, r=1), "r-gather")  # the problem: r = 1
    assert solution.labels is not None


# -- bad option values end at the boundary -----------------------------------------------------
@pytest.mark.parametrize("value", ["1.5", "-0.1", "1", "nan"])
def test_max_suppression_must_be_a_fraction_below_one(data, tmp_path, capsys, frame, value):
    error = _refused(
        capsys,
        data,
        tmp_path,
        "--qi",
        "age",
        "--k",
        3,
        "--algorithm",
        "incognito",
        "--max-suppression",
        value,
    )
    assert error == f"`--max-suppression` must be a number in [0, 1), got {float(value)!r}"
    with pytest.raises(ValueError, match=r"`max_suppression` must be a number in \[0, 1\)"):
        anonratio.anonymize(frame, ["age"], 3, algorithm="incognito", max_suppression=float(value))


def test_an_unknown_metric_is_bad_input(data, tmp_path, capsys, frame):
    error = _refused(
        capsys,
        data,
        tmp_path,
        "--qi",
        "age",
        "--k",
        3,
        "--algorithm",
        "incognito",
        "--metric",
        "bogus",
    )
    assert error.startswith("`--metric` must be one of") and error.endswith("got 'bogus'")
    with pytest.raises(ValueError, match="`metric` must be one of"):
        anonratio.anonymize(frame, ["age"], 3, algorithm="incognito", metric="bogus")


def test_an_l_too_large_for_a_machine_integer_is_bad_input(data, tmp_path, capsys, frame):
    big = 10**20
    error = _refused(capsys, data, tmp_path, "--qi", "age", "--l", big, "--sensitive", "disease")
    assert error.startswith("`--l` must be at most the number of distinct values")
    assert error.endswith(f"got {big}")
    with pytest.raises(ValueError, match=f"`l` must be at most .* got {big}"):
        anonratio.anonymize(frame, ["age"], l=big, sensitive="disease")


@pytest.mark.parametrize("qi", [5, 2.5, None, {"age"}])
def test_qi_of_the_wrong_kind_is_named(frame, qi):
    with pytest.raises(TypeError, match="`qi` must be a column name or a list of column names"):
        anonratio.anonymize(frame, qi, 3)


def test_an_algorithm_refusing_its_options_is_bad_input(data, tmp_path, capsys):
    """t-closeness is not monotone with tuple suppression: Incognito refuses it, and that is the
    request's fault, not a failed run."""
    error = _refused(
        capsys,
        data,
        tmp_path,
        "--qi",
        "age",
        "--k",
        3,
        "--algorithm",
        "incognito",
        "--sensitive",
        "disease",
        "--privacy",
        "t-closeness:t=0.6",
        "--max-suppression",
        0.1,
    )
    assert "refuses the request" in error and "not monotone with tuple suppression" in error


def test_options_are_named_as_written_on_each_door(frame):
    from anonratio.bench.cli.anonymize import CLI_NAMES
    from anonratio.bench.publish.anonymize import check_request

    with pytest.raises(ValueError, match=r"^`--k` must be an integer >= 2 to publish clusters"):
        check_request(qi=["age"], k=1, algorithm="r-gather", names=CLI_NAMES)
    with pytest.raises(ValueError, match=r"^`k` must be an integer, got 1.5$"):
        check_request(qi=["age"], k=1.5)
    request = check_request(qi="age", k=np.int64(3), algorithm="incognito", max_suppression=0.1)
    assert request.k == 3 and request.options == {"max_suppression": 0.1}


# -- the bound and the metrics a release reports -----------------------------------------------
def test_the_bound_effort_is_chosen_and_said(frame):
    fast = anonratio.anonymize(frame, QI, 3, algorithm="mondrian")[1]
    none = anonratio.anonymize(frame, QI, 3, algorithm="mondrian", bound="none")[1]
    default = anonratio.anonymize(frame, QI, 3, algorithm="mondrian", bound="default")[1]
    assert "forced-levels" in fast.lower_bound_source and fast.bound_time_s >= 0
    assert none.lower_bound == 0 and none.lower_bound_source == "none"
    assert none.certified_ratio is None  # nothing proven: no certified ratio
    assert "nn-distance" in default.lower_bound_source
    assert 0 < fast.lower_bound <= default.lower_bound <= default.published_cost
    assert fast.published_cost == none.published_cost == default.published_cost
    assert "forced-levels" in fast.summary() and "bound_time_s" in fast.as_dict()


def test_the_cli_takes_the_same_bound_and_metrics(data, tmp_path, capsys, frame):
    out = tmp_path / "out.csv"
    argv = ["anonymize", str(data), "--qi", "age,sex,zip", "--k", "3", "--out", str(out)]
    code = main([*argv, "--algorithm", "mondrian", "--bound", "default", "--json"])
    doc = json.loads(capsys.readouterr().out)
    api = anonratio.anonymize(frame, QI, 3, algorithm="mondrian", bound="default")[1]
    assert code == 0 and doc["lower_bound"] == api.lower_bound
    assert "nn-distance" in doc["lower_bound_source"]
    assert "kl-divergence" not in doc["metrics"]  # costly: only on request
    code = main([*argv, "--algorithm", "mondrian", "--utility", "all", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and "kl-divergence" in doc["metrics"] and "stars" in doc["metrics"]


def test_the_metrics_asked_for_are_the_ones_reported(frame):
    result = anonratio.anonymize(frame, QI, 3, algorithm="mondrian", utility=["stars", "ncp"])[1]
    assert set(result.metrics) == {"stars", "ncp", "generalization-cost"}
    ldiv = anonratio.anonymize(frame, QI, l=2, sensitive="disease", utility="all")[1]
    assert "kl-divergence" in ldiv.metrics and "c-avg" not in ldiv.metrics


def test_bad_bound_and_metrics_are_named(data, tmp_path, capsys, frame):
    with pytest.raises(ValueError, match="`bound` must be one of"):
        anonratio.anonymize(frame, QI, 3, bound="cheap")
    with pytest.raises(ValueError, match="`utility` must be one of"):
        anonratio.anonymize(frame, QI, 3, utility="accuracy")
    error = _refused(capsys, data, tmp_path, "--qi", "age", "--k", 3, "--utility", "stars,x")
    assert error.startswith("`--utility` must be one of") and error.endswith("got 'x'")


def test_a_release_without_metrics_refuses_the_utility_option(frame):
    numeric = frame.assign(age=frame["age"].astype(int))
    with pytest.raises(ValueError, match="`utility` is for releases with utility metrics"):
        anonratio.anonymize(numeric, ["age"], 3, algorithm="r-gather", utility="all")
