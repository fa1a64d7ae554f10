"""The pattern model's LP bound for l-diversity (exact/ldiversity/lp_bound.py): between the instance
bound and the optimum for both objectives, valid from any prices (so at any early stop), rounded
up safely, and the instance bound when the model is too large."""

import numpy as np
import pytest
from bruteforce_ldiversity import ldiversity_optima, random_instance
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.bench.registry import generate
from anonratio.exact.ldiversity import lp_bound, solve_cpsat
from anonratio.exact.ldiversity import patterns as patterns_module
from anonratio.exact.ldiversity.lp_bound import lagrangian_bound, pattern_lp
from anonratio.exact.ldiversity.patterns import build_data
from anonratio.instances import Table
from anonratio.instances.ldiversity import LDiversityInstance, ldiversity_lower_bound

SEEDS = st.integers(0, 2**32 - 1)


def both_objectives(instance):
    return {o: LDiversityInstance(instance.table, instance.l, o) for o in ("stars", "tuples")}


@settings(max_examples=30, deadline=None, derandomize=True)
@given(seed=SEEDS)
def test_between_the_instance_bound_and_the_optimum(seed):
    base = random_instance(seed, n_max=10)
    optima = ldiversity_optima(base)
    for objective, instance in both_objectives(base).items():
        b = lp_bound(instance, time_limit=10)
        assert b.solved and b.status == "Optimal"
        assert b.instance_bound == ldiversity_lower_bound(instance)[0]
        # the tightened relaxation dominates max(|R1|, l h(R1)) once solved
        assert b.instance_bound <= b.lagrangian == b.value <= optima[objective]
        assert b.value == int(b.value)
        assert b.lp_value <= b.value + 1 - 1e-9  # rounded up, never past the next integer
        assert b.source in ("lp-relaxation", ldiversity_lower_bound(instance)[1])
        assert (b.source == "lp-relaxation") == (b.value > b.instance_bound)


@pytest.mark.parametrize(("n", "l", "m", "seed"), [(20, 3, 4, 1), (60, 3, 4, 0), (200, 3, 5, 0)])
def test_below_the_cpsat_optimum_and_stronger_than_the_instance_bound(n, l, m, seed):
    inst, _ = generate("ldiv-random", seed=seed, n=n, d=3, cardinality=3, m=m, l=l)
    exact = solve_cpsat(inst, time_limit=20)
    assert exact.status == "optimal"
    b = lp_bound(inst, time_limit=10, seed=3)
    assert b.instance_bound < b.value <= exact.objective
    assert b.source == "lp-relaxation" and b.size["lp_method"] == "simplex"
    # a column per cell (a pair and a value its QI-group holds) and one per pattern
    assert b.size["n_cols"] >= b.size["n_pairs"] + b.size["n_patterns"]


@pytest.mark.parametrize("iterations", [0, 1, 5, 20, 60])
def test_an_early_stop_still_gives_a_valid_bound(iterations):
    inst, _ = generate("ldiv-random", seed=0, n=200, d=3, cardinality=3, m=5, l=3)
    full = lp_bound(inst, time_limit=10)
    early = lp_bound(inst, time_limit=10, iteration_limit=iterations)
    assert not early.solved and early.status == "Iteration limit reached"
    assert early.lagrangian <= full.lagrangian
    assert early.instance_bound <= early.value <= full.value
    assert early.value == max(early.lagrangian, early.instance_bound)
    if iterations == 0:  # the slack basis: prices 0
        assert early.lagrangian == 0 and early.source == "max(|R1|, l h(R1))"


@settings(max_examples=25, deadline=None, derandomize=True)
@given(seed=SEEDS, scale=st.floats(0.1, 20))
def test_any_prices_give_a_bound_below_the_optimum(seed, scale):
    base = random_instance(seed, n_max=10)
    optima = ldiversity_optima(base)
    rng = np.random.default_rng(seed)
    for objective, instance in both_objectives(base).items():
        lp = pattern_lp(build_data(instance))
        prices = rng.normal(0, scale, lp.shape[0])  # wrong signs on <= rows are clipped
        assert lagrangian_bound(lp, prices) <= optima[objective] + 1e-9
        # zero prices: every reduced cost is a cost >= 0, the bound is 0 less the error margin
        assert -1e-9 <= lagrangian_bound(lp, np.zeros(lp.shape[0])) <= 0
        best = lp_bound(instance, time_limit=10)
        assert best.lagrangian <= optima[objective]


