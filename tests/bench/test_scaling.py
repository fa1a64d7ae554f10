"""Tests of bench/scaling.py: the FOREST measurement helper reports a verified run."""

from anonratio.bench.scaling import measure_forest


def test_measure_forest_reports_a_bounded_run():
    row = measure_forest(300, m=4, k=5)
    assert {"wall_s", "cpu_s", "peak_rss_mb", "cost", "lower_bound", "max_group"} <= set(row)
    assert 5 <= row["max_group"] <= max(2 * 5 - 1, 3 * 5 - 5)
    assert 0 < row["lower_bound"] <= row["cost"]
    assert row["certified_ratio"] >= 1
