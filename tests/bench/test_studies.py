"""Tests of the study files (anonratio.bench.engine.studies) and the built-in suites declared in
them."""

import textwrap

import pytest

from anonratio.bench.engine.studies import StudyError, expand, load_study, parse_study
from anonratio.bench.engine.studies import grid as _grid
from anonratio.bench.engine.suites import SUITES, get_suite
from anonratio.bench.experiments.fig7 import fig7_tasks

#: the algorithms of the former Python suites (the oracle of the study files' task lists)
APPROXIMATION = ("forest", "factor-2", "factor-3")
EXACT = ("kanon-cpsat", "kanon-highs")
BIN_COVERING = (
    "fold-random",
    "fold-sorted",
    "spread-random",
    "spread-sorted",
    "simplified-spread-random",
    "simplified-spread-sorted",
    "relaxed",
)
BIN_COVERING_EXACT = ("bc-cpsat", "bc-highs")
#: (approximations and heuristics, exact models) per problem
ZIP_CODES = (("spanning-tree-split",), ("zip-cpsat",))
GPS_RECTANGLES = (("kdtree-split", "gps-guillotine"), ("gps-cpsat", "gps-highs"))
ORDERED_LABELS = ((), ("ordered-greedy",))
#: n values of the exact-scaling suite
SCALING_N = (10, 15, 20, 30, 40, 60, 80, 100, 150, 200)


# ---------------------------------------------------------------------------------------------
# the Python suites the study files replaced, kept as the oracle of their task lists
# ---------------------------------------------------------------------------------------------
def _quick():
    inst = []
    inst += _grid("kanon-binary", (0, 1), n=[12, 20], m=[6], k=[2, 3, 4, 5])
    inst += _grid("kanon-ternary", (0, 1), n=[10], m=[5], k=[2, 3, 4, 5])
    inst += _grid("kanon-ternary", (0,), n=[15], m=[5], k=[2, 3, 5])
    inst += _grid(
        "kanon-random",
        (0, 1),
        n=[10],
        m=[3],
        k=[2, 3, 4, 5],
        cardinality=[(4, 6)],
        levels=[(2, 3)],
    )
    inst += _grid("kanon-planted", (0, 1), n=[24], m=[6], n_groups=[4], k=[2, 3, 5])
    inst += _grid("kanon-planted", (0,), n=[30], m=[8], n_groups=[5], k=[2, 3, 5])
    inst += _grid("kanon-triangles", (0, 1), n_triangles=[3], n_vertices=[7])
    inst += _grid("kanon-gap-pair", (0,), k=[4], member=["first", "second"])
    tasks = expand(inst, APPROXIMATION + EXACT, time_limit=15.0) + _quick_bin_covering()
    return tasks + _quick_paper004()


def _quick_bin_covering():
    # sizes chosen so bc-cpsat and bc-highs prove optimality in about a second each
    inst = []
    inst += _grid("bc-uniform", (0, 1), n=[10], k=[20])
    inst += _grid("bc-uniform", (0, 1), n=[12], k=[50])
    inst += _grid("bc-zipf", (0, 1), n=[20], k=[50])
    inst += _grid("bc-zipf", (0, 1), n=[30], k=[100])
    inst += _grid("bc-3partition-yes", (0, 1), m=[4])
    inst += _grid("bc-3partition-yes", (0,), m=[5])
    inst += _grid("bc-3partition-no", (0, 1), m=[4])
    inst += _grid("bc-3partition-no", (0,), m=[6])
    return expand(inst, BIN_COVERING + BIN_COVERING_EXACT, time_limit=15.0)


def _paper004_tasks(zips, gps, ordered, *, time_limit):
    """Tasks of zip-code, GPS-rectangle and ordered-label instances, each with its algorithms."""
    tasks = []
    for inst, (algs, exact) in (
        (zips, ZIP_CODES),
        (gps, GPS_RECTANGLES),
        (ordered, ORDERED_LABELS),
    ):
        tasks += expand(inst, algs + exact, time_limit=time_limit)
    return tasks


