"""Tests of exact/clustering/deadline.py: the clock is read while a model is built, and a model
too large to load in the time left is refused (no wall-time assertions: past deadlines and
patched rates)."""

import math
from time import perf_counter

import numpy as np
import pytest

from anonratio.exact.clustering import deadline as dl
from anonratio.exact.clustering.candidates import cellular_data, gather_data
from anonratio.instances.clustering import CellularInstance, KRCenterInstance


def test_timed_slices_and_checks_the_clock_before_each_slice():
    assert [list(r) for r in dl.timed(5, math.inf, "counting", step=2)] == [[0, 1], [2, 3], [4]]
    assert list(dl.timed(0, perf_counter() - 1, "counting")) == []  # nothing to build
    with pytest.raises(dl.BuildTimeout, match="the time limit came while counting"):
        next(dl.timed(5, perf_counter() - 1, "counting"))


def test_timed_stops_between_slices(monkeypatch):
    clock = iter([0.0, 0.0, 2.0])
    monkeypatch.setattr(dl, "perf_counter", lambda: next(clock))
    seen = []
    with pytest.raises(dl.BuildTimeout):
        for part in dl.timed(10, 1.0, "building", step=3):
            seen.extend(part)
    assert seen == list(range(6))  # two slices before the clock passed the deadline


def test_estimate_and_check_size():
    assert dl.estimate(10**6, "cpsat", build=True) == pytest.approx(
        10**6 * (dl.BUILD_SECONDS["cpsat"] + dl.LOAD_SECONDS["cpsat"])
    )
    load = dl.estimate(10**6, "highs", build=False)
    assert load == pytest.approx(10**6 * dl.LOAD_SECONDS["highs"])
    dl.check_size(10, "cbc", perf_counter() + 60, build=True)  # fits
    with pytest.raises(dl.BuildTimeout, match=r"a model of 1000000000000 nonzeros needs about"):
        dl.check_size(10**12, "cpsat", perf_counter() + 60, build=False)
    with pytest.raises(dl.BuildTimeout, match="the time limit came while building the model"):
        dl.check_size(1, "cpsat", perf_counter() - 1, build=False)


def test_the_data_builders_stop_at_a_passed_deadline():
    pts = np.random.default_rng(0).random((12, 2))
    past = perf_counter() - 1
    with pytest.raises(dl.BuildTimeout, match="the time limit came while"):
        gather_data(KRCenterInstance(pts, 2, 3), deadline=past)
    with pytest.raises(dl.BuildTimeout, match="the time limit came while"):
        cellular_data(CellularInstance(pts, np.ones(12)), deadline=past)


def test_nonzeros_count_the_model():
    pts = np.random.default_rng(0).random((12, 2))
    data = cellular_data(CellularInstance(pts, np.ones(12)))
    # objective (pairs + clusters), assignment (pairs), links (2 x pairs)
    assert data.nonzeros() == 4 * data.pi.size + data.cv.size
    gdata = gather_data(KRCenterInstance(pts, 2, 3))
    assert gdata.nonzeros() >= 6 * gdata.pi.size
