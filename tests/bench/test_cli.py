"""Tests of the ``anonratio`` command line (bench/cli/parser.py), called through ``main([...])``."""

import json
import re

import numpy as np
import pandas as pd
import pytest

from anonratio.bench.cli.parser import main

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _json_out(capsys):
    return json.loads(capsys.readouterr().out)


def _one_line_error(capsys):
    """The single stderr line of a failed command (no traceback, no usage block)."""
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("anonratio: error: "), err
    return lines[0]


def _generate(tmp_path, capsys, family="kanon-binary", seed=3, **params):
    path = tmp_path / f"{family}-{seed}.json"
    argv = ["generate", family, "--seed", str(seed), "--out", str(path), "--json"]
    for key, value in params.items():
        argv += ["--param", f"{key}={value}"]
    assert main(argv) == 0
    info = _json_out(capsys)
    assert info["path"] == str(path) and path.exists()
    return path, info


def _solve(path, capsys, algorithm, *extra):
    assert main(["solve", str(path), "--algorithm", algorithm, "--json", *extra]) == 0
    return _json_out(capsys)


# ---------------------------------------------------------------------------------------------
# list
# ---------------------------------------------------------------------------------------------
def test_list_json_has_problems_families_algorithms_and_suites(capsys):
    assert main(["list", "--json"]) == 0
    data = _json_out(capsys)
    assert "k-anonymity" in data["problems"]
    families = {f["name"]: f for f in data["families"]}
    assert {"kanon-binary", "kanon-triangles"} <= set(families)
    assert families["kanon-binary"]["problem"] == "k-anonymity"
    algos = {a["name"]: a for a in data["algorithms"]}
    assert algos["forest"]["kind"] == "approximation"
    assert algos["forest"]["guarantee"] == "max(2k-1, 3k-5)"
    assert "Aggarwal et al. 2005" in algos["forest"]["source"]
    assert algos["kanon-cpsat"]["kind"] == "exact"
    assert "quick" in {s["name"] for s in data["suites"]}


