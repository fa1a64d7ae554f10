"""Tests of the utility metrics a run reports on request (anonratio.bench.engine.utility): the
runner, a study's sweep and ``anonratio solve --utility`` reach the same metrics."""

import json
import math
import textwrap

import pytest

from anonratio.bench.cli.parser import main
from anonratio.bench.engine.journal import task_key
from anonratio.bench.engine.runner import Task, execute_task, run_record
from anonratio.bench.engine.studies import StudyError, parse_study
from anonratio.bench.engine.utility import check_utility
from anonratio.bench.registry import REGISTRY, generate
from anonratio.instances.kanonymity.metrics import METRICS, published_recoding, utility
from anonratio.solvers.ldiversity.metrics import SOLUTION_METRICS, kl_divergence


def _ldiv():
    return generate("ldiv-sal", seed=0, n=400, d=4, l=3)[0]


def test_check_utility_reads_names_lists_and_all():
    assert check_utility("l-diversity", None) == ()
    assert check_utility("l-diversity", "") == ()
    assert check_utility("l-diversity", "kl-divergence, ncp,kl-divergence") == (
        "kl-divergence",
        "ncp",
    )
    assert check_utility("l-diversity", ["ncp"]) == ("ncp",)
    assert check_utility("l-diversity", "all") == tuple(SOLUTION_METRICS)
    assert check_utility("k-anonymity", "all") == tuple(METRICS)


@pytest.mark.parametrize(
    ("problem", "value", "expected"),
    [
        ("l-diversity", "c-avg", "`utility` must name metrics of l-diversity (stars, "),
        ("k-anonymity", ["kl"], "or be 'all', got 'kl'"),
        ("k-anonymity", 3, "`utility` must be a metric name, a list of names or 'all', got int"),
        ("r-gather", "ncp", "`utility`: r-gather runs have no utility metrics, got 'ncp'"),
    ],
)
def test_check_utility_refuses_what_the_problem_lacks(problem, value, expected):
    with pytest.raises(ValueError, match=None) as info:
        check_utility(problem, value)
    assert expected in str(info.value)


def test_a_run_reports_the_metrics_of_its_published_table():
    instance = _ldiv()
    record = run_record(instance, "tp-plus", utility="kl-divergence,discernibility", bound="none")
    values = json.loads(record.utility)
    assert list(values) == ["discernibility", "kl-divergence"]  # JSON keys sorted
    assert values["kl-divergence"] == pytest.approx(kl_divergence(instance, record.solution.labels))
    assert values["kl-divergence"] > 0 and record.utility_time_s >= 0
    assert record.to_row()["utility"] == record.utility
    # nothing asked, nothing computed
    plain = run_record(instance, "tp-plus", bound="none")
    assert plain.utility is None and math.isnan(plain.to_row()["utility_time_s"])


def test_tds_is_measured_on_its_generalization_not_on_its_partition():
    instance = _ldiv()
    record = run_record(instance, "ldiv-tds", utility=["kl-divergence"], bound="none")
    solution = record.solution
    generalized = SOLUTION_METRICS["kl-divergence"](instance, solution)
    assert json.loads(record.utility)["kl-divergence"] == pytest.approx(generalized)
    assert generalized >= kl_divergence(instance, solution.labels) - 1e-9


def test_k_anonymity_metrics_are_those_of_the_published_recoding():
    instance = generate("kanon-random", seed=1, n=30, m=4, k=3)[0]
    for algorithm in ("mondrian", "forest"):
        record = run_record(instance, algorithm, utility="all", bound="none")
        expected = utility(published_recoding(instance, record.solution), k=instance.k)
        assert json.loads(record.utility) == pytest.approx(expected)


def test_an_unverified_run_measures_nothing():
    instance = _ldiv()
    record = run_record(instance, "no-such-algorithm", utility="ncp", bound="none")
    assert record.status == "error" and record.utility is None


def test_a_sweep_asks_for_metrics_and_its_runs_report_them(tmp_path):
    study = parse_study(
        textwrap.dedent(
            """
            [[sweep]]
            family = "ldiv-sal"
            algorithms = ["tp-plus", "ldiv-tds"]
            grid = { n = [300], d = [3], l = [3] }
            utility = ["kl-divergence"]
            """
        )
    )
    tasks = study.tasks()
    assert [t.utility for t in tasks] == [("kl-divergence",)] * 2
    rows = [execute_task(task) for task in tasks]
    for task, row in zip(tasks, rows, strict=True):
        instance = generate(task.family, seed=task.seed, **task.family_params)[0]
        solution = REGISTRY[task.algorithm].run(instance, seed=row["seed"])
        expected = SOLUTION_METRICS["kl-divergence"](instance, solution)
        assert json.loads(row["utility"]) == {"kl-divergence": pytest.approx(expected)}
    # asking for metrics is another run in the journal
    plain = Task("ldiv-sal", {"n": 300, "d": 3, "l": 3}, 0, "tp-plus", 60.0)
    assert task_key(plain) != task_key(tasks[0])


@pytest.mark.parametrize(
    ("block", "expected"),
    [
        (
            'family = "ldiv-sal"\nalgorithms = ["tp"]\nutility = ["kl"]',
            "line 4: `utility` must name metrics of l-diversity",
        ),
        (
            'family = "rgather-uniform"\nalgorithms = ["r-gather"]\nutility = ["ncp"]',
            "line 4: `utility`: r-gather runs have no utility metrics",
        ),
        ('family = "ldiv-sal"\nalgorithms = ["tp"]\nutility = "ncp"', "line 4: `utility` in"),
    ],
)
def test_a_sweep_refuses_metrics_its_problem_lacks(block, expected):
    with pytest.raises(StudyError, match=None) as info:
        parse_study("[[sweep]]\n" + block + "\n")
    assert expected in str(info.value)


def test_solve_prints_and_returns_the_metrics(tmp_path, capsys):
    path = tmp_path / "sal.json"
    assert (
        main(["generate", "ldiv-sal", "--seed", "0", "--param", "n=300", "--out", str(path)]) == 0
    )
    capsys.readouterr()
    args = ["solve", str(path), "--algorithm", "tp-plus", "--utility", "kl-divergence"]
    assert main(args) == 0
    assert "utility          kl-divergence " in capsys.readouterr().out
    assert main([*args, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc["utility"]) == {"kl-divergence"} and doc["utility"]["kl-divergence"] > 0
    assert main([*args[:-1], "c-avg", "--json"]) == 2
    error = json.loads(capsys.readouterr().out)
    assert error["kind"] == "bad_input" and "`--utility` must name metrics" in error["error"]
