"""Tests of the ``peers`` suite (anonratio.bench.experiments.peers*): the metrics read from
published DataFrames (hand-computed tables, no peer needed), the tables, the tool adapters, the
report, the command line, and one tiny end-to-end run with anonypy, anjana and pycanon (skipped
without them).
"""

import argparse
import importlib.util

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.bench.cli import peers as peers_cli
from anonratio.bench.experiments import peers, peers_tables, peers_tools
from anonratio.bench.experiments.peers_metrics import (
    cell_ncp,
    published_metrics,
    pycanon_k,
    rows_aligned,
)
from anonratio.bench.experiments.peers_tables import (
    adult_case,
    anjana_hierarchies,
    generated_case,
    interval_hierarchy,
)
from anonratio.instances.table import Hierarchy

#: values a, b, c, d; level 1 {a, b} -> AB, {c, d} -> CD; level 2 *
ABCD = Hierarchy([[0, 0, 0], [1, 0, 0], [2, 1, 0], [3, 1, 0]], [list("abcd"), ["AB", "CD"], ["*"]])


# ---------------------------------------------------------------------------------------------
# metrics from published DataFrames (hand-computed)
# ---------------------------------------------------------------------------------------------
def test_numeric_cells_are_intervals_over_the_column_range():
    original = pd.Series([20, 30, 40, 50])  # range 30
    published = pd.Series(["20-30", "20-30", "40-50", "*"])
    assert cell_ncp(published, original, numeric=True).tolist() == pytest.approx(
        [1 / 3, 1 / 3, 1 / 3, 1.0]
    )
    # a single number is exact; a range past the data is clipped to [20, 50]
    ncp = cell_ncp(pd.Series(["30", "0-25", "45-99"]), original, numeric=True)
    assert ncp.tolist() == pytest.approx([0.0, 5 / 30, 5 / 30])


def test_numeric_hierarchy_labels_that_are_not_ranges_use_the_values_they_cover():
    h = Hierarchy([[0, 0, 0], [1, 0, 0], [2, 1, 0]], [["1", "2", "9"], ["low", "high"], ["*"]])
    original = pd.Series([1, 2, 9])
    ncp = cell_ncp(pd.Series(["low", "high", "*"]), original, numeric=True, hierarchy=h)
    assert ncp.tolist() == pytest.approx([1 / 8, 0.0, 1.0])


def test_categorical_cells_cover_values_labels_and_sets_of_the_domain():
    original = pd.Series(list("abcab"))  # domain {a, b, c}: d never occurs
    published = pd.Series(["AB", "CD", "a", "*", "a,b,c", "b, c"])
    ncp = cell_ncp(published, original, numeric=False, hierarchy=ABCD)
    # AB covers 2 of 3; CD covers only c (d is absent): one value, NCP 0; a set of 3 is all
    assert ncp.tolist() == pytest.approx([2 / 3, 0.0, 0.0, 1.0, 1.0, 2 / 3])


def test_an_unreadable_cell_is_an_error_naming_it():
    with pytest.raises(ValueError, match="'zz'"):
        cell_ncp(pd.Series(["zz"]), pd.Series(list("ab")), numeric=False, hierarchy=ABCD)
    with pytest.raises(ValueError, match="'young'"):
        cell_ncp(pd.Series(["young"]), pd.Series([1, 2]), numeric=True)


def _tiny():
    original = pd.DataFrame({"age": [20, 30, 40, 50, 50, 20], "cat": list("abcabc")})
    published = pd.DataFrame(
        {
            "age": ["20-30", "20-30", "40-50", "40-50", "*", "*"],
            "cat": ["AB", "AB", "*", "*", "*", "*"],
        }
    )
    return original, published


def test_published_metrics_of_a_hand_computed_table():
    original, published = _tiny()
    m = published_metrics(
        original, published, ["age", "cat"], 2, numeric=["age"], hierarchies={"cat": ABCD}
    )
    # classes {0, 1}, {2, 3}, {4, 5} (all-star); DM = 3 * 2^2; C_avg = (6 / 3) / 2
    assert m["n_classes"] == 3 and m["min_class"] == 2 and m["all_star"] == 2
    assert m["discernibility"] == 12.0 and m["c_avg"] == 1.0
    assert (m["rows_in"], m["rows_out"], m["dropped"]) == (6, 6, 0)
    # age NCP: 1/3, 1/3, 1/3, 1/3, 1, 1; cat: 2/3, 2/3, 1, 1, 1, 1 -> mean over 12 cells
    assert m["gcp"] == pytest.approx((4 / 3 + 2 + 4 / 3 + 4) / 12)