def _quick_paper004():
    # sizes chosen so zip-cpsat, gps-cpsat and gps-highs prove optimality in about a second
    zips = []
    zips += _grid("zip-delaunay", (0, 1), n=[15, 20], k=[15])
    zips += _grid("zip-grid", (0, 1), rows=[4], cols=[5], k=[15])
    zips += _grid("zip-planted", (0, 1), n=[20], n_parts=[4], k=[10])
    gps = []
    gps += _grid("gps-uniform", (0, 1), n=[10], k=[5], weight_max=[3])
    gps += _grid("gps-uniform", (0, 1), n=[12], k=[4], weight_max=[3], grid=[5])
    gps += _grid("gps-clustered", (0, 1), n=[12], k=[5], weight_max=[3])
    gps += _grid("gps-cross", (0,), k=[3, 5])
    gps += _grid("gps-pinwheel", (0,), k=[3, 5])
    ordered = _grid("ordered-random", (0, 1, 2), n=[30], k=[10])
    return _paper004_tasks(zips, gps, ordered, time_limit=15.0)


def _full_paper004(seeds):
    zips = []
    zips += _grid("zip-delaunay", seeds, n=[20, 30, 50], k=[15, 30])
    zips += _grid("zip-delaunay", seeds, n=[30], k=[20], weights=["lognormal"])
    zips += _grid("zip-grid", seeds, rows=[4, 6], cols=[5, 8], k=[15, 30])
    zips += _grid("zip-planted", seeds, n=[30, 50], n_parts=[5], k=[10, 20])
    gps = []
    gps += _grid("gps-uniform", seeds, n=[10, 15, 20], k=[5, 10], weight_max=[3])
    gps += _grid("gps-uniform", seeds, n=[20], k=[5], weight_max=[3], grid=[6])
    gps += _grid("gps-clustered", seeds, n=[15, 20], k=[5, 10], weight_max=[3])
    gps += _grid("gps-cross", (0,), k=[2, 3, 5, 8, 10])
    gps += _grid("gps-pinwheel", (0,), k=[2, 3, 5, 8, 10])
    ordered = _grid("ordered-random", seeds, n=[30, 100, 1000], k=[10, 50])
    return _paper004_tasks(zips, gps, ordered, time_limit=120.0)


def _full():
    seeds = tuple(range(5))
    bc = []
    bc += _grid("bc-uniform", seeds, n=[12, 16, 20], k=[20, 50, 100])
    bc += _grid("bc-zipf", seeds, n=[30, 60], k=[50, 100])
    bc += _grid("bc-3partition-yes", seeds, m=[4, 6, 8])
    bc += _grid("bc-3partition-no", seeds, m=[4, 6, 8])
    ks = [2, 3, 4, 5, 7, 10]
    inst = []
    inst += _grid("kanon-binary", seeds, n=[20, 30, 50, 100], m=[8], k=ks)
    inst += _grid("kanon-ternary", seeds, n=[20, 30, 50], m=[6], k=ks)
    inst += _grid("kanon-categorical", seeds, n=[30, 60], m=[6], alphabet=[5], k=ks)
    inst += _grid("kanon-random", seeds, n=[30, 60, 100], m=[5], k=ks)
    inst += _grid("kanon-random", seeds, n=[60], m=[5], k=[3, 5], zipf=[1.2])
    inst += _grid("kanon-planted", seeds, n=[60, 100], m=[8], n_groups=[10], k=[2, 3, 5])
    inst += _grid("kanon-triangles", seeds, n_triangles=[3, 4, 5], n_vertices=[8])
    inst += _grid("kanon-gap-pair", (0,), k=[3, 4, 5, 6, 7, 8], member=["first", "second"])
    tasks = expand(inst, APPROXIMATION + EXACT, time_limit=120.0)
    tasks += expand(bc, BIN_COVERING + BIN_COVERING_EXACT, time_limit=120.0)
    return tasks + _full_paper004(seeds)


def _exact_scaling():
    # m = 10 attributes: up to 1024 distinct records, so growing n grows the model (with m = 6
    # the 64 possible records collapse every large table to a small one)
    inst = _grid("kanon-binary", (0, 1, 2), n=list(SCALING_N), m=[10], k=[2, 3, 5])
    inst = [(f, p, s) for f, p, s in inst if p["n"] >= p["k"]]
    return expand(inst, EXACT, time_limit=60.0)


LEGACY = {
    "quick": _quick,
    "full": _full,
    "exact-scaling": _exact_scaling,
    "paper-fig7": fig7_tasks,
}


