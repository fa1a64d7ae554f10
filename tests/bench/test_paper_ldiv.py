"""Tests of bench/experiments/paper_ldiv.py and its studies (bench/studies/paper-ldiv*.toml): the
paper's SAL-d, every projection of the SAL-like table onto d attributes, averaged per d."""

import json
from itertools import product
from math import comb

import pandas as pd
import pytest

from anonratio.bench.engine.studies import STUDY_DIR, load_study
from anonratio.bench.experiments.paper_ldiv import (
    check_findings,
    ldiv_frame,
    per_d_means,
    time_findings,
    write_ldiv,
)
from anonratio.bench.registry import FAMILIES


def _row(alg, d, projection, stars, *, n=600_000, l=6, seed=0, phase=1):
    params = {"n": n, "d": d, "l": l, "objective": "stars", "projection": projection}
    return {
        "family": "ldiv-sal",
        "algorithm": alg,
        "family_params": json.dumps(params),
        "verified": True,
        "stars": stars,
        "n": n,
        "instance_seed": seed,
        "info": json.dumps({"phase": phase} if alg == "tp" else {}),
        "time_s": 1.0,
    }


def _frame(rows):
    return ldiv_frame(pd.DataFrame(rows))


def test_family_takes_a_projection():
    family = FAMILIES["ldiv-sal"]
    assert family.defaults["projection"] == 0
    inst, meta = family(0, n=200, d=2, projection=20)
    assert inst.table.attributes == ("Education", "Work Class")
    assert meta["params"]["projection"] == 20
    first, _ = family(0, n=200, d=2)
    assert first.table.attributes == ("Age", "Gender")
    with pytest.raises(ValueError, match="projection"):
        family(0, n=200, d=2, projection=21)


def _runs(study):
    """(family, params, seed, algorithm) of every run the study lists, without building them."""
    for sweep in study.sweeps:
        axes = {**sweep.grid, **{k: [v] for k, v in sweep.params.items()}}
        for values in product(*axes.values()):
            for seed in sweep.seeds:
                for alg in sweep.algorithms:
                    yield sweep.family, dict(zip(axes, values, strict=True)), seed, alg


def test_study_runs_every_projection_of_sal_d():
    runs = list(_runs(load_study(STUDY_DIR / "paper-ldiv.toml")))
    sal = [r for r in runs if r[0] == "ldiv-sal" and r[1]["l"] == 6 and r[1]["n"] == 600_000]
    for d in range(1, 8):
        for alg in ("tp", "tp-plus", "hilbert"):
            got = sorted(p.get("projection", 0) for _, p, _, a in sal if p["d"] == d and a == alg)
            assert got == list(range(comb(7, d))), (d, alg)
    assert all(alg != "ldiv-certified" for *_, alg in runs)
    certified = list(_runs(load_study(STUDY_DIR / "paper-ldiv-certified.toml")))
    assert {alg for *_, alg in certified} == {"tp-plus", "ldiv-certified"}


def test_frame_keeps_the_projection_and_pairs_within_it():
    rows = [_row("tp", 2, p, 10 * (p + 1)) for p in range(3)]
    rows += [_row("tp-plus", 2, p, 10 * (p + 1) - 1) for p in range(3)]
    frame = _frame(rows)
    assert sorted(frame["projection"]) == [0, 0, 1, 1, 2, 2]
    found = {f["text"]: f for f in check_findings(frame)}
    # three projections of one (n, d, l, seed) are three paired runs, not one
    assert "on 100% of 3 runs" in found["TP+ needs no more stars than TP"]["detail"]
    # a table on which TP needs no star has no relative saving, and does not blank the median
    frame = _frame([*rows, _row("tp", 2, 3, 0), _row("tp-plus", 2, 3, 0)])
    detail = {f["text"]: f for f in check_findings(frame)}["TP+ needs no more stars than TP"]
    assert detail["detail"] == "TP+ <= tp on 100% of 4 runs; median saving 5.0%"


