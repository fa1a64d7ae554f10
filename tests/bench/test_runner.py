"""Tests of the sweep runner (anonratio.bench.engine.runner): rows, failures, timeouts, finalize."""

import dataclasses
import json
import math
import zlib

import numpy as np
import pandas as pd
import pytest

from anonratio.bench import registry
from anonratio.bench.engine.bounds import clear_cache
from anonratio.bench.engine.runner import (
    Task,
    algorithm_seed,
    execute_task,
    finalize,
    run_instance,
    sweep,
)
from anonratio.bench.engine.store import SCHEMA_COLUMNS
from anonratio.bench.registry import REGISTRY, Algorithm, algorithms_for
from anonratio.instances import KAnonymityInstance, Solution, Table, instance_id, lower_bound


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------
def _instance(k=2, n=8, m=3, seed=0, n_values=2, sensitive=False):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, n_values, size=(n, m))
    values = tuple(tuple(str(v) for v in range(n_values)) for _ in range(m))
    extra = {}
    if sensitive:  # three balanced sensitive values, for the algorithms that need them
        extra = {"sensitive": np.arange(n) % 3, "sensitive_values": ("a", "b", "c")}
    return KAnonymityInstance(Table(codes, tuple(f"a{j}" for j in range(m)), values, **extra), k)


def _one_group(instance, *, seed=None, time_limit=None):
    return Solution(np.zeros(instance.n, dtype=np.int64), "one-group", seed=seed)


def _register(monkeypatch, name, run, kind="approximation"):
    alg = Algorithm(
        name=name,
        problem="k-anonymity",
        kind=kind,
        function=run,
        guarantee=lambda instance, solution=None: None,
        guarantee_text="none",
        source="test",
        complexity="O(1)",
    )
    monkeypatch.setitem(registry.REGISTRY, name, alg)
    return alg


def _boom(instance, *, seed=None, time_limit=None):
    raise RuntimeError("boom at record 3")


def _hang(instance, *, seed=None, time_limit=None):
    import time

    time.sleep(60)


# ---------------------------------------------------------------------------------------------
# run_instance
# ---------------------------------------------------------------------------------------------
def test_run_instance_row_with_stand_in(monkeypatch):
    _register(monkeypatch, "one-group", _one_group)
    inst = _instance(k=3, n=9)
    row = run_instance(inst, "one-group", seed=5, meta={"family": "hand", "seed": 11})
    assert set(SCHEMA_COLUMNS) <= set(row)
    assert row["status"] == "feasible" and row["verified"] is True
    # one group of everything: every differing attribute is suppressed for all 9 records
    differ = int((inst.table.codes.min(axis=0) != inst.table.codes.max(axis=0)).sum())
    assert row["cost"] == 9 * differ
    assert row["instance"] == instance_id(inst)
    assert row["family"] == "hand" and row["n"] == 9 and row["k"] == 3
    assert json.loads(row["params"])["k"] == 3
    assert row["seed"] == 5 and row["instance_seed"] == 11
    assert row["lower_bound"] == pytest.approx(lower_bound(inst)[0])
    assert row["lower_bound_source"] == "nn-distance"
    assert row["time_s"] >= 0 and row["peak_mb"] >= 0
    assert row["version"].startswith("0.")


@pytest.mark.parametrize("name", [a.name for a in algorithms_for("k-anonymity")])
def test_run_instance_each_algorithm(name):
    k = {"factor-2": 2, "factor-3": 3}.get(name, 3)
    inst = _instance(k=k, n=9, m=4, seed=2, sensitive=name == "alpha-k-topdown")
    row = run_instance(inst, name, seed=1, time_limit=20)
    assert set(SCHEMA_COLUMNS) <= set(row)
    assert row["error"] is None or "objective" not in row["error"], row["error"]
    assert row["verified"] is True, row["error"]
    assert row["status"] == ("optimal" if REGISTRY[name].kind == "exact" else "feasible")
    assert row["kind"] == REGISTRY[name].kind
    assert row["cost"] >= row["lower_bound"] - 1e-9
    if REGISTRY[name].kind == "exact":
        assert row["guarantee"] == 1.0 and row["bound"] <= row["cost"] + 1e-6


def test_run_instance_unsupported_and_unknown():
    row = run_instance(_instance(k=2), "factor-3")
    assert row["status"] == "error" and row["verified"] is False
    assert row["error"] == "unsupported: factor-3 needs k=3, got k=2"
    row = run_instance(_instance(k=2), "nope")
    assert row["status"] == "error" and row["error"].startswith("unknown algorithm 'nope'")


