"""Tests of exact/tcloseness/patterns.py: the integral closeness test is the verifier's."""

import itertools
from fractions import Fraction

import numpy as np
import pytest

from anonratio.exact.tcloseness import solve_cpsat
from anonratio.exact.tcloseness.patterns import MAX_PAIRS, build_data, closeness_fraction
from anonratio.instances.tcloseness import random_instance


@pytest.mark.parametrize("t", [0.0, 0.1, 0.2, 1 / 3, 0.25, 0.7, 1.0])
@pytest.mark.parametrize("ground", ["equal", "ordered"])
def test_the_fraction_accepts_what_the_verifier_accepts(t, ground):
    inst, _ = random_instance(9, d=1, cardinality=2, m=3, t=t, ground=ground, seed=1)
    data = build_data(inst)
    a, b = data.fraction.numerator, data.fraction.denominator
    n, totals = inst.n, inst.counts
    for hist in itertools.product(range(4), repeat=3):
        hist = np.array(hist)
        size = int(hist.sum())
        if size == 0 or np.any(hist > 9):
            continue
        if ground == "equal":
            gap = int(np.abs(n * hist - totals * size).sum())
        else:
            gap = int(np.abs(n * np.cumsum(hist) - np.cumsum(totals) * size)[:-1].sum())
        model = b * gap <= a * data.scale * size
        assert model == bool(inst.model.passes(np.array([size]), hist[None, :], inst.prior)[0])


def test_the_fraction_is_the_largest_below_the_threshold():
    f = closeness_fraction(0.3, 5, 10)
    assert f == Fraction(3, 10)
    assert closeness_fraction(0.0, 5, 10) == 0


def test_a_model_too_large_returns_the_start_with_memory_limit(monkeypatch):
    from anonratio.exact.tcloseness import patterns

    monkeypatch.setattr(patterns, "MAX_PAIRS", 4)
    inst, _ = random_instance(12, d=3, cardinality=3, m=2, t=0.3, seed=0)
    sol = solve_cpsat(inst, time_limit=5)
    assert sol.status == "memory_limit" and sol.objective == sol.info["start_cost"]
    assert MAX_PAIRS > 4
