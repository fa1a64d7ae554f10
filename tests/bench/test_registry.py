"""Tests of the algorithm registry (anonratio.bench.registry)."""

import functools
import importlib
import inspect
import pkgutil
import subprocess
import sys

import numpy as np
import pytest

from anonratio.bench.declarations import Lazy
from anonratio.bench.registry import REGISTRY, Algorithm, algorithms_for, get_algorithm
from anonratio.instances import Hierarchy, KAnonymityInstance, Table


def _table(codes, n_values=2, hierarchies=None):
    codes = np.asarray(codes)
    m = codes.shape[1]
    values = tuple(tuple(str(v) for v in range(n_values)) for _ in range(m))
    return Table(codes, tuple(f"a{j}" for j in range(m)), values, hierarchies=hierarchies)


def _binary(k, n=None, m=3, seed=0):
    n = max(8, k) if n is None else n
    rng = np.random.default_rng(seed)
    return KAnonymityInstance(_table(rng.integers(0, 2, size=(n, m))), k)


KANON = [
    "forest",
    "factor-2",
    "factor-3",
    "samarati",
    "incognito",
    "flash",
    "datafly",
    "tds",
    "k-optimize",
    "mondrian",
    "mondrian-relaxed",
    "alpha-k-topdown",
    "kanon-box-greedy",
    "kanon-local-search",
    "kanon-certified",
    "kanon-cpsat",
    "kanon-highs",
    "kanon-cbc",
    "kanon-bpc",
]


def test_registry_contents():
    assert [a.name for a in algorithms_for("k-anonymity")] == KANON
    kinds = {name: REGISTRY[name].kind for name in KANON}
    assert kinds == {
        "forest": "approximation",
        "factor-2": "approximation",
        "factor-3": "approximation",
        "samarati": "heuristic",
        "incognito": "heuristic",
        "flash": "heuristic",
        "datafly": "heuristic",
        "tds": "heuristic",
        "k-optimize": "heuristic",
        "mondrian": "heuristic",
        "mondrian-relaxed": "heuristic",
        "alpha-k-topdown": "heuristic",
        "kanon-box-greedy": "heuristic",
        "kanon-local-search": "heuristic",
        "kanon-certified": "heuristic",
        "kanon-cpsat": "exact",
        "kanon-highs": "exact",
        "kanon-cbc": "exact",
        "kanon-bpc": "exact",
    }
    for name in KANON:
        alg = REGISTRY[name]
        assert isinstance(alg, Algorithm)
        assert alg.name == name
        assert alg.problem == "k-anonymity"
        assert alg.source and alg.complexity and alg.guarantee_text
        assert callable(alg.run) and callable(alg.guarantee) and callable(alg.supports)
    assert "Aggarwal et al. 2005" in REGISTRY["forest"].source
    assert REGISTRY["forest"].guarantee_text == "max(2k-1, 3k-5)"


#: every registered algorithm, per problem, in registry order
ALL = {
    "k-anonymity": KANON,
    "bin-covering": [
        "fold-random",
        "fold-sorted",
        "spread-random",
        "spread-sorted",
        "simplified-spread-random",
        "simplified-spread-sorted",
        "relaxed",
        "bc-cpsat",
        "bc-highs",
        "bc-cbc",
    ],
    "zip-codes": ["spanning-tree-split", "zip-cpsat"],
    "gps-rectangles": ["kdtree-split", "gps-cpsat", "gps-highs", "gps-guillotine"],
    "ordered-labels": ["ordered-greedy"],
    "l-diversity": [
        "tp",
        "tp-plus",
        "ldiv-certified",
        "hilbert",
        "ldiv-tds",
        "matching",
        "ldiv-cpsat",
        "ldiv-highs",
        "ldiv-cbc",
    ],
    "t-closeness": ["tclose-mondrian", "tclose-cpsat", "tclose-highs"],
    "r-gather": ["r-gather", "greedy-gather", "min-size-kmeans"],
    "r-eps-gather": ["r-eps-gather"],
    "kr-center": ["kr-center"],
    "cellular": ["primal-dual", "cellular-certified"],
    "r-cellular": ["r-cellular", "r-cellular-certified"],
}
for _problem in ("r-gather", "r-eps-gather", "kr-center", "cellular", "r-cellular"):
    ALL[_problem] += [f"{_problem}-{solver}" for solver in ("cpsat", "highs", "cbc")]