def test_list_text_names_every_algorithm(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for name in (
        "forest",
        "factor-2",
        "factor-3",
        "kanon-cpsat",
        "kanon-highs",
        "kanon-binary",
        "quick",
    ):
        assert name in out
    assert "guarantee: max(2k-1, 3k-5)" in out


# ---------------------------------------------------------------------------------------------
# generate + solve
# ---------------------------------------------------------------------------------------------
SOLVE_FIELDS = {
    "cost",
    "lower_bound",
    "lower_bound_source",
    "optimum",
    "optimum_status",
    "ratio",
    "certified_ratio",
    "guarantee",
    "verified",
    "status",
    "time_s",
}


def test_generate_and_solve_round_trip_with_forest_and_cpsat(tmp_path, capsys):
    path, info = _generate(tmp_path, capsys, n=10, m=4, k=2)
    assert info["n"] == 10 and info["params"]["k"] == 2 and info["family"] == "kanon-binary"

    exact = _solve(path, capsys, "kanon-cpsat", "--time-limit", "30")
    assert SOLVE_FIELDS <= set(exact)
    assert exact["verified"] is True and exact["status"] == "optimal"
    assert exact["optimum_status"] == "opt" and exact["ratio"] == pytest.approx(1.0)
    assert exact["params"]["k"] == 2 and exact["instance"] == info["instance"]

    approx = _solve(path, capsys, "forest", "--seed", "7")
    assert SOLVE_FIELDS <= set(approx)
    assert approx["verified"] is True and approx["seed"] == 7
    assert approx["guarantee"] == pytest.approx(3.0)  # max(2k-1, 3k-5) at k = 2
    true_ratio = approx["cost"] / exact["optimum"] if exact["optimum"] > 0 else 1.0
    assert true_ratio <= approx["guarantee"] + 1e-9
    assert approx["lower_bound"] <= exact["optimum"] + 1e-9
    if approx["certified_ratio"] is not None:  # cost / lower bound bounds the true ratio above
        assert approx["certified_ratio"] >= true_ratio - 1e-9


def test_solve_uses_the_optimum_stored_with_a_gadget(tmp_path, capsys):
    path, info = _generate(tmp_path, capsys, family="kanon-triangles", n_triangles=2)
    row = _solve(path, capsys, "forest")
    assert row["known_optimum"] == info["optimum"] and row["optimum"] == info["optimum"]
    assert row["optimum_status"] == "opt" and row["verified"] is True
    assert row["ratio"] == pytest.approx(row["cost"] / info["optimum"])
    assert row["ratio"] <= row["guarantee"] + 1e-9


def test_solve_param_override_rebuilds_the_instance_and_drops_the_stale_optimum(tmp_path, capsys):
    path, info = _generate(tmp_path, capsys, family="kanon-triangles", n_triangles=2)
    row = _solve(path, capsys, "forest", "--param", "k=4", "--param", "row_deletion=true")
    assert row["params"] == {"k": 4, "model": "suppression", "row_deletion": True}
    assert row["k"] == 4 and row["verified"] is True
    assert row["known_optimum"] is None and row["instance"] != info["instance"]
    assert row["guarantee"] == pytest.approx(7.0)


def test_solve_text_output_lists_every_quantity(tmp_path, capsys):
    path, _ = _generate(tmp_path, capsys, n=8, m=3, k=2)
    assert main(["solve", str(path), "--algorithm", "forest"]) == 0
    out = capsys.readouterr().out
    for label in ("cost", "lower bound", "optimum", "ratio", "certified ratio", "guarantee"):
        assert f"\n{label} " in out
    assert "verified         True" in out and "max(2k-1, 3k-5)" in out


# ---------------------------------------------------------------------------------------------
# user errors: one line on stderr, non-zero exit
# ---------------------------------------------------------------------------------------------
@pytest.fixture
def instance_file(tmp_path):
    from anonratio.instances import KAnonymityInstance
    from anonratio.instances.io import save_instance
    from anonratio.instances.kanonymity.generators import binary_table

    path = tmp_path / "inst.json"
    save_instance(path, KAnonymityInstance(binary_table(8, 3, seed=0), 2))
    return path


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["solve", "{file}", "--algorithm", "nope"], r"unknown algorithm 'nope'; known: \["),
        (["generate", "nope", "--seed", "1", "--out", "{tmp}/x.json"], "unknown family 'nope'"),
        (
            ["generate", "kanon-binary", "--seed", "1", "--param", "zz=1", "--out", "{tmp}/x.json"],
            "unknown parameter 'zz' for family 'kanon-binary'",
        ),
        (
            ["solve", "{file}", "--algorithm", "forest", "--param", "zz=1"],
            r"unknown parameter 'zz' for k-anonymity; known: \['k', 'model', 'row_deletion'\]",
        ),
        (
            ["solve", "{file}", "--algorithm", "forest", "--param", "k=1"],
            r"`k` must be an integer in \[2, n_records=8\], got 1",
        ),
        (
            ["solve", "{file}", "--algorithm", "forest", "--param", "k=9"],
            r"`k` must be an integer in \[2, n_records=8\], got 9",
        ),
        (
            ["solve", "{file}", "--algorithm", "forest", "--param", "k=two"],
            "parameter `k` must be of type int",
        ),
        (
            ["solve", "{file}", "--algorithm", "forest", "--param", "model=stars"],
            "`model` must be one of",
        ),
        (["solve", "{file}", "--algorithm", "forest", "--param", "k"], "must look like key=value"),
        (["solve", "{bad}", "--algorithm", "forest"], "not a valid JSON instance file"),
        (["solve", "{tmp}/missing.json", "--algorithm", "forest"], "instance file not found"),
        (["solve", "{file}", "--algorithm", "factor-3"], "does not support this instance"),
        (["solve", "{file}", "--algorithm", "forest", "--time-limit", "-1"], "--time-limit"),
        (["generate", "kanon-binary", "--out", "x.json"], "required: --seed"),
        (["report", "{tmp}/nothing"], "No such file or directory"),
        (["report", "{plain}"], "plain.csv: not a results file: none of its columns"),
        (["report", "{bad}"], r"`path` must be a \.parquet or \.csv file or a directory"),
        (["run", "quick", "--jobs", "0"], "`--jobs` must be a positive integer, got 0"),
        (["run", "nope"], "nope"),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
    ],
)
def test_user_errors_give_one_line_and_a_nonzero_exit(
    argv, message, tmp_path, capsys, instance_file
):
    bad = tmp_path / "bad.json"
    bad.write_text('{"problem": "k-anonymity", "k": 2,')  # truncated JSON
    plain = tmp_path / "plain.csv"
    plain.write_text("a,b\n1,2\n")  # a CSV file that is not a results file
    fill = {"file": instance_file, "bad": bad, "tmp": tmp_path, "plain": plain}
    argv = [a.format(**fill) if "{" in a else a for a in argv]
    code = main(argv)
    assert code in (1, 2)
    line = _one_line_error(capsys)
    assert re.search(message, line), line


