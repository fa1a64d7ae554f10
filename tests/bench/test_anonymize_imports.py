"""What ``anonratio anonymize`` imports: a k-anonymity run loads its own algorithm's modules, not
the other algorithms', the exact models (OR-Tools, PuLP), scipy, matplotlib or networkx."""

import subprocess
import sys

import pytest

ROWS = [(str(20 + (7 * i) % 40), "MF"[i % 2], f"1305{i % 4}") for i in range(30)]

#: modules no k-anonymity publishing run needs (the other solvers' import OR-Tools and PuLP)
HEAVY = (
    "ortools",
    "pulp",
    "scipy",
    "matplotlib",
    "networkx",
    "anonratio.solvers.kanonymity.factor_",
    "anonratio.solvers.kanonymity.min_weight_factor",
    "anonratio.solvers.kanonymity.k_optimize",
    "anonratio.solvers.kanonymity.tds",
    "anonratio.solvers.clustering",
    "anonratio.solvers.ldiversity",
)

#: the algorithm's own module, loaded by the run
OWN = {
    "datafly": "anonratio.solvers.kanonymity.datafly",
    "mondrian": "anonratio.solvers.kanonymity.mondrian",
    "incognito": "anonratio.solvers.kanonymity.incognito",
    "forest": "anonratio.solvers.kanonymity.forest",
}


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "data.csv"
    path.write_text("\n".join(["age;sex;zip"] + [";".join(r) for r in ROWS]) + "\n")
    hier = tmp_path / "hier"
    hier.mkdir()
    ages = sorted({r[0] for r in ROWS})
    rows = [f"{a};{int(a) // 10 * 10}s;*" for a in ages]
    (hier / "data_hierarchy_age.csv").write_text("\n".join(rows) + "\n")
    zips = sorted({r[2] for r in ROWS})
    (hier / "data_hierarchy_zip.csv").write_text("\n".join(f"{z};{z[:4]}*;*" for z in zips))
    (hier / "data_hierarchy_sex.csv").write_text("M;*\nF;*\n")
    return path, hier


def test_an_anonymize_run_imports_only_what_it_uses(data, tmp_path):
    """Each run publishes (exit 0, the table written) having loaded its algorithm's module and
    none of :data:`HEAVY`, checked after every run of one fresh interpreter that runs the four in
    turn (none of them loads a heavy module, so a later run cannot hide an earlier one's)."""
    path, hier = data
    argvs = {}
    for algorithm in sorted(OWN):
        argv = ["anonymize", str(path), "--qi", "age,sex,zip", "--k", "3"]
        argv += ["--hierarchies", str(hier), "--algorithm", algorithm]
        argvs[algorithm] = [*argv, "--out", str(tmp_path / f"{algorithm}.csv"), "--json"]
    code = (
        "import sys, contextlib, io; from anonratio.bench.cli.parser import main\n"
        f"for algorithm, argv in {argvs!r}.items():\n"
        "    with contextlib.redirect_stdout(io.StringIO()):\n"
        "        code = main(argv)\n"
        f"    heavy = sorted(m for m in sys.modules if m.startswith({HEAVY!r}))\n"
        f"    print(algorithm, code, {OWN!r}[algorithm] in sys.modules, heavy)"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    lines = [line.split(maxsplit=3) for line in run.stdout.strip().splitlines()]
    assert lines == [[a, "0", "True", "[]"] for a in sorted(OWN)], run.stdout + run.stderr
    for algorithm in OWN:
        assert (tmp_path / f"{algorithm}.csv").read_text().count("\n") == len(ROWS) + 1
