"""The registry's contract, for every declared algorithm of every problem.

On a small seeded instance of its problem each algorithm returns a solution that the independent
verifier accepts, whose ``Solution.algorithm`` is its registry name, and whose verified cost is
within its declared guarantee of the exact optimum; every exact model of a problem proves the same
optimum. A new algorithm or problem is covered as soon as it is declared.
"""

import math

import pytest

from anonratio.bench.registry import PROBLEMS, REGISTRY, algorithms_for, generate, get_problem
from anonratio.instances import verify

SEEDS = (0, 1)
TIME_LIMIT = 60.0


def _instance(algorithm, seed):
    """The small instance of the algorithm's problem (its declaration's ``contract``); ``k`` is
    set per algorithm where it needs one (factor-2: k = 2, factor-3: k = 3), then the problem's
    ``contract_alternatives`` are tried (the matching needs m = 2)."""
    problem = get_problem(algorithm.problem)
    family, params = problem.contract
    ks = (params["k"], 2, 3) if "k" in params else (None,)
    tries = [{**params, "k": k} if k else dict(params) for k in ks]
    tries += [{**params, **other} for other in problem.contract_alternatives]
    for p in tries:
        instance, _ = generate(family, seed=seed, **p)
        if algorithm.supports(instance) is None:
            return instance, (family, seed, tuple(sorted(p.items())))
    raise AssertionError(f"no small instance of {algorithm.problem} supports {algorithm.name}")


#: the proven optima so far, by the generator call that made the instance (seeded: the same call
#: gives the same instance), so each small instance is solved by the exact models once per run
_OPTIMA = {}


def _optimum(instance, key, proof):
    """The proven optimum, from every exact model of the problem (they must agree); ``key`` is the
    generator call that made ``instance``, ``proof`` the conftest's budget for a proof."""
    if key not in _OPTIMA:
        exact = [
            a
            for a in algorithms_for(instance.problem)
            if a.kind == "exact" and a.supports(instance) is None
        ]
        assert exact, f"{instance.problem} declares no exact model"
        costs = {}
        for alg in exact:
            with proof.work():
                sol = alg.run(instance, seed=0, time_limit=proof.time_limit)
            assert sol.status == "optimal", (alg.name, sol.status)
            costs[alg.name] = verify(instance, sol).cost
        values = list(costs.values())
        assert all(math.isclose(v, values[0], abs_tol=1e-9) for v in values), costs
        _OPTIMA[key] = values[0]
    return _OPTIMA[key]


def test_every_problem_has_a_small_instance():
    for name, problem in PROBLEMS.items():
        assert problem.contract is not None, name
        assert problem.contract[0].startswith(f"{problem.prefix}-"), name


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", list(REGISTRY))
def test_algorithm_contract(name, seed, proof):
    algorithm = REGISTRY[name]
    instance, key = _instance(algorithm, seed)
    if algorithm.kind == "exact":  # it must prove the optimum: a budget in work, not seconds
        with proof.work():
            solution = algorithm.run(instance, seed=seed, time_limit=proof.time_limit)
    else:
        solution = algorithm.run(instance, seed=seed, time_limit=TIME_LIMIT)

    assert solution.algorithm == name
    assert solution.status in ("optimal", "feasible"), (solution.status, solution.info)
    check = verify(instance, solution, strict=False)
    assert check.feasible, check.violations

    optimum = _optimum(instance, key, proof)
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
