"""Tests of the quality gate (anonratio.bench.tracking.gate, ``anonratio gate``)."""

import dataclasses
import json
import math
import re

import numpy as np
import pytest

from anonratio.bench import registry
from anonratio.bench.cli.parser import main
from anonratio.bench.tracking import gate, gate_baseline
from anonratio.instances import Solution
from anonratio.instances.errors import InstanceFormatError


def _all_in_one_group(instance, **kwargs):
    """Feasible but worse: every record in one group."""
    return Solution(labels=np.zeros(instance.n, dtype=np.int64), algorithm="forest")


@pytest.fixture
def worse_forest(monkeypatch):
    alg = dataclasses.replace(registry.REGISTRY["forest"], function=_all_in_one_group)
    monkeypatch.setitem(registry.REGISTRY, "forest", alg)


def test_the_committed_baseline_passes(capsys, monkeypatch):
    reports, real = [], gate.run_gate  # the report the command printed, not a second gate run
    monkeypatch.setattr(
        gate, "run_gate", lambda *a, **k: reports.append(real(*a, **k)) or reports[-1]
    )
    assert main(["gate"]) == 0
    out = capsys.readouterr().out
    assert "gate passed" in out
    (report,) = reports
    assert report["passed"] and report["runs"] > 50
    kinds = {registry.REGISTRY[r["algorithm"]].kind for r in report["results"]}
    assert kinds == {"approximation", "heuristic"}
    assert {r["problem"] for r in report["results"]} >= {"k-anonymity", "bin-covering"}
    assert all(r["verified"] for r in report["results"])


def test_a_worsened_algorithm_fails_with_it_in_the_table(worse_forest, capsys):
    assert main(["gate"]) == 1
    captured = capsys.readouterr()
    assert "quality gate failed" in captured.err and "(forest)" in captured.err
    lines = captured.out.splitlines()
    failed = lines[lines.index(next(x for x in lines if x.startswith("FAILED"))) :]
    rows = [x for x in failed[2:] if x and not x.endswith(":")]
    assert rows and rows[0].startswith("forest ")
    assert all(len(x) <= 100 for x in lines[1:])
    assert {x.split()[0] for x in rows if x.split()[-1] in gate.FAILING} == {"forest"}


