"""Incognito's optimum against brute force, with the metric the published table reports.

The lattice computes each metric from a node's frequency set; the report computes it from the
published table (:mod:`anonratio.instances.kanonymity.metrics`). The node Incognito returns must be
the best of all lattice nodes under the reported metric, on hierarchies with every shape a user
may give: levels that repeat the one below, and intermediate levels that are already one group.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.instances import KAnonymityInstance, Table
from anonratio.instances.kanonymity import metrics
from anonratio.instances.kanonymity.recoding import Recoding
from anonratio.instances.table import Hierarchy
from anonratio.solvers.kanonymity.full_domain import NODE_METRICS, max_suppressed
from anonratio.solvers.kanonymity.incognito import incognito
from anonratio.solvers.kanonymity.samarati import samarati

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True)


def _chain_hierarchy(rng: np.random.Generator, n_values: int, height: int) -> Hierarchy:
    """A random hierarchy: each level merges the groups of the one below at random (possibly
    none, possibly all: a level may repeat the one below or already be a single group)."""
    cols = [np.arange(n_values)]
    for _ in range(height - 1):
        prev = cols[-1]
        n_prev = int(prev.max()) + 1
        target = rng.integers(0, int(rng.integers(1, n_prev + 1)), n_prev)
        _, merged = np.unique(target[prev], return_inverse=True)
        cols.append(merged.reshape(-1))
    cols.append(np.zeros(n_values, dtype=np.int64))
    groups = np.column_stack(cols)
    labels = [tuple(f"L{t}g{g}" for g in range(int(c.max()) + 1)) for t, c in enumerate(cols)]
    labels[0] = tuple(f"v{v}" for v in range(n_values))
    return Hierarchy(groups, tuple(labels))


def _table(seed: int, n: int, m: int) -> Table:
    rng = np.random.default_rng(seed)
    hierarchies, values, codes = [], [], []
    for _ in range(m):
        c = int(rng.integers(2, 5))
        h = _chain_hierarchy(rng, c, int(rng.integers(1, 4)))
        hierarchies.append(h)
        values.append(h.labels[0])
        codes.append(rng.integers(0, c, n))
    names = tuple(f"a{j}" for j in range(m))
    return Table(np.column_stack(codes), names, tuple(values), tuple(hierarchies))


def _published(instance: KAnonymityInstance, levels, max_sup: int) -> Recoding | None:
    """Brute force: the table published at ``levels`` (classes below k suppressed), or None
    when that suppresses more than ``max_sup`` tuples."""
    t = instance.table
    keys = np.column_stack(
        [instance.hierarchies[j].groups[t.codes[:, j], lv] for j, lv in enumerate(levels)]
    )
    _, cls, sizes = np.unique(keys, axis=0, return_inverse=True, return_counts=True)
    suppressed = sizes[cls.reshape(-1)] < instance.k
    if suppressed.sum() > max_sup:
        return None
    return Recoding.full_domain(t, levels, suppressed, hierarchies=instance.hierarchies)


def _brute_force_optimum(instance: KAnonymityInstance, metric: str, max_sup: int) -> float:
    heights = [h.height for h in instance.hierarchies]
    grids = np.meshgrid(*[np.arange(h + 1) for h in heights], indexing="ij")
    best = np.inf
    for levels in np.column_stack([g.reshape(-1) for g in grids]):
        rec = _published(instance, levels, max_sup)
        if rec is not None:
            best = min(best, metrics.METRICS[metric](rec))
    return best


def test_stars_count_an_intermediate_level_that_is_one_group():
    """v -> V -> any -> *: the level ``any`` publishes one group, a star in every cell; suppressing
    the lone ``w`` (one star) beats generalizing all seven cells to ``any``."""
    groups = np.array([[0, 0, 0, 0], [1, 1, 0, 0], [2, 2, 0, 0], [3, 3, 0, 0]])
    h = Hierarchy(groups, (("x", "y", "z", "w"), ("X", "Y", "Z", "W"), ("any",), ("*",)))
    table = Table(np.array([[0], [0], [1], [1], [2], [2], [3]]), ("a",), (h.labels[0],), (h,))
    inst = KAnonymityInstance(table, 2, "generalization", True)
    for f in (incognito, samarati):
        sol = f(inst, max_suppression=0.15, metric="stars")
        assert sol.info["levels"] == {"a": 0} and sol.info["suppressed"] == 1
        assert sol.info["metric_value"] == metrics.stars(sol.info["recoding"]) == 1.0
    # without suppression the level `any` is as starred as the top: the lower one is returned
    sol = incognito(inst, metric="stars")
    assert sol.info["levels"] == {"a": 2} and sol.info["metric_value"] == 7.0
    assert metrics.stars(sol.info["recoding"]) == 7.0


@SETTINGS
@given(
    st.integers(0, 10_000),
    st.integers(4, 14),
    st.integers(1, 3),
    st.integers(2, 3),
    st.sampled_from([0.0, 0.15, 0.3]),
)
def test_incognito_optimum_equals_brute_force_for_every_metric(seed, n, m, k, sup):
    inst = KAnonymityInstance(_table(seed, n, m), min(k, n), "generalization", sup > 0)
    max_sup = max_suppressed(sup, n)
    for metric in NODE_METRICS:
        sol = incognito(inst, max_suppression=sup, metric=metric)
        reported = metrics.METRICS[metric](sol.info["recoding"])
        assert sol.info["metric_value"] == pytest.approx(reported, rel=1e-9, abs=1e-9), metric
        best = _brute_force_optimum(inst, metric, max_sup)
        assert reported == pytest.approx(best, rel=1e-9, abs=1e-9), metric
