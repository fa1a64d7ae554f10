"""Tests of bench/report/summary.py: summary table and plots of a small hand-made results frame."""

import json
import math

import numpy as np
import pandas as pd
import pytest

from anonratio.bench.report.summary import (
    SUMMARY_COLUMNS,
    format_table,
    plot_ratios,
    summarize,
    write_report,
)

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _results():
    """Two instances per k in {2, 3}; forest, factor-2 (k=2) and cpsat rows."""
    rows = []
    for k in (2, 3):
        for i, (opt, lb) in enumerate([(10.0, 8.0), (20.0, 20.0)]):
            inst = f"i{k}{i}"
            runs = [("forest", "approximation", 1.2 + 0.1 * i, max(2 * k - 1, 3 * k - 5))]
            if k == 2:
                runs.append(("factor-2", "approximation", 1.1, 1.5))
            runs.append(("cpsat", "exact", 1.0, 1.0))
            for algo, kind, r, g in runs:
                cost = opt * r
                rows.append(
                    {
                        "problem": "k-anonymity",
                        "family": "kanon-random",
                        "instance": inst,
                        "n": 10 * (i + 1),
                        "params": json.dumps({"k": k, "model": "suppression"}),
                        "algorithm": algo,
                        "kind": kind,
                        "seed": 0,
                        "status": "optimal" if kind == "exact" else "feasible",
                        "verified": True,
                        "cost": cost,
                        "lower_bound": lb,
                        "optimum": opt,
                        "optimum_status": "opt" if i == 0 else "best",
                        "ratio": cost / opt if i == 0 else np.nan,
                        "certified_ratio": cost / lb,
                        "guarantee": g,
                        "time_s": 0.01 * (i + 1) * (100 if kind == "exact" else 1),
                    }
                )
    return pd.DataFrame(rows)


def test_summarize_groups_by_problem_algorithm_k():
    s = summarize(_results())
    assert list(s.columns) == SUMMARY_COLUMNS
    keys = list(zip(s["algorithm"], s["k"], strict=True))
    # approximation algorithms first, exact last
    assert keys == [("factor-2", 2), ("forest", 2), ("forest", 3), ("cpsat", 2), ("cpsat", 3)]
    f2 = s[(s["algorithm"] == "forest") & (s["k"] == 2)].iloc[0]
    assert f2["runs"] == 2 and f2["verified"] == 2 and f2["with_optimum"] == 1
    assert f2["median_ratio"] == pytest.approx(1.2)
    assert f2["max_ratio"] == pytest.approx(1.2)
    assert f2["max_certified_ratio"] == pytest.approx(12 / 8)
    assert f2["median_certified_ratio"] == pytest.approx((12 / 8 + 26 / 20) / 2)
    assert f2["guarantee"] == 3 and f2["over_guarantee"] == 0
    assert f2["median_time_s"] == pytest.approx(0.015)


def test_summarize_counts_ratios_over_the_guarantee_and_unverified_runs():
    df = _results()
    bad = (df["algorithm"] == "factor-2") & (df["optimum_status"] == "opt")
    df.loc[bad, "ratio"] = 1.7  # above the proven 1.5: an implementation bug would show here
    df.loc[df["algorithm"] == "cpsat", "verified"] = [True, False, True, True]
    s = summarize(df).set_index(["algorithm", "k"])
    assert s.loc[("factor-2", 2), "over_guarantee"] == 1
    assert s.loc[("cpsat", 2), "verified"] == 1


def test_summarize_reads_k_from_params_dicts_and_ignores_infinite_certified_ratios():
    df = _results()
    df["params"] = [{"k": int(json.loads(p)["k"])} for p in df["params"]]
    df.loc[0, "certified_ratio"] = math.inf  # lower bound 0, cost > 0
    s = summarize(df)
    row = s[(s["algorithm"] == "forest") & (s["k"] == 2)].iloc[0]
    assert row["median_certified_ratio"] == pytest.approx(26 / 20)
    assert math.isinf(row["max_certified_ratio"])


def test_summarize_of_an_empty_frame_has_the_columns():
    empty = pd.DataFrame(columns=["problem", "algorithm", "params"])
    assert list(summarize(empty).columns) == SUMMARY_COLUMNS
    assert summarize(empty).empty


def test_summarize_rejects_frames_without_problem_or_algorithm():
    with pytest.raises(ValueError, match=r"results need the columns \['algorithm'\]"):
        summarize(pd.DataFrame({"problem": ["k-anonymity"]}))
    with pytest.raises(TypeError, match="`df` must be a pandas DataFrame"):
        summarize([{"problem": "k-anonymity"}])


def test_plot_ratios_writes_readable_pngs(tmp_path):
    paths = plot_ratios(_results(), tmp_path / "plots")
    names = sorted(p.name for p in paths)
    assert names == ["ratios_k-anonymity.png", "runtime_k-anonymity.png"]
    for p in paths:
        data = p.read_bytes()
        assert data.startswith(PNG_MAGIC) and len(data) > 10_000