def test_every_algorithm_listed_once_with_its_problem():
    assert sorted(REGISTRY) == sorted(n for names in ALL.values() for n in names)
    for problem, names in ALL.items():
        assert [a.name for a in algorithms_for(problem)] == names
    for alg in REGISTRY.values():
        assert alg.kind in ("approximation", "heuristic", "exact")
        assert alg.source and alg.complexity and alg.guarantee_text


def test_get_algorithm_and_problem_filter():
    assert get_algorithm("kanon-cpsat") is REGISTRY["kanon-cpsat"]
    # one name per algorithm: the former names are gone
    for old in ("cpsat", "highs", "cbc"):
        with pytest.raises(ValueError, match=f"unknown algorithm '{old}'"):
            get_algorithm(old)
    assert [a.name for a in algorithms_for("k-anonymity")] == KANON
    assert algorithms_for("no-such-problem") == []


@pytest.mark.parametrize("bad", ["nope", "", None])
def test_unknown_algorithm_message(bad):
    with pytest.raises(
        ValueError,
        match=r"unknown algorithm .*; known: \[.*'kanon-cbc', 'kanon-certified', 'kanon-cpsat'",
    ):
        get_algorithm(bad)


@pytest.mark.parametrize(("k", "expected"), [(2, 3.0), (3, 5.0), (4, 7.0), (5, 10.0), (10, 25.0)])
def test_forest_guarantee(k, expected):
    assert REGISTRY["forest"].guarantee(_binary(k)) == pytest.approx(expected)


def test_factor_guarantees():
    binary2, binary3 = _binary(2), _binary(3)
    assert REGISTRY["factor-2"].guarantee(binary2) == pytest.approx(1.5)
    assert REGISTRY["factor-3"].guarantee(binary3) == pytest.approx(2.0)
    # suppression on a ternary alphabet: 2 for factor-2, nothing proven for factor-3
    rng = np.random.default_rng(1)
    ternary = _table(rng.integers(0, 3, size=(9, 3)), n_values=3)
    assert REGISTRY["factor-2"].guarantee(KAnonymityInstance(ternary, 2)) == pytest.approx(2.0)
    assert REGISTRY["factor-3"].guarantee(KAnonymityInstance(ternary, 3)) is None
    # generalization with a two-level hierarchy: no guarantee for either
    h = Hierarchy.from_rows([["0", "a", "*"], ["1", "a", "*"], ["2", "b", "*"]])
    gen = _table(rng.integers(0, 3, size=(9, 2)), n_values=3, hierarchies=(h, h))
    assert REGISTRY["factor-2"].guarantee(KAnonymityInstance(gen, 2, "generalization")) is None
    assert REGISTRY["factor-3"].guarantee(KAnonymityInstance(gen, 3, "generalization")) is None
    for name in ("kanon-cpsat", "kanon-highs", "kanon-cbc"):
        assert REGISTRY[name].guarantee(binary3) == 1.0


def test_supports():
    two, three = _binary(2), _binary(3)
    for name in ("forest", "kanon-cpsat", "kanon-highs", "kanon-cbc"):
        assert REGISTRY[name].supports(two) is None
        assert REGISTRY[name].supports(three) is None
    assert REGISTRY["factor-2"].supports(two) is None
    assert REGISTRY["factor-2"].supports(three) == "factor-2 needs k=2, got k=3"
    assert REGISTRY["factor-3"].supports(three) is None
    assert REGISTRY["factor-3"].supports(two) == "factor-3 needs k=3, got k=2"


#: the front functions' dispatch tables (``k_anonymize(instance, method=...)``, ...)
FRONTS = [
    f"anonratio.solvers.{p}"
    for p in (
        "kanonymity",
        "bin_covering",
        "zip_codes",
        "gps_rectangles",
        "clustering",
        "ldiversity",
        "tcloseness",
    )
] + [
    f"anonratio.exact.{p}"
    for p in (
        "kanonymity",
        "bin_covering",
        "zip_codes",
        "gps_rectangles",
        "ordered_labels",
        "clustering",
        "ldiversity",
        "tcloseness",
    )
]

#: registered algorithms built in the bench (a start, then a certified bound): passed to a front
#: function as the function itself (``REGISTRY[name].function``)
BENCH_BUILT = {"kanon-certified", "cellular-certified", "r-cellular-certified", "ldiv-certified"}


