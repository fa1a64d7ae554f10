"""Tests of bench/report/intervals.py: each algorithm's ratio as an interval where no optimum is
proven, as a table, a figure and a section of the report."""

import json

import numpy as np
import pandas as pd

from anonratio.bench.report.intervals import (
    INTERVAL_COLUMNS,
    interval_table,
    plot_problem_intervals,
)
from anonratio.bench.report.summary import _prepare, write_report

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _row(algorithm, kind, n, seed, cost, *, opt=None, best, bound, k=5):
    """One result row: ``opt`` the proven optimum (None: unknown), ``best`` the best-known cost,
    ``bound`` the best lower bound."""
    return {
        "problem": "k-anonymity",
        "algorithm": algorithm,
        "kind": kind,
        "n": n,
        "params": json.dumps({"k": k}),
        "seed": seed,
        "verified": True,
        "cost": cost,
        "optimum_status": "opt" if opt is not None else "best",
        "ratio": cost / opt if opt is not None else np.nan,
        "ratio_at_least": cost / best,
        "certified_ratio": cost / bound,
        "guarantee": 9.0,
        "time_s": 0.1,
    }


def _results():
    """n = 10: every run proven (optimum 10). n = 100: seed 0 unproven (best 100, bound 80),
    seed 1 unproven (best 100, bound 90), seed 2 proven (optimum 100). An exact solver beside."""
    rows = []
    for seed in range(2):
        rows.append(
            _row("forest", "approximation", 10, seed, 15.0, opt=10.0, best=10.0, bound=10.0)
        )
    bounds = {0: 80.0, 1: 90.0}
    for seed in range(3):
        opt = 100.0 if seed == 2 else None
        bound = bounds.get(seed, 100.0)
        for algorithm, kind, cost in [
            ("forest", "approximation", 150.0 + 10 * seed),
            ("kanon-local-search", "heuristic", 100.0),
            ("kanon-cpsat", "exact", 100.0),
        ]:
            rows.append(_row(algorithm, kind, 100, seed, cost, opt=opt, best=100.0, bound=bound))
    return pd.DataFrame(rows)


def test_interval_table_keeps_the_sizes_without_a_proof_and_takes_medians():
    t = interval_table(_prepare(_results()))
    assert list(t.columns) == INTERVAL_COLUMNS
    # n = 10 is proven everywhere and the exact solver is no approximation: neither is shown
    assert t[["algorithm", "k", "n"]].values.tolist() == [
        ["forest", 5, 100],
        ["kanon-local-search", 5, 100],
    ]
    forest = t.iloc[0]
    assert forest["runs"] == 3 and forest["proven"] == 1
    # per seed: [1.5, 1.875], [1.6, 1.778], and the proven 1.7 at both ends
    assert np.isclose(forest["ratio_at_least"], 1.6)
    assert np.isclose(forest["certified_ratio"], np.median([150 / 80, 160 / 90, 1.7]))
    local = t.iloc[1]
    assert np.isclose(local["ratio_at_least"], 1.0)
    assert np.isclose(local["certified_ratio"], 100 / 90)
    assert (t["ratio_at_least"] <= t["certified_ratio"]).all()


def test_interval_table_leaves_out_unverified_runs_and_runs_without_both_ends():
    df = _results()
    df.loc[(df["n"] == 100) & (df["seed"] == 0), "verified"] = False
    df.loc[(df["n"] == 100) & (df["seed"] == 1), "ratio_at_least"] = np.nan
    t = interval_table(_prepare(df))
    assert t.empty and list(t.columns) == INTERVAL_COLUMNS  # only the proven seed 2 is left


def test_interval_table_is_empty_when_every_optimum_is_proven():
    df = _results()
    assert interval_table(_prepare(df[df["n"] == 10])).empty


def test_plot_problem_intervals_draws_only_where_some_optimum_is_unknown(tmp_path):
    d = _prepare(_results())
    path = plot_problem_intervals("k-anonymity", d, tmp_path)
    assert path == tmp_path / "intervals_k-anonymity.png"
    data = path.read_bytes()
    assert data.startswith(PNG_MAGIC) and len(data) > 10_000
    assert plot_problem_intervals("k-anonymity", d[d["n"] == 10], tmp_path / "none") is None
    assert not (tmp_path / "none").exists()


def test_plot_problem_intervals_without_an_anonymity_size_draws_one_panel(tmp_path):
    df = _results().assign(problem="cellular", params="{}")
    path = plot_problem_intervals("cellular", _prepare(df), tmp_path)
    assert path is not None and path.read_bytes().startswith(PNG_MAGIC)


def test_write_report_has_an_interval_section_only_where_it_applies(tmp_path):
    out = write_report(_results(), tmp_path / "open")
    assert tmp_path / "open" / "intervals_k-anonymity.png" in out["plots"]
    md = out["report_md"].read_text()
    assert "Ratio intervals (runs without a proven optimum)" in md
    assert "| forest | 5 | 100 | 3 | 1 | 1.6 |" in md
    assert "intervals_k-anonymity.png" in out["report_html"].read_text()
    proven = write_report(_results().query("n == 10"), tmp_path / "proven")
    assert not any(p.name.startswith("intervals_") for p in proven["plots"])
    assert "Ratio intervals" not in proven["report_md"].read_text()