def test_a_worsened_algorithm_fails_with_json(worse_forest, capsys):
    assert main(["gate", "--algorithm", "forest", "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["kind"] == "run_failed" and "quality gate failed" in doc["error"]
    failures = doc["result"]["failures"]
    assert failures and {f["algorithm"] for f in failures} == {"forest"}
    assert {f["outcome"] for f in failures} <= {"worse", "above-guarantee"}
    assert all(f["ratio"] > f["baseline"] for f in failures)


def test_update_rewrites_the_baseline_atomically(tmp_path, monkeypatch, capsys):
    calls = []
    real = gate_baseline.atomic_write
    monkeypatch.setattr(
        gate_baseline, "atomic_write", lambda *a, **k: calls.append(a[0]) or real(*a, **k)
    )
    path = tmp_path / "gate.json"
    assert main(["gate", "--baseline", str(path)]) == 2  # no baseline yet
    assert "anonratio gate --update" in capsys.readouterr().err
    assert main(["gate", "--baseline", str(path), "--update", "--algorithm", "forest"]) == 0
    assert calls == [path]
    doc = json.loads(path.read_text())
    entry = doc["entries"]["forest"]["binary-12x6-k2"]
    assert set(entry) == {"ratio", "cost", "optimum", "instance_id", "version"}
    assert entry["ratio"] == pytest.approx(entry["cost"] / entry["optimum"])
    capsys.readouterr()
    assert main(["gate", "--baseline", str(path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["passed"] and report["counts"]["same"] == len(doc["entries"]["forest"])
    assert report["counts"]["new"] > 0  # the other algorithms are not in this baseline


def _row(ratio, guarantee=2.0, verified=True, algorithm="a", instance="i"):
    return {
        "algorithm": algorithm,
        "instance": instance,
        "instance_id": "x",
        "ratio": ratio,
        "guarantee": guarantee,
        "verified": verified,
    }


def _outcomes(rows, baseline, **kw):
    return [
        (r["algorithm"], r["instance"], r["outcome"]) for r in gate.compare(rows, baseline, **kw)
    ]


def test_compare_outcomes_and_tolerance():
    base = {"a": {"i": {"ratio": 1.5, "instance_id": "x"}, "gone": {"ratio": 1.0}}}
    assert _outcomes([_row(1.5)], base) == [("a", "i", "same"), ("a", "gone", "missing")]
    assert _outcomes([_row(1.5 * (1 + 1e-12))], base)[0][2] == "same"
    assert _outcomes([_row(1.5 * (1 + 1e-6))], base)[0][2] == "worse"
    assert _outcomes([_row(1.5 * (1 + 1e-6))], base, tolerance=1e-3)[0][2] == "same"
    assert _outcomes([_row(1.25)], base)[0][2] == "better"
    assert _outcomes([_row(2.5)], base, tolerance=10)[0][2] == "above-guarantee"
    assert _outcomes([_row(1.5, verified=False)], base)[0][2] == "unverified"
    assert _outcomes([_row(1.1, instance="j")], base)[0][2] == "new"
    assert _outcomes([_row(None, instance="j")], base)[0][2] == "unrated"
    changed = {"a": {"i": {"ratio": 1.0, "instance_id": "y"}}}
    assert _outcomes([_row(1.5)], changed)[0][2] == "changed"
    assert _outcomes([_row(1.5)], base, algorithms=["a"])[-1][2] == "missing"
    assert len(_outcomes([_row(1.5)], base, algorithms=["b"])) == 1
    with pytest.raises(ValueError, match="`tolerance` must be a number >= 0"):
        gate.compare([], {}, tolerance=-1)


def test_bad_tolerance_is_a_usage_error(capsys):
    assert main(["gate", "--tolerance", "-1"]) == 2
    assert "must be a number >= 0" in capsys.readouterr().err


def test_table_fits_100_columns():
    rows = [
        {
            "algorithm": "simplified-spread-random-with-a-very-long-name",
            "instance": "an-instance-name-far-longer-than-the-column",
            "baseline": 1.23456789,
            "ratio": 123456.789,
            "guarantee": None,
            "outcome": "above-guarantee",
        }
    ]
    assert all(len(line) <= 100 for line in gate.table(rows).splitlines())


# ---------------------------------------------------------------------------------------------
# a gate never passes vacuously
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name, pattern",
    [
        ("frest", r"unknown algorithm 'frest'; gated algorithms: \[.*'forest'"),
        ("kanon-cpsat", r"algorithm 'kanon-cpsat' is not gated \(kind exact\); gated algorithms"),
        ("kanon-certified", r"'kanon-certified' is not gated \(declared gated=False\)"),
    ],
)
def test_an_unknown_or_ungated_algorithm_is_refused(name, pattern, capsys):
    assert main(["gate", "--algorithm", name]) == 2
    captured = capsys.readouterr()
    assert "gate passed" not in captured.out
    assert re.search(pattern, captured.err)
    with pytest.raises(ValueError, match=pattern):
        gate.run_gate(algorithms=[name])


def test_an_empty_selection_fails(monkeypatch, capsys):
    picky = dataclasses.replace(registry.REGISTRY["forest"], requires=lambda instance: "never")
    monkeypatch.setitem(registry.REGISTRY, "forest", picky)
    assert main(["gate", "--algorithm", "forest"]) == 2
    captured = capsys.readouterr()
    assert "gate passed" not in captured.out
    assert "the gate ran nothing: no tracked instance is supported by ['forest']" in captured.err
    with pytest.raises(ValueError, match="no algorithm selected"):
        gate.run_gate(algorithms=[])


def _baseline_with(tmp_path, entry):
    doc = json.loads(gate.DEFAULT_BASELINE.read_text())
    doc["entries"]["forest"]["binary-12x6-k2"] = entry
    path = tmp_path / "gate.json"
    path.write_text(json.dumps(doc))
    return path


ENTRY = r"gate\.json: entry 'forest' / 'binary-12x6-k2'"


@pytest.mark.parametrize(
    "entry, pattern",
    [
        ({"ratio": math.nan}, ENTRY + r": `ratio` must be a finite number >= 0, got nan"),
        ({"ratio": None}, ENTRY + r": `ratio` must be a finite number >= 0, got None"),
        ({"ratio": "1.5"}, ENTRY + r": `ratio` must be a finite number >= 0, got '1\.5'"),
        ({"ratio": True}, ENTRY + r": `ratio` must be a finite number >= 0, got True"),
        ({"cost": 24.0}, ENTRY + r": `ratio` must be a finite number >= 0, got None"),
        ({"ratio": 1.5, "instance_id": 7}, ENTRY + r": `instance_id` must be a string, got 7"),
        ([1.5, 24.0], ENTRY + r" must be an object, got \[1\.5, 24\.0\]"),
    ],
)
def test_a_corrupt_baseline_entry_names_file_and_entry(entry, pattern, tmp_path, capsys):
    path = _baseline_with(tmp_path, entry)
    argv = ["gate", "--algorithm", "forest", "--baseline", str(path)]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert "gate passed" not in captured.out
    assert re.search(pattern, captured.err) and "internal error" not in captured.err
    with pytest.raises(InstanceFormatError, match=pattern):
        gate.load_baseline(path)


@pytest.mark.parametrize(
    "content, pattern",
    [
        (b"", r"gate\.json: not a gate baseline: the file is empty"),
        (b'{"entries": {"forest": {"bin', r"gate\.json: not a gate baseline: not valid JSON: "),
        (b"\x00\x01\xff\xfe", r"gate\.json: not a gate baseline: not UTF-8 text \(byte 0xff"),
        (b'{"entries": {"forest": 5}}', r"gate\.json: entry 'forest' must be an object of"),
        (b'{"entries": []}', r"gate\.json: not a gate baseline \(no `entries` object\)"),
    ],
)
def test_a_corrupt_baseline_file_is_named(content, pattern, tmp_path, capsys):
    path = tmp_path / "gate.json"
    path.write_bytes(content)
    assert main(["gate", "--algorithm", "forest", "--baseline", str(path), "--json"]) == 2
    doc = json.loads(capsys.readouterr().out)
    assert doc["kind"] == "bad_input" and doc["type"] == "InstanceFormatError"
    assert re.search(pattern, doc["error"]) and str(tmp_path) in doc["error"]


def test_a_restricted_update_keeps_the_other_algorithms(tmp_path, capsys):
    path = tmp_path / "gate.json"
    path.write_text(gate.DEFAULT_BASELINE.read_text())
    before = gate.load_baseline(path)
    assert main(["gate", "--baseline", str(path), "--update", "--algorithm", "forest"]) == 0
    after = gate.load_baseline(path)
    assert set(after) == set(before) and len(before) > 1
    assert all(after[a] == before[a] for a in before if a != "forest")
    assert {e["ratio"] for e in after["forest"].values()} == {
        e["ratio"] for e in before["forest"].values()
    }


def test_compare_refuses_a_baseline_entry_without_a_ratio():
    for bad in (math.nan, None, "1.5"):
        with pytest.raises(InstanceFormatError, match=r"<baseline>: entry 'a' / 'i': `ratio`"):
            gate.compare([_row(1.5)], {"a": {"i": {"ratio": bad, "instance_id": "x"}}})


# ---------------------------------------------------------------------------------------------
# the baseline of the checkout the gate runs in, and only with that checkout's code
# ---------------------------------------------------------------------------------------------
def _tree(root, *, checkout=True, gate_py="X = 1\n"):
    """A small fake package at ``root`` (with ``checkout``: a pyproject.toml of anonratio and
    the committed baseline, as a checkout has them)."""
    files = {
        "__init__.py": "",
        "bench/__init__.py": "",
        "bench/tracking/__init__.py": "",
        "bench/tracking/gate.py": gate_py,
    }
    if checkout:
        files["pyproject.toml"] = '[project]\nname = "anonratio"\n'
        files["results/baselines/gate.json"] = gate.DEFAULT_BASELINE.read_text()
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


@pytest.fixture
def imported_from(monkeypatch):
    """Pretend the imported package lives at a given folder (fresh code identity)."""
    from anonratio.bench.engine import record

    def use(root):
        monkeypatch.setattr(record, "package_root", lambda: root.resolve())
        record.code_identity.cache_clear()

    yield use
    record.code_identity.cache_clear()


def test_find_checkout_needs_the_anonratio_project_and_the_package(tmp_path):
    checkout = _tree(tmp_path / "work")
    (checkout / "docs" / "deep").mkdir(parents=True)
    assert gate_baseline.find_checkout(checkout / "docs" / "deep") == checkout.resolve()
    (checkout / "pyproject.toml").write_text('[project]\nname = "other"\n')
    assert gate_baseline.find_checkout(checkout / "docs") is None
    assert gate_baseline.find_checkout(_tree(tmp_path / "inst", checkout=False)) is None


def test_gate_refuses_a_checkout_whose_installed_code_differs(
    tmp_path, monkeypatch, imported_from, capsys
):
    installed = _tree(tmp_path / "site-packages" / "anonratio", checkout=False)
    checkout = _tree(tmp_path / "work", gate_py="X = 2\n")  # edited, not reinstalled
    imported_from(installed)
    monkeypatch.chdir(checkout)
    assert main(["gate", "--algorithm", "forest"]) == 2
    err = capsys.readouterr().err
    assert "pip install ." in err and str(checkout.resolve()) in err and str(installed) in err
    assert main(["gate", "--algorithm", "forest", "--baseline", str(tmp_path / "b.json")]) == 2
    capsys.readouterr()
    # reinstalled: the same code
    (checkout / "bench" / "tracking" / "gate.py").write_text("X = 1\n")
    assert main(["gate", "--algorithm", "forest", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["baseline"] == str(checkout.resolve() / "results/baselines/gate.json")
    assert report["checkout"] == str(checkout.resolve())


def test_update_outside_a_checkout_needs_a_baseline_file(tmp_path, monkeypatch, imported_from):
    imported_from(_tree(tmp_path / "site-packages" / "anonratio", checkout=False))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match=r"`--update` outside an anonratio checkout needs"):
        gate.run_gate(update=True, algorithms=["forest"])
    assert gate.run_gate(algorithms=["forest"])["baseline"] == str(gate.DEFAULT_BASELINE)


def test_update_in_a_checkout_merges_into_its_baseline_and_says_what_changed(
    tmp_path, monkeypatch, imported_from, capsys
):
    checkout = _tree(tmp_path / "work")
    imported_from(checkout)  # an editable install: the checkout is the imported package
    monkeypatch.chdir(checkout / "bench")
    path = checkout / "results" / "baselines" / "gate.json"
    doc = json.loads(path.read_text())
    forest = doc["entries"]["forest"]
    names = sorted(forest)
    forest[names[0]]["ratio"] += 1  # the run improves on it
    forest[names[1]]["ratio"] /= 2  # the run is worse: recorded on purpose
    del forest[names[2]]  # added again
    forest["gone"] = {"ratio": 1.0, "instance_id": "x"}  # no longer produced: removed
    path.write_text(json.dumps(doc))
    before, committed = gate.load_baseline(path), gate.DEFAULT_BASELINE.read_bytes()
    assert main(["gate", "--update", "--algorithm", "forest"]) == 0
    out = capsys.readouterr().out
    after = gate.load_baseline(path)
    assert list(after) == list(before)  # the file keeps its order: a small diff to commit
    assert all(after[a] == before[a] for a in before if a != "forest")
    assert "worse than the old baseline (recorded by --update)" in out and "FAILED" not in out
    same = len(names) - 3
    assert f"  forest: 1 added, 1 improved, 1 worsened, 1 removed, {same} unchanged" in out
    assert f"  {len(before) - 1} algorithms' entries unchanged" in out
    assert f"wrote {path}" in out and gate.DEFAULT_BASELINE.read_bytes() == committed