def test_non_finite_prices_count_as_zero_and_shapes_are_checked():
    lp = pattern_lp(build_data(random_instance(4, n=6, l=2, m=3, objective="stars")))
    prices = np.full(lp.shape[0], np.nan)
    assert lagrangian_bound(lp, prices) == pytest.approx(0, abs=1e-9)
    with pytest.raises(ValueError, match="row_dual"):
        lagrangian_bound(lp, np.zeros(lp.shape[0] + 1))


def test_the_floating_point_error_is_subtracted():
    # an LP whose optimum is an integer: the certified value sits just below it, rounds to it
    t = Table([[0], [0], [1], [1]], ["a"], [["x", "y"]], sensitive=[0, 0, 1, 1])
    for objective, cost in (("stars", 4), ("tuples", 4)):
        b = lp_bound(LDiversityInstance(t, 2, objective), time_limit=10)
        assert b.value == cost and b.solved
        assert b.instance_bound == 4  # both rows of value 0 in one QI-group: all suppressed


def test_stars_beat_the_record_count():
    # 3 QI-groups, each one value: every record is suppressed, and one star cannot merge them
    t = Table(
        [[0, 0], [0, 0], [1, 1], [1, 1], [2, 2], [2, 2]],
        ["a", "b"],
        [["0", "1", "2"]] * 2,
        sensitive=[0, 0, 1, 1, 2, 2],
    )
    inst = LDiversityInstance(t, 2, "stars")
    b = lp_bound(inst, time_limit=10)
    assert b.instance_bound == 6 and b.value == 12 == solve_cpsat(inst).objective
    assert b.source == "lp-relaxation"


def test_phase_one_bounds_round_each_qi_group():
    # 4 QI-groups, each 5 records of its own pillar and 3 single values, l = 3: the LP alone
    # keeps a height of 1.5 (3.5 removed per group), phase 1 keeps 1 (4 removed)
    codes, s = [], []
    for i in range(4):
        s += [i] * 5 + [4 + i, 8 + i, 12 + i]
        codes += [[i]] * 8
    t = Table(codes, ["a"], [["0", "1", "2", "3"]], sensitive=s)
    for objective in ("stars", "tuples"):
        b = lp_bound(LDiversityInstance(t, 3, objective), time_limit=10)
        assert b.lagrangian == b.instance_bound == 16 == b.lp_value


def test_prices_of_the_wrong_sign_are_clipped():
    lp = pattern_lp(build_data(random_instance(5, n=9, l=3, m=3, objective="stars")))
    rng = np.random.default_rng(0)
    prices = rng.normal(0, 2, lp.shape[0])
    clipped = np.where(lp.equal, prices, np.minimum(prices, 0))
    assert np.any(prices[~lp.equal] > 0)
    assert lagrangian_bound(lp, prices) == lagrangian_bound(lp, clipped)


def test_too_large_and_no_time_give_the_instance_bound(monkeypatch):
    inst, _ = generate("ldiv-random", seed=0, n=40, d=3, cardinality=3, m=4, l=3)
    base, source = ldiversity_lower_bound(inst)
    b = lp_bound(inst, time_limit=0)
    assert (b.value, b.source, b.status, b.lagrangian) == (base, source, "no time", None)
    monkeypatch.setattr(patterns_module, "MAX_PAIRS", 1)
    b = lp_bound(inst, time_limit=10)
    assert b.value == base and b.status == "too large" and b.lagrangian is None
    assert b.source == f"{source} (pattern model too large)"
    assert "exceed" in b.size["reason"]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"time_limit": -1}, "time_limit"),
        ({"time_limit": float("nan")}, "time_limit"),
        ({"seed": -2}, "seed"),
        ({"iteration_limit": -1}, "iteration_limit"),
    ],
)
def test_bad_arguments_name_the_parameter(kwargs, match):
    inst = random_instance(0, n=6)
    with pytest.raises(ValueError, match=match):
        lp_bound(inst, **kwargs)


def test_refuses_another_problem():
    with pytest.raises((ValueError, TypeError), match="instance"):
        lp_bound("not an instance")
