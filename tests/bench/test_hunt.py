"""The worst-case hunter (bench/tracking/hunt.py, bench/cli/hunt.py, bench/library.py) and the moves
it makes (instances/*/moves.py, instances/table_moves.py)."""

import dataclasses
import json

import numpy as np
import pytest

from anonratio.bench import library as hunt_library
from anonratio.bench.cli.parser import main
from anonratio.bench.registry import HUNTS, REGISTRY, generate
from anonratio.bench.tracking.hunt import evaluate, hunt
from anonratio.instances import instance_id, verify
from anonratio.instances.io import load_instance, save_instance


def _rows(folder):
    rows = [json.loads(line) for line in (folder / "journal.jsonl").read_text().splitlines()]
    return [{k: v for k, v in r.items() if k != "time_s"} for r in rows]


# ---------------------------------------------------------------------------------------------
# the search
# ---------------------------------------------------------------------------------------------
@pytest.mark.slow  # a 150-step hunt, every exact model confirming
@pytest.mark.parametrize(
    "algorithm, params, steps, guarantee",
    [
        # the [1,2]-factor algorithm is tight on binary data: 1.5 (paper 000, §5)
        ("factor-2", {"k": 2, "alphabet": 2}, 150, 1.5),
        # FOREST at k = 2 reaches max(2k - 1, 3k - 5) = 3 on six binary records
        ("forest", {"k": 2, "alphabet": 2}, 150, 3.0),
    ],
)
def test_finds_the_tight_instances_within_a_small_budget(algorithm, params, steps, guarantee):
    result = hunt(algorithm, params=params, size=6, steps=steps, seed=0, budget=600)
    worst = result.worst
    assert worst.guarantee == guarantee
    assert worst.ratio == pytest.approx(guarantee)  # reached, not exceeded
    assert not result.violations
    # the worst instance is checked again: every exact model proves the same optimum
    assert {r["status"] for r in result.confirmed.values()} == {"optimal"}
    assert {r["cost"] for r in result.confirmed.values()} == {worst.optimum}
    assert (
        len(result.labels["algorithm"]) == len(result.labels["optimum"]) == result.worst_instance.n
    )


def test_instances_stay_within_twice_the_starting_size(tmp_path, monkeypatch):
    from anonratio.bench.tracking import hunt as hunt_module

    sizes, real = [], hunt_module.evaluate
    monkeypatch.setattr(
        hunt_module, "evaluate", lambda inst, *a, **k: sizes.append(inst.n) or real(inst, *a, **k)
    )
    hunt("r-gather", size=5, steps=120, seed=3, out=tmp_path)
    assert "duplicate_point" in {r["move"] for r in _rows(tmp_path)}
    assert 5 < max(sizes) <= 10
    # at the cap, a duplication is refused: every move keeps n <= 10
    spec, alg = HUNTS["r-gather"], REGISTRY["r-gather"]
    full = generate(spec.family, seed=0, **{**spec.fixed, "n": 10})[0]
    rng = np.random.default_rng(0)
    moved = [hunt_module._moved(full, spec, alg, rng, 10)[0].n for _ in range(40)]
    assert max(moved) == 10 and min(moved) == 9  # moves and deletions, never an 11th point


def test_a_seed_gives_the_same_hunt(tmp_path):
    a = hunt("forest", params={"k": 3}, size=7, steps=12, seed=4, out=tmp_path / "a")
    b = hunt("forest", params={"k": 3}, size=7, steps=12, seed=4, out=tmp_path / "b")
    assert _rows(tmp_path / "a") == _rows(tmp_path / "b")
    assert a.summary() | {"out": None} == b.summary() | {"out": None}
    c = hunt("forest", params={"k": 3}, size=7, steps=12, seed=5)
    assert c.summary()["worst_instance"] != a.summary()["worst_instance"] or c.steps == a.steps


@pytest.mark.slow  # a killed hunt, three hunts in all
def test_a_killed_hunt_resumes_from_its_journal(tmp_path, monkeypatch):
    full = hunt("factor-2", params={"k": 2}, size=6, steps=40, seed=1, out=tmp_path / "full")
    part = tmp_path / "part"
    hunt("factor-2", params={"k": 2}, size=6, steps=25, seed=1, out=part)
    lines = (part / "journal.jsonl").read_text().splitlines()
    (part / "journal.jsonl").write_text("\n".join(lines) + "\n" + lines[-1][:20])  # cut line
    calls = []
    from anonratio.bench.tracking import hunt as hunt_module

    real = hunt_module.evaluate
    monkeypatch.setattr(hunt_module, "evaluate", lambda *a, **k: calls.append(1) or real(*a, **k))
    resumed = hunt("factor-2", params={"k": 2}, size=6, steps=40, seed=1, out=part)
    assert len(calls) == 15  # steps 25 .. 39: the journal answered the first 25
    assert resumed.summary() | {"out": None} == full.summary() | {"out": None}
    with pytest.raises(ValueError, match=r"holds a hunt with other settings \(seed\)"):
        hunt("factor-2", params={"k": 2}, size=6, steps=40, seed=2, out=part)


