"""The local search (solvers/kanonymity/local_search.py): verified, from the cheaper of FOREST and
the box greedy, never worse than FOREST, within FOREST's guarantee of the exact optimum; its moves
improve FOREST's partition where they help."""

import numpy as np
import pytest
from bruteforce import kanonymity_optimum as brute_force_opt
from bruteforce import small_kanonymity_instance
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.bench.registry import generate
from anonratio.instances import KAnonymityInstance, Table, verify
from anonratio.solvers.kanonymity import box_greedy as greedy_module
from anonratio.solvers.kanonymity.box_greedy import box_greedy
from anonratio.solvers.kanonymity.forest import forest, forest_guarantee
from anonratio.solvers.kanonymity.local_search import local_search

TOL = 1e-9


SETTINGS = settings(max_examples=60, deadline=None, derandomize=True)


def _check(instance, sol):
    ver = verify(instance, sol)
    assert ver.feasible
    assert sol.objective == pytest.approx(ver.cost, rel=1e-12, abs=1e-9)  # its own claim
    assert sol.algorithm == "kanon-local-search" and sol.status == "feasible"
    sizes = np.bincount(sol.labels[sol.labels >= 0])
    assert sizes[sizes > 0].min() >= instance.k
    return ver.cost


@SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    k=st.integers(2, 4),
    extra=st.integers(0, 6),
    m=st.integers(1, 3),
    n_values=st.integers(2, 4),
    model=st.sampled_from(["suppression", "generalization"]),
    weights=st.booleans(),
    deletion=st.booleans(),
)
def test_never_worse_than_forest_and_within_its_guarantee(
    seed, k, extra, m, n_values, model, weights, deletion
):
    rng = np.random.default_rng(seed)
    n = min(8, k + extra)
    inst = small_kanonymity_instance(rng, n, m, k, model, weights, deletion, n_values=n_values)
    sol = local_search(inst, seed=seed)
    cost = _check(inst, sol)
    start = verify(inst, forest(inst, seed=seed)).cost
    greedy = verify(inst, box_greedy(inst)).cost
    assert sol.info["forest_cost"] == pytest.approx(start)
    assert sol.info["box_greedy_cost"] == pytest.approx(greedy)
    cheaper_first = ["forest", "box-greedy"] if start <= greedy else ["box-greedy", "forest"]
    assert sol.info["descended"] == cheaper_first  # both: the time allows
    assert sol.info["start_cost"] == pytest.approx(
        {"forest": start, "box-greedy": greedy}[sol.info["start"]]
    )
    assert cost <= min(start, greedy) + TOL
    alone = local_search(inst, seed=seed, start=forest(inst, seed=seed))  # FOREST's descent
    assert cost <= verify(inst, alone).cost + TOL
    opt = brute_force_opt(inst)
    assert opt - TOL <= cost <= forest_guarantee(inst) * opt + TOL


@pytest.mark.parametrize(
    "family, params",
    [("kanon-random", {"n": 300, "k": 5}), ("kanon-categorical", {"n": 60, "k": 3})],
)
def test_improves_forest_where_moves_help(family, params):
    inst, _ = generate(family, seed=1, **params)
    start = forest(inst, seed=0)
    sol = local_search(inst, seed=0, start=start)
    cost = _check(inst, sol)
    assert sol.info["start"] == "given" and sol.info["start_cost"] == pytest.approx(start.objective)
    assert cost < start.objective - 1e-6
    assert sol.info["relocations"] + sol.info["splits"] > 0


def test_row_deletion_keeps_the_deleted_and_splits_large_groups():
    inst, _ = generate("kanon-random", seed=1, n=200, k=4, row_deletion=True)
    start = forest(inst, seed=0)
    sol = local_search(inst, seed=0, start=start.labels)
    _check(inst, sol)
    assert np.array_equal(sol.labels < 0, start.labels < 0)
    assert sol.info["splits"] >= 1
    # a group of 2k identical-but-two records is split into two groups of k
    codes = np.array([[0, 0]] * 4 + [[1, 1]] * 4)
    table = Table(codes, ("a", "b"), (("x", "y"), ("x", "y")))
    inst = KAnonymityInstance(table, 4)
    sol = local_search(inst, seed=0)
    assert _check(inst, sol) == 0.0


def test_clear_errors():
    inst, _ = generate("kanon-binary", seed=0, n=10, k=2)
    with pytest.raises(ValueError, match="`time_limit` must be a positive"):
        local_search(inst, time_limit=0)
    with pytest.raises(TypeError, match="KAnonymityInstance"):
        local_search("table")
    with pytest.raises(ValueError, match="`start` must be a feasible partition"):
        local_search(inst, start=np.zeros(inst.n - 1, dtype=int))
    with pytest.raises(ValueError, match="`start` must be a feasible partition"):
        local_search(inst, start=np.arange(inst.n))  # groups of one record


def test_starts_from_the_box_greedy_where_it_is_cheaper():
    inst, _ = generate("kanon-random", seed=1, n=60, k=5)
    greedy, first = box_greedy(inst), forest(inst, seed=0)
    assert greedy.objective < first.objective  # the box greedy wins on generated tables
    sol = local_search(inst, seed=0)
    assert sol.info["descended"][0] == "box-greedy"
    assert _check(inst, sol) <= greedy.objective + TOL


def test_a_lattice_too_large_for_the_box_greedy_leaves_forest_alone(monkeypatch):
    inst, _ = generate("kanon-random", seed=1, n=60, k=3)
    monkeypatch.setattr(greedy_module, "MAX_NODES", 1)
    sol = local_search(inst, seed=0)
    _check(inst, sol)
    assert sol.info["descended"] == ["forest"] and sol.info["box_greedy_cost"] is None
    assert sol.info["start"] == "forest"


def test_the_box_greedy_start_ends_at_the_time_limit():
    # the box greedy is a start of the search, so it counts against the search's time limit
    inst, _ = generate("kanon-random", seed=1, n=60, k=3)
    sol = local_search(inst, seed=0, time_limit=1e-6)
    _check(inst, sol)
    assert sol.info["box_greedy_cost"] is None and sol.info["descended"] == ["forest"]
    assert sol.info["rounds"] == 0


def test_a_generator_seed_is_recorded_as_none():
    # a Solution records an integer seed or None (check_seed), never the Generator object
    inst, _ = generate("kanon-binary", seed=1, n=12, k=3)  # any table will do
    assert local_search(inst, seed=np.random.default_rng(0)).seed is None
    assert local_search(inst, seed=7).seed == 7
