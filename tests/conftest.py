"""Shared test set-up: the library versions in the report header, the optional pycanon tests, and
an independent check of a table published by ``anonratio anonymize``."""

import importlib.metadata
import importlib.util
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

#: the libraries whose versions the tests ran on (printed in the pytest header)
_REPORTED = ("numpy", "pandas", "scipy", "networkx", "ortools", "highspy", "pulp", "pycanon")

#: why the ``pycanon`` tests skip when the checker is not installed
PYCANON_MISSING = (
    'pycanon is not installed: it is in the `check` extra (pip install ".[check]"), kept out of '
    "`test` because it pins older numpy/pandas/scipy; .ci/run runs these tests in their own venv"
)


#: the budget of a test that must see a proof, counted in work (CP-SAT's deterministic seconds and
#: HiGHS/CBC branch-and-bound nodes per solver run: anonratio.exact.options.work_limit), so the
#: verdict is the same on a loaded machine; each run these tests make needs a small share of it
PROOF_WORK = {"cpsat_deterministic_time": 10.0, "mip_nodes": 20_000}
#: the wall-clock limit those runs get: far beyond the time the work above takes on any machine
PROOF_TIME_LIMIT = 600.0


@pytest.fixture(scope="session")
def proof():
    """A proof's budget for tests that must see ``optimal``: ``with proof.work(): solve(...,
    time_limit=proof.time_limit)``. Session-scoped, so hypothesis tests may take it too."""
    from anonratio.exact.options import work_limit

    return SimpleNamespace(
        work=lambda: work_limit(**PROOF_WORK), time_limit=PROOF_TIME_LIMIT, limits=PROOF_WORK
    )


@pytest.fixture(scope="module")
def proof_budget(proof):
    """The proof's work budget around a whole test module (``pytestmark =
    pytest.mark.usefixtures("proof_budget")``): every solve in it that must prove its optimum is
    bounded by work, its wall clock ``proof.time_limit``."""
    with proof.work():
        yield


def pytest_report_header(config: pytest.Config) -> str:
    versions = []
    for name in _REPORTED:
        try:
            versions.append(f"{name} {importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            versions.append(f"{name} (not installed)")
    return "anonratio tests ran on: " + ", ".join(versions)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if importlib.util.find_spec("pycanon") is not None:
        return
    skip = pytest.mark.skip(reason=PYCANON_MISSING)
    for item in items:
        if item.get_closest_marker("pycanon") is not None:
            item.add_marker(skip)


def _hierarchy_rows(path: Path) -> dict[str, set[str]]:
    """``{value: every label on its row}`` of an ARX hierarchy file, read with the csv module."""
    import csv

    with open(path, encoding="utf-8-sig", newline="") as f:
        rows = [[c.strip() for c in r] for r in csv.reader(f, delimiter=";") if any(r)]
    return {r[0]: set(r) | {"*"} for r in rows}


def reverify_published(
    data: Path,
    out: Path,
    qi: Sequence[str],
    k: int,
    *,
    sep: str = ";",
    hierarchies: Path | None = None,
    cost: float | None = None,
    encoding: str = "utf-8-sig",
) -> pd.DataFrame:
    """Check a published file against its input without the CLI's own code path.

    The input and the output are read back with pandas; the published table must have the input's
    columns (names as written, in order) and rows, the non-QI columns unchanged, every QI cell a
    generalization of the original value (the value, ``*``, or a label on its hierarchy row),
    every combination of published QI cells at least ``k`` times, and the cells those the
    project's verifier accepts: the partition into published combinations is verified on a table
    built from the input, and :func:`publish` of it gives the same cells (and ``cost``).
    """
    from anonratio.instances import KAnonymityInstance, Table, publish, read_hierarchy, verify
    from anonratio.instances.loaders import find_hierarchies

    read = {"sep": sep, "dtype": str, "keep_default_na": False, "encoding": encoding}
    original = pd.read_csv(data, **read)
    published = pd.read_csv(out, **read)
    assert list(published.columns) == list(original.columns)
    assert published.shape == original.shape
    names = {c.strip(): c for c in original.columns}  # QI names are given stripped
    cols = [names[c] for c in qi]
    other = [c for c in original.columns if c not in cols]
    pd.testing.assert_frame_equal(published[other], original[other])
    files = find_hierarchies(hierarchies, qi) if hierarchies is not None else {}
    for q, c in zip(qi, cols, strict=True):
        rows = _hierarchy_rows(files[q]) if q in files else {}
        for before, after in zip(original[c].str.strip(), published[c], strict=True):
            assert after in rows.get(before, {before, "*"}), (c, before, after)
    sizes = published.groupby(cols, sort=False).size()
    assert sizes.min() >= k, sizes
    # the project's verifier, on the partition the published cells define
    frame = original.set_axis([c.strip() for c in original.columns], axis=1)
    hier = {q: read_hierarchy(p, attribute=q) for q, p in files.items()}
    table = Table.from_dataframe(frame, qi=list(qi), hierarchies=hier)
    instance = KAnonymityInstance(table, k, model="generalization" if hier else "suppression")
    labels = published.groupby(cols, sort=False).ngroup().to_numpy(dtype=np.int64)
    check = verify(instance, labels)
    assert check.feasible, check.violations
    if cost is not None:
        assert check.cost == pytest.approx(cost)
    again = publish(instance, labels)
    for q, c in zip(qi, cols, strict=True):
        assert again[q].tolist() == published[c].tolist(), c
    return published


@pytest.fixture
def reverify():
    """:func:`reverify_published`, for the anonymize tests."""
    return reverify_published


@pytest.fixture(autouse=True)
def _fresh_bounds():
    """Each test computes its instance bounds itself: the runner keeps them for the process
    (:mod:`anonratio.bench.engine.bounds`), which would let one test's bound answer another's."""
    from anonratio.bench.engine.bounds import clear_cache

    clear_cache()
    yield