def _runs_as_registered(entry, algorithm):
    """``entry`` is the registered function (named lazily) with the registered options."""
    function = algorithm.function
    function = function.load() if isinstance(function, Lazy) else function
    if isinstance(entry, functools.partial):
        return entry.func is function and entry.keywords == dict(algorithm.options)
    return entry is function and not algorithm.options


def test_front_functions_take_the_registry_names():
    """Every ``METHODS`` key is a registry name running its registered function and options,
    and every registered algorithm but the bench-built ones has a front-function name."""
    named = set()
    for module in map(importlib.import_module, FRONTS):
        for name, entry in module.METHODS.items():
            assert name in REGISTRY, f"{module.__name__}.METHODS: {name!r} is not registered"
            assert _runs_as_registered(entry, REGISTRY[name]), f"{module.__name__}: {name}"
            assert name not in named, f"{name} is in two METHODS"
            named.add(name)
    assert set(REGISTRY) - named == BENCH_BUILT


def _takes_instance_and_solution(function):
    """``function(instance, solution=None, *, options with defaults)``."""
    params = list(inspect.signature(function).parameters.values())
    positional = [p for p in params if p.kind is not inspect.Parameter.KEYWORD_ONLY]
    keyword = [p for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY]
    return (
        [p.name for p in positional] == ["instance", "solution"]
        and positional[1].default is None
        and all(p.default is not inspect.Parameter.empty for p in keyword)
    )


def _solver_guarantees():
    """Every ``*_guarantee`` function the solvers define."""
    import anonratio.solvers as solvers

    for info in pkgutil.walk_packages(solvers.__path__, "anonratio.solvers."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if name.endswith("_guarantee") and inspect.isfunction(value):
                if value.__module__ == module.__name__:
                    yield f"{module.__name__}.{name}", value


def test_one_guarantee_signature():
    """A registered guarantee and a solver's own guarantee function take the same arguments:
    ``guarantee(instance, solution=None)``."""
    for alg in REGISTRY.values():
        assert _takes_instance_and_solution(alg.guarantee), alg.name
    found = dict(_solver_guarantees())
    assert len(found) >= 10
    for name, function in found.items():
        assert _takes_instance_and_solution(function), name


def test_declaring_the_problems_loads_no_solver_or_exact_model():
    """The declarations name their solvers, exact models, family builders and moves lazily:
    importing the registry imports no module of the solvers and exact layers, no problem's
    instance module, neither OR-Tools nor PuLP, pandas, scipy nor networkx (a k-anonymity run
    does not pay for the bin-covering model or scipy.spatial)."""
    code = (
        "import sys, anonratio.bench.registry as r; "
        "heavy = ('anonratio.solvers.', 'ortools', 'pulp', 'pandas', 'scipy', 'networkx', "
        "'anonratio.instances.kanonymity', 'anonratio.instances.clustering'); "
        "loaded = [m for m in sys.modules if m.startswith(heavy) "
        "or (m.startswith('anonratio.exact.') and m != 'anonratio.exact.options')]; "
        "print(sorted(loaded))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def test_a_lazy_function_loads_on_first_use():
    f = Lazy("anonratio.solvers.kanonymity.forest:forest")
    assert (
        f.__name__ == "forest" and repr(f) == "lazy('anonratio.solvers.kanonymity.forest:forest')"
    )
    assert list(inspect.signature(f).parameters)[0] == "instance"
    assert f.load() is importlib.import_module("anonratio.solvers.kanonymity.forest").forest
    with pytest.raises(ValueError, match="module:attribute"):
        Lazy("anonratio.solvers.kanonymity.forest")


def test_the_command_line_starts_without_the_numeric_stack():
    """``anonratio --help`` builds the whole parser and imports no command, no problem, nor
    pandas, scipy, networkx, OR-Tools or PuLP: a command loads what it uses when it runs."""
    code = (
        "import sys; from anonratio.bench.cli.parser import build_parser; build_parser(); "
        "heavy = ('pandas', 'scipy', 'networkx', 'ortools', 'pulp', 'matplotlib', "
        "'anonratio.bench.registry', 'anonratio.bench.problems', 'anonratio.instances.table'); "
        "print(sorted(m for m in sys.modules if m.startswith(heavy)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout
