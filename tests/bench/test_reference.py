"""The committed reference optima and the asv benchmarks built on them.

* every entry of ``results/reference_optima.json`` regenerates to its recorded instance id, and
  every committed reference instance has an entry;
* the MIPLIB-style status rules (``opt`` / ``best`` / ``unknown``);
* ``anonratio reference update`` writes a complete file (``--out``) and never a partial one;
* the asv benchmark classes cover every registered algorithm (ratios: every non-exact one).
"""

from __future__ import annotations

import json
import math

import pytest

from anonratio.bench.benchmarks import (
    bench_ratios,
    bench_times,
    common,
    long_bin_covering,
    long_times,
)
from anonratio.bench.cli.parser import main
from anonratio.bench.registry import PROBLEMS as REGISTRY_PROBLEMS
from anonratio.bench.registry import REGISTRY, algorithms_for, generate
from anonratio.bench.tracking import reference as ref_mod
from anonratio.bench.tracking.reference import (
    ALL_REFERENCE,
    BY_PROBLEM,
    EXACT_METHODS,
    HARD_REFERENCE,
    STATUSES,
    load_reference,
    reference_instance,
    reference_status,
)
from anonratio.instances import instance_id


# ---------------------------------------------------------------------------------------------
# the committed file
# ---------------------------------------------------------------------------------------------
def test_entries_regenerate_to_their_ids():
    committed = load_reference()
    assert committed
    for key, entry in committed.items():
        instance, _ = generate(entry["family"], seed=entry["seed"], **entry["params"])
        assert instance_id(instance) == key, entry["name"]
        assert entry["problem"] == instance.problem
        assert entry["status"] in STATUSES


def test_every_reference_instance_has_an_entry():
    committed = load_reference()
    names = {e["name"]: key for key, e in committed.items()}
    assert len({r.name for r in ALL_REFERENCE}) == len(ALL_REFERENCE)
    for ref in ALL_REFERENCE:
        instance, _ = reference_instance(ref)
        assert names.get(ref.name) == instance_id(instance), ref.name
    # each problem's declared instances, in registry order, then the hunter's library
    declared = tuple(r for name in REGISTRY_PROBLEMS for r in BY_PROBLEM[name])
    assert ALL_REFERENCE == declared + HARD_REFERENCE


def test_reference_tables_are_derived_from_the_declarations():
    for name, problem in REGISTRY_PROBLEMS.items():
        assert BY_PROBLEM[name] == problem.reference and problem.reference, name
        assert EXACT_METHODS[name] == problem.exact and problem.exact, name
        for ref in problem.reference:
            assert ref.family.startswith(f"{problem.prefix}-"), ref.name


def test_every_problem_has_reference_instances_and_exact_methods():
    problems = {reference_instance(r)[0].problem for r in ALL_REFERENCE}
    assert problems == set(EXACT_METHODS)
    for problem, methods in EXACT_METHODS.items():
        assert all(REGISTRY[m].kind == "exact" and REGISTRY[m].problem == problem for m in methods)
    assert {"zip-codes", "gps-rectangles", "ordered-labels"} <= problems


def test_entries_are_consistent_with_their_status():
    for entry in load_reference().values():
        assert set(entry["solvers"]) == set(entry["statuses"]) == set(entry["time_s"])
        if entry["status"] == "opt":
            assert set(entry["statuses"].values()) == {"optimal"}
            assert entry["optimum"] == pytest.approx(entry["best"])
            assert entry["bound"] == pytest.approx(entry["optimum"])
            assert all(c == pytest.approx(entry["optimum"]) for c in entry["costs"].values())
        else:
            assert "optimum" not in entry
        if entry["status"] == "best":
            assert entry["bound"] <= entry["best"] + 1e-9


# ---------------------------------------------------------------------------------------------
# status rules
# ---------------------------------------------------------------------------------------------
def _run(status="optimal", verified=True, cost=10.0):
    return {"status": status, "verified": verified, "cost": cost}


@pytest.mark.parametrize(
    ("runs", "known", "expected"),
    [
        ({"a": _run(), "b": _run()}, None, ("opt", 10.0)),
        ({"a": _run()}, 10.0, ("opt", 10.0)),
        ({"a": _run(), "b": _run("time_limit", cost=12.0)}, None, ("best", 10.0)),
        ({"a": _run("feasible", cost=12.0)}, None, ("best", 12.0)),
        ({"a": _run(), "b": _run(cost=11.0)}, None, ("best", 10.0)),  # proofs disagree
        ({"a": _run(), "b": _run(verified=False, cost=9.0)}, None, ("best", 10.0)),
        ({"a": _run()}, 9.0, ("best", 10.0)),  # the family proves another optimum
        ({"a": _run("time_limit", False, math.nan)}, None, ("unknown", None)),
        (
            {"a": _run("error", False, math.nan), "b": _run("infeasible", False)},
            None,
            ("unknown", None),
        ),
    ],
)
def test_reference_status_rules(runs, known, expected):
    status, value, note = reference_status(runs, known)
    assert (status, value) == expected
    assert (note is None) == (status == "opt")


