"""Tests of bench/experiments/paper_ldiv_kl.py: TP+ against TDS by KL-divergence (Xiao et al.
2010, §6.2, Figures 7-8), and of the suite's runs that feed it."""

import json
from itertools import product
from math import comb

import pandas as pd
import pytest

from anonratio.bench.engine.studies import STUDY_DIR, load_study
from anonratio.bench.experiments.paper_ldiv import report_findings
from anonratio.bench.experiments.paper_ldiv_kl import (
    check_kl_findings,
    kl_frame,
    kl_markdown,
    kl_means,
    write_kl,
)


def _row(alg, kl, *, d=7, l=6, projection=0, n=600_000, verified=True):
    params = {"n": n, "d": d, "l": l, "objective": "stars", "projection": projection}
    return {
        "family": "ldiv-sal",
        "algorithm": alg,
        "family_params": json.dumps(params),
        "verified": verified,
        "stars": 1,
        "n": n,
        "instance_seed": 0,
        "info": "{}",
        "time_s": 1.0,
        "utility": None if kl is None else json.dumps({"kl-divergence": kl}),
    }


def _frame(rows):
    return kl_frame(pd.DataFrame(rows))


def test_the_suite_runs_tp_plus_and_tds_with_their_kl_on_every_table():
    study = load_study(STUDY_DIR / "paper-ldiv.toml")
    measured = set()
    for sweep in study.sweeps:
        if sweep.utility:
            assert sweep.utility == ("kl-divergence",)
            assert set(sweep.algorithms) == {"tp-plus", "ldiv-tds"}
            axes = {**sweep.grid, **{k: [v] for k, v in sweep.params.items()}}
            for values in product(*axes.values()):
                p = dict(zip(axes, values, strict=True))
                measured.add((p["d"], p["l"], p.get("projection", 0)))
        else:
            assert "ldiv-tds" not in sweep.algorithms
    # Figure 7: SAL-7 for l = 2..10; Figure 8: every projection of SAL-d at l = 6
    assert {(7, l, 0) for l in range(2, 11)} <= measured
    for d in range(1, 8):
        assert {p for dd, l, p in measured if dd == d and l == 6} == set(range(comb(7, d)))


def test_frame_keeps_verified_runs_that_report_a_kl():
    frame = _frame(
        [
            _row("tp-plus", 1.5),
            _row("ldiv-tds", 2.5),
            _row("tp-plus", None, projection=1),  # not asked for
            _row("ldiv-tds", 9.0, verified=False),
            _row("tp", 0.5),  # not an algorithm of Figures 7-8
        ]
    )
    assert sorted(frame["algorithm"]) == ["ldiv-tds", "tp-plus"]
    assert frame["kl"].tolist() == [1.5, 2.5]


def test_means_pair_the_tables_both_algorithms_ran():
    rows = [_row("tp-plus", 1.0 + p, d=2, projection=p) for p in range(3)]
    rows += [_row("ldiv-tds", 3.0 + p, d=2, projection=p) for p in range(2)]  # not on table 2
    rows += [_row(a, v, d=3) for a, v in (("tp-plus", 4.0), ("ldiv-tds", 5.0))]
    rows += [_row(a, 99.0, d=3, n=20_000) for a in ("tp-plus", "ldiv-tds")]  # smaller n
    means = kl_means(_frame(rows), "d")
    assert means["tp-plus"].tolist() == [1.5, 4.0]
    assert means["ldiv-tds"].tolist() == [3.5, 5.0]
    assert means["tables"].tolist() == [2, 1] and means.attrs["n"] == 600_000
    assert "| 2 | 2 | 1.500 | 3.500 |" in kl_markdown(means, "d")


def test_findings_state_each_statement_of_figures_7_and_8():
    rows = []
    for l, (tp_plus, tds) in zip((2, 4, 6), ((1.0, 2.0), (2.0, 2.5), (3.0, 3.5)), strict=True):
        rows += [_row("tp-plus", tp_plus, l=l), _row("ldiv-tds", tds, l=l)]
    for d, (tp_plus, tds) in zip((1, 2), ((0.1, 0.5), (0.2, 0.4)), strict=True):
        for p in range(comb(7, d)):
            rows += [_row("tp-plus", tp_plus, d=d, projection=p), _row("ldiv-tds", tds, d=d)]
    found = {f["text"]: f for f in check_kl_findings(_frame(rows))}
    below_l = found["TP+ has a smaller KL-divergence than TDS at every l (Figure 7)"]
    assert below_l["holds"] is True and "l=2: 0.50" in below_l["detail"]
    assert found["TP+'s KL-divergence rises with l (Figure 7)"]["holds"] is True
    below_d = found["TP+ has a smaller KL-divergence than TDS at every d (Figure 8)"]
    # TDS ran only on projection 0 of each d: the means are over that table alone
    assert below_d["holds"] is True and "d=1: 0.20" in below_d["detail"]
    # TDS's KL falls from d = 1 to d = 2 here (0.5, 0.4): the statement does not hold
    rising = found["the KL-divergence of TP+ and of TDS rises with d (Figure 8)"]
    assert rising["holds"] is False and "TDS: d=1: 0.50, d=2: 0.40" in rising["detail"]
    # no runs: no data, never a verdict
    empty = check_kl_findings(pd.DataFrame())
    assert [f["holds"] for f in empty] == [None] * 4


def test_figures_and_the_report_hook(tmp_path):
    rows = []
    for l in (2, 4):
        rows += [_row("tp-plus", l / 2, l=l), _row("ldiv-tds", l, l=l)]
    written = write_kl(_frame(rows), tmp_path)
    assert written == [tmp_path / "ldiv_kl_vs_l.png"] and written[0].stat().st_size > 0
    # the report hook states the KL findings even without TP / Hilbert runs
    findings = report_findings(pd.DataFrame(rows), tmp_path)
    assert findings is not None
    texts = [line for line, _ in findings.verdicts]
    assert any(t.startswith("TP+ has a smaller KL-divergence than TDS at every l") for t in texts)
    assert "Mean KL-divergence against l" in (tmp_path / "ldiv_findings.md").read_text()


@pytest.mark.parametrize("x", ["l", "d"])
def test_no_runs_no_means(x):
    assert kl_means(pd.DataFrame(), x).empty