@pytest.mark.parametrize("name", list(LEGACY))
def test_builtin_study_gives_the_same_tasks_in_the_same_order(name):
    from anonratio.bench.problems.clustering import PREFIX

    tasks, legacy = get_suite(name).tasks(), LEGACY[name]()
    assert tasks[: len(legacy)] == legacy
    # what came after the migration to study files: the clustering problems (paper 003),
    # l-diversity (paper 001) and the classic k-anonymity algorithms of the survey (002)
    added = tasks[len(legacy) :]
    prefixes = {*PREFIX.values(), "ldiv", "kanon"}
    assert all(t.family.split("-")[0] in prefixes for t in added)
    classic = {"samarati", "incognito", "datafly", "mondrian", "mondrian-relaxed"}
    classic |= {"k-optimize", "flash", "tds", "alpha-k-topdown"}
    # the (alpha, k) sweep compares alpha-k-topdown with FOREST and the exact models on its
    # tables with a sensitive attribute
    kanon = [t for t in added if t.family.startswith("kanon")]
    assert all(t.algorithm in classic or t.family_params.get("sensitive") for t in kanon)
    if name == "full":
        assert {t.family.split("-")[0] for t in added} == set(PREFIX.values())
    if name == "quick":
        assert {t.family.split("-")[0] for t in added} == prefixes


def test_builtin_studies_ship_with_the_package():
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    text = (root / "pyproject.toml").read_text()
    assert (
        "bench/studies/*.toml"
        in tomllib.loads(text)["tool"]["setuptools"]["package-data"]["anonratio"]
    )
    for name, suite in SUITES.items():  # read from the package, installed or not
        assert suite.path.exists() and suite.path.name == f"{name}.toml"
        assert suite.path.parent.parts[-2:] == ("bench", "studies")


STUDY = """\
name = "mine"
description = "a small study"
time_limit = 5.0
memory_limit = 2000

[[sweep]]
family = "kanon-binary"
seeds = [0, 1]
algorithms = ["forest", "factor-2"]

[sweep.grid]
n = [8, 10]
k = [2, 3]

[sweep.params]
m = 4

[[sweep]]
family = "bc-uniform"
problem = "bin-covering"
algorithms = ["fold-sorted"]
time_limit = 2
grid = { n = [6], k = [20] }
"""


