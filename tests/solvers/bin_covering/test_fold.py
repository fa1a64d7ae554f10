"""Tests of solvers/fold.py: Theorem 7 (Du et al. 2009) against the exact optimum."""

import numpy as np
import pytest
from bruteforce import bin_covering_optimum as brute_opt
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.instances import verify
from anonratio.instances.bin_covering.generators import planted_three_partition, uniform_instance
from anonratio.instances.bin_covering.instance import BinCoveringInstance
from anonratio.solvers.bin_covering.fold import fold, fold_bound, fold_guarantee, greedy_fill

SEED_RULE = r"`seed` must be None, a non-negative integer or a numpy Generator, "


@st.composite
def instances(draw, max_n=9, max_size=40):
    sizes = draw(st.lists(st.integers(1, max_size), min_size=1, max_size=max_n))
    k = draw(st.integers(1, max(1, sum(sizes))))
    return BinCoveringInstance(sizes, k)


def opt(inst):
    return brute_opt(tuple(inst.sizes.tolist()), inst.k)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(instances(), st.sampled_from(["sorted", "random", "input"]), st.integers(0, 5))
def test_theorem7_bound_and_ratio(inst, order, seed):
    sol = fold(inst, order=order, seed=seed)
    check = verify(inst, sol)
    assert check.cost == sol.objective
    k, big = inst.k, inst.max_size
    # Theorem 7 as stated: A(I) <= max(k - 1 + max x, 3k - 3)
    assert check.cost <= max(k - 1 + big, 3 * k - 3) == fold_bound(inst)
    # "An approximation ratio of three": A(I) <= 3 Opt(I) (strictly, in fact)
    optimum = opt(inst)
    assert check.cost < 3 * optimum
    assert check.cost / optimum <= fold_guarantee(inst) < 3


def test_greedy_fill():
    x = np.array([4, 3, 3, 2, 2, 1])
    bin_of, n_full = greedy_fill(x, np.arange(6), 5)
    assert bin_of.tolist() == [0, 0, 1, 1, 2, 2] and n_full == 2
    bin_of, n_full = greedy_fill(x, np.arange(6), 15)
    assert bin_of.tolist() == [0] * 6 and n_full == 1  # reaches 15 at the last item
    bin_of, n_full = greedy_fill(x, np.array([], dtype=int), 5)
    assert bin_of.size == 0 and n_full == 0


def test_examples_and_info():
    inst = BinCoveringInstance([4, 3, 3, 2, 2, 1], k=5)
    sol = fold(inst)
    assert sol.labels.tolist() == [0, 0, 1, 1, 1, 1]  # leftover {2, 1} joins the lighter bin
    assert sol.objective == 8.0 and sol.algorithm == "fold-sorted" and sol.status == "feasible"
    assert sol.info["n_bins"] == 2 and sol.info["overfull_ratio"] == 1.6
    assert sol.info["merged_leftover"] and sol.info["n_big"] == 0 and sol.info["bound"] == 12
    assert sol.params == {"k": 5, "order": "sorted"} and sol.seed is None
    assert sol.time_s >= 0


def test_big_items_get_own_bins():
    inst = BinCoveringInstance([12, 3, 20, 2, 10], k=10)
    sol = fold(inst)
    check = verify(inst, sol)
    # 12, 20, 10 alone; the small items (sum 5 < k) join the lightest big bin (10)
    assert check.n_bins == 3 and check.cost == 20
    assert sol.labels[1] == sol.labels[3] == sol.labels[4]


def test_bound_is_attained():
    # greedy bins of 2k-2 and a leftover of k-1: 3k-3 (here the optimum too)
    inst = BinCoveringInstance([9, 9, 9, 9, 9], 10)
    sol = fold(inst, order="input")
    assert sol.objective == 27 == fold_bound(inst) == opt(inst)
    # the order matters (optimum 17: {9,8} {9,1} {9,2})
    inst = BinCoveringInstance([1, 9, 8, 2, 9, 9], 10)
    assert opt(inst) == 17
    assert fold(inst, order="input").objective == 18  # {1,9} {8,2} {9,9}
    assert fold(inst).objective == 20  # {9,9} {9,8} + leftover {2,1}


def test_random_order_seeded():
    inst = uniform_instance(60, k=25, seed=0)
    a = fold(inst, order="random", seed=7)
    b = fold(inst, order="random", seed=7)
    assert np.array_equal(a.labels, b.labels) and a.seed == 7
    c = fold(inst, order="random", seed=np.random.default_rng(1))
    assert c.seed is None and verify(inst, c).feasible


def test_planted_within_bound():
    inst, meta = planted_three_partition(6, B=60, seed=4)
    sol = fold(inst)
    assert verify(inst, sol).cost <= fold_bound(inst)
    assert sol.objective < 3 * meta["optimum"]


@pytest.mark.parametrize(
    ("kwargs", "err", "match"),
    [
        ({"order": "up"}, ValueError, r"`order` must be one of \['input', 'random', 'sorted'\]"),
        ({"seed": "x"}, ValueError, SEED_RULE + "got 'x'"),
        ({"seed": True}, ValueError, SEED_RULE + "got True"),
    ],
)
def test_errors(kwargs, err, match):
    with pytest.raises(err, match=match):
        fold(BinCoveringInstance([1, 2], 2), **kwargs)


def test_wrong_instance_type():
    with pytest.raises(TypeError, match=r"`instance` must be a BinCoveringInstance, got list"):
        fold([1, 2, 3])
