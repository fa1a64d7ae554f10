"""ldiv-certified (exact/ldiversity/certified.py, composed with TP+ in the registry): TP+'s
partition, verified, with a proven lower bound between the instance bound and the optimum, and
the same bound as the run's lower bound when it goes through the bench runner."""

import numpy as np
import pytest
from bruteforce_ldiversity import ldiversity_optimum, random_instance
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.bench.engine.runner import run_record
from anonratio.bench.problems.ldiversity import certified_tp_plus
from anonratio.bench.registry import generate
from anonratio.exact.ldiversity import certify
from anonratio.instances import verify
from anonratio.instances.ldiversity import LDiversityInstance, ldiversity_lower_bound
from anonratio.solvers.ldiversity.tp import tp_guarantee
from anonratio.solvers.ldiversity.tp_plus import tp_plus


@settings(max_examples=25, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), objective=st.sampled_from(["stars", "tuples"]))
def test_tp_plus_partition_with_a_valid_bound(seed, objective):
    inst = random_instance(seed, n_max=9, objective=objective)
    sol = certified_tp_plus(inst, seed=0, time_limit=10)
    start = tp_plus(inst, seed=0)
    assert np.array_equal(sol.labels, start.labels)
    cost = verify(inst, sol).cost
    assert sol.status == "feasible" and sol.algorithm == "ldiv-certified"
    assert sol.objective == cost == start.objective
    opt = ldiversity_optimum(inst)
    assert ldiversity_lower_bound(inst)[0] <= sol.lower_bound <= opt <= cost
    assert cost <= tp_guarantee(inst, sol) * opt + 1e-9  # TP+'s guarantee still applies
    info = sol.info
    assert info["lp_solved"] and info["bound_lp"] <= sol.lower_bound
    assert info["bound_instance"] <= sol.lower_bound and info["bound_s"] >= 0
    assert info["lower_bound_source"] in ("lp-relaxation", ldiversity_lower_bound(inst)[1])
    assert info["phase"] == start.info["phase"]  # TP's info kept


def test_the_runner_takes_the_certified_bound():
    inst, meta = generate("ldiv-random", seed=0, n=200, d=3, cardinality=3, m=5, l=3)
    rows = {
        a: run_record(inst, a, seed=0, time_limit=10, family="ldiv-random", meta=meta)
        for a in ("tp-plus", "ldiv-certified")
    }
    cert, plain = rows["ldiv-certified"], rows["tp-plus"]
    assert cert.verified and cert.status == "feasible" and cert.error is None
    assert cert.run_lower_bound == cert.solution.lower_bound
    assert cert.run_lower_bound_source == "lp-relaxation"
    assert cert.run_lower_bound > plain.run_lower_bound == ldiversity_lower_bound(inst)[0]
    assert cert.cost == plain.cost and cert.guarantee == plain.guarantee


def test_certify_refuses_an_infeasible_partition():
    inst = random_instance(3, n=8, l=2, m=2)
    sol = tp_plus(inst)
    bad = sol.replace(labels=np.arange(inst.n))  # singletons are not 2-eligible
    with pytest.raises(ValueError, match="`solution` is not feasible"):
        certify(inst, bad)
    with pytest.raises(ValueError, match="solution"):
        certify(inst, sol.labels)
    ok = certify(inst, sol, time_limit=0, algorithm="x")
    assert ok.algorithm == "x" and np.array_equal(ok.labels, sol.labels)
    assert ok.lower_bound == ldiversity_lower_bound(inst)[0] and ok.info["lp_status"] == "no time"


def test_both_objectives_of_one_table():
    inst, _ = generate("ldiv-random", seed=1, n=60, d=3, cardinality=3, m=4, l=3)
    for objective in ("stars", "tuples"):
        other = LDiversityInstance(inst.table, inst.l, objective)
        sol = certify(other, tp_plus(other), time_limit=10)
        assert sol.lower_bound <= sol.objective and sol.info["lp_solved"]
        assert sol.params == other.params


@pytest.mark.parametrize("bad", [0, -1.0, "x"])
def test_bad_time_limit_names_the_parameter(bad):
    inst = random_instance(0, n=6)
    with pytest.raises((ValueError, TypeError), match="time_limit"):
        certified_tp_plus(inst, time_limit=bad)