def test_a_user_study_file(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text(STUDY)
    suite = get_suite(str(path))
    assert (suite.name, suite.description, suite.memory_limit) == ("mine", "a small study", 2000)
    tasks = suite.tasks()
    want = expand(
        _grid("kanon-binary", (0, 1), n=[8, 10], k=[2, 3], m=[4]),
        ["forest", "factor-2"],
        time_limit=5.0,
    ) + expand(_grid("bc-uniform", (0,), n=[6], k=[20]), ["fold-sorted"], time_limit=2.0)
    assert tasks == want
    assert {(t.family_params["k"], t.algorithm) for t in tasks[:8]} >= {(2, "factor-2")}
    assert not any(t.algorithm == "factor-2" and t.family_params["k"] == 3 for t in tasks)


def _error(text, name="my-study.toml"):
    with pytest.raises(StudyError) as info:
        parse_study(textwrap.dedent(text), source=name)
    return str(info.value)


BASE = """\
name = "x"

[[sweep]]
family = "kanon-binary"
seeds = [0]
algorithms = ["forest", "factor-2"]
grid = { n = [8], k = [2] }
"""


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            BASE.replace("factor-2", "frest"),
            "my-study.toml line 6: unknown algorithm 'frest' in [[sweep]] algorithms; known: [",
        ),
        (
            BASE.replace('"forest", "factor-2"', '\n  "forest",\n  "frest",\n'),
            "my-study.toml line 8: unknown algorithm 'frest'",
        ),
        (
            BASE.replace('"factor-2"', '"fold-sorted"'),
            "line 6: algorithm 'fold-sorted' in [[sweep]] algorithms solves bin-covering, "
            "family 'kanon-binary' is k-anonymity",
        ),
        ('name = "x"\ncolour = 1\n' + BASE[10:], "line 2: unknown key 'colour' in the study"),
        (BASE + "sizes = [1]\n", "line 8: unknown key 'sizes' in [[sweep]]; known: ['family'"),
        (
            BASE.replace("kanon-binary", "kanon-bin"),
            "line 4: unknown family 'kanon-bin' in [[sweep]] family; known: [",
        ),
        (
            BASE.replace("k = [2]", "kk = [2]"),
            "line 7: unknown parameter 'kk' for family 'kanon-binary' in [[sweep]] grid; known: [",
        ),
        (BASE.replace("n = [8]", "n = []"), "line 7: grid `n` in [[sweep]] is empty"),
        (BASE.replace("n = [8]", "n = 8"), "line 7: grid `n` in [[sweep]] must be an array"),
        (
            BASE.replace("n = [8]", 'n = ["eight"]'),
            "line 7: parameter `n` must be of type int like its default",
        ),
        (BASE.replace("seeds = [0]", "seeds = 0"), "line 5: `seeds` in [[sweep]] must be an array"),
        (BASE.replace("seeds = [0]", "seeds = []"), "line 5: `seeds` in [[sweep]] is empty"),
        (
            BASE.replace("seeds = [0]", 'seeds = [0, "1"]'),
            "line 5: `seeds` in [[sweep]] must be an array of integers >= 0, got '1'",
        ),
        (
            'time_limit = "long"\n' + BASE,
            "line 1: `time_limit` in the study must be a positive number, got 'long'",
        ),
        (BASE.replace('name = "x"', "name = 3"), "line 1: `name` in the study must be a non-empty"),
        ('name = "x"\n', "line 1: the study has no [[sweep]] table"),
        (
            BASE.replace('family = "kanon-binary"\n', ""),
            "line 3: [[sweep]] needs `family` (or `generator`)",
        ),
        (
            BASE.replace("seeds = [0]", 'problem = "bin-covering"'),
            "line 5: `problem` in [[sweep]] is 'bin-covering', family 'kanon-binary' is",
        ),
        (
            '[[sweep]]\ngenerator = "anonratio.bench.experiments.fig7:nothing"\n',
            "line 2: `generator` in [[sweep]] must be a registered task generator, one of "
            "['anonratio.bench.experiments.fig7:fig7_tasks'], "
            "got 'anonratio.bench.experiments.fig7:nothing'",
        ),
        (
            '[[sweep]]\ngenerator = "anonratio.bench.experiments.fig7:fig7_tasks"\n'
            "args = { colour = 1 }\n",
            "line 3: `args` in [[sweep]] do not fit generator "
            "'anonratio.bench.experiments.fig7:fig7_tasks': "
            "got an unexpected keyword argument 'colour'",
        ),
        (
            BASE.replace('"factor-2"', '"factor-2", "forest"'),
            "line 6: `algorithms` in [[sweep]] lists 'forest' twice: its runs would run twice",
        ),
        (
            BASE.replace("seeds = [0]", "seeds = [0, 1, 0]"),
            "line 5: `seeds` in [[sweep]] lists 0 twice",
        ),
        (
            BASE.replace("n = [8]", "n = [8, 10, 8]"),
            "line 7: grid `n` in [[sweep]] lists 8 twice: its runs would run twice",
        ),
        ("name = \n", "my-study.toml: not valid TOML: Invalid value (at line 1, column 8)"),
    ],
)
def test_study_errors_name_the_file_line_and_key(text, expected):
    assert expected in _error(text)


def test_second_sweep_block_errors_point_into_that_block():
    text = BASE + BASE[BASE.index("[[sweep]]") :].replace("factor-2", "frest")
    assert "my-study.toml line 11: unknown algorithm 'frest'" in _error(text)


def test_load_study_names_a_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError):
        load_study(tmp_path / "nope.toml")


def test_the_readme_example_is_a_valid_study(tmp_path):
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "suites.md").read_text()
    start = text.index('```toml\nname = "my-study"') + len("```toml\n")
    path = tmp_path / "my-study.toml"
    path.write_text(text[start : text.index("```", start)])
    suite = get_suite(str(path))
    tasks = suite.tasks()
    assert suite.name == "my-study" and suite.memory_limit == 2000
    assert {t.family for t in tasks} == {"kanon-binary", "bc-uniform"}
    assert {t.time_limit for t in tasks if t.family == "bc-uniform"} == {5.0}
    assert len(tasks) == 8 + 4 + 8 + 6  # forest, factor-2 (k = 2), cpsat; 3 bin-covering