def test_run_on_a_scheduler_without_dask_says_what_to_install(capsys):
    import importlib.util

    if importlib.util.find_spec("distributed") is not None:
        pytest.skip("dask.distributed is installed")
    assert main(["run", "quick", "--scheduler", "tcp://127.0.0.1:1"]) == 2
    assert 'pip install "dask[distributed]"' in _one_line_error(capsys)


def test_a_valid_solve_after_an_error_still_works(capsys, instance_file):
    assert main(["solve", str(instance_file), "--algorithm", "nope"]) == 2
    capsys.readouterr()
    assert _solve(instance_file, capsys, "forest")["verified"] is True


# ---------------------------------------------------------------------------------------------
# report and run
# ---------------------------------------------------------------------------------------------
def _results_frame():
    rows = []
    for k in (2, 3):
        for i, opt in enumerate((10.0, 12.0)):
            for algo, kind, r, g in [
                ("forest", "approximation", 1.25, max(2 * k - 1, 3 * k - 5)),
                ("cpsat", "exact", 1.0, 1.0),
            ]:
                rows.append(
                    {
                        "problem": "k-anonymity",
                        "family": "kanon-binary",
                        "instance": f"i{k}{i}",
                        "n": 10 + 10 * i,
                        "params": json.dumps({"k": k}),
                        "algorithm": algo,
                        "kind": kind,
                        "status": "optimal" if kind == "exact" else "feasible",
                        "verified": True,
                        "cost": opt * r,
                        "lower_bound": 0.8 * opt,
                        "optimum": opt,
                        "optimum_status": "opt",
                        "ratio": r,
                        "certified_ratio": r / 0.8,
                        "guarantee": g,
                        "time_s": 0.01 if kind != "exact" else 0.5,
                    }
                )
    return pd.DataFrame(rows)


def test_report_writes_summary_and_pngs(tmp_path, capsys):
    from anonratio.bench.engine.store import write_results

    write_results(_results_frame(), tmp_path / "res")
    assert main(["report", str(tmp_path / "res"), "--out", str(tmp_path / "rep"), "--json"]) == 0
    data = _json_out(capsys)
    plots = [p for p in data["files"]["plots"]]
    assert len(plots) == 2
    for p in plots:
        with open(p, "rb") as fh:
            assert fh.read(8) == PNG_MAGIC
    summary = pd.DataFrame(data["summary"])
    forest = summary[summary["algorithm"] == "forest"].set_index("k")
    assert forest.loc[2, "median_ratio"] == pytest.approx(1.25)
    assert forest.loc[3, "guarantee"] == 5
    assert (tmp_path / "rep" / "summary.md").exists()


def test_report_text_mode_defaults_to_the_results_folder(tmp_path, capsys):
    from anonratio.bench.engine.store import write_results

    paths = write_results(_results_frame(), tmp_path)
    assert main(["report", str(paths["csv"])]) == 0
    out = capsys.readouterr().out
    assert "median_ratio" in out and "forest" in out
    assert (tmp_path / "ratios_k-anonymity.png").exists()
    assert (tmp_path / "summary.csv").exists()


def test_run_writes_results_summary_and_plots_under_results_suite(tmp_path, capsys, monkeypatch):
    from anonratio.bench.engine import suites
    from anonratio.bench.engine.runner import Task

    tasks = [
        Task("kanon-binary", {"n": 8, "m": 3, "k": k}, seed=s, algorithm=a, time_limit=20.0)
        for k, s in ((2, 0), (3, 1))
        for a in ("forest", "kanon-cpsat")
    ]
    tiny = suites.Suite(name="tiny", description="test suite", tasks=lambda: tasks)
    monkeypatch.setattr(suites, "get_suite", lambda name: tiny)
    monkeypatch.chdir(tmp_path)
    assert main(["run", "tiny", "--jobs", "2", "--json"]) == 0
    data = _json_out(capsys)
    out = tmp_path / "results" / "tiny"
    for name in ("results.parquet", "results.csv", "summary.csv", "summary.md"):
        assert (out / name).exists(), name
    df = pd.read_parquet(out / "results.parquet")
    assert len(df) == len(tasks) and df["verified"].all()
    forest = df[df["algorithm"] == "forest"]
    assert np.all(forest["ratio"] <= forest["guarantee"] + 1e-9)
    summary = pd.DataFrame(data["summary"])
    assert set(summary["algorithm"]) == {"forest", "kanon-cpsat"}
    assert summary["runs"].sum() == len(tasks)
    assert any(p.endswith("ratios_k-anonymity.png") for p in data["files"]["plots"])
