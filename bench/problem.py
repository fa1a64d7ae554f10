"""How a problem is declared: one :class:`Problem` per module of :mod:`anonratio.bench.problems`.

A :class:`Problem` holds everything the generic bench knows about a problem: its name and the
prefix of its family names, what its ``n`` and its anonymity size (the ``k`` column) are called,
its instance families and algorithms, the tracked reference instances and the exact models that
must prove them, the sizes the asv benchmarks time it at, the small instance of the contract
test, the worst-case hunt and the publisher ``anonratio anonymize`` uses. The registry
(:mod:`anonratio.bench.registry`) derives every per-problem table from these declarations: no
generic module names a problem.

Declaring a problem does not import its solvers or exact models: an algorithm's function,
guarantee and warm start may be named by ``"module:attribute"`` (:func:`lazy`), imported on
first use, so a k-anonymity run does not pay for the bin-covering model or ``scipy.spatial``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from anonratio.bench.declarations import Algorithm, Family, Hunt, Lazy, lazy

__all__ = ["Lazy", "lazy", "Problem", "ReferenceInstance", "reference"]


@dataclass(frozen=True)
class ReferenceInstance:
    """One committed benchmark instance: ``generate(family, seed=seed, **params)``."""

    name: str
    family: str
    params: dict[str, Any] = field(default_factory=dict)
    seed: int = 0


def reference(name: str, family: str, seed: int = 0, **params: Any) -> ReferenceInstance:
    """A :class:`ReferenceInstance` (never change a committed one: add new ones instead)."""
    return ReferenceInstance(name, family, params, seed)


#: the two sizes the asv timing benchmarks run every algorithm at
ASV_SIZES = ("small", "large")

Candidates = tuple[tuple[str, Mapping[str, Any]], ...]


@dataclass(frozen=True)
class Problem:
    """One problem, declared once (``bench/problems/<problem>.py``).

    Parameters
    ----------
    name : str
        The name in the results' ``problem`` column and ``instance.problem`` (``"zip-codes"``).
    prefix : str
        The prefix of its family names (``"zip"``: ``zip-delaunay``, ``zip-worst-found``).
    n_label : str
        What ``n`` counts (``"records"``, ``"points"``), for plot axes.
    size : str or None
        The instance attribute recorded in the results' ``k`` column (``"k"``, the cluster size
        ``"r"``, ``"l"``); None when the problem has none (cellular clustering).
    families, algorithms : tuple
        Its :class:`~anonratio.bench.declarations.Family` and
        :class:`~anonratio.bench.declarations.Algorithm` declarations.
    exact : tuple of str
        The exact algorithms that must prove, and agree on, each reference optimum.
    reference : tuple of ReferenceInstance
        Small seeded instances whose optimum the ``exact`` models prove in seconds
        (``results/reference_optima.json``, the asv ratio benchmarks, the quality gate).
    worst_found : str, optional
        Default algorithm of the ``<prefix>-worst-found`` family, which reads the hunter's
        library of hard instances; None: the problem has no such family.
    contract : (family, params)
        The small instance every algorithm is checked on against the exact optimum; an algorithm
        that refuses it tries ``k`` = 2 and 3, then each of ``contract_alternatives``.
    contract_alternatives : tuple of mapping
        Parameters that override ``contract``'s for an algorithm that refuses it.
    asv_sizes : mapping
        ``"small"``/``"large"`` -> candidate ``(family, params)``: an algorithm is timed on the
        first candidate it supports. Exact models are timed on reference instances instead.
    asv_overrides : mapping
        algorithm -> its own ``asv_sizes`` (a search too slow for the problem's sizes).
    asv_slow : mapping
        algorithm -> the sizes timed only in the long asv set (10 s or more each).
    hunt : Hunt, optional
        How the worst-case hunter searches it.
    strong_bound : str, optional
        ``"module:function"`` of the problem's strongest lower bound,
        ``function(instance, *, time_limit, seed) -> result`` with ``result.value`` and
        ``result.source`` (an LP relaxation's Lagrangian bound), which ``bound="strong"`` runs
        (:mod:`anonratio.bench.engine.bounds`); None: the registered bound is the strongest.
    publisher : str, optional
        ``"module:attribute"`` of the publisher ``anonratio anonymize`` uses for its algorithms
        (:class:`~anonratio.bench.publish.publisher.Publisher`); None: not publishable.
    utility : str, optional
        ``"module:attribute"`` of its utility metrics, a mapping ``name -> f(instance, solution)
        -> float`` of what a run publishes, which a run reports on request
        (:mod:`anonratio.bench.engine.utility`); None: the problem has none.
    """

    name: str
    prefix: str
    n_label: str
    size: str | None
    families: tuple[Family, ...]
    algorithms: tuple[Algorithm, ...]
    exact: tuple[str, ...] = ()
    reference: tuple[ReferenceInstance, ...] = ()
    worst_found: str | None = None
    contract: tuple[str, Mapping[str, Any]] | None = None
    contract_alternatives: tuple[Mapping[str, Any], ...] = ()
    asv_sizes: Mapping[str, Candidates] = field(default_factory=dict)
    asv_overrides: Mapping[str, Mapping[str, Candidates]] = field(default_factory=dict)
    asv_slow: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    hunt: Hunt | None = None
    strong_bound: str | None = None
    publisher: str | None = None
    utility: str | None = None

    def __post_init__(self) -> None:
        names = {a.name for a in self.algorithms}
        for alg in self.algorithms:
            if alg.problem != self.name:
                raise ValueError(f"{alg.name} is declared for {alg.problem}, not {self.name}")
        for family in self.families:
            if family.problem != self.name:
                raise ValueError(f"family {family.name} is of {family.problem}, not {self.name}")
            if not family.name.startswith(f"{self.prefix}-"):
                raise ValueError(f"family {family.name} lacks the prefix {self.prefix!r}")
        unknown = (
            sorted(set(self.exact) - names)
            + sorted(set(self.asv_overrides) - names)
            + sorted(set(self.asv_slow) - names)
        )
        if unknown:
            raise ValueError(f"problem {self.name}: {unknown[0]!r} is none of its algorithms")
        not_exact = [a.name for a in self.algorithms if a.name in self.exact and a.kind != "exact"]
        if not_exact:
            raise ValueError(f"problem {self.name}: {not_exact[0]!r} is not exact")
        for sizes in (self.asv_sizes, *self.asv_overrides.values()):
            if set(sizes) - set(ASV_SIZES):
                raise ValueError(f"problem {self.name}: asv sizes are {ASV_SIZES}")
        if self.hunt is not None and self.hunt.problem != self.name:
            raise ValueError(f"problem {self.name}: its hunt searches {self.hunt.problem}")

    def asv_candidates(self, algorithm: str, size: str) -> Candidates:
        """The ``(family, params)`` candidates ``algorithm`` is timed on at ``size``."""
        return self.asv_overrides.get(algorithm, self.asv_sizes).get(size, ())