def test_tp_against_hilbert_compares_means_over_the_projections():
    # d = 1: the median of the per-table ratios (0.1, 3.0, 3.0) is 3 > 1, but the paper averages
    # the stars over SAL-1's tables: TP 700 / 3 against Hilbert 1,120 / 3, TP ahead
    rows = []
    for p, (tp, hb) in enumerate([(100, 1000), (300, 100), (300, 20)]):
        rows += [_row("tp", 1, p, tp), _row("hilbert", 1, p, hb), _row("tp-plus", 1, p, tp)]
    rows += [_row("tp", 7, 0, 900), _row("hilbert", 7, 0, 600), _row("tp-plus", 7, 0, 500)]
    frame = _frame(rows)
    means = per_d_means(frame)
    assert means.loc[1, "tp"] == pytest.approx(700 / 3)
    assert means.loc[1, "hilbert"] == pytest.approx(1120 / 3)
    assert means["tables"].tolist() == [3, 1] and means.attrs["n"] == 600_000
    found = {f["text"]: f for f in check_findings(frame)}
    verdict = found["TP beats Hilbert for small d and loses for large d"]
    assert verdict["holds"] is True
    assert "d=1: 0.63 (3)" in verdict["detail"] and "d=7: 1.50 (1)" in verdict["detail"]
    best = found["TP+ needs fewer stars than TP and Hilbert on average over SAL-d, for every d"]
    assert best["holds"] is True


def test_means_use_the_largest_n_and_the_tables_every_algorithm_ran():
    rows = [_row(a, d, 0, 10, n=20_000) for a in ("tp", "hilbert") for d in (1, 2)]
    rows += [_row(a, d, 0, 50) for a in ("tp", "hilbert") for d in (1, 2)]
    rows.append(_row("tp", 2, 1, 999))  # no Hilbert run on this table: left out
    means = per_d_means(_frame(rows))
    assert means.attrs["n"] == 600_000
    assert means["tp"].tolist() == [50, 50] and means["tables"].tolist() == [1, 1]


def test_findings_file_lists_the_mean_stars_per_d(tmp_path):
    rows = []
    for d in (1, 2):
        for p in range(comb(7, d)):
            rows += [_row(a, d, p, 100 * d + p) for a in ("tp", "tp-plus", "hilbert")]
    frame = _frame(rows)
    written = write_ldiv(frame, check_findings(frame), tmp_path)
    assert tmp_path / "ldiv_stars_vs_d.png" in written
    text = (tmp_path / "ldiv_findings.md").read_text()
    assert "| d | tables | tp | tp-plus | hilbert |" in text
    assert "| 1 | 7 | 103 | 103 | 103 |" in text and "| 2 | 21 | 210 | 210 | 210 |" in text


def _timed(alg, d, l, time_s, projection=0):
    return {**_row(alg, d, projection, 10, l=l), "time_s": time_s}


def test_time_findings_read_the_trend_over_l_and_d():
    rows = []
    for l, (tp, hb) in zip((2, 4, 6), ((1.0, 3.0), (2.0, 2.0), (3.0, 1.0)), strict=True):
        rows += [
            _timed("tp", 7, l, tp),
            _timed("tp-plus", 7, l, tp + 1),
            _timed("hilbert", 7, l, hb),
        ]
    for d, (tp, hb) in zip((1, 2, 3), ((0.5, 2.0), (0.4, 2.2), (0.6, 4.0)), strict=True):
        rows += [_timed("tp", d, 6, tp), _timed("tp-plus", d, 6, tp), _timed("hilbert", d, 6, hb)]
    found = {f["text"]: f for f in time_findings(_frame(rows))}
    falls = found["Hilbert's time falls as l grows (Figure 4)"]
    assert falls["holds"] is True and "rank correlation -1.00" in falls["detail"]
    assert found["TP's time rises with l (Figure 4)"]["holds"] is True
    # TP over d = 1, 2, 3, 6 (the l sweep's d = 7 runs are at l = 6 too): 0.5, 0.4, 0.6, 3.0
    rises = found["TP's time rises with d (Figure 5)"]
    assert rises["holds"] is True and "0.50 s at d = 1, 3.00 s at d = 7" in rises["detail"]
    flat = found["Hilbert's time does not depend on d (Figure 5)"]
    assert flat["holds"] is False and "largest / smallest mean time over d: 4.00" in flat["detail"]
    assert found["Hilbert's time grows almost linearly in n (Figure 6)"]["holds"] is None
    fastest = found["Hilbert is faster than TP and TP+ (summary of §6.1)"]
    assert (
        fastest["holds"] is False and "TP 1.25 s, TP+ 1.75 s, Hilbert 2.37 s" in fastest["detail"]
    )