def test_dropped_rows_are_charged_n_and_a_full_row_of_loss():
    original, published = _tiny()
    m = published_metrics(
        original, published.iloc[:4], ["age", "cat"], 2, numeric=["age"], hierarchies={"cat": ABCD}
    )
    assert m["dropped"] == 2 and m["n_classes"] == 2
    assert m["discernibility"] == 2 * 4 + 2 * 6
    assert m["gcp"] == pytest.approx((4 / 3 + 4 / 3 + 2 + 2 * 2) / 12)
    empty = published_metrics(original, published.iloc[:0], ["age"], 2, numeric=["age"])
    assert empty["gcp"] == 1.0 and empty["discernibility"] == 36.0 and empty["n_classes"] == 0


def test_rows_aligned_checks_that_each_row_generalizes_its_input_row():
    original, published = _tiny()
    kw = {"numeric": ["age"], "hierarchies": {"cat": ABCD}}
    assert rows_aligned(original, published, ["age", "cat"], **kw)
    swapped = published.iloc[[2, 1, 0, 3, 4, 5]].reset_index(drop=True)
    assert not rows_aligned(original, swapped, ["age", "cat"], **kw)
    assert not rows_aligned(original, published.iloc[:5], ["age", "cat"], **kw)
    # a categorical cell that does not cover its value: row 2 is c, published AB
    wrong = published.assign(cat=["AB", "AB", "AB", "*", "*", "*"])
    assert not rows_aligned(original, wrong, ["age", "cat"], **kw)


def test_a_mislabelled_hierarchy_group_still_covers_its_values():
    # like ARX's Adult age file: 50 sits in the group labelled "40-49" (values 41..50)
    h = Hierarchy(
        [[0, 0, 0], [1, 0, 0], [2, 1, 0]], [["40", "50", "51"], ["40-49", "50-59"], ["*"]]
    )
    original = pd.DataFrame({"age": [40, 50, 51]})
    published = pd.DataFrame({"age": ["40-49", "40-49", "50-59"]})
    assert rows_aligned(original, published, ["age"], numeric=["age"], hierarchies={"age": h})
    assert not rows_aligned(original, published, ["age"], numeric=["age"])  # 50 not in [40, 49]
    # the NCP still reads "a-b" as its interval, clipped to [40, 51]
    ncp = cell_ncp(published["age"], original["age"], numeric=True, hierarchy=h)
    assert ncp.tolist() == pytest.approx([9 / 11, 9 / 11, 1 / 11])


@settings(derandomize=True, max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 5), st.sampled_from(list("abcd"))), min_size=2, max_size=30)
)
def test_identity_and_full_suppression_bound_every_metric(rows):
    original = pd.DataFrame(rows, columns=["x", "c"])
    kw = {"numeric": ["x"], "hierarchies": {"c": ABCD}}
    same = published_metrics(original, original.astype(str), ["x", "c"], 2, **kw)
    counts = original.value_counts().to_numpy()
    assert same["gcp"] == 0.0 and same["n_classes"] == counts.size
    assert same["discernibility"] == float((counts.astype(float) ** 2).sum())
    assert rows_aligned(original, original.astype(str), ["x", "c"], **kw)
    stars = pd.DataFrame({"x": ["*"] * len(rows), "c": ["*"] * len(rows)})
    top = published_metrics(original, stars, ["x", "c"], 2, **kw)
    assert top["n_classes"] == 1 and top["discernibility"] == len(rows) ** 2
    assert top["all_star"] == len(rows)
    n_x, n_c = original["x"].nunique(), original["c"].nunique()
    assert top["gcp"] == pytest.approx(((n_x > 1) + (n_c > 1)) / 2)
    assert rows_aligned(original, stars, ["x", "c"], **kw)


@pytest.mark.pycanon
def test_pycanon_k_of_a_published_table():
    _, published = _tiny()
    assert pycanon_k(published, ["age", "cat"]) == 2
    assert pycanon_k(published.iloc[:3], ["age", "cat"]) == 1
    assert pycanon_k(published.iloc[:0], ["age", "cat"]) == 0


# ---------------------------------------------------------------------------------------------
# tables
# ---------------------------------------------------------------------------------------------
def test_interval_hierarchy_nests_aligned_intervals():
    h = interval_hierarchy(17, 40, (5, 10))
    assert h.labels[0][0] == "17" and h.height == 3
    assert h.labels[1][:2] == ("17-21", "22-26") and h.labels[2][:2] == ("17-26", "27-36")
    assert h.labels[1][h.groups[23, 1]] == "37-41"  # value 40
    with pytest.raises(ValueError, match="widths"):
        interval_hierarchy(0, 10, (3, 5))
    with pytest.raises(ValueError, match="high"):
        interval_hierarchy(10, 5)