def test_run_instance_exception_becomes_error_row(monkeypatch):
    _register(monkeypatch, "boom", _boom)
    row = run_instance(_instance(), "boom")
    assert row["status"] == "error" and row["verified"] is False
    assert row["error"] == "RuntimeError: boom at record 3"
    assert math.isnan(row["cost"]) and row["instance"] == instance_id(_instance())


def test_run_instance_infeasible_solution_is_caught(monkeypatch):
    def singletons(instance, *, seed=None, time_limit=None):
        return Solution(np.arange(instance.n), "bad", objective=0.0)

    _register(monkeypatch, "bad", singletons)
    row = run_instance(_instance(k=2), "bad")
    assert row["status"] == "error" and row["verified"] is False
    assert row["error"].startswith("infeasible solution: group 0 has 1 records")


def test_exact_bound_counts_as_run_bound(monkeypatch):
    def fake_exact(instance, *, seed=None, time_limit=None):
        return Solution(
            np.zeros(instance.n, dtype=np.int64),
            "fake",
            status="time_limit",
            objective=1e9,  # a wrong claim: the verifier's cost wins
            lower_bound=2.5,
        )

    _register(monkeypatch, "fake", fake_exact, kind="exact")
    inst = _instance(k=4, n=12, seed=3)
    row = run_instance(inst, "fake")
    assert row["status"] == "time_limit" and row["verified"] is True
    assert row["bound"] == 2.5 and row["objective"] == 1e9
    assert row["error"].startswith("solver objective")
    assert row["run_lower_bound"] == max(2.5, lower_bound(inst)[0])
    assert row["gap"] == pytest.approx((row["cost"] - 2.5) / row["cost"])


@pytest.mark.parametrize(
    ("info", "status", "expected"),
    [
        ({"guarantee": 2.5}, "feasible", 2.5),  # the guarantee reads the run's solution
        ({"guarantee": 1.75}, "optimal", 1.75),  # optimal non-exact runs keep it
        ({"guarantee": None}, "feasible", None),  # the run proves none
        ({}, "feasible", 4.0),  # nothing in the solution: the instance's guarantee
        ({"guarantee": 2.5}, "time_limit", None),  # stopped: no guarantee at all
    ],
)
def test_guarantee_of_instance_and_solution(monkeypatch, info, status, expected):
    def run(instance, *, seed=None, time_limit=None):
        return Solution(np.zeros(instance.n, dtype=np.int64), "g", status=status, info=info)

    alg = _register(monkeypatch, "g", run)
    monkeypatch.setitem(registry.REGISTRY, "g", dataclasses.replace(alg, guarantee=_from_run))
    row = run_instance(_instance(k=2), "g")
    assert row["verified"] is True and row["status"] == status
    if expected is None:
        assert math.isnan(row["guarantee"])
    else:
        assert row["guarantee"] == expected


def _four(instance, solution=None):
    return 4.0


def _from_run(instance, solution=None):
    """A guarantee that depends on the run (like the spanning-tree split's): its ``info``."""
    if solution is not None and "guarantee" in solution.info:
        return solution.info["guarantee"]
    return 4.0


def test_exact_rows_ignore_a_run_guarantee(monkeypatch):
    def run(instance, *, seed=None, time_limit=None):
        labels = np.zeros(instance.n, dtype=np.int64)
        return Solution(labels, "e", status="optimal", info={"guarantee": 3.0})

    alg = _register(monkeypatch, "e", run, kind="exact")
    monkeypatch.setitem(registry.REGISTRY, "e", dataclasses.replace(alg, guarantee=_four))
    assert run_instance(_instance(k=2), "e")["guarantee"] == 4.0


# ---------------------------------------------------------------------------------------------
# seeds
# ---------------------------------------------------------------------------------------------
def test_algorithm_seed_derivation():
    s = algorithm_seed(3, "forest")
    assert s == algorithm_seed(3, "forest")
    assert 0 <= s < 2**31
    assert s != algorithm_seed(4, "forest") and s != algorithm_seed(3, "cpsat")
    ss = np.random.SeedSequence([3, zlib.crc32(b"forest")])
    assert s == int(ss.generate_state(1)[0] & 0x7FFFFFFF)


