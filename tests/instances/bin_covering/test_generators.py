"""Tests of instances/bin_covering_data.py: generators, 3-Partition gadgets, census loader."""

from itertools import combinations

import numpy as np
import pytest

from anonratio.instances import InfeasibleInstanceError, verify
from anonratio.instances.bin_covering.generators import (
    CENSUS_FILES,
    census_instance,
    census_names,
    planted_three_partition,
    three_partition_no_instance,
    uniform_instance,
    zipf_instance,
)


# -- random sizes -----------------------------------------------------------------------------
def test_uniform_instance():
    inst = uniform_instance(200, k=10, seed=3)
    assert inst.n == 200 and inst.k == 10
    assert inst.sizes.min() >= 1 and inst.sizes.max() <= 10 and len(set(inst.sizes)) == 10
    assert np.array_equal(inst.sizes, uniform_instance(200, k=10, seed=3).sizes)
    assert not np.array_equal(inst.sizes, uniform_instance(200, k=10, seed=4).sizes)
    wide = uniform_instance(50, k=5, low=20, high=30, seed=0)
    assert wide.sizes.min() >= 20 and wide.sizes.max() <= 30


def test_uniform_errors():
    with pytest.raises(ValueError, match=r"`high` must be an integer >= low=5, got 3"):
        uniform_instance(4, k=3, low=5, high=3)
    with pytest.raises(ValueError, match=r"`n` must be an integer >= 1, got 0"):
        uniform_instance(0, k=3)
    with pytest.raises(ValueError, match=r"`k` must be an integer >= 1, got -2"):
        uniform_instance(3, k=-2)
    with pytest.raises(InfeasibleInstanceError, match=r"less than k=100"):
        uniform_instance(2, k=100, high=10, seed=0)


def test_zipf_instance():
    inst = zipf_instance(500, k=50, exponent=1.8, max_size=200, seed=1)
    assert inst.sizes.max() <= 200 and inst.sizes.min() == 1
    # heavy head: size 1 is the most frequent value
    values, counts = np.unique(inst.sizes, return_counts=True)
    assert values[np.argmax(counts)] == 1
    assert np.array_equal(
        inst.sizes, zipf_instance(500, k=50, exponent=1.8, max_size=200, seed=1).sizes
    )
    with pytest.raises(ValueError, match=r"`exponent` must be a number > 1, got 1"):
        zipf_instance(5, k=2, exponent=1)


# -- 3-Partition ------------------------------------------------------------------------------
@pytest.mark.parametrize(("m", "B", "seed"), [(1, 9, 0), (3, 40, 1), (5, 100, 2), (4, 13, 3)])
def test_planted_three_partition(m, B, seed):
    inst, meta = planted_three_partition(m, B=B, seed=seed)
    x = inst.sizes
    assert inst.n == 3 * m and inst.k == B and inst.total == m * B
    assert np.all(4 * x > B) and np.all(2 * x < B)
    assert meta["optimum"] == B and meta["family"] == "bc-3partition-yes"
    check = verify(inst, meta["planted"])
    assert check.cost == B and check.n_bins == m
    assert np.bincount(meta["planted"]).tolist() == [3] * m


@pytest.mark.parametrize("B", [4, 5, 8])
def test_planted_bad_B(B):
    with pytest.raises(ValueError, match=rf"`B` must admit three integers .* got B={B}"):
        planted_three_partition(2, B=B)


@pytest.mark.parametrize(("m", "B", "seed"), [(2, 41, 0), (4, 101, 1), (6, 51, 2)])
def test_three_partition_no_instance(m, B, seed):
    inst, meta = three_partition_no_instance(m, B=B, seed=seed)
    x = inst.sizes
    assert inst.n == 3 * m and inst.k == B and inst.total == m * B
    assert np.all(4 * x > B) and np.all(2 * x < B) and np.all(x % 2 == 0)
    assert all(sum(t) != B for t in combinations(x.tolist(), 3))
    assert meta["optimum_lower_bound"] == -(-m * B // (m - 1)) > B


def test_three_partition_no_instance_errors():
    with pytest.raises(ValueError, match=r"`m` must be even"):
        three_partition_no_instance(3, B=41)
    with pytest.raises(ValueError, match=r"`m` must be an integer >= 2, got 1"):
        three_partition_no_instance(1, B=41)
    with pytest.raises(ValueError, match=r"`B` must be odd"):
        three_partition_no_instance(2, B=40)
    with pytest.raises(ValueError, match=r"`B` must admit even sizes"):
        three_partition_no_instance(2, B=9)


# -- census -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("dataset", "n", "first", "size"),
    [
        ("FEMALE-1990", 4275, "MARY", 2629),
        ("MALE-1990", 1219, "JAMES", 3318),
        ("LAST-1990", 18839, "SMITH", 1006),
    ],
)
def test_census_names(dataset, n, first, size):
    names, sizes = census_names(dataset)
    assert len(names) == sizes.size == n
    assert names[0] == first and sizes[0] == size
    assert sizes.min() >= 1 and np.all(np.diff(sizes) <= 0)  # file order: decreasing


def test_census_filter_and_instance():
    names, sizes = census_names("LAST-1990", min_frequency=0.01)
    assert sizes.min() >= 10 and len(names) < 18839
    inst = census_instance("MALE-1990", k=5000)
    assert inst.k == 5000 and inst.n == 1219 and inst.names is None
    named = census_instance("MALE-1990", k=5000, with_names=True)
    assert named.names[:2] == ("JAMES", "JOHN")
    assert set(CENSUS_FILES) == {"FEMALE-1990", "MALE-1990", "LAST-1990"}


def test_census_errors():
    with pytest.raises(ValueError, match=r"`dataset` must be one of .* got 'X'"):
        census_names("X")
    with pytest.raises(ValueError, match=r"`min_frequency` must be a finite number, got '0\.1'"):
        census_names("MALE-1990", min_frequency="0.1")
    with pytest.raises(ValueError, match=r"`k` must be an integer >= 1, got 0"):
        census_instance("MALE-1990", k=0)