def test_generated_case_is_mixed_and_reproducible():
    a, b = generated_case(300, seed=4), generated_case(300, seed=4)
    pd.testing.assert_frame_equal(a.df, b.df)
    assert a.qi == ("age", "hours", "job", "region", "edu") and a.numeric == ("age", "hours")
    assert a.df["age"].dtype == np.int64 and a.df["age"].between(17, 90).all()
    for c in a.qi:  # every value has a hierarchy row; categorical values are not numbers
        assert set(a.df[c].astype(str)) <= set(a.hierarchies[c].labels[0])
    assert not a.df["job"].str.fullmatch(r"\d+").any()
    with pytest.raises(ValueError, match="`n`"):
        generated_case(0)


def test_anjana_hierarchies_are_the_columns_of_the_arx_file():
    case = generated_case(50, seed=1)
    conv = anjana_hierarchies(case)
    h = case.hierarchies["region"]
    assert sorted(conv["region"]) == list(range(h.height + 1))
    assert list(conv["region"][0]) == list(h.labels[0])
    v = 7
    assert conv["region"][2][v] == h.labels[2][h.groups[v, 2]]
    assert set(conv["region"][h.height]) == {"*"}


def test_adult_case_when_the_data_set_is_there():
    if not peers_tables.adult_available():
        pytest.skip("UCI Adult is not in $ANONRATIO_DATASETS")
    case = adult_case()
    assert case.n == 30162 and len(case.qi) == 8 and case.numeric == ("age",)
    assert case.df["age"].dtype == np.int64 and set(case.hierarchies) == set(case.qi)


# ---------------------------------------------------------------------------------------------
# tools (ours in process; the peers' output format on a hand-made answer)
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("tool", ["anonratio-mondrian", "anonratio-datafly", "anonratio-forest"])
def test_our_tools_publish_every_row_in_order(tool):
    case = generated_case(120, seed=2)
    inputs = peers_tools.prepare(tool, case)
    published = peers_tools.finish(tool, peers_tools.run_tool(tool, inputs, case, 4), case)
    kw = {"numeric": case.numeric, "hierarchies": case.hierarchies}
    m = published_metrics(case.df, published, case.qi, 4, **kw)
    assert m["rows_out"] == 120 and m["min_class"] >= 4 and 0 < m["gcp"] < 1
    assert rows_aligned(case.df, published, case.qi, **kw)
    if tool == "anonratio-mondrian":  # numeric QIs cut as numbers: published as ranges
        assert published["age"].str.fullmatch(r"\d+(-\d+)?").all()


def test_anonypy_rows_are_unwrapped_and_repeated_by_their_count():
    case = generated_case(10, seed=0)
    raw = [
        {
            "age": ["17-30"],
            "hours": ["40"],
            "job": ["job1,job2"],
            "region": ["*"],
            "edu": ["edu1"],
            "disease": "flu",
            "count": 2,
        },
        {
            "age": ["31-60"],
            "hours": ["41-50"],
            "job": ["job3"],
            "region": ["region1"],
            "edu": ["edu2"],
            "disease": "cold",
            "count": 3,
        },
    ]
    out = peers_tools.finish("anonypy-mondrian", raw, case)
    assert out.shape[0] == 5 and "count" not in out
    assert out["age"].tolist() == ["17-30"] * 2 + ["31-60"] * 3
    assert out["job"].iloc[0] == "job1,job2" and out["disease"].iloc[4] == "cold"


def test_unknown_tool_is_refused():
    with pytest.raises(ValueError, match="`tool`"):
        peers_tools.prepare("arx", generated_case(10))


# ---------------------------------------------------------------------------------------------
# comparison, report, command line
# ---------------------------------------------------------------------------------------------
def _results(peer_time=2.0, peer_gcp=0.3, peer_k_ok=True):
    base = {"table": "generated", "n": 100, "k": 5, "status": "ok", "k_ok": True}
    rows = [
        {
            **base,
            "tool": "anonratio-mondrian",
            "family": "mondrian",
            "time_median_s": 0.2,
            "gcp": 0.25,
            "discernibility": 900.0,
            "pycanon_k": 5,
            "peak_rss_mb": 100.0,
        },
        {
            **base,
            "tool": "anonypy-mondrian",
            "family": "mondrian",
            "time_median_s": peer_time,
            "gcp": peer_gcp,
            "discernibility": 1000.0,
            "pycanon_k": 5 if peer_k_ok else 1,
            "k_ok": peer_k_ok,
            "peak_rss_mb": 90.0,
        },
        {
            **base,
            "tool": "anonratio-forest",
            "family": "forest",
            "time_median_s": 1.0,
            "gcp": 0.4,
            "discernibility": 800.0,
            "pycanon_k": 5,
            "peak_rss_mb": 120.0,
        },
    ]
    return pd.DataFrame(rows)