# ---------------------------------------------------------------------------------------------
# finalize (hand-built frames)
# ---------------------------------------------------------------------------------------------
def _rows(*specs, instance="i1", nn=2.0):
    """specs: (algorithm, kind, status, cost, bound) tuples; cost None = no verified solution."""
    rows = []
    for algorithm, kind, status, cost, bound in specs:
        lb = nn if bound is None else max(nn, bound)
        rows.append(
            {
                "instance": instance,
                "algorithm": algorithm,
                "kind": kind,
                "status": status,
                "verified": cost is not None,
                "cost": math.nan if cost is None else float(cost),
                "run_lower_bound": lb,
                "run_lower_bound_source": "nn-distance"
                if bound is None or nn >= bound
                else f"{algorithm}-bound",
            }
        )
    return rows


def test_finalize_ratio_only_with_proven_optimum():
    df = pd.DataFrame(
        _rows(
            ("forest", "approximation", "feasible", 12, None),
            ("cpsat", "exact", "optimal", 10, 10),
            ("highs", "exact", "optimal", 10.000000001, 10),
        )
        + _rows(
            ("forest", "approximation", "feasible", 9, None),
            ("cpsat", "exact", "time_limit", 8, 5),
            instance="i2",
        )
    )
    out = finalize(df, reference={})
    a, b = out[out["instance"] == "i1"], out[out["instance"] == "i2"]
    assert set(a["optimum_status"]) == {"opt"} and set(a["optimum"]) == {10.0}
    assert a["exact_agree"].tolist() == [True] * 3
    assert a["ratio"].tolist() == pytest.approx([1.2, 1.0, 1.0])
    assert a["lower_bound"].tolist() == [10.0] * 3
    assert a["lower_bound_source"].iloc[0] == "optimum (exact)"
    # no proof on i2: best verified cost, no ratio, certified ratio against the CP-SAT bound
    assert set(b["optimum_status"]) == {"best"} and set(b["optimum"]) == {8.0}
    assert b["ratio"].isna().all()
    assert b["lower_bound"].tolist() == [5.0, 5.0]
    assert set(b["lower_bound_source"]) == {"cpsat-bound"}
    assert b["certified_ratio"].tolist() == pytest.approx([9 / 5, 8 / 5])
    assert b["exact_agree"].isna().all()


def test_finalize_exact_disagreement_is_flagged_not_resolved():
    df = pd.DataFrame(
        _rows(
            ("forest", "approximation", "feasible", 14, None),
            ("cpsat", "exact", "optimal", 10, 10),
            ("highs", "exact", "optimal", 11, 11),
        )
    )
    out = finalize(df, reference={})
    assert out["exact_agree"].tolist() == [False] * 3
    assert set(out["optimum_status"]) == {"best"} and set(out["optimum"]) == {10.0}
    assert out["ratio"].isna().all()
    assert "exact optima disagree: cpsat=10, highs=11" in out["optimum_note"].iloc[0]
    # the solvers' bounds are not trusted any more: only the NN bound remains
    assert set(out["lower_bound"]) == {2.0} and set(out["lower_bound_source"]) == {"nn-distance"}
    assert out["certified_ratio"].tolist() == pytest.approx([7.0, 5.0, 5.5])


def test_finalize_known_and_reference_optima():
    gadget = pd.DataFrame(_rows(("forest", "approximation", "feasible", 30, None)))
    gadget["known_optimum"] = 27.0
    out = finalize(gadget, reference={})
    assert out["optimum_status"].iloc[0] == "opt" and out["ratio"].iloc[0] == pytest.approx(30 / 27)
    assert out["lower_bound_source"].iloc[0] == "optimum (gadget)"
    ref = pd.DataFrame(_rows(("forest", "approximation", "feasible", 6, None), instance="r"))
    out = finalize(ref, reference={"r": 4.0})
    assert out["optimum"].iloc[0] == 4.0 and out["ratio"].iloc[0] == 1.5
    assert out["lower_bound_source"].iloc[0] == "optimum (reference)"
    # a verified cost below a claimed optimum is a bug somewhere: no ratio
    out = finalize(ref, reference={"r": 7.0})
    assert out["optimum_status"].iloc[0] == "best"
    assert "below the claimed optimum 7" in out["optimum_note"].iloc[0]


