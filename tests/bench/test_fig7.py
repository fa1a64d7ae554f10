"""Tests of the Figure 7 reproduction (anonratio.bench.experiments.fig7; Du et al. 2009, §5)."""

import json

import numpy as np
import pandas as pd
import pytest

from anonratio.bench.engine.runner import finalize, sweep
from anonratio.bench.experiments.fig7 import (
    FIG7_ALGORITHMS,
    PAPER_CURVES,
    check_observations,
    fig7_frame,
    fig7_tasks,
    k_grid,
    subrange_max,
)
from anonratio.bench.experiments.fig7_plot import observations_markdown, plot_fig7
from anonratio.instances.bin_covering.generators import census_names

MALE_S, MALE_MAX = 90052, 3318


def test_k_grid_spans_the_papers_range_and_hits_the_thresholds():
    _, sizes = census_names("MALE-1990")
    assert (int(sizes.sum()), int(sizes.max())) == (MALE_S, MALE_MAX)
    ks = k_grid("MALE-1990", n_geometric=50)
    assert ks[0] == MALE_MAX and ks[-1] == MALE_S // 2  # floor(S/k) = 2 at the last k
    assert np.all(np.diff(ks) > 0)
    for c in (3, 4, 10, 27):  # both sides of every class-count threshold S/c
        t = MALE_S // c
        assert {t - 1, t, t + 1, t + 2} <= set(ks.tolist())
        assert MALE_S // t == c and MALE_S // (t + 1) == c - 1
    assert len(ks) < len(k_grid("MALE-1990", n_geometric=150))


def test_fig7_tasks_options():
    tasks = fig7_tasks(("MALE-1990",), k_values=[4000, 5000], k_per_batch=1)
    assert len(tasks) == 2 * len(FIG7_ALGORITHMS)
    assert len({t.batch for t in tasks}) == 2 and {t.seed for t in tasks} == {0}
    with pytest.raises(ValueError, match="unknown algorithm 'nope'"):
        fig7_tasks(("MALE-1990",), algorithms=["nope"])