def test_a_broken_algorithm_is_flagged_at_once(tmp_path, monkeypatch):
    # FOREST claiming ratio 1: every instance it does not solve optimally breaks the claim
    broken = dataclasses.replace(REGISTRY["forest"], guarantee=lambda instance, solution=None: 1.0)
    monkeypatch.setitem(REGISTRY, "forest", broken)
    result = hunt("forest", params={"k": 2}, size=6, steps=30, seed=0, out=tmp_path)
    assert result.violations
    first = result.violations[0]
    assert first["ratio"] > first["guarantee"] == 1.0
    instance, meta = load_instance(first["file"])
    assert meta["violation"]["step"] == first["step"]
    ev, runs = evaluate(instance, "forest")
    assert ev.violates and runs["algorithm"].verified and runs["exact"].status == "optimal"


def test_refuses_exact_and_unknown_algorithms_and_bad_parameters():
    with pytest.raises(ValueError, match="`algorithm` 'kanon-cpsat' is exact"):
        hunt("kanon-cpsat")
    with pytest.raises(ValueError, match="unknown algorithm 'nope'"):
        hunt("nope")
    with pytest.raises(ValueError, match="`budget` must be a positive"):
        hunt("forest", budget=0)
    with pytest.raises(ValueError, match="`size` must be"):
        hunt("forest", size=1)
    with pytest.raises(ValueError, match="unknown parameter 'q'"):
        hunt("forest", params={"q": 3}, steps=2)
    with pytest.raises(ValueError, match="do not suit factor-2: factor-2 needs k=2, got k=3"):
        hunt("factor-2", params={"k": 3}, steps=2)


def test_every_algorithm_but_the_exact_ones_has_moves():
    hunted = {a.problem for a in REGISTRY.values() if a.kind != "exact"}
    assert hunted <= set(HUNTS)


@pytest.mark.parametrize("problem", sorted(HUNTS))
def test_every_problem_with_moves_can_be_hunted(problem):
    # an approximation algorithm where the problem has one, else its first heuristic
    candidates = [a for a in REGISTRY.values() if a.problem == problem and a.kind != "exact"]
    alg = min(candidates, key=lambda a: a.kind != "approximation")
    result = hunt(alg.name, size=7, steps=6, seed=0, time_limit=30)
    assert result.steps == 6 and result.evaluated == 6
    assert result.worst is not None and result.worst.ratio >= 1 - 1e-9
    if result.worst.guarantee is not None:
        assert result.worst.ratio <= result.worst.guarantee * (1 + 1e-9) + 1e-9


# ---------------------------------------------------------------------------------------------
# the moves
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("problem", sorted(HUNTS))
def test_moves_make_new_valid_instances_and_leave_the_input(problem, tmp_path):
    spec = HUNTS[problem]
    instance = generate(spec.family, seed=3, **{**spec.fixed, spec.size_param: 7})[0]
    before = instance_id(instance)
    rng = np.random.default_rng(0)
    for name, move in spec.load_moves():
        for _ in range(5):
            try:
                moved = move(instance, rng)
            except ValueError:
                continue
            assert moved.problem == problem and type(moved) is type(instance), name
            assert instance_id(instance) == before, f"{name} changed its input"
            save_instance(tmp_path / "moved.json", moved)  # a valid instance of its problem
            assert instance_id(load_instance(tmp_path / "moved.json")[0]) == instance_id(moved)
            assert moved.params == instance.params or problem == "cellular", name
    again = [m(instance, np.random.default_rng(9)) for _, m in spec.load_moves()[:1]]
    assert instance_id(again[0]) == instance_id(
        spec.load_moves()[0][1](instance, np.random.default_rng(9))
    )


def test_table_moves_change_one_thing():
    from anonratio.instances import table_moves

    inst = generate("ldiv-random", seed=0, n=8)[0]
    t, rng = inst.table, np.random.default_rng(2)
    cell = table_moves.replace_cell(t, rng)
    assert np.sum(np.asarray(cell.codes) != np.asarray(t.codes)) == 1
    sens = table_moves.replace_sensitive(t, rng)
    assert np.sum(sens.sensitive != t.sensitive) == 1
    assert table_moves.duplicate_record(t, rng).n_records == t.n_records + 1
    assert table_moves.delete_record(t, rng).n_records == t.n_records - 1


