"""The registry: every problem, algorithm and instance family the bench knows, collected from
the :class:`~anonratio.bench.problem.Problem` declarations of :mod:`anonratio.bench.problems`,
where each is declared once. Every per-problem table of the generic bench (family prefixes,
reference instances and their exact models, plot labels, asv sizes) is read from here.

Algorithm names are unique across problems (the CLI looks them up by name), and an algorithm has
one name: the front functions (``k_anonymize(instance, method="forest")``,
``solve_k_anonymity(instance, method="kanon-cpsat")``) take the same names.
"""

from __future__ import annotations

from typing import Any

from anonratio.bench.declarations import KINDS, Algorithm, Family, Hunt, coerce_param
from anonratio.bench.library import worst_found_family
from anonratio.bench.problem import Problem
from anonratio.bench.problems import DECLARED

__all__ = [
    "Algorithm",
    "Family",
    "Problem",
    "KINDS",
    "PROBLEMS",
    "REGISTRY",
    "FAMILIES",
    "HUNTS",
    "get_algorithm",
    "get_problem",
    "algorithms_for",
    "generate",
    "coerce_param",
]


def _collect() -> tuple[dict[str, Problem], dict[str, Algorithm], dict[str, Family]]:
    problems: dict[str, Problem] = {}
    algorithms: dict[str, Algorithm] = {}
    families: dict[str, Family] = {}
    prefixes: set[str] = set()
    for problem in DECLARED:
        if problem.name in problems or problem.prefix in prefixes:
            raise ValueError(f"problem {problem.name!r} or its prefix is declared twice")
        problems[problem.name] = problem
        prefixes.add(problem.prefix)
        for alg in problem.algorithms:
            if alg.name in algorithms:
                raise ValueError(f"algorithm name {alg.name!r} is declared twice")
            algorithms[alg.name] = alg
        found = problem.families
        if problem.worst_found is not None:  # the hunter's library of hard instances
            found += (worst_found_family(problem.prefix, problem.name, problem.worst_found),)
        for family in found:
            if family.name in families:
                raise ValueError(f"family {family.name!r} is declared twice")
            families[family.name] = family
    return problems, algorithms, families


#: name -> Problem, in declaration order
#: name -> Algorithm, in declaration order (problem by problem)
#: name -> Family
PROBLEMS, REGISTRY, FAMILIES = _collect()

#: problem -> how the worst-case hunter searches it (its declaration's ``hunt``)
HUNTS: dict[str, Hunt] = {p.name: p.hunt for p in PROBLEMS.values() if p.hunt is not None}


def get_problem(name: str) -> Problem:
    """The declared :class:`~anonratio.bench.problem.Problem` called ``name``.

    Raises
    ------
    ValueError
        ``unknown problem 'x'; known: [...]``.
    """
    try:
        return PROBLEMS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown problem {name!r}; known: {list(PROBLEMS)}") from None


def get_algorithm(name: str) -> Algorithm:
    """The registered :class:`Algorithm` called ``name``.

    Raises
    ------
    ValueError
        ``unknown algorithm 'x'; known: [...]``.
    """
    try:
        return REGISTRY[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown algorithm {name!r}; known: {sorted(REGISTRY)}") from None


def algorithms_for(problem: str) -> list[Algorithm]:
    """The registered algorithms of ``problem``, in registry order."""
    return [a for a in REGISTRY.values() if a.problem == problem]


def generate(family: str, *, seed: int | None = None, **params: Any) -> tuple[Any, dict[str, Any]]:
    """Build an instance of the named family: ``(instance, meta)``.

    Parameters
    ----------
    family : str
        A name in :data:`FAMILIES`.
    seed : int or None
        Seed of the generator (recorded in ``meta``).
    **params
        Overrides of the family's defaults; strings are coerced to the default's type.

    Returns
    -------
    (instance, dict)
        ``meta`` has ``family``, ``problem``, ``params`` (all of them), ``seed``, and
        ``optimum`` when the construction proves it.

    Raises
    ------
    ValueError
        Unknown family or parameter (the message lists the known ones), or a bad value.

    Examples
    --------
    >>> inst, meta = generate("kanon-triangles", seed=0, n_triangles="2", n_vertices=5)
    >>> meta["optimum"], inst.k
    (54.0, 3)
    """
    entry = FAMILIES.get(family)
    if entry is None:
        raise ValueError(f"unknown family {family!r}; known families: {sorted(FAMILIES)}")
    return entry(seed, **params)
