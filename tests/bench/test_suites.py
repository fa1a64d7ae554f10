"""Tests of the benchmark suites (anonratio.bench.engine.suites)."""

from collections import Counter

import pytest

from anonratio.bench.engine.runner import Task
from anonratio.bench.engine.suites import SUITES, Suite, expand, get_suite
from anonratio.bench.registry import FAMILIES, REGISTRY, generate


def test_suite_names_and_lookup():
    assert list(SUITES) == [
        "quick",
        "full",
        "exact-scaling",
        "paper-fig7",
        "clustering",
        "paper-ldiv",
        "paper-ldiv-certified",
        "adult-certified",
        "scale-certified",
    ]
    assert all(isinstance(s, Suite) and s.description for s in SUITES.values())
    assert get_suite("quick") is SUITES["quick"]
    with pytest.raises(
        ValueError, match=r"unknown suite 'nope'; known suites: \['adult-certified', 'clustering'"
    ):
        get_suite("nope")
    # each built-in suite is a study file shipped with the package
    for name, suite in SUITES.items():
        assert suite.path.name == f"{name}.toml" and suite.path.parent.name == "studies"
        assert suite.memory_limit is None


def test_quick_suite_tasks():
    tasks = [t for t in get_suite("quick").tasks() if t.family.startswith("kanon-")]
    assert tasks and all(isinstance(t, Task) for t in tasks)
    assert {t.family for t in tasks} <= set(FAMILIES)
    classic = {"samarati", "incognito", "datafly", "mondrian", "mondrian-relaxed"}
    classic |= {"tds"}  # top-down specialization of taxonomy cuts
    classic |= {"alpha-k-topdown"}  # (alpha, k)-anonymity, on the tables with a sensitive column
    classic |= {"k-optimize"}  # branch and bound over interval cuts (Bayardo and Agrawal 2005)
    classic |= {"flash"}  # Flash (Kohlmayer et al. 2012), beside Incognito
    assert {t.algorithm for t in tasks} == {
        "forest",
        "factor-2",
        "factor-3",
        "kanon-cpsat",
        "kanon-highs",
        *classic,
    }
    assert all(10 <= t.time_limit <= 20 for t in tasks)
    # every task builds, and only supported combinations are there
    for t in tasks:
        instance, meta = generate(t.family, seed=t.seed, **t.family_params)
        assert meta["family"] == t.family
        assert REGISTRY[t.algorithm].supports(instance) is None
        assert instance.n <= 30
    key = lambda t: (t.family, str(sorted(t.family_params.items())), t.seed)  # noqa: E731
    per_instance = Counter(key(t) for t in tasks if t.algorithm not in classic)
    assert set(per_instance.values()) <= {3, 4}  # forest + 2 exact (+ a factor algorithm)
    # the classic algorithms run on instances whose optimum the exact models prove
    assert {key(t) for t in tasks if t.algorithm in classic} <= set(per_instance)
    ks = {t.family_params.get("k") for t in tasks}
    assert {2, 3, 4, 5} <= ks
    assert {"kanon-binary", "kanon-ternary", "kanon-random", "kanon-planted"} <= {
        t.family for t in tasks
    }
    assert "kanon-triangles" in {t.family for t in tasks}


#: problem -> (approximations/heuristics, exact models) of the quick and full suites
PAPER004 = {
    "zip": ({"spanning-tree-split"}, {"zip-cpsat"}),
    "gps": ({"kdtree-split", "gps-guillotine"}, {"gps-cpsat", "gps-highs"}),
    "ordered": (set(), {"ordered-greedy"}),
}


@pytest.mark.parametrize("suite", ["quick", "full"])
def test_paper004_tasks(suite):
    tasks = get_suite(suite).tasks()
    families = {t.family for t in tasks}
    assert {
        "zip-delaunay",
        "zip-grid",
        "zip-planted",
        "gps-uniform",
        "gps-clustered",
        "gps-cross",
        "gps-pinwheel",
        "ordered-random",
    } <= families
    for prefix, (approx, exact) in PAPER004.items():
        mine = [t for t in tasks if t.family.startswith(prefix + "-")]
        assert {t.algorithm for t in mine} == approx | exact
        per_instance = Counter(
            (t.family, str(sorted(t.family_params.items())), t.seed) for t in mine
        )
        assert set(per_instance.values()) == {len(approx | exact)}
    if suite == "quick":
        for t in (t for t in tasks if t.family.split("-")[0] in PAPER004):
            assert t.time_limit == 15.0
            instance, _ = generate(t.family, seed=t.seed, **t.family_params)
            assert instance.n <= {"zip": 25, "gps": 12, "ordered": 30}[t.family.split("-")[0]]


def test_exact_scaling_suite():
    tasks = get_suite("exact-scaling").tasks()
    assert {t.algorithm for t in tasks} == {"kanon-cpsat", "kanon-highs"}
    assert {t.family for t in tasks} == {"kanon-binary"}
    assert {t.time_limit for t in tasks} == {60.0}
    assert {t.family_params["k"] for t in tasks} == {2, 3, 5}
    assert sorted({t.family_params["n"] for t in tasks}) == [
        10,
        15,
        20,
        30,
        40,
        60,
        80,
        100,
        150,
        200,
    ]


def test_scale_certified_suite_runs_every_algorithm_on_two_100k_tables():
    tasks = get_suite("scale-certified").tasks()
    algorithms = {
        "forest",
        "mondrian",
        "datafly",
        "kanon-box-greedy",
        "kanon-local-search",
        "kanon-certified",
    }
    # every algorithm supports both tables: none is dropped (the box greedy's lattice limit)
    assert len(tasks) == 12 and {t.algorithm for t in tasks} == algorithms
    assert {t.family for t in tasks} == {"kanon-random"} and {t.seed for t in tasks} == {0, 1}
    assert {t.time_limit for t in tasks} == {600.0}
    instance, _ = generate("kanon-random", seed=1, **tasks[0].family_params)
    assert instance.n == 100_000 and instance.k == 5 and len(instance.hierarchies) == 8


def test_full_suite_is_larger():
    full = get_suite("full").tasks()
    assert len(full) > 5 * len(get_suite("quick").tasks())
    assert {t.family for t in full} <= set(FAMILIES)
    assert max(t.family_params.get("n", 0) for t in full) >= 100


def test_expand_skips_unsupported_and_checks_names():
    inst = [("kanon-binary", {"n": 8, "m": 3, "k": k}, 0) for k in (2, 3, 4)]
    tasks = expand(inst, ["forest", "factor-2", "factor-3"], time_limit=5)
    got = sorted((t.family_params["k"], t.algorithm) for t in tasks)
    assert got == [(2, "factor-2"), (2, "forest"), (3, "factor-3"), (3, "forest"), (4, "forest")]
    with pytest.raises(ValueError, match="unknown algorithm 'nope'"):
        expand(inst, ["nope"], time_limit=5)
