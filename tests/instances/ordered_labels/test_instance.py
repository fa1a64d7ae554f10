"""Tests of instances/ordered.py: validation, interval verifier, lower bound, serialization."""

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.instances import (
    InfeasibleInstanceError,
    InfeasibleSolutionError,
    InstanceFormatError,
    instance_from_dict,
    instance_id,
    instance_to_dict,
    lower_bound,
    verify,
)
from anonratio.instances.ordered_labels.instance import (
    OrderedLabelsInstance,
    interval_weights,
    ordered_lower_bound,
)


def brute_force_intervals(sizes, k):
    """Optimum over all 2^(n-1) cut sets."""
    n, best = len(sizes), np.inf
    prefix = np.r_[0, np.cumsum(sizes)]
    for r in range(n):
        for cuts in combinations(range(1, n), r):
            b = np.diff(prefix[[0, *cuts, n]])
            if b.min() >= k:
                best = min(best, b.max())
    return best


@st.composite
def small_ordered(draw):
    sizes = draw(st.lists(st.integers(0, 9), min_size=1, max_size=9))
    if sum(sizes) == 0:
        sizes[0] = 1
    k = draw(st.integers(1, sum(sizes)))
    return OrderedLabelsInstance(sizes, k)


def test_construction():
    inst = OrderedLabelsInstance(np.array([3, 0, 2.0]), 2)
    assert inst.sizes.tolist() == [3, 0, 2] and inst.sizes.dtype == np.int64
    assert inst.n == 3 and inst.total_size == 5 and inst.kappa == 3 and inst.params == {"k": 2}
    assert not inst.sizes.flags.writeable


@pytest.mark.parametrize(
    ("sizes", "k", "err", "match"),
    [
        ([1, 2], 0, ValueError, "`k` must be an integer >= 1, got 0"),
        ([1, 2], 1.0, ValueError, "`k` must be an integer >= 1"),
        ([1, 2], True, ValueError, "`k` must be an integer >= 1"),
        ([], 1, InstanceFormatError, "non-empty 1-D"),
        ([[1, 2]], 1, InstanceFormatError, "non-empty 1-D"),
        ([1, -2], 1, InstanceFormatError, "non-negative integers, got -2 at position 1"),
        ([1, 2.5], 1, InstanceFormatError, "non-negative integers, got 2.5"),
        ([1, "x"], 1, InstanceFormatError, "non-negative integers"),
        ([1, True], 1, InstanceFormatError, "non-negative integers"),
        ([1, 2], 4, InfeasibleInstanceError, "total size 3 is below k=4"),
    ],
)
def test_validation_errors(sizes, k, err, match):
    with pytest.raises(err, match=match):
        OrderedLabelsInstance(sizes, k)


def test_roundtrip():
    inst = OrderedLabelsInstance([4, 1, 0, 7], 3)
    d = instance_to_dict(inst)
    assert d == {"problem": "ordered-labels", "sizes": [4, 1, 0, 7], "k": 3}
    back = instance_from_dict(d)
    assert back.sizes.tolist() == [4, 1, 0, 7] and back.k == 3
    assert instance_id(back) == instance_id(inst)
    with pytest.raises(InstanceFormatError, match="malformed ordered-labels"):
        OrderedLabelsInstance.from_dict({"sizes": [1]})


def test_verify_intervals():
    inst = OrderedLabelsInstance([2, 1, 2, 2, 2], 3)
    assert verify(inst, [0, 0, 0, 1, 1]).cost == 5.0
    assert verify(inst, [5, 5, 5, 2, 2]).cost == 5.0  # ids need not be ordered
    starts, weights = interval_weights(inst, [0, 0, 1, 1, 1])
    assert starts.tolist() == [0, 2] and weights.tolist() == [3, 6]


@pytest.mark.parametrize(
    ("labels", "match"),
    [
        ([0, 1, 0, 1, 1], "label 0 is not one interval of consecutive items \\(runs start at"),
        ([0, 0, 1, 1, 2], "interval 2 \\(from item 4\\) weighs 2, less than k=3"),
        ([0, 0, -1, 1, 1], "item 2 has -1"),
        ([0, 0, 0], "one entry per record \\(5\\)"),
    ],
)
def test_verify_violations(labels, match):
    inst = OrderedLabelsInstance([2, 1, 2, 2, 2], 3)
    v = verify(inst, np.array(labels), strict=False)
    assert not v.feasible and v.cost is None
    with pytest.raises(InfeasibleSolutionError, match=match):
        verify(inst, np.array(labels))


@settings(max_examples=80, deadline=None, derandomize=True)
@given(small_ordered())
def test_lower_bound_valid(inst):
    value, source = lower_bound(inst)
    assert inst.kappa <= value <= brute_force_intervals(inst.sizes, inst.k)
    assert source in ("k", "max-size", "part-count", "neighbour")


def test_lower_bound_sources():
    assert ordered_lower_bound(OrderedLabelsInstance([5], 3)) == (5, "max-size")
    # at most 2 intervals of weight >= 3 out of 7: one weighs >= 4
    assert ordered_lower_bound(OrderedLabelsInstance([1] * 7, 3)) == (4, "part-count")
    # item 1 (weight 1) joins a neighbour of weight >= 9
    assert ordered_lower_bound(OrderedLabelsInstance([9, 1, 9, 1, 1, 1, 1], 2)) == (
        10,
        "neighbour",
    )
    assert ordered_lower_bound(OrderedLabelsInstance([1, 1, 1, 1], 2)) == (2, "k")
