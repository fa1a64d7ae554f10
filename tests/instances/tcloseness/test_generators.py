"""Tests of instances/tcloseness/generators.py: seeded, valid, skewable, bad input refused."""

import numpy as np
import pytest

from anonratio.instances import instance_id, verify
from anonratio.instances.tcloseness import random_instance


def test_same_seed_same_instance_and_meta():
    a, meta_a = random_instance(40, d=3, cardinality=4, m=5, t=0.3, k=2, skew=1.0, seed=7)
    b, meta_b = random_instance(40, d=3, cardinality=4, m=5, t=0.3, k=2, skew=1.0, seed=7)
    c, _ = random_instance(40, d=3, cardinality=4, m=5, t=0.3, k=2, skew=1.0, seed=8)
    assert instance_id(a) == instance_id(b) != instance_id(c)
    assert meta_a == meta_b and meta_a["t"] == 0.3 and meta_a["k"] == 2


def test_skew_concentrates_the_sensitive_values():
    flat, _ = random_instance(3000, d=1, cardinality=2, m=5, t=0.3, skew=0.0, seed=0)
    steep, _ = random_instance(3000, d=1, cardinality=2, m=5, t=0.3, skew=3.0, seed=0)
    assert np.bincount(steep.sensitive).max() > 2 * np.bincount(flat.sensitive).max()


def test_correlation_ties_the_sensitive_value_to_the_first_column():
    inst, _ = random_instance(500, d=2, cardinality=4, m=4, t=0.3, correlation=1.0, seed=1)
    assert np.array_equal(inst.sensitive, inst.table.codes[:, 0] % 4)
    # the QI-groups of the first column are then far from the table: not 0.3-close
    assert not verify(inst, inst.table.codes[:, 0], strict=False).feasible


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"n": 0}, "`n`"),
        ({"k": 11}, "`k`"),
        ({"t": 2.0}, "`t`"),
        ({"m": 0}, "`m`"),
        ({"skew": -1}, "`skew`"),
        ({"correlation": 1.5}, "`correlation`"),
        ({"ground": "l1"}, "`ground`"),
        ({"seed": -3}, "`seed`"),
    ],
)
def test_bad_input_names_the_parameter(kwargs, name):
    args = {"n": 10, "d": 2, "cardinality": 3, "m": 3, "t": 0.2, "k": 2, **kwargs}
    n = args.pop("n")
    with pytest.raises(ValueError, match=name):
        random_instance(n, **args)
