"""Subset-row cuts (exact/kanonymity/subset_row.py): the bound lies between the LP relaxation and
the optimum and is re-proven here by brute force over every group; the cut-aware enumeration loses
no group; separation finds the odd cycle; the exact solvers that use the cuts stay exact."""

import itertools
from time import perf_counter

import numpy as np
import pytest
from bruteforce import kanonymity_full_lp, small_kanonymity_instance, small_kanonymity_instances
from bruteforce import kanonymity_optimum as brute_force_opt
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.bench.registry import generate
from anonratio.exact.kanonymity import cpsat, ilp, set_partitioning, solve_cpsat, solve_highs
from anonratio.exact.kanonymity.box_enumeration import box_groups
from anonratio.exact.kanonymity.box_pricing import BoxLattice
from anonratio.exact.kanonymity.compact_lp import closed_boxes, compact_lp
from anonratio.exact.kanonymity.subset_row import (
    SubsetRowCuts,
    proven_bound,
    separate,
    subset_row_bound,
)
from anonratio.instances import verify

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True)
TOL = 1e-7

instances = small_kanonymity_instances(9, deletion=True)


def _all_groups(inst):
    """Every group of k .. 2k − 1 records as padded rows of unique-record ids."""
    inverse, k = inst.unique_records[1], inst.k
    width = 2 * k - 1
    rows = []
    for size in range(k, min(inst.n, width) + 1):
        for recs in itertools.combinations(range(inst.n), size):
            row = np.full(width, -1)
            row[:size] = np.sort(inverse[list(recs)])
            rows.append(row)
    return np.unique(np.array(rows).reshape(-1, width), axis=0)


def _brute_force_bound(inst, prices, cuts):
    """The Lagrangian bound of ``(prices, cuts)`` recomputed over every group, the cut
    coefficients counted here rather than by the module."""
    lat = BoxLattice(inst)
    counts = lat.counts.astype(float)
    rows = _all_groups(inst)
    rc = lat.cost(rows) - np.where(rows >= 0, prices[np.maximum(rows, 0)], 0).sum(axis=1)
    for triple, sigma in zip(cuts.triples, cuts.sigma, strict=True):
        hits = np.isin(rows, triple).sum(axis=1)
        rc += sigma * (hits // 2)
    bound = prices @ counts - cuts.sigma @ cuts.rhs
    bound += np.floor(counts.sum() / inst.k) * min(0.0, rc.min())
    if inst.row_deletion:
        bound += counts @ np.minimum(0.0, inst.deletion_cost - prices)
    return bound


@SETTINGS
@given(inst=instances)
def test_bound_between_relaxation_and_optimum_and_proven_by_brute_force(inst):
    lat = BoxLattice(inst)
    cap = inst.deletion_cost if inst.row_deletion else None
    value, prices = compact_lp(lat, closed_boxes(lat), deadline=float("inf"), cap=cap)
    out = subset_row_bound(lat, prices, value, deadline=float("inf"))
    lp, opt = kanonymity_full_lp(inst), brute_force_opt(inst)
    assert lp - 1e-6 <= out.value <= opt + TOL
    assert out.value <= _brute_force_bound(inst, out.prices, out.cuts) + 1e-6
    assert (out.cuts.sigma >= 0).all() and out.rounds >= 1


@pytest.mark.slow
def test_the_cuts_raise_the_bound_where_the_relaxation_is_fractional():
    inst, _ = generate("kanon-random", seed=1, n=40, k=2)
    lat = BoxLattice(inst)
    value, prices = compact_lp(lat, closed_boxes(lat), deadline=float("inf"))
    out = subset_row_bound(lat, prices, value, deadline=float("inf"))
    assert out.value > value + 0.1 and len(out.cuts) > 0
    assert out.value <= _brute_force_bound(inst, out.prices, out.cuts) + 1e-6
    opt = solve_highs(inst, time_limit=120, seed=0)
    assert opt.status == "optimal" and out.value <= verify(inst, opt).cost + TOL


@SETTINGS
@given(inst=small_kanonymity_instances(9, deletion=False))
def test_cut_aware_enumeration_loses_no_group(inst):
    lat = BoxLattice(inst)
    rng = np.random.default_rng(inst.n)
    u = lat.u
    if u < 3:
        return
    triples = np.sort(np.array([rng.choice(u, 3, replace=False) for _ in range(5)]), axis=1)
    cuts = SubsetRowCuts(triples, np.ones(5), rng.uniform(0, 2, 5), u)
    y = rng.uniform(0, 3, u)
    thr = 2.0
    plain, rc_plain, done = box_groups(lat, y, thr + 10.0)
    assert done
    keep = rc_plain + cuts.penalty(plain) <= thr + 1e-9
    cut, rc_cut, done = box_groups(lat, y, thr, penalty=cuts.penalty)
    assert done
    assert {r.tobytes() for r in cut} == {r.tobytes() for r in plain[keep]}
    assert np.allclose(np.sort(rc_cut), np.sort(rc_plain[keep] + cuts.penalty(plain[keep])))


def test_penalty_is_the_coefficients_times_the_prices():
    cuts = SubsetRowCuts(np.array([[0, 1, 2], [1, 2, 3]]), np.ones(2), np.array([0.5, 2.0]), 5)
    members = np.array([[0, 1, -1], [1, 2, 3], [0, 4, -1], [2, 2, 1]])
    coef = cuts.coefficients(members).toarray()
    assert coef.tolist() == [[1, 0], [1, 1], [0, 0], [1, 1]]  # a copy twice counts twice
    assert np.allclose(cuts.penalty(members), coef @ cuts.sigma)


def test_separation_finds_the_odd_cycle():
    # three records paired in turn, each pair used half: 3/2 > 1 on the triple
    members = np.array([[0, 1], [1, 2], [0, 2], [3, 4]])
    x = np.array([0.5, 0.5, 0.5, 1.0])
    found = separate(members, x, np.ones(5), known=set(), max_cuts=10)
    assert found.tolist() == [[0, 1, 2]]
    assert separate(members, x, np.ones(5), known={(0, 1, 2)}, max_cuts=10).shape == (0, 3)
    assert separate(members, x, np.full(5, 2.0), known=set(), max_cuts=10).shape == (0, 3)


def test_an_expired_deadline_returns_the_start():
    inst, _ = generate("kanon-random", seed=1, n=40, k=2)
    lat = BoxLattice(inst)
    value, prices = compact_lp(lat, closed_boxes(lat), deadline=float("inf"))
    out = subset_row_bound(lat, prices, value, deadline=0.0)
    assert out.value == value and len(out.cuts) == 0 and out.rounds == 0


unweighted = st.builds(  # CP-SAT needs integral weights
    small_kanonymity_instance,
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 9),
    m=st.integers(1, 3),
    k=st.integers(2, 3),
    model=st.sampled_from(["suppression", "generalization"]),
    weighted=st.just(False),
    deletion=st.booleans(),
)


