"""Tests of solvers/clustering/event_scan.py: the batched pass over neighbour rows finds, bit for
bit, the earliest openings the one-center pass of dual_events.py finds (Procedure 1 of Aggarwal
et al., PODS 2006, §3), and its lower bound beyond the rows is the one-center bound."""

import numpy as np
import pytest

from anonratio.instances.clustering import CellularInstance
from anonratio.solvers.clustering import event_scan
from anonratio.solvers.clustering.dual_events import _Events
from anonratio.solvers.clustering.dual_growth import growth_cap


def mid_run_state(seed, metric="euclidean", lam=0.0, m=1):
    """An event simulation stopped in a random state: points unassigned, idle or dead with
    duals up to the time (ties among them), clusters shut at random."""
    rng = np.random.default_rng(seed)
    n = 300
    pts = np.round(rng.random((n, 2)) * 12) / 12 if seed % 2 else rng.random((n, 2))
    if metric == "hamming":
        pts = rng.integers(0, 3, (n, 3))
    inst = CellularInstance(
        pts, rng.random(n) * (3.0 if metric == "hamming" else 0.3), metric=metric
    )
    facility = inst.facility
    ev = _Events(inst.distances, facility, lam, m, growth_cap(inst.distances, facility, lam, m))
    ev.t = t = 1.5 if metric == "hamming" else 0.15  # distances of hamming are counts
    ev.rows.ensure(np.arange(n), 4 * t / 3)
    state = rng.integers(0, 3, n)
    alpha = np.where(state > 0, np.round(rng.random(n) * t * 8) / 8, 0.0)
    for j in range(n):
        ev.state[j], ev.alpha[j] = int(state[j]), float(alpha[j])
    for v in range(n):
        shut = ev.rows.view(v)[2]
        shut[rng.random(shut.size) < 0.2] = True
    return ev


@pytest.mark.parametrize(
    ("seed", "metric", "lam", "m"),
    [
        (0, "euclidean", 0.0, 1),
        (1, "euclidean", 0.0, 1),
        (2, "manhattan", 2.0, 3),
        (3, "euclidean", 1.0, 2),
        (4, "hamming", 0.0, 1),
    ],
)
def test_batched_pass_finds_the_one_center_openings(seed, metric, lam, m, monkeypatch):
    ev = mid_run_state(seed, metric, lam, m)
    centers = np.random.default_rng(seed).permutation(ev.n)[:200]
    state = np.frombuffer(ev.state, dtype=np.uint8)
    alpha = np.frombuffer(ev.alpha, dtype=float)
    scans = [event_scan.scan_rows(ev.rows, centers, state, alpha, (ev.facility, lam), m, ev.t)]
    monkeypatch.setattr(event_scan, "CELLS", 64)  # many rectangles of rows
    scans.append(event_scan.scan_rows(ev.rows, centers, state, alpha, (ev.facility, lam), m, ev.t))
    monkeypatch.setattr(event_scan, "COMPARE", 0)  # row positions through ranks
    scans.append(event_scan.scan_rows(ev.rows, centers, state, alpha, (ev.facility, lam), m, ev.t))
    decided = 0
    for i, v in enumerate(centers.tolist()):
        best, k, done = ev._scan(v)
        for scan in scans:
            assert (scan.best[i], scan.k[i], scan.decided[i]) == (best, k, done)
        decided += done
    assert 0 < decided < centers.size and np.isfinite(scans[0].best).sum() > 10


def test_bound_beyond_the_rows_is_the_one_center_bound():
    ev = mid_run_state(5)
    ev.t = 0.01  # rows complete beyond the time
    centers = np.arange(0, ev.n, 3)
    centers = centers[ev.rows.bound[centers] < np.inf]  # complete rows need no bound
    bound = ev.rows.bound[centers]
    batched = ev._unlisted_bounds(centers, bound)
    alone = [
        ev._unlisted_bound(v, b) for v, b in zip(centers.tolist(), bound.tolist(), strict=True)
    ]
    assert batched.tolist() == alone and np.isfinite(batched).all()
