"""The registry: every algorithm and instance family the bench knows, collected from the problem
modules of :mod:`anonratio.bench.problems`, where each is declared once.

Algorithm names are unique across problems (the CLI looks them up by name), and an algorithm has
one name: the front functions (``k_anonymize(instance, method="forest")``,
``solve_k_anonymity(instance, method="kanon-cpsat")``) take the same names.
"""

from __future__ import annotations

from typing import Any

from anonratio.bench.declarations import KINDS, Algorithm, Family, Hunt, coerce_param
from anonratio.bench.problems import PROBLEMS

__all__ = [
    "Algorithm",
    "Family",
    "KINDS",
    "REGISTRY",
    "FAMILIES",
    "HUNTS",
    "get_algorithm",
    "algorithms_for",
    "generate",
    "coerce_param",
]


def _collect() -> tuple[dict[str, Algorithm], dict[str, Family]]:
    algorithms: dict[str, Algorithm] = {}
    families: dict[str, Family] = {}
    for module in PROBLEMS:
        # a module declares one problem, or a tuple of problems that share their data
        declared = module.PROBLEM if isinstance(module.PROBLEM, tuple) else (module.PROBLEM,)
        for alg in module.ALGORITHMS:
            if alg.problem not in declared:
                raise ValueError(f"{alg.name} is declared in {module.__name__} for {alg.problem}")
            if alg.name in algorithms:
                raise ValueError(f"algorithm name {alg.name!r} is declared twice")
            algorithms[alg.name] = alg
        for family in module.FAMILIES:
            if family.name in families:
                raise ValueError(f"family {family.name!r} is declared twice")
            families[family.name] = family
    return algorithms, families


#: name -> Algorithm, in declaration order (problem by problem)
#: name -> Family
REGISTRY, FAMILIES = _collect()

#: problem -> how the worst-case hunter searches it (the problem modules' ``HUNTS``)
HUNTS: dict[str, Hunt] = {h.problem: h for module in PROBLEMS for h in getattr(module, "HUNTS", ())}


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
