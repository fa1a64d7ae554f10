"""Helpers of the exact k-anonymity tests: seeded tiny instances and a brute-force optimum.

Exposed through the session fixture ``kx`` (test modules are imported with
``--import-mode=importlib``, so they cannot import this file).
"""

from types import SimpleNamespace

import numpy as np
import pytest
from bruteforce import kanonymity_optimum

from anonratio.instances import Hierarchy, KAnonymityInstance, Table


def random_hierarchy(rng, n_values, height):
    """A random chain of coarsenings: level 0 the values, level ``height`` one group."""
    cols = [np.arange(n_values)]
    for _ in range(height - 1):
        prev = cols[-1]
        n_prev = prev.max() + 1
        parent = rng.integers(0, max(1, n_prev - 1), size=n_prev)  # merge at least two groups
        _, level = np.unique(parent[prev], return_inverse=True)
        cols.append(level)
    cols.append(np.zeros(n_values, dtype=int))
    groups = np.column_stack(cols)
    labels = tuple(
        tuple(f"L{t}_{g}" for g in range(groups[:, t].max() + 1)) for t in range(height + 1)
    )
    return Hierarchy(groups, labels)


def random_instance(
    seed, *, n=None, n_max=8, m=None, k=None, model=None, weighted=None, row_deletion=None
):
    """A tiny instance drawn from ``seed``; unspecified options are drawn too."""
    rng = np.random.default_rng(seed)
    k = k or int(rng.integers(2, 4))
    n = n or int(rng.integers(k, n_max + 1))
    m = m or int(rng.integers(1, 5))
    model = model or ("suppression", "generalization")[int(rng.integers(0, 2))]
    weighted = bool(rng.integers(0, 2)) if weighted is None else weighted
    row_deletion = bool(rng.integers(0, 2)) if row_deletion is None else row_deletion
    n_values = rng.integers(2, 5 if model == "generalization" else 4, size=m)
    codes = np.column_stack([rng.integers(0, v, size=n) for v in n_values])
    values = tuple(tuple(str(x) for x in range(v)) for v in n_values)
    hier = None
    if model == "generalization":
        hier = tuple(random_hierarchy(rng, int(v), int(rng.integers(2, 4))) for v in n_values)
    weights = rng.choice([0.5, 1.0, 2.0, 3.0], size=m) if weighted else None
    table = Table(codes, tuple(f"a{j}" for j in range(m)), values, hier, weights)
    return KAnonymityInstance(table, k, model, row_deletion)


def binary_instance(n, m, k, seed, **kw):
    """Random binary suppression table, as in the measurements."""
    codes = np.random.default_rng(seed).integers(0, 2, size=(n, m))
    table = Table(codes, tuple(f"a{j}" for j in range(m)), (("0", "1"),) * m)
    return KAnonymityInstance(table, k, **kw)


@pytest.fixture(scope="session")
def kx():
    return SimpleNamespace(
        random_instance=random_instance,
        binary_instance=binary_instance,
        brute_force=kanonymity_optimum,
        random_hierarchy=random_hierarchy,
    )