def test_plot_ratios_without_any_optimum_still_draws_the_lower_bound_panel(tmp_path):
    df = _results()
    df["ratio"] = np.nan
    df["optimum_status"] = "best"
    paths = plot_ratios(df, tmp_path)
    assert (tmp_path / "ratios_k-anonymity.png") in paths


def test_write_report_writes_summary_files_and_plots(tmp_path):
    out = write_report(_results(), tmp_path / "report")
    assert out["summary_csv"].exists() and out["summary_md"].exists()
    back = pd.read_csv(out["summary_csv"])
    assert list(back.columns) == SUMMARY_COLUMNS and len(back) == 5
    md = out["summary_md"].read_text()
    assert "| problem | algorithm |" in md and "cost ÷ proven optimum" in md
    assert len(out["plots"]) == 2 and all(p.exists() for p in out["plots"])
    assert out["summary"].equals(summarize(_results()))


def test_write_report_accepts_frames_read_back_from_the_store(tmp_path):
    from anonratio.bench.engine.store import read_results, write_results

    write_results(_results(), tmp_path)
    df = read_results(tmp_path)
    s = write_report(df, tmp_path)["summary"]
    pd.testing.assert_frame_equal(s, summarize(_results()))
    assert (tmp_path / "ratios_k-anonymity.png").exists()


def test_format_table_prints_nan_as_blank_and_aligns_columns():
    frame = pd.DataFrame({"a": [1.23456789, np.nan], "name": ["x", "longer"]})
    text = format_table(frame)
    lines = text.splitlines()
    assert len({len(line) for line in lines}) == 1
    assert "1.235" in lines[1] and "nan" not in text.lower()
    md = format_table(frame, markdown=True).splitlines()
    assert md[0] == "| a | name |" and md[1] == "|---|---|" and md[3] == "|  | longer |"


def test_write_report_writes_a_self_contained_html_page_and_markdown(tmp_path):
    out = write_report(_results(), tmp_path)
    page = out["report_html"].read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and page.count("data:image/png;base64,") == 2
    for external in ("http://", "https://", "<link", "<script", 'src="ratios'):
        assert external not in page
    assert "Exact solvers: outcomes" in page and "n counts records" in page
    md = out["report_md"].read_text(encoding="utf-8")
    assert "## k-anonymity" in md and "![ratios of k-anonymity](ratios_k-anonymity.png)" in md
    assert out["experiment"] is None and out["findings"] == []
    assert all(p.suffix == ".png" for p in out["plots"])


def test_algorithm_summary_and_exact_outcomes():
    from anonratio.bench.report.summary import algorithm_summary, exact_outcomes

    df = _results()
    df.loc[df.index[df["algorithm"] == "cpsat"][:2], "status"] = ["time_limit", "error"]
    a = algorithm_summary(df).set_index("algorithm")
    assert list(a.index) == ["forest", "factor-2", "cpsat"]  # registry order
    assert a.loc["forest", "runs"] == 4 and a.loc["forest", "with_optimum"] == 2
    assert a.loc["forest", "over_guarantee"] == 0
    e = exact_outcomes(df).set_index("algorithm").loc["cpsat"]
    assert (e["runs"], e["optimal"], e["time_limit"], e["failed"]) == (4, 2, 1, 1)


def test_runtime_fit_needs_three_distinct_n_and_one_point_is_not_plotted(tmp_path):
    from anonratio.bench.report.plots import plot_problem_runtime, runtime_fits
    from anonratio.bench.report.summary import _prepare

    n = np.array([10, 20, 40, 10, 20, 40])
    rows = pd.DataFrame(
        {
            "problem": "bin-covering",
            "algorithm": "fold-sorted",
            "kind": "approximation",
            "verified": True,
            "n": n,
            "time_s": 1e-6 * n.astype(float) ** 2,
            "k": 3,
        }
    )
    fits = runtime_fits(_prepare(rows))
    assert fits["exponent"].iloc[0] == pytest.approx(2.0)
    two = _prepare(rows[rows["n"] < 40])
    assert math.isnan(runtime_fits(two)["exponent"].iloc[0])
    one = _prepare(rows[rows["n"] == 10])
    assert plot_problem_runtime("bin-covering", one, tmp_path) is None
    assert plot_problem_runtime("bin-covering", _prepare(rows), tmp_path).exists()


