"""Tests of the typed run record (anonratio.bench.engine.record) and the one JSON sanitizer."""

import dataclasses
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from anonratio.bench.engine import runner, store
from anonratio.bench.engine.record import COLUMNS, RunRecord, column_kinds, json_text
from anonratio.bench.engine.runner import run_and_finalize, run_instance, run_record
from anonratio.bench.registry import generate
from anonratio.instances import verify
from anonratio.instances.io import jsonable


def _same(a, b):
    """Equal, NaN equal to NaN."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def _kanon():
    return generate("kanon-binary", seed=1, n=10, m=4, k=2)


# ---------------------------------------------------------------------------------------------
# the record and its row
# ---------------------------------------------------------------------------------------------
def test_record_fields_are_the_store_columns_in_order():
    names = [f.name for f in dataclasses.fields(RunRecord)]
    assert names[: len(COLUMNS)] == COLUMNS
    assert names[len(COLUMNS) :] == ["problem_columns", "solution", "exception"]
    assert store.COLUMNS == COLUMNS
    assert store.SCHEMA_COLUMNS + store.EXTRA_COLUMNS == COLUMNS
    kinds = column_kinds()
    assert kinds["cost"] == "float" and kinds["n"] == "int" and kinds["verified"] == "bool"
    assert kinds["params"] == "str" and kinds["lower_bound"] == "float"


def test_blank_record_row_follows_the_nan_none_conventions():
    row = RunRecord().to_row()
    assert list(row) == COLUMNS
    assert row["status"] == "error" and row["verified"] is False
    assert row["optimum_status"] == "unknown"
    # no finalized bound yet: the row shows the run's own
    assert row["lower_bound"] == row["run_lower_bound"] == 0.0
    assert row["lower_bound_source"] == row["run_lower_bound_source"] == "none"
    for name, kind in column_kinds().items():
        if kind == "float" and name not in ("lower_bound", "run_lower_bound"):
            assert math.isnan(row[name]), name
        elif kind in ("int", "str") and name not in (
            "status",
            "optimum_status",
            "lower_bound_source",
            "run_lower_bound_source",
        ):
            assert row[name] is None, name


def test_run_instance_is_the_record_row():
    instance, meta = _kanon()
    record = run_record(instance, "forest", seed=3, meta=meta)
    row = run_instance(instance, "forest", seed=3, meta=meta)
    assert list(row) == COLUMNS == list(record.to_row())
    for name in COLUMNS:
        if name not in ("time_s", "cpu_s", "peak_mb", "bound_time_s"):
            assert _same(row[name], record.to_row()[name]), name
    assert record.verified and record.status == "feasible" and record.kind == "approximation"
    assert record.cost == row["cost"] and record.seed == 3
    assert record.solution is not None and record.solution.labels.shape == (instance.n,)
    assert record.problem_columns == {}  # k-anonymity names no columns of its own
    assert json.loads(record.params) == dict(instance.params)


def test_problem_columns_come_from_the_verifier():
    instance, meta = generate("bc-3partition-yes", seed=0, m=3, B=40)
    record = run_record(instance, "fold-sorted", seed=1, meta=meta)
    check = verify(instance, record.solution, strict=False)
    assert record.problem_columns == check.columns()
    assert set(record.problem_columns) == set(type(check).COLUMNS)
    row = record.to_row()
    assert list(row)[len(COLUMNS) :] == list(type(check).COLUMNS)
    assert row["overfull_ratio"] == pytest.approx(record.cost / 40)


def test_from_row_reads_back_a_stored_row():
    instance, meta = generate("bc-uniform", seed=0, n=10, k=20)
    record = run_record(instance, "spread-sorted", meta=meta)
    frame = store.order_columns(pd.DataFrame([record.to_row()]))
    back = RunRecord.from_row(frame.iloc[0].to_dict())
    for name, value in record.to_row().items():
        assert _same(back.to_row()[name], value), name
    assert back.solution is None
    # CSV text and missing values
    text = RunRecord.from_row({"verified": "True", "n": 12.0, "k": pd.NA, "cost": None})
    assert text.verified is True and text.n == 12 and text.k is None and math.isnan(text.cost)
    with pytest.raises(ValueError, match="`row` must be a dict, got list"):
        RunRecord.from_row([1])


def test_run_and_finalize_fills_the_per_instance_columns():
    instance, meta = _kanon()
    exact = run_and_finalize(instance, "kanon-cpsat", time_limit=30, meta=meta, reference={})
    assert exact.status == "optimal" and exact.optimum_status == "opt"
    assert exact.ratio == 1.0 and exact.lower_bound == exact.cost == exact.optimum
    assert exact.lower_bound_source == "optimum (exact)"
    assert exact.solution is not None and exact.solution.labels is not None
    approx = run_and_finalize(instance, "forest", meta=meta, reference={})
    assert approx.verified and approx.lower_bound <= approx.cost
    assert approx.certified_ratio == pytest.approx(approx.cost / approx.lower_bound)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"seed": -1}, "`seed` must be an integer >= 0 or None, got -1"),
        ({"seed": 1.5}, "`seed` must be an integer >= 0 or None, got 1.5"),
        ({"time_limit": 0}, "`time_limit` must be a positive finite number of seconds, got 0"),
        ({"family": 3}, "`family` must be a string, got int"),
        ({"meta": [1]}, "`meta` must be a dict or None, got list"),
    ],
)
def test_run_record_validates_its_parameters(kwargs, message):
    instance, _ = _kanon()
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        run_record(instance, "forest", **kwargs)


def test_cli_solve_and_anonymize_run_through_the_runner(tmp_path, capsys, monkeypatch):
    from anonratio.bench.cli.parser import main
    from anonratio.instances.io import save_instance

    calls = []
    real = runner.run_record

    def spy(instance, algorithm, **kwargs):
        calls.append(algorithm)
        return real(instance, algorithm, **kwargs)

    monkeypatch.setattr(runner, "run_record", spy)
    instance, meta = _kanon()
    save_instance(tmp_path / "i.json", instance, meta=meta)
    assert main(["solve", str(tmp_path / "i.json"), "--algorithm", "kanon-cpsat", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["algorithm"] == "kanon-cpsat"
    data = tmp_path / "d.csv"
    data.write_text("a,b\n1,x\n1,y\n2,x\n2,y\n")
    argv = ["anonymize", str(data), "--qi", "a,b", "--k", "2", "--out", str(tmp_path / "o.csv")]
    assert main([*argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verified"] is True and out["cost"] == 4.0
    assert calls == ["kanon-cpsat", "forest"]


# ---------------------------------------------------------------------------------------------
# the one JSON sanitizer
# ---------------------------------------------------------------------------------------------
def test_jsonable_cleans_numpy_pandas_paths_and_non_finite_numbers():
    doc = {
        1: np.int64(3),
        "f": np.float32(0.5),
        "b": np.bool_(True),
        "a": np.array([[1, 2], [3, 4]]),
        "nan": [math.nan, np.inf, np.float64(-np.inf)],
        "na": (pd.NA, pd.NaT),
        "p": Path("x") / "y.json",
        "s": {"b", "a"},
        "other": object,
    }
    out = jsonable(doc)
    assert out == {
        "1": 3,
        "f": 0.5,
        "b": True,
        "a": [[1, 2], [3, 4]],
        "nan": [None, None, None],
        "na": [None, None],
        "p": str(Path("x") / "y.json"),
        "s": ["a", "b"],
        "other": str(object),
    }
    json.dumps(out, allow_nan=False)
    with pytest.raises(TypeError, match="object is not JSON-serializable"):
        jsonable({"f": object()}, strict=True)


def test_json_text_is_the_stored_form_of_params():
    assert json_text({"k": np.int64(3), "model": "suppression"}) == (
        '{"k": 3, "model": "suppression"}'
    )
    assert json_text({"r": (10, 40)}) == '{"r": [10, 40]}'


# ---------------------------------------------------------------------------------------------
# the code identity: the `version` column names the code that made the row
# ---------------------------------------------------------------------------------------------
def _package_tree(root, *, checkout):
    """A small fake package at ``root``: what is installed, plus (``checkout``) what a checkout
    holds beside it and an installed copy does not."""
    files = {
        "__init__.py": "__version__ = '0.1.0'\n",
        "setup.py": "# build\n",
        "bench/__init__.py": "",
        "bench/gate.py": "X = 1\n",
        "bench/studies/quick.toml": "[suite]\n",
        "instances/__init__.py": "",
        "instances/kanonymity/__init__.py": "",
        "instances/kanonymity/gen.py": "Y = 2\n",
        "results/reference_optima.json": '{"a": 1}\n',
        "results/hard_instances/forest.json": "[]\n",
        "results/baselines/gate.json": '{"entries": {}}\n',
    }
    if checkout:
        files.update(
            {
                "pyproject.toml": '[project]\nname = "anonratio"\n',
                "README.md": "readme\n",
                "tests/bench/test_gate.py": "def test(): pass\n",
                "docs/conf.py": "",
                ".git/HEAD": "ref: refs/heads/main\n",
                "scratch/try.py": "",
                "results/asv/benchmarks.json": "{}\n",
                "results/quick/results.csv": "a\n",
                "bench/__pycache__/gate.cpython-311.pyc": "bytecode",
                "venv/lib/site-packages/numpy/__init__.py": "",
                "results/baselines/gate.json": '{"entries": {"forest": {}}}\n',
            }
        )
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_installed_copy_and_checkout_hash_alike_and_an_edit_changes_the_hash(tmp_path):
    from anonratio.bench.engine.record import code_files, source_hash

    installed = _package_tree(tmp_path / "site-packages" / "anonratio", checkout=False)
    checkout = _package_tree(tmp_path / "work", checkout=True)
    assert (
        code_files(installed)
        == code_files(checkout)
        == [
            "__init__.py",
            "bench/__init__.py",
            "bench/gate.py",
            "bench/studies/quick.toml",
            "instances/__init__.py",
            "instances/kanonymity/__init__.py",
            "instances/kanonymity/gen.py",
            "results/hard_instances/forest.json",
            "results/reference_optima.json",
            "setup.py",
        ]
    )
    assert source_hash(installed) == source_hash(checkout)
    for rel, text in (
        ("bench/gate.py", "X = 2\n"),
        ("results/reference_optima.json", '{"a": 2}\n'),
        ("instances/kanonymity/new.py", ""),
    ):
        before = source_hash(checkout)
        (checkout / rel).write_text(text)
        assert source_hash(checkout) != before, rel
    # the same bytes under another path are other code
    moved = _package_tree(tmp_path / "moved", checkout=False)
    (moved / "bench/gate.py").rename(moved / "bench/gate2.py")
    assert source_hash(moved) != source_hash(installed)


@pytest.fixture
def fake_root(monkeypatch):
    """Point the imported package's folder somewhere else, with a fresh identity cache."""
    from anonratio.bench.engine import record

    def use(root):
        monkeypatch.setattr(record, "package_root", lambda: Path(root))
        record.code_identity.cache_clear()

    yield use
    record.code_identity.cache_clear()


def test_the_version_column_names_the_installed_code(tmp_path, fake_root):
    from anonratio.bench.engine.record import code_identity, package_version, source_hash

    installed = _package_tree(tmp_path / "site-packages" / "anonratio", checkout=False)
    fake_root(installed)
    ident = code_identity()
    assert (ident.source, ident.commit, ident.dirty) == (source_hash(installed), None, None)
    assert package_version() == f"0.1.0+src.{ident.source[:12]}"
    assert ident is code_identity()  # once per process


def test_an_uncommitted_edit_gets_another_identity_than_the_clean_commit(tmp_path, fake_root):
    import subprocess

    from anonratio.bench.engine.record import code_identity, package_version

    root = _package_tree(tmp_path / "repo", checkout=False)
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "x"], check=True)
    head = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True).stdout
    fake_root(root)
    clean = code_identity()
    assert (clean.commit, clean.dirty) == (head.strip(), False)
    assert package_version().endswith(f".g{head.strip()[:9]}")
    (root / "bench/gate.py").write_text("X = 3\n")
    fake_root(root)
    edited = code_identity()
    assert (edited.commit, edited.dirty) == (clean.commit, True)
    assert edited.source != clean.source and package_version().endswith(".dirty")
