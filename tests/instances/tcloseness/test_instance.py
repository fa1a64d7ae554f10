"""Tests of instances/tcloseness/instance.py: validation, the JSON round trip and the verifier."""

import numpy as np
import pytest
from bruteforce_tcloseness import emd, make

from anonratio.instances import (
    InfeasibleSolutionError,
    InstanceFormatError,
    Table,
    instance_from_dict,
    instance_id,
    instance_to_dict,
    verify,
)
from anonratio.instances.io import load_instance, save_instance
from anonratio.instances.tcloseness import TClosenessInstance, random_instance

CODES = [[0, 0], [0, 1], [1, 0], [1, 1]]


def test_the_problem_is_registered_and_round_trips(tmp_path):
    inst, meta = random_instance(12, d=2, cardinality=3, m=3, t=0.3, k=2, ground="ordered", seed=4)
    d = instance_to_dict(inst)
    assert d["problem"] == "t-closeness"
    back = instance_from_dict(d)
    assert isinstance(back, TClosenessInstance)
    assert instance_id(back) == instance_id(inst) and back.params == inst.params
    path = tmp_path / "inst.json"
    save_instance(path, inst, meta=meta)
    loaded, _ = load_instance(path)
    assert instance_id(loaded) == instance_id(inst)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"t": 1.5}, "`t` must be a number in [0, 1], got 1.5"),
        ({"t": -0.1}, "`t`"),
        ({"k": 0}, "`k` must be an integer in [1, n=4], got 0"),
        ({"k": 5}, "`k` must be an integer in [1, n=4], got 5"),
        ({"ground": "manhattan"}, "`ground`"),
    ],
)
def test_bad_parameters_raise_value_errors_naming_them(kwargs, message):
    args = {"t": 0.2, "k": 1, "ground": "equal", **kwargs}
    with pytest.raises(ValueError) as err:
        make(CODES, [0, 1, 0, 1], args["t"], args["k"], args["ground"])
    assert message in str(err.value)


def test_a_table_without_sensitive_column_is_refused():
    table = Table(CODES, ["a", "b"], [["x", "y"], ["x", "y"]])
    with pytest.raises(InstanceFormatError, match="sensitive attribute"):
        TClosenessInstance(table, 0.2)


def test_a_misspelt_field_in_a_file_is_refused():
    d = instance_to_dict(make(CODES, [0, 1, 0, 1], 0.2))
    d["kk"] = 2
    with pytest.raises(InstanceFormatError, match="unknown field 'kk'"):
        instance_from_dict(d)


def test_verify_counts_stars_and_checks_size_and_closeness():
    inst = make(CODES, [0, 1, 0, 1], t=0.2, k=2)
    # {0,1} and {2,3}: each holds both values (EMD 0), one star column each: 2 + 2 stars
    ok = verify(inst, [0, 0, 1, 1])
    assert ok.feasible and ok.cost == 4.0 and ok.n_groups == 2 and ok.largest_emd == 0.0
    # {0,2} and {1,3}: one value each, EMD 1/2 > 0.2
    bad = verify(inst, [0, 1, 0, 1], strict=False)
    assert not bad.feasible and "not 0.2-close" in bad.violations[0]
    with pytest.raises(InfeasibleSolutionError):
        verify(inst, [0, 1, 0, 1])
    small = verify(inst, [0, 0, 0, 1], strict=False)
    assert any("fewer than k = 2" in v for v in small.violations)
    assert not verify(inst, [0, 0, -1, 1], strict=False).feasible


def test_the_whole_table_as_one_group_is_always_feasible():
    for seed in range(5):
        inst, _ = random_instance(20, d=3, cardinality=4, m=5, t=0.0, k=20, skew=2.0, seed=seed)
        check = verify(inst, np.zeros(20, dtype=int))
        assert check.feasible and check.largest_emd == 0.0


@pytest.mark.parametrize("ground", ["equal", "ordered"])
def test_the_emd_is_the_privacy_models(ground):
    rng = np.random.default_rng(3)
    s = rng.integers(0, 4, size=9)
    inst = make(rng.integers(0, 2, size=(9, 2)), s, 0.5, ground=ground, n_values=4)
    labels = np.array([0, 0, 0, 1, 1, 1, 2, 2, 2])
    expected = max(emd(s[labels == g], s, 4, ground) for g in range(3))
    assert verify(inst, labels, strict=False).largest_emd == pytest.approx(expected)