def test_runtime_fit_leaves_out_the_sizes_at_the_time_limit():
    from anonratio.bench.report.plots import runtime_fits
    from anonratio.bench.report.summary import _prepare

    # time ~ n^2 up to n = 80 (6.4 s); at n = 160 the runs stop at their 10 s limit
    n = np.array([10, 20, 40, 80, 160])
    rows = pd.DataFrame(
        {
            "problem": "k-anonymity",
            "algorithm": "cpsat",
            "kind": "exact",
            "verified": True,
            "n": n,
            "time_s": np.minimum(1e-3 * n.astype(float) ** 2, 10.0),
            "time_limit": 10.0,
            "k": 3,
        }
    )
    fit = runtime_fits(_prepare(rows)).iloc[0]
    assert fit["exponent"] == pytest.approx(2.0) and fit["at_limit_n"] == 1
    limited = runtime_fits(_prepare(rows.assign(time_s=9.5))).iloc[0]
    assert math.isnan(limited["exponent"]) and limited["at_limit_n"] == 5
    no_limit = runtime_fits(_prepare(rows.drop(columns="time_limit"))).iloc[0]
    assert no_limit["at_limit_n"] == 0 and no_limit["exponent"] < 2  # the flat tail counts


def test_colours_are_fixed_per_algorithm_and_distinct_within_a_problem():
    from anonratio.bench.registry import REGISTRY
    from anonratio.bench.report.plots import N_LABELS, algorithm_color, k_groups

    for problem in {a.problem for a in REGISTRY.values()}:
        names = [a.name for a in REGISTRY.values() if a.problem == problem]
        assert len({algorithm_color(a) for a in names}) == len(names)
        assert problem in N_LABELS
    assert algorithm_color("forest") == algorithm_color("forest")
    groups, labels = k_groups(range(100, 1000, 3))
    assert len(labels) <= 8 and set(groups.values()) == set(range(len(labels)))
    groups, labels = k_groups([100, 101, 20])
    assert labels == ["20", "100", "101"]


def test_terminal_summary_fits_100_columns_and_points_to_the_report(tmp_path):
    from anonratio.bench.report.summary import terminal_summary

    out = write_report(_results(), tmp_path)
    text = terminal_summary(out)
    assert max(len(line) for line in text.splitlines() if str(tmp_path) not in line) <= 100
    lines = text.splitlines()
    assert lines[0].split()[:4] == ["problem", "algorithm", "runs", "verified"]
    assert sum(line.startswith("k-anonymity") for line in lines) == 3
    assert str(out["report_html"]) in text


def _killed_sweep(folder):
    """The folder a sweep killed after one run leaves: a journal and its lock, no results."""
    from anonratio.bench.engine.journal import Journal

    journal = Journal(folder).open()
    journal.append("k1", {"algorithm": "forest", "problem": "k-anonymity"})
    return journal


def test_report_on_a_killed_sweep_says_run_resumes_it(tmp_path, capsys):
    from anonratio.bench.cli.parser import main

    _killed_sweep(tmp_path / "quick").close()
    assert main(["report", str(tmp_path / "quick")]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path / 'quick'}: no results yet: its journal.jsonl records 1 finished run" in err
    assert f"`anonratio run SUITE --out {tmp_path / 'quick'}` command again: it resumes" in err


def test_report_on_a_running_sweep_says_it_is_running(tmp_path, capsys):
    import os

    from anonratio.bench.cli.parser import main

    journal = _killed_sweep(tmp_path / "quick")
    try:
        assert main(["report", str(tmp_path / "quick"), "--json"]) == 2
    finally:
        journal.close()
    doc = json.loads(capsys.readouterr().out)
    assert doc["kind"] == "bad_input"
    assert f"a sweep is still writing to it (process {os.getpid()})" in doc["error"]
    assert "records 1 finished run" in doc["error"]


def test_report_says_which_code_made_the_rows_and_warns_when_they_mix(tmp_path):
    df = _results()
    df["version"] = "0.1.0+src.aaaaaaaaaaaa"
    out = write_report(df, tmp_path / "one")
    md, page = out["report_md"].read_text(), out["report_html"].read_text()
    line = f"code that made the rows: `0.1.0+src.aaaaaaaaaaaa` ({len(df)} rows)"
    assert line in md and "<code>0.1.0+src.aaaaaaaaaaaa</code>" in page
    assert "Warning" not in md and "Warning" not in page
    df.loc[df.index[:3], "version"] = "0.1.0+src.bbbbbbbbbbbb.g1234567ab.dirty"
    df.loc[df.index[3], "version"] = None
    out = write_report(df, tmp_path / "mixed")
    md, page = out["report_md"].read_text(), out["report_html"].read_text()
    assert (
        f"code that made the rows: `0.1.0+src.aaaaaaaaaaaa` ({len(df) - 4} rows), "
        "`0.1.0+src.bbbbbbbbbbbb.g1234567ab.dirty` (3 rows), unrecorded (1 row)"
    ) in md
    warning = "Warning: these rows were made by 3 different versions of the code"
    assert f"**{warning}**" in md and f"<strong>{warning}</strong>" in page
