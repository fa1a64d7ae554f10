"""Tests of solvers/clustering/dual_events.py and neighbour_rows.py, through primal_dual.py: the
event simulation of Procedure 1 (Aggarwal et al., PODS 2006, §3) over neighbour rows grown on
demand gives, bit for bit, the clusters and duals of dual_growth.py's simulation over all the
pairs within the largest radius, without building those pairs."""

import itertools
import tomllib
from pathlib import Path

import numpy as np
import pytest

from anonratio.bench.registry import generate
from anonratio.instances.clustering import CellularInstance
from anonratio.instances.clustering.metric import PointMetric
from anonratio.solvers.clustering import dual_events, dual_growth, neighbour_rows
from anonratio.solvers.clustering.dual_events import grow_duals_by_events
from anonratio.solvers.clustering.dual_growth import grow_duals
from anonratio.solvers.clustering.neighbour_rows import RowStore
from anonratio.solvers.clustering.primal_dual import cellular_cost, growth_clustering, primal_dual

STUDIES = Path(__file__).resolve().parents[3] / "bench" / "studies"


def suite_cases(max_n=2000):
    """Every (r-)cellular instance of the quick and clustering studies with at most ``max_n``
    points: ``(family, seed, params)``."""
    cases = []
    for name in ("quick.toml", "clustering.toml"):
        study = tomllib.loads((STUDIES / name).read_text())
        for sweep in study.get("sweep", []):
            family = sweep["family"]
            if not family.startswith(("cellular-", "rcellular-")):
                continue
            grid = sweep.get("grid", {})
            for combo in itertools.product(*grid.values()):
                params = dict(zip(grid, combo, strict=True))
                if params.get("n", 0) > max_n:
                    continue
                cases += [(family, seed, params) for seed in sweep["seeds"]]
    return cases


def assert_same_growth(metric, facility, lam=0.0, m=1):
    """The reference simulation and the event simulation agree exactly."""
    ref = grow_duals(metric, facility, lam=lam, min_members=m)
    new = grow_duals_by_events(metric, facility, lam=lam, min_members=m)
    for name in ("labels", "centers", "radii", "times", "alpha"):
        np.testing.assert_array_equal(getattr(new, name), getattr(ref, name), err_msg=name)
    assert new.events == ref.events and new.dual == ref.dual
    return ref, new


SUITE = suite_cases()


def test_the_suites_have_cellular_instances():
    families = {family for family, _, _ in SUITE}
    assert {"cellular-uniform", "cellular-gaussian", "rcellular-uniform"} <= families
    assert len(SUITE) >= 60


@pytest.mark.parametrize(("family", "seed", "params"), SUITE, ids=str)
def test_same_clusters_as_all_pairs_growth_on_suite_instances(family, seed, params):
    inst, _ = generate(family, seed=seed, **params)
    if family.startswith("rcellular-"):  # §3.1's augmented instance, as r_cellular runs it
        assert_same_growth(inst.distances, inst.facility, lam=float(inst.r), m=inst.r)
        return
    ref, _ = assert_same_growth(inst.distances, inst.facility)
    labels, centers, _ = growth_clustering(ref)
    cost, _ = cellular_cost(inst, labels, centers)
    sol = primal_dual(inst)
    assert sol.labels.tolist() == labels.tolist() and sol.info["centers"] == centers.tolist()
    assert sol.objective == cost and sol.info["dual"] == ref.dual


def random_instance(seed):
    """Seeded instances of every metric, with ties (a grid), duplicates and all kinds of
    setup costs."""
    rng = np.random.default_rng(seed)
    n, dim = int(rng.integers(2, 250)), int(rng.integers(1, 4))
    metric = ("euclidean", "manhattan", "hamming", "precomputed")[seed % 4]
    if metric == "hamming":
        pts = rng.integers(0, 3, (n, dim))
    else:
        pts = rng.random((n, dim))
        if seed % 5 == 0:
            pts = np.round(pts * 4) / 4  # ties and duplicates
        if metric == "precomputed":
            pts = PointMetric(pts, "manhattan").dense()
    scale = float(rng.choice([0.01, 0.1, 1.0, 10.0]))
    f = (rng.random(n) * scale, np.full(n, scale), np.zeros(n))[seed % 3]
    return CellularInstance(pts, f, metric=metric)