# ---------------------------------------------------------------------------------------------
# anonratio reference update
# ---------------------------------------------------------------------------------------------
def test_reference_update_writes_out(tmp_path, capsys):
    out = tmp_path / "ref.json"
    args = ["reference", "update", "--only", "gps-cross-k3", "--only", "ordered-random-20-k5"]
    assert main([*args, "--time-limit", "30", "--out", str(out), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert {r["name"] for r in doc["instances"]} == {"gps-cross-k3", "ordered-random-20-k5"}
    written = load_reference(out)
    assert len(written) == len(load_reference())  # the other entries are kept
    fresh = {e["name"]: e for e in written.values()}
    for name in ("gps-cross-k3", "ordered-random-20-k5"):
        entry = fresh[name]
        assert entry["status"] == "opt" and entry["time_limit"] == 30
        assert set(entry["solvers"]) == set(EXACT_METHODS[entry["problem"]])
    assert fresh["gps-cross-k3"]["optimum"] == 11.0
    assert main(["reference", "show", "--file", str(out), "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["instances"]) == len(written)


def test_reference_update_never_leaves_a_partial_file(tmp_path, monkeypatch):
    out = tmp_path / "ref.json"
    out.write_text('{"instances": {}}\n')

    class Opaque:
        pass

    def refuse(obj):
        raise TypeError(f"cannot serialize {obj!r}")

    doc = {"instances": {"a": {"name": "a"}, "b": Opaque()}}  # fails half-way through
    monkeypatch.setattr(ref_mod, "reference_document", lambda entries: doc)
    monkeypatch.setattr(ref_mod, "jsonable", refuse)
    with pytest.raises(TypeError, match="cannot serialize"):
        ref_mod.write_reference({}, out)
    assert out.read_text() == '{"instances": {}}\n'
    assert [p.name for p in tmp_path.iterdir()] == ["ref.json"]


def test_reference_update_rejects_unknown_names(tmp_path):
    assert main(["reference", "update", "--only", "nope", "--out", str(tmp_path / "r.json")]) == 2
    assert not (tmp_path / "r.json").exists()


# ---------------------------------------------------------------------------------------------
# asv benchmarks
# ---------------------------------------------------------------------------------------------
def _methods(module, prefix):
    return {
        name
        for cls in vars(module).values()
        if isinstance(cls, type) and cls.__module__ == module.__name__
        for name in dir(cls)
        if name.startswith(prefix)
    }


def test_asv_ratio_benchmarks_cover_every_approximation_algorithm():
    tracked = [a for a in REGISTRY.values() if a.kind != "exact"]
    assert {a.name for a in tracked} >= {
        a.name
        for problem in ("k-anonymity", "bin-covering", "zip-codes", "gps-rectangles")
        for a in algorithms_for(problem)
        if a.kind == "approximation"
    }
    ratios = _methods(bench_ratios, "track_ratio_")
    certified = _methods(bench_ratios, "track_certified_ratio_")
    for alg in tracked:
        assert f"track_ratio_{common.ident(alg.name)}" in ratios, alg.name
        assert f"track_certified_ratio_{common.ident(alg.name)}" in certified, alg.name
    for cls in bench_ratios.CLASSES.values():
        assert cls.params == ["worst", "mean"]
        assert cls.setup_cache is common.ratio_cache  # one shared cache, built once per run


def test_asv_time_benchmarks_cover_every_algorithm():
    classes = [*bench_times.CLASSES.values(), *long_times.CLASSES.values()]
    names = {name for cls in classes for name in dir(cls)}
    for alg in REGISTRY.values():
        key = common.ident(alg.name)
        sizes = [s for cls in classes for s in cls.params if f"time_{key}" in dir(cls)]
        assert sorted(sizes) == ["large", "small"], alg.name  # each size, fast set or long
        assert f"peakmem_{key}" in names, alg.name
    for cls in classes:
        assert cls.setup_cache is common.size_cache
    assert long_bin_covering.CLASSES["OverfullLast1990"].setup_cache is long_bin_covering._last1990


def test_ratio_benchmarks_run_on_the_reference_set():
    refs = common.reference_instances()
    assert len(refs) == len(load_reference())  # every entry regenerates at this commit
    result = common.run_ratios(REGISTRY["kdtree-split"], refs)
    assert not result["errors"] and len(result["ratio"]) >= 4
    cls = bench_ratios.CLASSES["Ratio_kdtree_split"]
    cache = {"kdtree-split": result}
    worst = cls().track_ratio_kdtree_split(cache, "worst")
    mean = cls().track_ratio_kdtree_split(cache, "mean")
    assert 1.0 <= mean <= worst
    assert cls().track_certified_ratio_kdtree_split(cache, "worst") >= worst - 1e-9
    failing = {"kdtree-split": {"ratio": [], "certified_ratio": [], "errors": ["x: boom"]}}
    with pytest.raises(RuntimeError, match="boom"):
        cls().track_ratio_kdtree_split(failing, "worst")
