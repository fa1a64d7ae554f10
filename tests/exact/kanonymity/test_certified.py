"""kanon-certified (exact/kanonymity/certified.py, composed with local search in the registry):
local search's partition improved by the region search, verified and within FOREST's guarantee,
with a proven lower bound between the nearest-neighbour bound and the optimum, and each bound
stage's value and time in its info."""

import json

import numpy as np
import pytest
from bruteforce import kanonymity_optimum as brute_force_opt
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.bench.engine.runner import run_record
from anonratio.bench.problems.kanonymity import certified_search
from anonratio.bench.registry import generate
from anonratio.exact.kanonymity import columns, set_partitioning
from anonratio.exact.kanonymity.certified import CERTIFIED_SOURCES, certify
from anonratio.exact.kanonymity.lp_bound import BOUND_SOURCES
from anonratio.instances import KAnonymityInstance, lower_bound, verify
from anonratio.instances.kanonymity import random_table
from anonratio.solvers.kanonymity.forest import forest, forest_guarantee

TOL = 1e-7


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 8),
    k=st.integers(2, 3),
    deletion=st.booleans(),
)
def test_within_forests_guarantee_with_a_valid_bound(seed, n, k, deletion):
    table = random_table(max(n, k), 2, cardinality=(2, 4), levels=(1, 3), seed=seed)
    inst = KAnonymityInstance(table, k, "generalization", deletion)
    sol = certified_search(inst, seed=0, time_limit=20)
    cost = verify(inst, sol).cost
    assert sol.objective == pytest.approx(cost)
    opt = brute_force_opt(inst)
    assert opt - TOL <= cost <= forest_guarantee(inst) * opt + TOL
    assert lower_bound(inst)[0] - TOL <= sol.lower_bound <= opt + TOL
    info = sol.info
    assert info["lower_bound_source"] in CERTIFIED_SOURCES
    if info.get("rounds_status") == "optimal":  # the exact rounds proved their partition
        assert cost == pytest.approx(opt) and sol.lower_bound == pytest.approx(opt)
    stages = [key[: -len("_s")] for key in info if key.startswith("bound_") and key.endswith("_s")]
    assert "bound_nn_distance" in stages and len(stages) >= 2  # and compact-lp or the ascent
    for stage in stages:
        assert info[stage] is None or info[stage] <= sol.lower_bound + TOL
        assert info[f"{stage}_s"] >= 0


@pytest.mark.slow
def test_the_sweep_records_the_bound_and_its_source():
    inst, meta = generate("kanon-random", seed=0, n=80, k=4)
    rows = {
        a: run_record(inst, a, seed=0, time_limit=20, family="kanon-random", meta=meta)
        for a in ("forest", "kanon-certified")
    }
    cert = rows["kanon-certified"]
    assert cert.verified and cert.status == "feasible"
    assert cert.run_lower_bound_source in CERTIFIED_SOURCES[1:]
    assert cert.run_lower_bound > lower_bound(inst)[0]
    assert rows["forest"].cost >= cert.cost - TOL
    info = json.loads(cert.info)
    gain = info.get("rounds_gain", 0.0) + info["region_gain"]
    assert cert.cost == pytest.approx(info["input_cost"] - gain)
    assert info["start"] in ("forest", "box-greedy")  # the local search's start survives
    assert info["start_cost"] >= info["input_cost"]


@pytest.mark.parametrize("bad", [0, -1.0, "x"])
def test_bad_time_limit_names_the_parameter(bad):
    inst, _ = generate("kanon-random", seed=0, n=20, k=3)
    with pytest.raises((ValueError, TypeError), match="time_limit"):
        certified_search(inst, time_limit=bad)


def test_row_prices_are_per_unique_record():
    inst, _ = generate("kanon-categorical", seed=1, n=40, k=3)
    sol = certified_search(inst, seed=1, time_limit=10)
    assert sol.info["n_unique"] == len(np.unique(inst.table.codes, axis=0))


def test_certify_refuses_an_infeasible_partition():
    inst, _ = generate("kanon-random", seed=0, n=20, k=3)
    sol = forest(inst)
    bad = sol.replace(labels=np.arange(inst.n))
    with pytest.raises(ValueError, match="`solution` is not feasible"):
        certify(inst, bad)
    ok = certify(inst, sol, time_limit=0.5)
    assert ok.algorithm == "kanon-certified" and verify(inst, ok).cost <= sol.objective + TOL


# seeds 1 and 2 in the slow tier: a second process each
@pytest.mark.parametrize(
    "seed", [0, pytest.param(1, marks=pytest.mark.slow), pytest.param(2, marks=pytest.mark.slow)]
)
def test_two_threads_bound_in_a_second_process_with_the_same_guarantees(seed):
    table = random_table(8, 2, cardinality=(2, 4), levels=(1, 3), seed=seed)
    inst = KAnonymityInstance(table, 2, "generalization")
    sol = certified_search(inst, seed=0, time_limit=15, threads=2)
    cost = verify(inst, sol).cost
    opt = brute_force_opt(inst)
    assert sol.objective == pytest.approx(cost) and cost <= forest_guarantee(inst) * opt + TOL
    assert lower_bound(inst)[0] - TOL <= sol.lower_bound <= opt + TOL
    assert sol.info["threads"] == 2 and "bound_note" not in sol.info
    assert sol.info["lower_bound_source"] in CERTIFIED_SOURCES


def test_bad_threads_names_the_parameter():
    inst, _ = generate("kanon-random", seed=0, n=20, k=3)
    with pytest.raises(ValueError, match="threads"):
        certified_search(inst, time_limit=5, threads=0)


def test_a_short_time_limit_keeps_one_process():
    inst, _ = generate("kanon-random", seed=0, n=20, k=3)
    sol = certify(inst, forest(inst), time_limit=0.5, threads=2)  # below SIDE_BY_SIDE_MIN_S
    assert sol.info["threads"] == 1 and verify(inst, sol).feasible


@pytest.mark.slow
def test_exact_rounds_from_the_bound_prove_the_optimum(cut_case, monkeypatch, proof):
    monkeypatch.setattr(set_partitioning, "LATTICE_MIN_UNIQUE", 0)  # the lattice path
    inst, _, fresh = cut_case
    opt = fresh.objective
    start = forest(inst)
    # the solvers' work is bounded by the proof budget; the clock's limit is generous: it proves
    # the optimum in about 16 s on an idle core (the bound stages, then the rounds), and must on a
    # busy one
    with proof.work():
        sol = certify(inst, start, time_limit=300, seed=0)
    info = sol.info
    assert info["rounds_status"] == "optimal" and info["rounds_bound_given"]
    assert verify(inst, sol).cost == pytest.approx(opt) == sol.objective
    assert sol.lower_bound == pytest.approx(opt) and info["lower_bound_source"] == "exact-rounds"
    assert info["rounds_gain"] == pytest.approx(verify(inst, start).cost - opt)


@pytest.mark.slow
def test_no_exact_rounds_on_tables_too_large_for_the_exact_models(monkeypatch):
    monkeypatch.setattr(columns, "MAX_PAIR_BYTES", 0)
    inst, _ = generate("kanon-random", seed=1, n=40, k=2)
    sol = certify(inst, forest(inst), time_limit=8, seed=0)
    assert "rounds_status" not in sol.info and sol.info["lower_bound_source"] in BOUND_SOURCES
    assert verify(inst, sol).cost <= verify(inst, forest(inst)).cost + TOL