def test_comparison_reports_speedup_and_utility_verdicts():
    cmp = peers.comparison(_results())
    mond = cmp[cmp["family"] == "mondrian"].iloc[0]
    assert mond["speedup"] == pytest.approx(10.0) and mond["gcp_ok"] and mond["dm_ok"]
    assert mond["target_met"]
    assert cmp[cmp["family"] == "forest"].iloc[0]["peer"] == "-"
    slow = peers.comparison(_results(peer_time=0.5)).iloc[0]
    assert slow["speedup"] == pytest.approx(2.5) and not slow["target_met"]
    worse = peers.comparison(_results(peer_gcp=0.1)).iloc[0]
    assert not worse["gcp_ok"] and not worse["target_met"]
    # a peer output that is not k-anonymous does not beat ours on utility
    broken = peers.comparison(_results(peer_gcp=0.1, peer_k_ok=False)).iloc[0]
    assert broken["gcp_ok"] and broken["target_met"]


def test_write_report_writes_csv_and_markdown(tmp_path):
    csv, md = peers.write_report(_results(), tmp_path / "out")
    back = pd.read_csv(csv)
    assert back.shape[0] == 3 and set(back["tool"]) >= {"anonypy-mondrian"}
    text = md.read_text()
    assert "| generated | 100 | 5 | mondrian | anonypy-mondrian | 0.2 | 2 | 10x |" in text
    assert not [p for p in (tmp_path / "out").iterdir() if p.name.startswith(".")]


def _parse(argv):
    parser = argparse.ArgumentParser(prog="anonratio")
    peers_cli.add_peers_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(["peers", *argv])


def test_the_parser_reads_lists_and_the_adult_switch():
    args = _parse(["--sizes", "200,500", "--k", "5", "--no-adult", "--repeat", "1"])
    assert args.sizes == [200, 500] and args.k == [5] and args.adult is False
    # the parser names the command; its module loads when it runs
    assert args.repeat == 1 and args.func == f"{peers_cli.__name__}:cmd_peers"
    # unset: the comparison's own defaults, read when the command runs
    assert _parse([]).adult is None and _parse([]).sizes is None and _parse([]).k is None


def test_a_missing_extra_is_one_line_saying_how_to_install(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "anjana" else real(name, *a)
    )
    # anjana is named among the missing ones (others may be missing too where the extra is not
    # installed at all), with the command that installs them
    with pytest.raises(
        ImportError, match=r'needs [a-z, ]*anjana[a-z, ]*: pip install "anonratio\[peers\]"'
    ):
        peers.check_peers_installed()


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"ks": [1]}, "`k`"), ({"sizes": [3], "ks": [5]}, "`sizes`"), ({"repeat": 0}, "`repeat`")],
)
def test_run_peers_refuses_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        peers.run_peers(**kwargs)


# ---------------------------------------------------------------------------------------------
# the whole comparison, tiny (needs the `peers` extra)
# ---------------------------------------------------------------------------------------------
def test_a_tiny_run_of_the_whole_comparison(tmp_path):
    for module in peers_tools.PEER_MODULES:
        pytest.importorskip(module, reason=f"{module} is not installed (the `peers` extra)")
    results = peers.run_peers(sizes=[200], ks=[5], repeat=1, adult=False)
    assert list(results["tool"]) == list(peers_tools.TOOLS)
    assert (results["status"] != "error").all(), results["error"].tolist()
    assert (results["rows_out"] == 200).all()
    ours = results[results["implementation"] == "anonratio"]
    assert (ours["pycanon_k"] >= 5).all() and ours["row_order_kept"].all()
    assert (results["time_median_s"] > 0).all() and (results["peak_rss_mb"] > 0).all()
    # the same Datafly walk on the same hierarchies: the same table, measured the same way
    df = results.set_index("tool")
    assert df.loc["anonratio-datafly", "gcp"] == pytest.approx(df.loc["anjana-datafly", "gcp"])
    assert not df.loc["anonypy-mondrian", "row_order_kept"]  # aggregated rows, counts expanded
    csv, _ = peers.write_report(results, tmp_path)
    assert pd.read_csv(csv).shape[0] == 5