def test_finalize_bound_meeting_cost_proves_optimum():
    df = pd.DataFrame(
        _rows(
            ("forest", "approximation", "feasible", 6, None), ("highs", "exact", "time_limit", 7, 6)
        )
    )
    out = finalize(df, reference={})
    assert set(out["optimum_status"]) == {"opt"} and set(out["optimum"]) == {6.0}
    assert out["ratio"].tolist() == pytest.approx([1.0, 7 / 6])


def test_finalize_zero_optimum_and_zero_bound():
    df = pd.DataFrame(
        _rows(
            ("forest", "approximation", "feasible", 0, None),
            ("cpsat", "exact", "optimal", 0, 0),
            nn=0.0,
        )
        + _rows(("forest", "approximation", "feasible", 3, None), instance="z", nn=0.0)
        + _rows(("forest", "approximation", "error", None, None), instance="u", nn=0.0)
    )
    out = finalize(df, reference={})
    zero = out[out["instance"] == "i1"]
    assert zero["ratio"].tolist() == [1.0, 1.0] and zero["certified_ratio"].tolist() == [1.0, 1.0]
    z = out[out["instance"] == "z"].iloc[0]
    assert z["optimum_status"] == "best" and math.isnan(z["certified_ratio"])
    u = out[out["instance"] == "u"].iloc[0]
    assert u["optimum_status"] == "unknown" and math.isnan(u["optimum"])
    assert math.isnan(u["ratio"]) and math.isnan(u["certified_ratio"])
    # finalize is idempotent
    pd.testing.assert_frame_equal(finalize(out, reference={}), out)


# ---------------------------------------------------------------------------------------------
# sweep (local worker processes; the monkeypatched registry reaches them by fork)
# ---------------------------------------------------------------------------------------------
_FAMILY = ("kanon-binary", {"n": 8, "m": 3, "k": 2})


def _task(algorithm, seed=0, time_limit=5.0):
    return Task(_FAMILY[0], dict(_FAMILY[1]), seed, algorithm, time_limit)


def test_execute_task_is_deterministic(monkeypatch):
    _register(monkeypatch, "one-group", _one_group)
    a, b = execute_task(_task("one-group", seed=4)), execute_task(_task("one-group", seed=4))
    assert a["instance"] == b["instance"] and a["cost"] == b["cost"]
    assert a["instance"] != execute_task(_task("one-group", seed=5))["instance"]
    assert a["instance_seed"] == 4 and a["seed"] == algorithm_seed(4, "one-group")
    assert json.loads(a["family_params"]) == {
        "n": 8,
        "m": 3,
        "k": 2,
        "row_deletion": False,
        "sensitive": 0,
    }


def test_sweep_keeps_going_after_errors_and_timeouts(monkeypatch):
    _register(monkeypatch, "boom", _boom)
    _register(monkeypatch, "hang", _hang)
    _register(monkeypatch, "one-group", _one_group)
    tasks = [
        _task("boom"),
        _task("hang", time_limit=0.1),
        _task("one-group"),
        _task("nope"),
        Task("no-such-family", {}, 0, "one-group"),
    ]
    df = sweep(tasks, n_jobs=2, progress=False, grace=0.5)
    assert len(df) == 5 and list(df["algorithm"]) == [t.algorithm for t in tasks]
    assert list(df["status"]) == ["error", "time_limit", "feasible", "error", "error"]
    assert df.loc[0, "error"] == "RuntimeError: boom at record 3"
    assert df.loc[1, "error"].startswith("killed after the hard timeout")
    assert df.loc[3, "error"].startswith("unknown algorithm 'nope'")
    assert df.loc[4, "error"].startswith("generation failed: ValueError: unknown family")
    # the killed run still knows its instance (reported before the algorithm started)
    assert df.loc[1, "instance"] == df.loc[2, "instance"] == df.loc[0, "instance"]
    assert bool(df.loc[2, "verified"]) and df.loc[2, "cost"] > 0
    assert df["verified"].sum() == 1
    out = finalize(df, reference={})
    assert out.loc[2, "optimum_status"] in ("best", "opt")


def test_sweep_memory_limit(monkeypatch):
    def hog(instance, *, seed=None, time_limit=None):
        return np.ones(2**26)  # 512 MiB, touched

    _register(monkeypatch, "hog", hog)
    df = sweep([_task("hog")], n_jobs=1, progress=False, memory_limit_mb=256)
    assert df.loc[0, "status"] == "memory_limit"
    assert df.loc[0, "error"].startswith("stopped: its resident set grew by ")
    assert df.loc[0, "error"].endswith(", past the memory limit of 256 MiB")