def test_run_reports_a_bad_study_file_with_its_line(tmp_path, capsys):
    from anonratio.bench.cli.parser import main

    path = tmp_path / "my-study.toml"
    path.write_text(BASE.replace("factor-2", "frest"))
    assert main(["run", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("anonratio: error: my-study.toml line 6: unknown algorithm 'frest'")
    assert not (tmp_path / "out").exists()


# ---------------------------------------------------------------------------------------------
# a study runs registered code only, each run once, and names the line of what it refuses
# ---------------------------------------------------------------------------------------------
def test_a_study_never_imports_or_calls_an_unregistered_function(tmp_path, capsys):
    from anonratio.bench.cli.parser import main

    witness = tmp_path / "ran"
    path = tmp_path / "evil.toml"
    path.write_text(
        f'[[sweep]]\ngenerator = "os:system"\nargs = {{ command = "touch {witness}" }}\n'
    )
    assert main(["run", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "evil.toml line 2: `generator` in [[sweep]] must be a registered task generator" in err
    assert "got 'os:system'" in err
    assert not witness.exists() and not (tmp_path / "out").exists()


def test_the_same_run_in_two_blocks_is_refused_with_both_lines():
    # the second block spells the same instance differently (m is kanon-binary's default)
    from anonratio.bench.registry import FAMILIES

    m = FAMILIES["kanon-binary"].defaults["m"]
    text = BASE + BASE[BASE.index("[[sweep]]") :].replace(
        'algorithms = ["forest", "factor-2"]', 'algorithms = ["forest"]'
    ).replace("grid = { n = [8], k = [2] }", f"params = {{ n = 8, k = 2, m = {m} }}")
    study = parse_study(text, source="my-study.toml")
    with pytest.raises(StudyError) as info:
        study.tasks()
    message = str(info.value)
    assert message.startswith("my-study.toml line 8: the run forest on kanon-binary")
    assert "is already in the [[sweep]] at line 3: list each run once" in message
    # another time limit is another run
    other = text.replace("params = {", "time_limit = 7\nparams = {")
    assert len(parse_study(other).tasks()) == 3


def test_a_grid_value_the_family_refuses_names_its_line(tmp_path, capsys):
    from anonratio.bench.cli.parser import main

    path = tmp_path / "my-study.toml"
    path.write_text(
        BASE.replace(
            "grid = { n = [8], k = [2] }", "grid = { k = [2] }\n[sweep.params]\nm = 4\nn = -3\n"
        )
    )
    out = tmp_path / "out"
    assert main(["run", str(path), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("anonratio: error: my-study.toml line 10: family 'kanon-binary' refuses")
    assert "n=-3" in err and "`n` must be an integer >= 1, got -3" in err
    assert not out.exists()  # checked before the output folder is made


def test_a_binary_study_file_is_named_and_leaves_nothing_behind(tmp_path, capsys):
    from anonratio.bench.cli.parser import main

    path = tmp_path / "my-study.toml"
    path.write_bytes(b"name = 1\n\x00\x01\xff\xfe")
    assert main(["run", str(path), "--out", str(tmp_path / "out"), "--json"]) == 2
    import json

    doc = json.loads(capsys.readouterr().out)
    assert doc["kind"] == "bad_input" and doc["type"] == "StudyError"
    assert doc["error"] == (
        "my-study.toml line 2: not a study file: not UTF-8 text (byte 0xff at offset 11)"
    )
    assert not (tmp_path / "out").exists()


def test_a_time_limit_that_makes_two_runs_the_same_is_refused(tmp_path, capsys):
    from anonratio.bench.cli.parser import main

    path = tmp_path / "my-study.toml"
    path.write_text(BASE + BASE[BASE.index("[[sweep]]") :] + "time_limit = 7\n")
    assert len(get_suite(str(path)).tasks()) == 4  # 60 s and 7 s: four runs
    assert main(["run", str(path), "--time-limit", "5", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "`--time-limit` 5 makes two runs of suite 'x' the same (forest on kanon-binary" in err
    assert not (tmp_path / "out").exists()
