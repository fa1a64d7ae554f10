"""Tests of instances/tcloseness/bound.py: the cheap lower bound is valid and non-trivial."""

import numpy as np
import pytest
from bruteforce_tcloseness import make, tables, tcloseness_optimum
from hypothesis import given, settings

from anonratio.instances import lower_bound
from anonratio.instances.tcloseness import forced_groups, nearest_emd


@settings(max_examples=150, deadline=None, derandomize=True)
@given(tables(max_n=6))
def test_the_bound_never_exceeds_the_brute_force_optimum(inst):
    value, _ = lower_bound(inst)
    optimum, _ = tcloseness_optimum(inst)
    assert 0 <= value <= optimum


def test_single_records_are_forced_when_k_is_two():
    inst = make([[0], [1], [2], [2]], [0, 1, 0, 1], t=1.0, k=2)
    assert forced_groups(inst).tolist() == [True, True, False]
    assert lower_bound(inst)[0] == 2.0


def test_groups_missing_too_much_mass_are_forced():
    # prior (1/3, 2/3): a QI-group holding only value 0 is at EMD 2/3 > t from it whatever its
    # size, one holding only value 1 at EMD 1/3 <= t
    inst = make([[0], [0], [1], [1], [1], [1]], [0, 0, 1, 1, 1, 1], t=0.4)
    assert forced_groups(inst).tolist() == [True, False]
    # the two forced records are in one QI-group: their starred group needs a third record
    assert lower_bound(inst)[0] == 3.0


@pytest.mark.parametrize(
    "present, expected",
    [([1, 0, 0, 0, 1], (0 + 1 + 2 + 1 + 0) / 4 / 5), ([0, 0, 1, 0, 0], (2 + 1 + 0 + 1 + 2) / 20)],
)
def test_ordered_nearest_emd_moves_mass_to_the_nearest_present_value(present, expected):
    prior = np.full(5, 0.2)
    got = nearest_emd(np.array([present], dtype=bool), prior, "ordered")
    assert got[0] == pytest.approx(expected)