def test_tiny_fig7_sweep_columns_and_plots(tmp_path):
    tasks = fig7_tasks(("MALE-1990",), k_values=[MALE_MAX, 15000, MALE_S // 2], k_per_batch=2)
    df = finalize(sweep(tasks, n_jobs=2, progress=False), reference={})
    assert len(df) == 3 * len(FIG7_ALGORITHMS)
    assert df["verified"].all() and (df["status"] == "feasible").all()
    for col in ("overfull_ratio", "certified_ratio", "lower_bound", "n_bins", "relaxed"):
        assert col in df and df[col].notna().all()
    assert not df["relaxed"].astype(bool).any()
    ks = df["k"].astype(float)
    assert np.allclose(df["overfull_ratio"], df["cost"] / ks)
    assert np.allclose(df["certified_ratio"], df["cost"] / df["lower_bound"])
    # the lower bound is max(k, max x, ceil(S / floor(S/k))) (no exact rows here)
    lb = np.maximum(np.maximum(ks, MALE_MAX), np.ceil(MALE_S / (MALE_S // ks)))
    assert np.allclose(df["lower_bound"], lb)

    frame = fig7_frame(df)
    assert len(frame) == len(df) and set(frame["dataset"]) == {"MALE-1990"}
    assert set(frame["curve"]) >= set(PAPER_CURVES.values())
    assert (frame["max_classes"] == MALE_S // frame["k"]).all()
    assert (frame["lb_ratio"] >= 1).all() and (frame["overfull_ratio"] >= frame["lb_ratio"]).all()

    paths = plot_fig7(df, tmp_path)
    names = sorted(p.name for p in paths)
    assert names == [
        "fig7_certified.png",
        "fig7_overfull.png",
        "observations.json",
        "observations.md",
    ]
    for p in paths:
        assert p.exists() and p.stat().st_size > 100
    assert (tmp_path / "fig7_overfull.png").read_bytes()[:4] == b"\x89PNG"
    obs = json.loads((tmp_path / "observations.json").read_text())
    assert set(obs) >= {"spread_beats_fold", "random_beats_sorted", "threshold_jumps"}
    assert plot_fig7(df[df["family"] != "bc-census"], tmp_path / "none") == []


def _frame(*, random_factor=0.97, spread_peak=None):
    """A hand-built Figure 7 frame: ratio = S / (classes * k) with fewer classes for Fold."""
    total, rows = 10_000, []
    ks = np.arange(1000, 3001, 20)
    fill = {"fold": 1.6, "simplified-spread": 1.15, "spread": 1.2}
    for algo in FIG7_ALGORITHMS:
        method, order = algo.rsplit("-", 1)
        for k in ks:
            n_bins = max(1, int(total // (k * fill[method])))
            ratio = total / (n_bins * k)
            if order == "random":
                ratio *= random_factor
            rows.append(
                {
                    "dataset": "TOY",
                    "k": int(k),
                    "algorithm": algo,
                    "overfull_ratio": ratio,
                    "certified_ratio": ratio * k / max(k, np.ceil(total / (total // k))),
                    "max_classes": total // k,
                    "n_bins": n_bins,
                }
            )
    df = pd.DataFrame(rows)
    if spread_peak is not None:
        df.loc[df["algorithm"] == "spread-random", "overfull_ratio"] = spread_peak
    return df


def test_check_observations_on_a_hand_built_frame():
    obs = check_observations(_frame())
    assert obs["spread_beats_fold"]["holds"] and obs["theorem10_spread_beats_fold"]["holds"]
    per = obs["spread_beats_fold"]["numbers"]["sorted"]["TOY"]
    assert per["median_spread"] < per["median_fold"] and per["frac_k_spread_better"] > 0.8
    b = obs["random_beats_sorted"]
    assert b["holds"] and b["numbers"]["fold"]["frac_k_random_better"] == 1.0
    assert b["numbers"]["simplified-spread"]["holds"]
    c = obs["threshold_jumps"]
    assert c["holds"] and c["fold_more_pronounced"]
    fold = c["numbers"]["fold-sorted"]["n_bins"]
    assert fold["n_drops"] > 0 and fold["mean_change_at_drops"] > 0
    assert fold["mean_change_elsewhere"] < 0 and fold["frac_drops_with_increase"] == 1.0
    d = obs["better_than_worst_case"]
    assert d["holds"] and d["numbers"]["fold-random"]["worst_case"] == 3.0
    assert d["numbers"]["spread-sorted"]["worst_case"] == 2.5
    assert obs["n_points"]["fold-random"] == 101
    text = observations_markdown(obs)
    assert text.count("**holds**") >= 5 and "(d) *Far better than the worst case*" in text
    json.dumps(obs)  # serializable as it stands


def test_check_observations_detects_failures():
    obs = check_observations(_frame(random_factor=1.05, spread_peak=2.6))
    assert not obs["random_beats_sorted"]["holds"]
    assert obs["random_beats_sorted"]["numbers"]["fold"]["frac_k_sorted_better"] == 1.0
    assert not obs["better_than_worst_case"]["holds"]
    worst = obs["better_than_worst_case"]["numbers"]["spread-random"]["max_overfull_ratio"]
    assert worst == pytest.approx(2.6)
    assert not obs["theorem10_spread_beats_fold"]["holds"]  # random Spread now worse than Fold
    assert obs["spread_beats_fold"]["holds"]
    assert "does not hold" in observations_markdown(obs)
    with pytest.raises(ValueError, match="no verified bc-census"):
        check_observations(pd.DataFrame({"family": ["x"], "algorithm": ["fold-random"]}))


def test_subrange_max():
    frame = _frame()
    sub = subrange_max(frame, n_subranges=5)
    assert set(sub["algorithm"]) == set(FIG7_ALGORITHMS)
    g = sub[sub["algorithm"] == "fold-sorted"]
    assert len(g) == 5 and (g["k_lo"] < g["k_mid"]).all() and (g["k_mid"] < g["k_hi"]).all()
    fold = frame[frame["algorithm"] == "fold-sorted"]
    assert g["max"].max() == pytest.approx(fold["overfull_ratio"].max())


def test_proven_bounds_and_verdicts():
    from anonratio.bench.experiments.fig7_plot import observation_verdicts, proven_bound

    assert proven_bound("fold-random") == 3.0
    assert proven_bound("simplified-spread-sorted") == 3.0  # Fold's argument, not Theorem 10's
    assert proven_bound("spread-random") == 2.5
    verdicts = observation_verdicts(check_observations(_frame()))
    assert [t[:3] for t, _ in verdicts] == ["(a)", "(b)", "(c)", "(d)"]
    assert all(holds for _, holds in verdicts)
