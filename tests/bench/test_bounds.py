"""Tests of the instance bound at the effort a caller asks for (anonratio.bench.engine.bounds)."""

import pytest

from anonratio.bench.engine import bounds
from anonratio.bench.engine.bounds import BOUNDS, check_bound, clear_cache, instance_bound
from anonratio.bench.engine.runner import run_record
from anonratio.bench.registry import REGISTRY, generate
from anonratio.instances import instance_id, lower_bound, verify
from anonratio.instances.base import fast_lower_bound


def _kanon(seed=0):
    return generate("kanon-random", seed=seed, n=24, m=4, k=3)[0]


def test_each_effort_is_valid_and_stronger_than_the_cheaper_one():
    instance = _kanon()
    optimum = verify(instance, REGISTRY["kanon-highs"].run(instance, seed=0, time_limit=60)).cost
    values = {b: instance_bound(instance, b, time_limit=20)[:2] for b in BOUNDS}
    assert values["none"] == (0.0, "none")
    assert values["fast"] == fast_lower_bound(instance)
    assert values["default"] == lower_bound(instance)
    assert values["strong"][1].startswith("strong: ") or values["strong"] == values["default"]
    chain = [values[b][0] for b in BOUNDS]
    assert chain == sorted(chain) and chain[-1] <= optimum + 1e-9


def test_a_problem_without_a_strong_bound_gives_its_default_one():
    instance = generate("zip-delaunay", seed=0, n=12, k=10)[0]
    assert instance_bound(instance, "strong")[:2] == lower_bound(instance)


def test_the_bound_is_kept_for_the_instance_content(monkeypatch):
    instance = _kanon()
    key = instance_id(instance)
    value, source, spent = instance_bound(instance, "default", key=key)
    calls = []
    monkeypatch.setattr(bounds, "lower_bound", lambda inst: calls.append(1) or (0.0, "x"))
    assert instance_bound(instance, "default", key=key) == (value, source, 0.0)
    assert calls == []
    clear_cache()
    assert instance_bound(instance, "default", key=key)[:2] == (0.0, "x") and calls == [1]


def test_a_run_records_its_bound_effort_and_time():
    instance = _kanon(1)
    fast = run_record(instance, "mondrian", bound="fast")
    none = run_record(instance, "mondrian", bound="none")
    assert fast.run_lower_bound_source == "forced-levels" and fast.bound_time_s >= 0
    assert none.run_lower_bound == 0.0 and none.run_lower_bound_source == "none"
    assert fast.cost == none.cost


def test_an_unknown_effort_is_refused_naming_it():
    with pytest.raises(ValueError, match="`bound` must be one of"):
        check_bound("cheap")
    with pytest.raises(ValueError, match="`--bound`"):
        check_bound("lp", "--bound")
    with pytest.raises(ValueError, match="`bound`"):
        run_record(_kanon(), "forest", bound="best")