# ---------------------------------------------------------------------------------------------
# the command line and the library
# ---------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_cli_prints_the_worst_instance_side_by_side(tmp_path, capsys):
    argv = ["hunt", "factor-2", "--problem-params", "k=2", "alphabet=2", "--size", "6"]
    assert main([*argv, "--steps", "150", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "worst ratio  1.5 (cost" in out and "guarantee    1.5 (gap 0)" in out
    header = next(line for line in out.splitlines() if line.startswith("record"))
    assert header.split() == ["record", "factor-2", "optimum"]
    assert (tmp_path / "worst.json").exists() and (tmp_path / "summary.json").exists()
    assert main([*argv, "--steps", "3", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["steps"] == 3 and doc["violations"] == []
    assert main(["hunt", "kanon-cpsat", "--json"]) == 2
    assert "is exact" in json.loads(capsys.readouterr().out)["error"]


def test_cli_exits_1_on_a_violation(tmp_path, capsys, monkeypatch):
    broken = dataclasses.replace(REGISTRY["forest"], guarantee=lambda instance, solution=None: 1.0)
    monkeypatch.setitem(REGISTRY, "forest", broken)
    assert (
        main(
            [
                "hunt",
                "forest",
                "--problem-params",
                "k=2",
                "--size",
                "6",
                "--steps",
                "30",
                "--out",
                str(tmp_path),
            ]
        )
        == 1
    )
    assert "VIOLATION at step" in capsys.readouterr().out


def _fake_checkout(tmp_path, monkeypatch):
    """A checkout (a pyproject.toml beside the package) whose library is the default."""
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "pyproject.toml").write_text("")
    library = tmp_path / "repo" / "results" / "hard_instances"
    monkeypatch.setattr(hunt_library, "LIBRARY", library)
    return library


@pytest.mark.slow
def test_library_keeps_the_worse_instance_and_feeds_the_family(tmp_path, monkeypatch):
    _fake_checkout(tmp_path, monkeypatch)
    result = hunt("factor-2", params={"k": 2, "alphabet": 2}, size=6, steps=150, seed=0)
    meta = {"hunted": "factor-2", "ratio": result.worst.ratio, "optimum": result.worst.optimum}
    assert hunt_library.offer(result.worst_instance, meta)
    assert not hunt_library.offer(result.worst_instance, {**meta, "ratio": 1.2})
    family = hunt_library.worst_found_family("kanon", "k-anonymity", "factor-2")
    instance, got = family(seed=0)
    assert instance_id(instance) == result.worst.instance and got["optimum"] == meta["optimum"]
    assert verify(instance, REGISTRY["factor-2"].run(instance, seed=0)).feasible
    with pytest.raises(ValueError, match="has no k-anonymity instance"):
        family(seed=0, algorithm="forest")


HUNT_ARGV = ["hunt", "factor-2", "--problem-params", "k=2", "alphabet=2", "--size", "6"]


def test_library_is_never_written_into_an_installed_package(tmp_path, monkeypatch, capsys):
    installed = tmp_path / "lib" / "site-packages" / "anonratio"
    monkeypatch.setattr(hunt_library, "LIBRARY", installed / "results" / "hard_instances")
    assert main([*HUNT_ARGV, "--steps", "5", "--library"]) == 2
    err = capsys.readouterr().err
    assert "anonratio runs from an installed copy" in err and "--library DIR" in err
    # a folder inside site-packages is refused too, whatever the package's location
    target = tmp_path / "lib" / "site-packages" / "elsewhere"
    assert main([*HUNT_ARGV, "--steps", "5", "--library", str(target), "--json"]) == 2
    doc = json.loads(capsys.readouterr().out)
    assert doc["kind"] == "bad_input" and "lies inside the installed packages" in doc["error"]
    assert not (tmp_path / "lib").exists() or not any((tmp_path / "lib").rglob("*.json"))


def test_library_goes_to_the_checkout_or_the_given_folder(tmp_path, monkeypatch, capsys):
    library = _fake_checkout(tmp_path, monkeypatch)
    assert main([*HUNT_ARGV, "--steps", "10", "--library", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["library"] is True and doc["library_dir"] == str(library)
    assert load_instance(library / "factor-2.json")[1]["ratio"] == doc["worst_ratio"]
    mine = tmp_path / "mine"
    assert main([*HUNT_ARGV, "--steps", "10", "--library", str(mine)]) == 0
    assert f"library      kept in {mine}" in capsys.readouterr().out
    assert (mine / "factor-2.json").exists()
    (tmp_path / "a-file").write_text("")
    assert main([*HUNT_ARGV, "--steps", "5", "--library", str(tmp_path / "a-file")]) == 2
    assert "is a file, not a folder" in capsys.readouterr().err
