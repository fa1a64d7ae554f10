"""Tests of instances/bin_covering.py: validation, verifier (strict and relaxed), lower bound."""

import numpy as np
import pytest
from bruteforce import bin_covering_optimum as brute_opt
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.instances import (
    InfeasibleInstanceError,
    InfeasibleSolutionError,
    Solution,
    instance_from_dict,
    instance_id,
    instance_to_dict,
    lower_bound,
    verify,
)
from anonratio.instances.bin_covering.instance import (
    BinCoveringInstance,
    BinCoveringVerification,
    bin_covering_lower_bound,
    check_epsilon,
    verify_relaxed,
)


@st.composite
def instances(draw, max_n=8, max_size=30):
    sizes = draw(st.lists(st.integers(1, max_size), min_size=1, max_size=max_n))
    k = draw(st.integers(1, max(1, sum(sizes))))
    return BinCoveringInstance(sizes, k)


# -- validation -------------------------------------------------------------------------------
def test_instance_basics():
    inst = BinCoveringInstance([5, 3, 3, 2], k=6)
    assert inst.n == 4 and inst.total == 13 and inst.max_size == 5 and inst.max_bins == 2
    assert inst.params == {"k": 6}
    values, counts, inverse = inst.distinct
    assert values.tolist() == [5, 3, 2] and counts.tolist() == [1, 2, 1]
    assert np.array_equal(values[inverse], inst.sizes)
    assert not inst.sizes.flags.writeable
    assert BinCoveringInstance(np.array([2.0, 3.0]), 4).sizes.dtype == np.int64


@pytest.mark.parametrize(
    ("sizes", "k", "err", "match"),
    [
        ([1, 2], 4, InfeasibleInstanceError, r"sum to 3, less than k=4"),
        ([1, 0, 2], 2, ValueError, r"`sizes` must be positive integers, got 0 at index 1"),
        ([3, -1], 2, ValueError, r"`sizes` must be positive integers, got -1 at index 1"),
        ([1.5, 2], 2, ValueError, r"`sizes` must be positive integers, got 1.5 at index 0"),
        ([np.nan, 2], 1, ValueError, r"`sizes` must be positive integers, got nan"),
        (["a", "b"], 1, ValueError, r"`sizes` must be positive integers, got dtype"),
        ([True, True], 1, ValueError, r"`sizes` must be positive integers, got dtype bool"),
        ([], 1, ValueError, r"`sizes` must be a non-empty 1-D sequence"),
        ([[1, 2]], 1, ValueError, r"`sizes` must be a non-empty 1-D sequence"),
        ([1, 2], 0, ValueError, r"`k` must be an integer >= 1, got 0"),
        ([1, 2], 2.5, ValueError, r"`k` must be an integer >= 1, got 2.5"),
        ([1, 2], True, ValueError, r"`k` must be an integer >= 1, got True"),
    ],
)
def test_validation_errors(sizes, k, err, match):
    with pytest.raises(err, match=match):
        BinCoveringInstance(sizes, k)


def test_names_length_checked():
    with pytest.raises(ValueError, match=r"`names` must have one entry per item \(2\), got 1"):
        BinCoveringInstance([1, 2], 2, names=["a"])


def test_serialization_roundtrip():
    inst = BinCoveringInstance([4, 1, 7], 5, names=["A", "B", "C"])
    d = instance_to_dict(inst)
    assert d["problem"] == "bin-covering" and d["names"] == ["A", "B", "C"]
    back = instance_from_dict(d)
    assert isinstance(back, BinCoveringInstance)
    assert back.sizes.tolist() == [4, 1, 7] and back.k == 5 and back.names == ("A", "B", "C")
    assert instance_id(back) == instance_id(inst)
    plain = BinCoveringInstance([4, 1, 7], 5)
    assert "names" not in plain.to_dict() and instance_id(plain) != instance_id(inst)
    assert instance_id(BinCoveringInstance([4, 1, 7], 6)) != instance_id(plain)


# -- verify -----------------------------------------------------------------------------------
def test_verify_feasible_cost_and_stats():
    inst = BinCoveringInstance([5, 3, 3, 2, 4], k=6)
    check = verify(inst, [0, 0, 1, 1, 1])
    assert isinstance(check, BinCoveringVerification)
    assert check.feasible and check.cost == 9.0 and check.violations == []
    assert check.n_bins == 2 and check.min_load == 8 and check.max_load == 9
    assert check.overfull_ratio == 1.5 and check.min_load_ratio == pytest.approx(8 / 6)
    assert check.strictly_feasible and not check.relaxed and check.floor == 6
    assert verify(inst, [7, 7, 3, 3, 3], strict=True).cost == 9.0  # any non-negative bin ids
    sol = Solution(labels=np.zeros(5, dtype=int), algorithm="x")
    assert verify(inst, sol).cost == 17.0


