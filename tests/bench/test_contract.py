"""The registry's contract, for every declared algorithm of every problem.

On a small seeded instance of its problem each algorithm returns a solution that the independent
verifier accepts, whose ``Solution.algorithm`` is its registry name, and whose verified cost is
within its declared guarantee of the exact optimum; every exact model of a problem proves the same
optimum. A new algorithm or problem is covered as soon as it is declared.
"""

import math

import pytest

from anonratio.bench.registry import REGISTRY, algorithms_for, generate
from anonratio.instances import verify

#: problem -> (family, parameters) of the small instance each algorithm is checked on; ``k`` is
#: set per algorithm where it needs one (factor-2: k = 2, factor-3: k = 3)
SMALL = {
    "k-anonymity": ("kanon-binary", {"n": 10, "m": 4, "k": 3}),
    "bin-covering": ("bc-uniform", {"n": 9, "k": 20, "low": 1, "high": 15}),
    "zip-codes": ("zip-delaunay", {"n": 10, "k": 12, "max_weight": 6}),
    "gps-rectangles": ("gps-uniform", {"n": 8, "k": 3, "weight_max": 2}),
    "ordered-labels": ("ordered-random", {"n": 12, "k": 8}),
    "l-diversity": ("ldiv-random", {"n": 9, "d": 3, "cardinality": 2, "m": 3, "l": 2}),
    "r-gather": ("rgather-uniform", {"n": 9, "r": 3}),
    "r-eps-gather": ("repsgather-outliers", {"n": 9, "n_outliers": 1, "r": 3, "epsilon": 0.12}),
    "kr-center": ("krcenter-uniform", {"n": 9, "k": 2, "r": 3}),
    "cellular": ("cellular-uniform", {"n": 8, "facility_scale": 0.3}),
    "r-cellular": ("rcellular-uniform", {"n": 9, "r": 3}),
}
#: other parameters to try when an algorithm refuses the small instance (matching needs m = 2)
OTHER = {"l-diversity": ({"m": 2, "n": 10},)}
SEEDS = (0, 1)
TIME_LIMIT = 60.0


def _instance(algorithm, seed):
    family, params = SMALL[algorithm.problem]
    ks = (params["k"], 2, 3) if "k" in params else (None,)
    tries = [{**params, "k": k} if k else params for k in ks]
    tries += [{**params, **other} for other in OTHER.get(algorithm.problem, ())]
    for p in tries:
        instance, _ = generate(family, seed=seed, **p)
        if algorithm.supports(instance) is None:
            return instance
    raise AssertionError(f"no small instance of {algorithm.problem} supports {algorithm.name}")


_OPTIMA = {}


def _optimum(instance):
    """The proven optimum, from every exact model of the problem (they must agree)."""
    key = id(instance)
    if key not in _OPTIMA:
        exact = [
            a
            for a in algorithms_for(instance.problem)
            if a.kind == "exact" and a.supports(instance) is None
        ]
        assert exact, f"{instance.problem} declares no exact model"
        costs = {}
        for alg in exact:
            sol = alg.run(instance, seed=0, time_limit=TIME_LIMIT)
            assert sol.status == "optimal", (alg.name, sol.status)
            costs[alg.name] = verify(instance, sol).cost
        values = list(costs.values())
        assert all(math.isclose(v, values[0], abs_tol=1e-9) for v in values), costs
        _OPTIMA[key] = (instance, values[0])
    return _OPTIMA[key][1]


def test_every_problem_has_a_small_instance():
    assert {a.problem for a in REGISTRY.values()} == set(SMALL)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", list(REGISTRY))
def test_algorithm_contract(name, seed):
    algorithm = REGISTRY[name]
    instance = _instance(algorithm, seed)
    solution = algorithm.run(instance, seed=seed, time_limit=TIME_LIMIT)

    assert solution.algorithm == name
    assert solution.status in ("optimal", "feasible"), (solution.status, solution.info)
    check = verify(instance, solution, strict=False)
    assert check.feasible, check.violations

    optimum = _optimum(instance)
    if algorithm.kind == "exact":
        assert solution.status == "optimal"
        assert math.isclose(check.cost, optimum, abs_tol=1e-9)
        return
    if not check.columns().get("relaxed", False):  # a relaxed (bicriteria) cover may beat OPT
        assert check.cost >= optimum - 1e-9
    guarantee = algorithm.guarantee(instance, solution)
    if algorithm.kind == "approximation":
        assert guarantee is not None, f"{name} proves no ratio on this instance"
    if guarantee is not None:
        assert check.cost <= guarantee * optimum + 1e-9, (check.cost, guarantee, optimum)
