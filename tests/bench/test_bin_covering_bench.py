"""Min-Max Bin Covering in the bench layer: registry, families, runner columns, finalize of
relaxed rows, suites, batched sweeps and the reference optima (Du et al. 2009, §4-§5)."""

import json
import math
import os

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.bench import registry
from anonratio.bench.engine.runner import Task, finalize, run_instance, sweep
from anonratio.bench.engine.suites import get_suite
from anonratio.bench.problems.bin_covering import ORDERS as BIN_COVERING_ORDERS
from anonratio.bench.problems.bin_covering import RELAXED_EPSILON
from anonratio.bench.registry import (
    FAMILIES,
    REGISTRY,
    Algorithm,
    algorithms_for,
    generate,
    get_algorithm,
)
from anonratio.bench.tracking.reference import (
    ALL_REFERENCE,
    BY_PROBLEM,
    EXACT_METHODS,
    load_reference,
    reference_instance,
)
from anonratio.instances import (
    BinCoveringInstance,
    KAnonymityInstance,
    Solution,
    Table,
    instance_id,
    verify,
)
from anonratio.solvers.bin_covering.fold import fold_bound
from anonratio.solvers.bin_covering.relaxed_scheme import relaxed_guarantee

BC_NAMES = [
    "fold-random",
    "fold-sorted",
    "spread-random",
    "spread-sorted",
    "simplified-spread-random",
    "simplified-spread-sorted",
    "relaxed",
    "bc-cpsat",
    "bc-highs",
    "bc-cbc",
]

#: the bin-covering algorithms of the quick and full suites
BIN_COVERING = (
    "fold-random",
    "fold-sorted",
    "spread-random",
    "spread-sorted",
    "simplified-spread-random",
    "simplified-spread-sorted",
    "relaxed",
)
BIN_COVERING_EXACT = ("bc-cpsat", "bc-highs")


def _bc(sizes=(9, 6, 6, 6, 6, 6, 6, 2, 1), k=10):
    return BinCoveringInstance(np.asarray(sizes), k)


# ---------------------------------------------------------------------------------------------
# registry
# ---------------------------------------------------------------------------------------------
def test_bin_covering_registry_entries():
    assert [a.name for a in algorithms_for("bin-covering")] == BC_NAMES
    assert BIN_COVERING_ORDERS == ("random", "sorted")
    for name in BC_NAMES:
        alg = get_algorithm(name)
        assert isinstance(alg, Algorithm) and alg.problem == "bin-covering"
        assert alg.source and alg.complexity and alg.guarantee_text
    kinds = {name: REGISTRY[name].kind for name in BC_NAMES}
    assert {n for n, k in kinds.items() if k == "exact"} == {"bc-cpsat", "bc-highs", "bc-cbc"}
    assert all(kinds[n] == "approximation" for n in BC_NAMES[:7])
    assert "Theorem 7" in REGISTRY["fold-sorted"].source
    assert "Theorem 10" in REGISTRY["spread-random"].source
    assert "Theorem 11" in REGISTRY["relaxed"].source
    assert "bicriteria" in REGISTRY["relaxed"].guarantee_text
    # names stay unique across problems; each problem's exact models carry its prefix
    assert len(REGISTRY) == len({a.name for a in REGISTRY.values()})
    assert get_algorithm("kanon-cpsat").problem == "k-anonymity"
    with pytest.raises(ValueError, match=r"unknown algorithm 'fold'; known: \[.*'fold-random'"):
        get_algorithm("fold")