def test_verify_infeasible():
    inst = BinCoveringInstance([5, 3, 3, 2], k=6)
    with pytest.raises(InfeasibleSolutionError, match=r"bin 1 has load 5, less than k"):
        verify(inst, [0, 0, 1, 1])
    check = verify(inst, [0, 0, 1, 1], strict=False)
    assert not check.feasible and check.cost is None and check.min_load == 5
    assert not check.strictly_feasible
    with pytest.raises(InfeasibleSolutionError, match=r"every item must be put in a bin"):
        verify(inst, [0, -1, 0, 0])
    with pytest.raises(InfeasibleSolutionError, match=r"one entry per record \(4\)"):
        verify(inst, [0, 0, 0])
    with pytest.raises(InfeasibleSolutionError, match=r"labels must be integers"):
        verify(inst, [0.0, 0.0, 0.0, 0.0])
    with pytest.raises(InfeasibleSolutionError, match=r"no solution"):
        verify(inst, Solution(labels=None, algorithm="x", status="time_limit"))


def test_verify_many_bad_bins_are_summarized():
    inst = BinCoveringInstance([1] * 8, k=2)
    check = verify(inst, np.arange(8), strict=False)
    assert len(check.violations) == 6 and "3 more bins" in check.violations[-1]


def test_verify_relaxed_modes():
    inst = BinCoveringInstance([5, 3, 3, 2], k=6)
    labels = [0, 0, 1, 1]  # loads 8 and 5: below k=6, above 0.8*6 = 4.8, below 0.9*6 = 5.4
    check = verify_relaxed(inst, labels, epsilon=0.1)
    assert check.feasible and check.relaxed and check.epsilon == 0.1
    assert check.floor == pytest.approx(4.8) and not check.strictly_feasible
    assert check.cost == 8.0 and check.min_load_ratio == pytest.approx(5 / 6)
    with pytest.raises(InfeasibleSolutionError, match=r"less than \(1-2\*epsilon\)\*k=5\.4"):
        verify(inst, labels, relaxed=0.05)
    # auto mode: a Solution marked relaxed is checked against the floor of its epsilon
    sol = Solution(labels=labels, algorithm="relaxed", params={"k": 6, "epsilon": 0.1})
    with pytest.raises(InfeasibleSolutionError, match=r"less than k"):
        verify(inst, sol)  # not marked: strict
    marked = sol.replace(info={"relaxed": True})
    assert verify(inst, marked).relaxed and verify(inst, marked).feasible
    assert not verify(inst, marked, relaxed=False, strict=False).feasible
    bad = marked.replace(params={"k": 6, "epsilon": 0.7})
    with pytest.raises(ValueError, match=r"`epsilon` must be a number in \(0, 0.5\), got 0.7"):
        verify(inst, bad)


@pytest.mark.parametrize("eps", [0, 0.5, -0.1, "0.1", True, None, float("nan")])
def test_bad_epsilon(eps):
    with pytest.raises(ValueError, match=r"`epsilon` must be a number in \(0, 0.5\)"):
        check_epsilon(eps)


# -- lower bound ------------------------------------------------------------------------------
def test_lower_bound_terms():
    assert bin_covering_lower_bound(BinCoveringInstance([2, 2, 2], 5)) == (6, "S/floor(S/k)")
    assert bin_covering_lower_bound(BinCoveringInstance([9, 1, 1], 3)) == (9, "max-size")
    assert bin_covering_lower_bound(BinCoveringInstance([3, 3, 3], 3)) == (3, "k")
    assert lower_bound(BinCoveringInstance([2, 2, 2], 5)) == (6.0, "S/floor(S/k)")


@settings(max_examples=120, deadline=None, derandomize=True)
@given(instances())
def test_lower_bound_is_valid(inst):
    opt = brute_opt(tuple(inst.sizes.tolist()), inst.k)
    lb, _ = lower_bound(inst)
    assert max(inst.k, inst.max_size) <= lb <= opt <= inst.total


@pytest.mark.parametrize(("n", "k"), [(7, 3), (10, 4), (9, 9), (5, 1)])
def test_lower_bound_tight_for_unit_items(n, k):
    inst = BinCoveringInstance([1] * n, k)
    assert lower_bound(inst)[0] == brute_opt(tuple([1] * n), k)