@pytest.mark.parametrize("seed", range(48))
def test_same_clusters_as_all_pairs_growth_on_random_instances(seed):
    inst = random_instance(seed)
    assert_same_growth(inst.distances, inst.facility)
    rng = np.random.default_rng(seed)  # and the augmented setup of r-cellular clustering
    m = int(rng.integers(1, min(inst.n, 6) + 1))
    assert_same_growth(inst.distances, inst.facility, lam=float(rng.integers(1, 4)), m=m)


@pytest.mark.slow
@pytest.mark.parametrize(("n", "scale"), [(3000, 0.05), (2000, 1.0), (1500, 0.0)])
def test_same_clusters_as_all_pairs_growth_on_thousands_of_points(n, scale):
    rng = np.random.default_rng(n)
    inst = CellularInstance(rng.random((n, 2)), rng.random(n) * scale)
    assert_same_growth(inst.distances, inst.facility)


def test_no_list_of_all_pairs_and_no_dense_matrix(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("built all the pairs within a radius")

    monkeypatch.setattr(dual_growth, "neighbour_lists", refuse)
    for name in ("block", "dense", "within", "candidate_distances"):
        monkeypatch.setattr(PointMetric, name, refuse)
    rng = np.random.default_rng(5)
    n = 4000
    inst = CellularInstance(rng.random((n, 2)), rng.random(n) * 0.05)
    sol = primal_dual(inst)
    assert sol.info["n_opened"] > 1 and sol.objective <= 4 * sol.info["dual"] + 1e-9


def test_rows_grow_on_demand_and_stay_complete():
    rng = np.random.default_rng(6)
    pts = np.round(rng.random((300, 2)) * 8) / 8  # many equal distances
    metric = PointMetric(pts, "euclidean")
    rows = RowStore(metric, t_max=0.5, min_len=1)
    assert np.all(rows.length >= 1) and rows.extensions == 0
    v = 17
    rows.view(v)[2][0] = True
    length = int(rows.length[v])
    rows.ensure(np.array([v]), 0.3)
    assert rows.bound[v] > 0.3 and rows.extensions >= 1 and rows.length[v] > length
    nbr, dst = rows.row(v)
    full = metric.pairs(v, np.arange(300))
    listed = np.flatnonzero(full < rows.bound[v])  # complete below the bound ...
    listed = listed[full[listed] <= 0.5]  # ... up to t_max, nearest first, ties by index
    order = listed[np.lexsort((listed, full[listed]))]
    assert nbr.tolist() == order.tolist() and dst.tolist() == full[order].tolist()
    assert rows.view(v)[2][0] and not rows.view(v)[2][1:].any()
    rows.ensure(np.array([v]), 10.0)  # beyond t_max: the whole row up to t_max
    assert rows.bound[v] == np.inf and rows.row(v)[1].max() <= 0.5


@pytest.mark.parametrize("metric", ["euclidean", "hamming"])
def test_same_clusters_with_rows_spread_over_many_chunks(monkeypatch, metric):
    monkeypatch.setattr(neighbour_rows, "CHUNK", 64)  # chunks of n + 1 entries
    rng = np.random.default_rng(7)
    pts = rng.random((300, 2)) if metric == "euclidean" else rng.integers(0, 4, (300, 3))
    inst = CellularInstance(pts, rng.random(300) * 0.2, metric=metric)
    _, new = assert_same_growth(inst.distances, inst.facility)
    assert len(new.rows.dsts) > 1


@pytest.mark.parametrize("metric", ["euclidean", "manhattan"])
def test_one_row_lengthened_alone_as_in_a_batch(metric):
    """ensure_one writes, step by step, the rows, bounds and shut marks ensure writes (rows of
    KD-tree metrics; the others are listed whole from the start)."""
    rng = np.random.default_rng(9)
    pts = np.round(rng.random((400, 2)) * 9) / 9  # ties at the rows' ends
    stores = [RowStore(PointMetric(pts, metric), t_max=0.8, min_len=1) for _ in range(2)]
    for v, radius in [(3, 0.05), (3, 0.2), (50, 0.4), (7, 5.0), (50, 0.6)]:
        for rows in stores:
            rows.view(v)[2][: int(rows.length[v]) // 2] = True  # shut marks carry over
        stores[0].ensure(np.array([v]), radius)
        stores[1].ensure_one(v, radius)
        a, b = stores
        assert a.bound[v] == b.bound[v] and a.asked[v] == b.asked[v] and a.bound[v] > radius
        for x, y in zip(a.view(v), b.view(v), strict=True):
            assert x.tolist() == y.tolist()
    assert stores[0].extensions == stores[1].extensions > 0


@pytest.mark.parametrize("metric", ["euclidean", "manhattan", "hamming"])
def test_rows_lengthened_together_stay_complete_in_fewer_steps(metric):
    """ensure_each makes each row complete beyond its own radius (every point below its bound,
    nearest first, ties by index, shut marks of its old prefix kept; rows long enough left
    alone), in fewer steps than ensure_one takes for a row that must reach far."""
    rng = np.random.default_rng(12)
    if metric == "hamming":
        pts = rng.integers(0, 3, (400, 3))
    else:
        pts = np.round(rng.random((400, 2)) * 9) / 9
    metric_ = PointMetric(pts, metric)
    stores = [RowStore(metric_, t_max=0.8, min_len=1) for _ in range(2)]
    marks = {}
    for rows in stores:
        rows.ensure(np.array([5]), 0.1)  # rows of different lengths
        for v in (3, 5, 50):
            rows.view(v)[2][: int(rows.length[v]) // 2] = True
            marks[v] = rows.view(v)[2].tolist()
    before = stores[0].view(9)[0].tolist()
    centers, radii = np.array([3, 5, 50, 7, 9]), np.array([0.05, 0.3, 0.4, 5.0, 0.0])
    stores[0].ensure_each(centers, radii)
    for v, radius in zip(centers.tolist(), radii.tolist(), strict=True):
        stores[1].ensure_one(v, radius)
    rows = stores[0]
    assert np.all((rows.bound[centers] > radii) | (rows.bound[centers] == np.inf))
    for v in centers.tolist():
        nbr, dst = rows.row(v)
        full = metric_.pairs(v, np.arange(400))
        listed = np.flatnonzero((full < rows.bound[v]) & (full <= 0.8))
        order = listed[np.lexsort((listed, full[listed]))]
        assert nbr.tolist() == order.tolist() and dst.tolist() == full[order].tolist()
        if v in marks:
            shut = rows.view(v)[2]
            assert shut[: len(marks[v])].tolist() == marks[v] and not shut[len(marks[v]) :].any()
    assert rows.view(9)[0].tolist() == before  # radius 0: long enough already
    assert rows.extensions <= stores[1].extensions
    if metric == "euclidean":  # row 7 reaches t_max: the density of its row jumps there
        assert rows.extensions < stores[1].extensions


def test_cap_reads_only_the_rows_last_distances(monkeypatch):
    """The largest listed radius comes from each row's last entry, over many chunks, without a
    copy of every listed distance."""
    monkeypatch.setattr(neighbour_rows, "CHUNK", 64)
    rng = np.random.default_rng(10)
    metric = PointMetric(rng.random((500, 2)), "euclidean")
    rows = RowStore(metric, t_max=0.3, min_len=1)
    rows.ensure(np.arange(0, 500, 7), 0.1)
    expect = max(float(rows.row(v)[1][-1]) for v in range(500))
    assert len(rows.dsts) > 1

    def refuse(*args, **kwargs):
        raise AssertionError("copied every listed distance")

    monkeypatch.setattr(RowStore, "distances", refuse)
    assert rows.cap == expect


def test_nearest_unassigned_asked_in_batches_as_one_by_one(monkeypatch):
    """The nearest unassigned points of the centers next in the heap are asked in one query:
    fewer queries than (tree, center) pairs asked, and the very distances one query per center
    gives."""
    sizes = []

    class Counting(dual_events.cKDTree):
        def query(self, x, *args, **kwargs):
            sizes.append(np.atleast_2d(x).shape[0])
            return super().query(x, *args, **kwargs)

    monkeypatch.setattr(dual_events, "cKDTree", Counting)
    pairs = set()
    bound = dual_events._Events._unlisted_bound

    def checking(self, v, b):
        low = bound(self, v, b)
        tree = self._utree
        if v not in self._near:  # nothing left unassigned
            return low
        k = min(dual_events.UNASSIGNED_K, tree.n)
        dist, _ = super(Counting, tree).query(self.metric.points[v], k=k, p=self.metric.p)
        assert self._near[v] == (np.atleast_1d(dist) * (1.0 - neighbour_rows.SLACK)).tolist()
        pairs.add((id(tree), v))
        return low

    monkeypatch.setattr(dual_events._Events, "_unlisted_bound", checking)
    rng = np.random.default_rng(11)
    n = 3000
    inst = CellularInstance(rng.random((n, 2)), rng.random(n) * 0.05)
    grow_duals_by_events(inst.distances, inst.facility)
    assert max(sizes) > 1 and len(sizes) < len(pairs)


def test_rows_due_next_are_lengthened_in_batches(monkeypatch):
    """A pop that must lengthen its row lengthens, in the same KD-tree queries, the rows of the
    next heap entries that stop below the current time: fewer queries than rows lengthened,
    and the clusters of the reference simulation."""
    calls, lengthened = [], []
    write = RowStore._write

    def counting(self, rows, k):
        calls.append(rows.size)
        return write(self, rows, k)

    monkeypatch.setattr(RowStore, "_write", counting)
    rng = np.random.default_rng(13)
    n = 3000
    inst = CellularInstance(rng.random((n, 2)), rng.random(n) * 0.05)
    _, new = assert_same_growth(inst.distances, inst.facility)
    lengthened = sum(calls) - n  # the first rows are written in batches too
    assert new.extensions == lengthened > 0
    assert max(calls[1:]) > 1 and len(calls) < lengthened / 2


def test_first_keys_tightened_in_batches_save_pops(monkeypatch):
    """The first keys (bounds of the first rows) of the next heap entries are tightened in one
    pass when one comes up: the clusters of the reference simulation, with fewer stale pops
    than with every first key popped on its own."""
    rng = np.random.default_rng(14)
    n = 3000  # setup costs for which the first rows (16 neighbours) rarely decide a center
    inst = CellularInstance(rng.random((n, 2)), rng.random(n) * 0.3)
    _, tightened = assert_same_growth(inst.distances, inst.facility)
    monkeypatch.setattr(dual_events, "REFRESH", 0)
    _, alone = assert_same_growth(inst.distances, inst.facility)
    assert tightened.stale_pops < 0.8 * alone.stale_pops


@pytest.mark.parametrize("seed", range(6))
def test_same_clusters_as_all_pairs_growth_where_rows_are_lengthened_and_keys_tightened(seed):
    """Uniform points whose first rows rarely decide a center (rows lengthened in batches,
    first keys tightened together), with and without a cost per unit of radius."""
    rng = np.random.default_rng(100 + seed)
    n = 1500
    inst = CellularInstance(rng.random((n, 2)), rng.random(n) * (0.3 if seed % 2 else 1.0))
    _, new = assert_same_growth(inst.distances, inst.facility, lam=float(seed % 3), m=1 + seed % 4)
    assert new.events > 1