#: mapped before the workers fork and never touched there: no address space to add, only pages
_UNTOUCHED = np.empty(64 * 2**20, dtype=np.uint8)


def test_sweep_memory_limit_is_on_resident_memory(monkeypatch):
    """Touching memory the worker already had mapped adds no address space, only resident pages:
    an address-space cap let it through (a 1 MB limit stopped nothing)."""

    def touch(instance, *, seed=None, time_limit=None):
        _UNTOUCHED[:] = 1
        return _one_group(instance)

    _register(monkeypatch, "touch", touch)
    _register(monkeypatch, "one-group", _one_group)
    tasks = [_task("touch"), _task("one-group"), _task("touch", seed=1)]
    df = sweep(tasks, n_jobs=2, progress=False, memory_limit_mb=32)
    assert list(df["status"]) == ["memory_limit", "feasible", "memory_limit"]
    assert df.loc[0, "error"].startswith("stopped: its resident set grew by ")
    assert bool(df.loc[1, "verified"]) and df.loc[0, "instance"] == df.loc[1, "instance"]


def test_sweep_validation_and_dask_message():
    with pytest.raises(ValueError, match="`n_jobs` must be an integer >= 1, got 0"):
        sweep([], n_jobs=0)
    with pytest.raises(ValueError, match="`tasks` must hold Task objects, got str"):
        sweep(["forest"])
    with pytest.raises(ValueError, match="`memory_limit_mb` must be positive or None"):
        sweep([], memory_limit_mb=-1)
    try:
        import dask.distributed  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match=r'pip install "dask\[distributed\]"'):
            sweep([_task("forest")], scheduler="tcp://127.0.0.1:1", progress=False)
    else:  # pragma: no cover - dask is not a dependency
        pytest.skip("dask is installed")


def test_peak_memory_counts_the_run(monkeypatch):
    def hungry(instance, *, seed=None, time_limit=None):
        block = np.ones(12_500_000)  # 100 MB, touched
        assert block.sum() > 0
        return _one_group(instance)

    _register(monkeypatch, "hungry", hungry)
    row = run_instance(_instance(), "hungry")
    assert row["verified"] is True
    assert 80 <= row["peak_mb"] < 1000


def test_forest_run_computes_the_neighbour_table_once(monkeypatch):
    """The lower bound and FOREST share the instance's k-NN table within one run."""
    from anonratio.instances.kanonymity import instance as kanonymity_module

    calls = []
    real = kanonymity_module.nearest_neighbors

    def counting(*args, **kwargs):
        calls.append(args[1])
        return real(*args, **kwargs)

    monkeypatch.setattr(kanonymity_module, "nearest_neighbors", counting)
    row = run_instance(_instance(k=3), "forest")
    assert row["verified"] is True and row["run_lower_bound"] > 0
    assert calls == [2]


def test_a_run_pays_for_what_it_builds_and_the_bound_reuses_it(monkeypatch):
    """FOREST's nearest neighbours are built inside its timed run (on a cold copy of the
    instance), never before it by the lower bound; the bound reuses them afterwards, and an
    instance whose caches an earlier run filled does not lend them to the next run. The bound is
    kept for the instance's content: the next run on it does not recompute it."""
    import time as time_module

    from anonratio.instances.kanonymity import instance as kanonymity_module

    real = kanonymity_module.nearest_neighbors
    calls = []

    def slow(*args, **kwargs):
        calls.append(args[1])
        time_module.sleep(0.3)
        return real(*args, **kwargs)

    monkeypatch.setattr(kanonymity_module, "nearest_neighbors", slow)
    instance = _instance(k=3)
    instance.neighbor_table(2)  # filled before: the run must not profit from it
    calls.clear()
    row = run_instance(instance, "forest")
    assert calls == [2] and row["time_s"] >= 0.3
    assert row["run_lower_bound"] > 0 and row["run_lower_bound_source"] == "nn-distance"
    first = row["run_lower_bound"]
    calls.clear()
    row = run_instance(instance, "mondrian")  # the bound is kept from the first run
    assert calls == [] and row["time_s"] < 0.3 and row["bound_time_s"] == 0
    assert row["run_lower_bound"] == first and row["run_lower_bound_source"] == "nn-distance"
    clear_cache()
    row = run_instance(instance, "mondrian")  # computed again, after the run, not timed in it
    assert calls == [2] and row["time_s"] < 0.3 and row["bound_time_s"] >= 0.3