def test_bin_covering_guarantees():
    inst = _bc()
    lb = max(10, 9, math.ceil(48 / (48 // 10)))
    expect = fold_bound(inst) / lb
    assert REGISTRY["fold-random"].guarantee(inst) == pytest.approx(expect)
    assert REGISTRY["fold-sorted"].guarantee(inst) == pytest.approx(expect)
    assert REGISTRY["simplified-spread-sorted"].guarantee(inst) == pytest.approx(expect)
    assert expect < 3
    assert REGISTRY["spread-sorted"].guarantee(inst) == 2.5
    assert REGISTRY["relaxed"].guarantee(inst) == pytest.approx(
        relaxed_guarantee(inst, epsilon=RELAXED_EPSILON)
    )
    assert REGISTRY["relaxed"].guarantee(inst) <= (1 + RELAXED_EPSILON) ** 2 + 1e-12
    for name in ("bc-cpsat", "bc-highs", "bc-cbc"):
        assert REGISTRY[name].guarantee(inst) == 1.0


def test_bin_covering_supports():
    table = Table(np.zeros((4, 2), dtype=int), ("a", "b"), (("0",), ("0",)))
    kanon = KAnonymityInstance(table, 2)
    for name in BC_NAMES:
        assert REGISTRY[name].supports(_bc()) is None
        assert REGISTRY[name].supports(kanon) == "needs a bin-covering instance, got k-anonymity"


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    st.lists(st.integers(1, 60), min_size=1, max_size=40),
    st.integers(2, 60),
    st.sampled_from(["sorted", "random"]),
    st.integers(0, 3),
)
def test_simplified_spread_respects_the_derived_bound(sizes, k, order, seed):
    # the reason simplified Spread is registered as an approximation: cost <= Fold's bound
    if sum(sizes) < k:
        return
    inst = BinCoveringInstance(np.asarray(sizes), k)
    alg = REGISTRY[f"simplified-spread-{order}"]
    cost = verify(inst, alg.run(inst, seed=seed)).cost
    assert cost <= fold_bound(inst)
    assert cost <= alg.guarantee(inst) * max(k, max(sizes), -(-sum(sizes) // (sum(sizes) // k)))


# ---------------------------------------------------------------------------------------------
# runner rows
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", BC_NAMES)
def test_run_instance_bin_covering_columns(name):
    inst, meta = generate("bc-3partition-yes", seed=0, m=3, B=40)
    row = run_instance(inst, name, seed=1, time_limit=20, meta=meta)
    assert row["verified"] is True, row["error"]
    assert row["problem"] == "bin-covering" and row["k"] == 40 and row["n"] == 9
    assert row["overfull_ratio"] == pytest.approx(row["cost"] / 40)
    assert row["relaxed"] is (name == "relaxed")
    assert row["n_bins"] >= 1 and row["min_load_ratio"] > 0
    if name == "relaxed":
        assert row["min_load_ratio"] >= 1 - 2 * RELAXED_EPSILON - 1e-12
    else:
        assert row["strictly_feasible"] is True and row["cost"] >= row["lower_bound"]
    if REGISTRY[name].kind == "exact":
        assert row["status"] == "optimal" and row["cost"] == 40
    out = finalize(pd.DataFrame([row]), reference={})
    assert out.loc[0, "optimum"] == 40 and out.loc[0, "optimum_status"] == "opt"


def _row(algorithm, cost, *, kind="approximation", status="feasible", relaxed=False, lb=50.0):
    return {
        "problem": "bin-covering",
        "family": "hand",
        "instance": "inst-1",
        "algorithm": algorithm,
        "kind": kind,
        "status": status,
        "verified": True,
        "cost": float(cost),
        "run_lower_bound": lb,
        "run_lower_bound_source": "S/floor(S/k)",
        "known_optimum": math.nan,
        "relaxed": relaxed,
    }


def test_finalize_keeps_relaxed_rows_out_of_optimum_and_bounds():
    rows = [
        _row("fold-sorted", 80),
        _row("relaxed", 45, relaxed=True),  # below the lower bound: only relaxed-feasible
        _row("bc-cpsat", 60, kind="exact", status="optimal"),
        _row("bc-highs", 60, kind="exact", status="optimal"),
    ]
    out = finalize(pd.DataFrame(rows), reference={}).set_index("algorithm")
    assert (out["optimum"] == 60).all() and (out["optimum_status"] == "opt").all()
    assert out["optimum_note"].isna().all()  # the relaxed cost 45 is no "cost below optimum"
    assert out.loc["relaxed", "ratio"] == pytest.approx(0.75)
    assert bool(out.loc["bc-cpsat", "exact_agree"])
    # without exact rows: the best *valid* cost is Fold's, and the bound 50 survives
    out = finalize(pd.DataFrame(rows[:2]), reference={}).set_index("algorithm")
    assert (out["optimum"] == 80).all() and (out["optimum_status"] == "best").all()
    assert (out["lower_bound"] == 50).all() and out["optimum_note"].isna().all()
    assert out.loc["fold-sorted", "certified_ratio"] == pytest.approx(1.6)
    assert math.isnan(out.loc["fold-sorted", "ratio"])
    # flags read back from CSV as strings; a relaxed row alone proves nothing
    text = pd.DataFrame(rows[:2]).assign(relaxed=["False", "True"])
    out = finalize(text, reference={}).set_index("algorithm")
    assert (out["optimum"] == 80).all()
    alone = finalize(pd.DataFrame([_row("relaxed", 45, relaxed=True)]), reference={})
    assert alone.loc[0, "optimum_status"] == "unknown" and math.isnan(alone.loc[0, "optimum"])


# ---------------------------------------------------------------------------------------------
# families
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name", ["bc-uniform", "bc-zipf", "bc-3partition-yes", "bc-3partition-no", "bc-census"]
)
def test_bin_covering_families(name):
    fam = FAMILIES[name]
    assert fam.problem == "bin-covering" and fam.description
    inst, meta = generate(name, seed=3)
    again, meta2 = generate(name, seed=3)
    assert instance_id(inst) == instance_id(again) and meta == meta2
    assert meta["family"] == name and meta["problem"] == "bin-covering"
    assert set(meta["params"]) == set(fam.defaults)
    assert verify(inst, np.zeros(inst.n, dtype=int)).feasible  # one bin always covers


def test_bin_covering_family_parameters():
    inst, meta = generate("bc-3partition-yes", seed=1, m="3", B="40")
    assert (inst.n, inst.k, inst.total, meta["optimum"]) == (9, 40, 120, 40.0)
    assert verify(inst, np.asarray(meta["planted"])).cost == 40
    inst, meta = generate("bc-3partition-no", seed=1, m=4, B=41)
    assert meta["lower_bound"] == math.ceil(4 * 41 / 3) and "optimum" not in meta
    inst, _ = generate("bc-uniform", seed=0, n=30, k=20, low=5, high=9)
    assert inst.n == 30 and 5 <= inst.sizes.min() and inst.sizes.max() <= 9
    inst, _ = generate("bc-uniform", seed=0, n=30, k=7)  # high = 0 means k
    assert inst.sizes.max() <= 7
    inst, meta = generate("bc-census", seed=None, dataset="MALE-1990", k="4000")
    assert (inst.n, inst.k, meta["dataset"], meta["max_size"]) == (1219, 4000, "MALE-1990", 3318)
    with pytest.raises(ValueError, match="parameter `dataset` must be one of"):
        generate("bc-census", seed=0, dataset="EU-2000")


def test_family_lower_bound_reaches_the_row():
    inst, meta = generate("bc-3partition-no", seed=0, m=4, B=41)
    row = run_instance(inst, "fold-sorted", meta=meta)
    assert row["run_lower_bound"] == meta["lower_bound"]
    assert row["run_lower_bound_source"] == "bc-3partition-no construction"


# ---------------------------------------------------------------------------------------------
# suites
# ---------------------------------------------------------------------------------------------
def test_quick_suite_has_small_provable_bin_covering():
    tasks = [t for t in get_suite("quick").tasks() if t.family.startswith("bc-")]
    assert {t.algorithm for t in tasks} == set(BIN_COVERING + BIN_COVERING_EXACT)
    assert {t.family for t in tasks} == {
        "bc-uniform",
        "bc-zipf",
        "bc-3partition-yes",
        "bc-3partition-no",
    }
    assert all(t.time_limit == 15.0 and t.batch is None for t in tasks)
    for t in tasks[:: len(BIN_COVERING + BIN_COVERING_EXACT)]:
        inst, _ = generate(t.family, seed=t.seed, **t.family_params)
        assert inst.n <= 30


def test_paper_fig7_suite():
    tasks = get_suite("paper-fig7").tasks()
    assert {t.family for t in tasks} == {"bc-census"}
    assert all(REGISTRY[t.algorithm].kind != "exact" for t in tasks)
    algos = {t.algorithm for t in tasks}
    assert {"fold-random", "fold-sorted", "simplified-spread-random"} <= algos
    assert all(t.batch and t.batch.startswith("paper-fig7:") for t in tasks)
    per = {}
    for t in tasks:
        per.setdefault(t.family_params["dataset"], set()).add(t.family_params["k"])
    assert set(per) == {"FEMALE-1990", "MALE-1990", "LAST-1990"}
    assert all(200 <= len(ks) <= 600 for ks in per.values())
    assert min(per["MALE-1990"]) == 3318 and max(per["MALE-1990"]) == 90052 // 2


# ---------------------------------------------------------------------------------------------
# batched sweeps (the monkeypatched registry reaches the forked workers)
# ---------------------------------------------------------------------------------------------
def _register(monkeypatch, name, run):
    alg = Algorithm(
        name=name,
        problem="bin-covering",
        kind="approximation",
        function=run,
        guarantee=lambda instance, solution=None: None,
        guarantee_text="none",
        source="test",
        complexity="O(1)",
    )
    monkeypatch.setitem(registry.REGISTRY, name, alg)


def _one_bin(instance, *, seed=None, time_limit=None):
    return Solution(np.zeros(instance.n, dtype=np.int64), "one-bin", seed=seed)


def _hang(instance, *, seed=None, time_limit=None):
    import time

    time.sleep(60)


def _die(instance, *, seed=None, time_limit=None):
    os._exit(3)


def _btask(algorithm, batch="b", k=40, time_limit=0.2):
    return Task("bc-3partition-yes", {"m": 3, "B": k}, 0, algorithm, time_limit, batch)


def test_batched_sweep_rows_match_unbatched():
    tasks = [_btask(a, batch=f"b{i // 3}") for i, a in enumerate(BC_NAMES[:6])]
    tasks.append(_btask("fold-sorted", batch=None))
    batched = sweep(tasks, n_jobs=2, progress=False)
    single = sweep([_btask(t.algorithm, batch=None) for t in tasks], n_jobs=2, progress=False)
    assert list(batched["algorithm"]) == [t.algorithm for t in tasks]
    assert batched["verified"].all() and (batched["status"] == "feasible").all()
    cols = ["instance", "algorithm", "seed", "cost", "overfull_ratio", "n_bins"]
    pd.testing.assert_frame_equal(batched[cols], single[cols])


def test_batch_isolates_a_hang_and_a_crash(monkeypatch):
    _register(monkeypatch, "one-bin", _one_bin)
    _register(monkeypatch, "hang", _hang)
    _register(monkeypatch, "die", _die)
    tasks = [
        _btask("one-bin", "x"),
        _btask("hang", "x"),
        _btask("one-bin", "x"),
        _btask("one-bin", "y"),
        _btask("die", "y"),
        _btask("one-bin", "y"),
        _btask("nope", "y"),
    ]
    df = sweep(tasks, n_jobs=2, progress=False, grace=0.5)
    assert list(df["algorithm"]) == [t.algorithm for t in tasks]
    expected = ["feasible", "time_limit", "feasible", "feasible", "error", "feasible", "error"]
    assert list(df["status"]) == expected
    assert df.loc[1, "error"].startswith("killed after the hard timeout")
    assert "(in a batch of 3 runs)" in df.loc[1, "error"]
    assert df.loc[1, "time_s"] < 5
    assert "worker died without a result (exit code 3)" in df.loc[4, "error"]
    assert df.loc[6, "error"].startswith("unknown algorithm 'nope'")
    # the failed runs still know their instance; every other row is verified
    assert df["instance"].nunique() == 1 and df["instance"].notna().all()
    assert df["verified"].sum() == 4


# ---------------------------------------------------------------------------------------------
# reference optima
# ---------------------------------------------------------------------------------------------
def test_reference_optima_cover_bin_covering():
    assert EXACT_METHODS["bin-covering"] == ("bc-cpsat", "bc-highs")
    refs = list(BY_PROBLEM["bin-covering"])
    assert len(refs) >= 6
    assert all(ref in ALL_REFERENCE for ref in refs)
    committed = load_reference()
    for ref in refs:
        inst, meta = reference_instance(ref)
        entry = committed[instance_id(inst)]
        assert entry["problem"] == "bin-covering" and entry["name"] == ref.name
        assert set(entry["statuses"]) == {"bc-cpsat", "bc-highs"}
        assert set(entry["statuses"].values()) == {"optimal"}
        assert entry["costs"]["bc-cpsat"] == pytest.approx(entry["costs"]["bc-highs"])
        if "optimum" in meta:
            assert entry["optimum"] == meta["optimum"]
    assert json.dumps(committed)  # plain JSON