@pytest.mark.parametrize(
    ("solve", "drawn"),
    [(solve_highs, instances), (solve_cpsat, unweighted)],
    ids=["highs", "cpsat"],
)
def test_exact_solvers_with_the_cuts_and_the_budget_stay_exact(solve, drawn):
    @settings(max_examples=25, deadline=None, derandomize=True)
    @given(inst=drawn)
    def check(inst):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(set_partitioning, "LATTICE_MIN_UNIQUE", 0)  # the lattice path: cuts
            out = solve(inst, time_limit=60, seed=0)
        assert out.status == "optimal"
        assert verify(inst, out).cost == pytest.approx(brute_force_opt(inst))

    check()


@pytest.mark.slow
def test_both_exact_solvers_prove_the_optimum_from_the_cut_bound(monkeypatch):
    monkeypatch.setattr(set_partitioning, "LATTICE_MIN_UNIQUE", 0)
    inst, _ = generate("kanon-random", seed=1, n=40, k=2)
    models, problems = [], []  # every round's program, to check its objective rows
    run_cpsat, run_pulp = cpsat.run_cpsat, ilp.run_pulp
    monkeypatch.setattr(cpsat, "run_cpsat", lambda m, **kw: models.append(m) or run_cpsat(m, **kw))
    monkeypatch.setattr(ilp, "run_pulp", lambda p, **kw: problems.append(p) or run_pulp(p, **kw))
    a = solve_cpsat(inst, time_limit=120, seed=0)
    b = solve_highs(inst, time_limit=120, seed=0)
    assert a.status == b.status == "optimal"
    assert verify(inst, a).cost == pytest.approx(verify(inst, b).cost)
    for out in (a, b):
        assert out.info["lower_bound_source"] == "subset-row" and out.info["subset_row_cuts"] > 0
        assert out.info["lp_bound"] <= verify(inst, out).cost + TOL
    # the rounds cap the objective from above only: an `objective >= lb` row slows the proofs
    # (the lb stays proven by the loop alone)
    assert models and problems
    for model in models:
        proto = model.proto
        objective = sorted(zip(proto.objective.vars, proto.objective.coeffs, strict=True))
        over = [
            c.linear.domain
            for c in proto.constraints
            if sorted(zip(c.linear.vars, c.linear.coeffs, strict=True)) == objective
        ]
        assert len(over) == 1 and over[0][0] < -(2**40)  # one row, `objective <= ub`
    for prob in problems:
        objective = dict(prob.objective.items())
        over = [c for c in prob.constraints() if dict(c.items()) == objective]
        assert len(over) == 1 and over[0].sense == -1  # LpConstraintLE
        # and HiGHS runs them without its presolve, which does not look at the clock there
        assert prob.solverModel.getOptionValue("presolve")[1] == "off"


@pytest.mark.slow  # the cut case: about 12 s to build
def test_proven_bound_is_the_loops_own_and_needs_its_time(cut_case):
    inst, found, _ = cut_case
    sr, lattice = found.subset_row, BoxLattice(inst)
    again = proven_bound(lattice, sr.prices, sr.cuts)  # the loop's pays its pricing tolerance
    assert sr.value - 1e-12 <= again <= sr.value + 1e-9 * max(1.0, abs(sr.value))
    assert proven_bound(lattice, sr.prices, sr.cuts, deadline=perf_counter() - 1) == -np.inf
