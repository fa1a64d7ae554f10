"""The box greedy (solvers/kanonymity/box_greedy.py): verified partitions, boxes taken cheapest
node first, the few records left joined or deleted, a clear refusal of a huge lattice."""

import numpy as np
import pytest
from bruteforce import kanonymity_optimum, small_kanonymity_instance
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.bench.registry import REGISTRY, generate
from anonratio.instances import KAnonymityInstance, Table, verify
from anonratio.instances.errors import UnsupportedInstanceError
from anonratio.solvers.kanonymity import box_greedy as module
from anonratio.solvers.kanonymity.box_greedy import box_greedy, box_greedy_until, lattice_size

SETTINGS = settings(max_examples=80, deadline=None, derandomize=True)


def _check(instance, sol):
    ver = verify(instance, sol)
    assert ver.feasible
    assert sol.objective == pytest.approx(ver.cost, rel=1e-12, abs=1e-9)  # its own claim
    assert sol.algorithm == "kanon-box-greedy" and sol.status == "feasible"
    return ver.cost


@SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    k=st.integers(2, 4),
    n=st.integers(2, 10),
    m=st.integers(1, 3),
    model=st.sampled_from(["suppression", "generalization"]),
    weights=st.booleans(),
    deletion=st.booleans(),
)
def test_feasible_deterministic_and_never_below_the_optimum(
    seed, k, n, m, model, weights, deletion
):
    inst = small_kanonymity_instance(seed, n, m, k, model, weights, deletion)
    sol = box_greedy(inst)
    cost = _check(inst, sol)
    assert cost >= kanonymity_optimum(inst) - 1e-9
    assert np.array_equal(box_greedy(inst).labels, sol.labels)
    deleted = int((sol.labels < 0).sum())
    assert deleted == (sol.info["leftover"] if inst.row_deletion else 0)
    assert sol.info["leftover"] < k  # only the last few records find no box


def test_cheapest_boxes_first_and_the_rest_joined_or_deleted():
    # three copies each of (x, x) and (y, y), and two records that differ from both
    codes = np.array([[0, 0]] * 3 + [[1, 1]] * 3 + [[0, 1], [1, 0]])
    table = Table(codes, ("a", "b"), (("x", "y"), ("x", "y")))
    inst = KAnonymityInstance(table, 3)
    sol = box_greedy(inst)
    assert sol.info["leftover"] == 2 and sol.info["boxes"] == 2
    labels = sol.labels
    assert len(set(labels[:3])) == 1 and len(set(labels[3:6])) == 1 and labels[0] != labels[3]
    assert labels[6] == labels[7] == labels[5]  # joined to the last group made
    assert _check(inst, sol) == pytest.approx(5 * 2.0)  # (y, y) and the two: both suppressed
    deleting = KAnonymityInstance(table, 3, row_deletion=True)
    sol = box_greedy(deleting)
    assert (sol.labels[6:] == -1).all() and (sol.labels[:6] >= 0).all()
    assert _check(deleting, sol) == pytest.approx(2 * deleting.deletion_cost)


def test_boxes_are_cut_into_groups_of_k_to_2k_minus_1():
    codes = np.zeros((11, 2), dtype=int)  # one box of 11 identical records, k = 4
    table = Table(codes, ("a", "b"), (("x", "y"), ("x", "y")))
    sol = box_greedy(KAnonymityInstance(table, 4))
    sizes = np.bincount(sol.labels)
    assert sorted(sizes.tolist()) == [4, 7] and sol.objective == 0.0


def test_beats_forest_on_a_table_with_hierarchies():
    inst, _ = generate("kanon-random", seed=1, n=300, k=5)
    cost = _check(inst, box_greedy(inst))
    assert cost < verify(inst, REGISTRY["forest"].function(inst, seed=0)).cost


def test_a_huge_lattice_is_refused(monkeypatch):
    inst, _ = generate("kanon-random", seed=0, n=20, k=2)
    monkeypatch.setattr(module, "MAX_NODES", lattice_size(inst) - 1)
    with pytest.raises(UnsupportedInstanceError, match="lattice has .* nodes, more than MAX_NODES"):
        box_greedy(inst)
    with pytest.raises(TypeError, match="KAnonymityInstance"):
        box_greedy("table")


def test_the_registry_declares_the_lattice_it_needs(monkeypatch):
    inst, _ = generate("kanon-random", seed=0, n=20, k=2)
    alg = REGISTRY["kanon-box-greedy"]
    assert alg.requires(inst) is None
    monkeypatch.setattr(module, "MAX_NODES", 1)
    expected = f"the generalization lattice has {lattice_size(inst)} nodes, more than MAX_NODES=1"
    assert alg.requires(inst) == expected


def test_until_a_deadline_stops_there_or_gives_the_whole_greedy():
    inst, _ = generate("kanon-random", seed=1, n=60, k=3)
    assert box_greedy_until(inst, -np.inf) is None  # the deadline passed before the first node
    whole, until = box_greedy(inst), box_greedy_until(inst, np.inf)
    assert np.array_equal(whole.labels, until.labels) and whole.objective == until.objective


def test_a_generator_seed_is_recorded_as_none():
    # a Solution records an integer seed or None (check_seed), never the Generator object
    inst, _ = generate("kanon-binary", seed=1, n=12, k=3)  # any table will do
    assert box_greedy(inst, seed=np.random.default_rng(0)).seed is None
    assert box_greedy_until(inst, np.inf, seed=np.random.default_rng(0)).seed is None
    assert box_greedy(inst, seed=7).seed == 7
