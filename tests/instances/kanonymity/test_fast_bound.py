"""The fast k-anonymity lower bound (forced generalization levels) never exceeds the optimum."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.bench.registry import REGISTRY
from anonratio.instances import KAnonymityInstance, lower_bound, random_table, verify
from anonratio.instances.base import fast_lower_bound


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    n=st.integers(4, 14),
    m=st.integers(1, 4),
    k=st.integers(2, 4),
    model=st.sampled_from(["generalization", "suppression"]),
    deletion=st.booleans(),
    seed=st.integers(0, 10_000),
)
def test_the_fast_bound_is_valid(n, m, k, model, deletion, seed):
    table = random_table(n, m, cardinality=(2, 5), levels=(1, 3), seed=seed)
    instance = KAnonymityInstance(table, min(k, n), model, deletion)
    exact = REGISTRY["kanon-highs"].run(instance, seed=0, time_limit=60.0)
    assert exact.status == "optimal"
    value, source = fast_lower_bound(instance)
    assert source == "forced-levels" and value >= 0
    assert value <= verify(instance, exact).cost + 1e-9


def test_a_hand_checked_table():
    # k = 2, suppression: records 0 and 1 are identical and their values are held twice, so
    # nothing is forced on them; record 2's values are each held once (< k): both its cells
    codes = np.array([[0, 0], [0, 0], [1, 1]])
    table = random_table(3, 2, cardinality=(2, 2), levels=(1, 1), seed=0)
    table = type(table)(codes, table.attributes, table.values)
    instance = KAnonymityInstance(table, 2, "suppression")
    assert fast_lower_bound(instance) == (2.0, "forced-levels")
    assert fast_lower_bound(instance)[0] <= lower_bound(instance)[0]
