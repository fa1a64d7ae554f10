"""The cost a k-anonymity solver reports from its own groups equals the verifier's, exactly."""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.instances import KAnonymityInstance, verify
from anonratio.instances.kanonymity.generators import random_table
from anonratio.instances.kanonymity.instance import group_levels
from anonratio.solvers.kanonymity.group_objective import (
    generalization_cost,
    groups_cost,
    member_levels,
)


def _instance(seed, model):
    table = random_table(30, 4, cardinality=(3, 6), levels=(1, 3), seed=seed)
    weights = np.random.default_rng(seed).uniform(0.2, 3.0, table.n_attributes)
    return KAnonymityInstance(dataclasses.replace(table, weights=weights), 3, model)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(st.integers(0, 10_000), st.sampled_from(["suppression", "generalization"]))
def test_groups_cost_is_the_verified_cost(seed, model):
    inst = _instance(seed, model)
    rng = np.random.default_rng(seed)
    labels = rng.permutation(np.arange(inst.n) % 7)  # 7 groups of 4 or 5 records
    groups = [np.flatnonzero(labels == g) for g in range(7)]
    assert groups_cost(inst, groups) == verify(inst, labels).cost
    _, sizes, levels = group_levels(inst, labels)
    np.testing.assert_array_equal(member_levels(inst, labels, np.arange(inst.n), 7), levels)
    assert generalization_cost(inst, sizes, levels) == verify(inst, labels).cost


def test_members_on_unique_records_and_repeated_pairs():
    inst = _instance(3, "generalization")
    unique, inverse, _ = inst.unique_records
    labels = np.arange(inst.n) % 5
    # the same groups described on unique records, each pair listed twice
    pairs = np.unique(np.column_stack([labels, inverse]), axis=0)
    twice = np.concatenate([pairs, pairs])
    levels = member_levels(inst, twice[:, 0], twice[:, 1], 5, codes=unique)
    np.testing.assert_array_equal(levels, group_levels(inst, labels)[2])


def test_every_group_needs_a_member():
    inst = _instance(0, "suppression")
    with pytest.raises(ValueError, match=r"`group` must name every group in 0\.\.2 at least once"):
        member_levels(inst, [0, 0, 2], [0, 1, 2], 3)
    assert member_levels(inst, [], [], 0).shape == (0, inst.table.n_attributes)
