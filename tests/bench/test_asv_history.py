"""The offline view of the asv history (``bench/tracking/asv_history.py``), on asv-shaped result
files."""

from __future__ import annotations

import json

from anonratio.bench.tracking import asv_history

COLUMNS = ["result", "params", "version", "started_at", "duration"]


def _results(root, commit, date, ratios, time_s, env="virtualenv-py3.11"):
    machine = root / "vm"
    machine.mkdir(parents=True, exist_ok=True)
    (machine / "machine.json").write_text(json.dumps({"machine": "vm", "version": 1}))
    data = {
        "commit_hash": commit,
        "env_name": env,
        "date": date,
        "result_columns": COLUMNS,
        "results": {
            "bench_ratios.Ratio_forest.track_ratio_forest": [
                ratios,
                [["'worst'", "'mean'"]],
                "v",
                0,
                1.0,
            ],
            "bench_times.Time_forest.time_forest": [[time_s], [], "v", 0, 1.0],
            "bench_times.Time_forest.peakmem_forest": [None, [], "v", 0, 1.0],
        },
        "version": 2,
    }
    (machine / f"{commit[:8]}-{env}.json").write_text(json.dumps(data))


def _suite(tmp_path):
    root = tmp_path / "results"
    _results(root, "b" * 40, 2000, [1.9, None], 0.5)  # the later commit: worse, mean failed
    _results(root, "a" * 40, 1000, [1.6, 1.2], 0.4)
    described = {
        "bench_ratios.Ratio_forest.track_ratio_forest": {"unit": "ratio", "param_names": ["stat"]},
        "version": 2,
    }
    (root / "benchmarks.json").write_text(json.dumps(described))
    return root


def test_load_history_reads_every_commit_in_commit_date_order(tmp_path):
    history = asv_history.load_history(_suite(tmp_path))
    assert history.ordered_commits() == ["a" * 40, "b" * 40]
    ratio = history.benchmarks["bench_ratios.Ratio_forest.track_ratio_forest"]
    env = "vm/virtualenv-py3.11"
    assert ratio.unit == "ratio" and ratio.combos == ["stat='worst'", "stat='mean'"]
    assert ratio.values == {
        ("a" * 40, env, "stat='worst'"): 1.6,
        ("a" * 40, env, "stat='mean'"): 1.2,
        ("b" * 40, env, "stat='worst'"): 1.9,  # the failed mean is no point
    }
    assert "bench_times.Time_forest.peakmem_forest" not in history.benchmarks  # never measured
    only = asv_history.load_history(_suite(tmp_path / "x"), pattern="track_ratio_")
    assert list(only.benchmarks) == ["bench_ratios.Ratio_forest.track_ratio_forest"]


def test_main_writes_a_figure_per_benchmark_and_a_page_without_scripts(tmp_path, capsys):
    out = tmp_path / "history"
    assert asv_history.main(["--results", str(_suite(tmp_path)), "--out", str(out)]) == 0
    pngs = sorted(p.name for p in out.glob("*.png"))
    assert pngs == [
        "bench-ratios-ratio-forest-track-ratio-forest.png",
        "bench-times-time-forest-time-forest.png",
    ]
    assert all((out / p).read_bytes().startswith(b"\x89PNG") for p in pngs)
    page = (out / "index.html").read_text()
    assert "<script" not in page and "http" not in page
    assert "bbbbbbbb: stat=&#x27;worst&#x27; 1.9" in page and "aaaaaaaa: " in page
    assert "2 benchmarks over 2 commits" in capsys.readouterr().out
    assert not list(out.glob(".*.tmp"))


def test_main_refuses_a_missing_folder_a_bad_pattern_and_no_results(tmp_path, capsys):
    assert asv_history.main(["--results", str(tmp_path / "nope")]) == 2
    assert "--results" in capsys.readouterr().err
    assert asv_history.main(["--results", str(_suite(tmp_path)), "--bench", "("]) == 2
    assert "--bench: '(' is not a regular expression" in capsys.readouterr().err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert asv_history.main(["--results", str(empty), "--out", str(tmp_path / "o")]) == 2
    assert "holds no asv result" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_each_axis_says_what_the_value_is_measured_against():
    ratio = asv_history._unit("bench_ratios.Ratio_forest.track_ratio_forest", "ratio")
    certified = asv_history._unit("b.Ratio_forest.track_certified_ratio_forest", "ratio")
    assert ratio == ("cost / reference optimum\n(bigger is worse)", 1.0)
    assert certified == ("cost / best lower bound\n(bigger is worse)", 1.0)
    assert asv_history._unit("b.M.peakmem_forest", "bytes") == ("peak memory (MB)", 1e-6)
    assert asv_history._unit("b.Time_forest.time_forest", "seconds") == ("seconds", 1.0)
