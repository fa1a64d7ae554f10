"""What publishing varies from one problem to another: the :class:`Publisher`.

The publishing path (:mod:`~anonratio.bench.publish.request`,
:mod:`~anonratio.bench.publish.release`, :mod:`~anonratio.bench.publish.anonymize` and
``anonratio anonymize``) is the same for every problem; what differs is asked of the problem's
publisher: the size parameter it reads and how it checks it, the options it takes, how it builds
the instance from the data and the published table from a solution, and how the command line
describes it. A problem names its publisher in its declaration
(:attr:`~anonratio.bench.problem.Problem.publisher`, ``"module:attribute"``, loaded on first use
by :func:`publisher_of`); a problem without one is not publishable. The publishers themselves are
in :mod:`anonratio.bench.publish.problems`.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar

from anonratio.bench.declarations import Algorithm

if TYPE_CHECKING:
    from anonratio.bench.publish.release import Release
    from anonratio.bench.publish.request import Request, Source

__all__ = [
    "Publisher",
    "RECODING_OPTIONS",
    "load_publisher",
    "publisher_of",
    "publishable",
    "publishers",
    "size_parameters",
    "default_algorithm",
]

#: the options of publishing a recoding of the table (hierarchies, a recoding model, weights of
#: the generalization cost, suppressed records kept as rows of ``*``): a publisher takes some
RECODING_OPTIONS = ("hierarchies", "model", "weights", "keep_suppressed")


class Publisher:
    """How ``anonratio anonymize`` publishes the algorithms of a problem (subclass it).

    Attributes
    ----------
    parameter : str
        The request's size parameter it reads: ``"k"`` (which the Python API defaults to 5) or
        ``"l"``.
    size_name : str
        How the size is shown in a summary (``"k"``, the cluster size ``"r"``, ``"l"``).
    parameter_text : str
        What ``parameter`` stands for here, in the message asking for one size parameter.
    default_algorithm : str or None
        The algorithm run when the caller names none and gives ``parameter`` (the first
        publishable problem's publisher with one wins).
    options : frozenset of str
        The :data:`RECODING_OPTIONS` it takes; the others are refused, saying :meth:`why_not`.
    recoding_model : str or None
        The one recoding ``model`` it publishes with, accepted as a value of ``model`` when it
        takes no ``model`` option.
    withheld_rows : bool
        It may withhold records (a suppression limit), listed by ``--withheld-rows``.
    clusters : bool
        It publishes a second table, one row per cluster (``--clusters``).
    cost_name : str or None
        Another name of the cost in the command line's output (``"stars"``).
    """

    parameter: ClassVar[str] = "k"
    size_name: ClassVar[str] = "k"
    parameter_text: ClassVar[str] = ""
    default_algorithm: ClassVar[str | None] = None
    options: ClassVar[frozenset[str]] = frozenset()
    recoding_model: ClassVar[str | None] = None
    withheld_rows: ClassVar[bool] = False
    clusters: ClassVar[bool] = False
    cost_name: ClassVar[str | None] = None

    def check_size(self, value: Any, *, sensitive: str | None, names: Mapping[str, str]) -> int:
        """``value`` of :attr:`parameter`, checked before the data is read (the checks that need
        the data are the instance's); ``sensitive`` is the sensitive column or None, ``names``
        spell the options in messages."""
        raise NotImplementedError

    def why_not(self, algorithm: Algorithm) -> str:
        """Why ``algorithm`` takes none of the recoding options outside :attr:`options`."""
        return f"{algorithm.name!r} publishes no recoding of the table"

    def metrics(self) -> tuple[str, ...]:
        """The values the ``metric`` option may take for its algorithms (none by default)."""
        return ()

    def utility(self, value: Any, name: str) -> tuple[str, ...]:
        """The utility metrics ``value`` (the ``utility`` option) asks the release for; a
        publisher that reports none refuses the option, naming it as ``name``."""
        if value is not None:
            raise ValueError(f"`{name}` is for releases with utility metrics (recodings)")
        return ()

    def instance(self, request: Request, source: Source) -> Any:
        """The problem's instance built from ``source``, after the checks that need the data."""
        raise NotImplementedError

    def release(self, request: Request, source: Source, instance: Any, solution: Any) -> Release:
        """The published table of a verified ``solution``, checked against every requested model
        (:func:`~anonratio.bench.publish.release.check_release`)."""
        raise NotImplementedError

    def describe(self, request: Request) -> str:
        """One line for the command line's ``problem`` field."""
        raise NotImplementedError


@cache
def load_publisher(target: str) -> Publisher:
    """The publisher named ``"module:attribute"`` (imported once)."""
    module, sep, attribute = target.partition(":")
    if not sep or not module or not attribute:
        raise ValueError(f"a publisher is 'module:attribute', got {target!r}")
    found = getattr(importlib.import_module(module), attribute)
    if not isinstance(found, Publisher):
        raise TypeError(f"{target} is a {type(found).__name__}, not a Publisher")
    return found


def publishable() -> list[str]:
    """The problems ``anonratio anonymize`` publishes (those declaring a publisher)."""
    from anonratio.bench.registry import PROBLEMS

    return [p.name for p in PROBLEMS.values() if p.publisher]


def publishers() -> dict[str, Publisher]:
    """problem -> its publisher, for every publishable problem, in registry order."""
    from anonratio.bench.registry import get_problem

    return {name: load_publisher(str(get_problem(name).publisher)) for name in publishable()}


def publisher_of(algorithm: Algorithm) -> Publisher:
    """The publisher of ``algorithm``'s problem; ``ValueError`` when it has none."""
    from anonratio.bench.registry import get_problem

    target = get_problem(algorithm.problem).publisher
    if not target:
        raise ValueError(
            f"algorithm {algorithm.name!r} solves {algorithm.problem}; anonymize publishes "
            f"{publishable()}"
        )
    return load_publisher(target)


def size_parameters() -> dict[str, str]:
    """size parameter -> what it stands for, from every publisher (``"k"`` first)."""
    texts: dict[str, list[str]] = {}
    for publisher in publishers().values():
        said = texts.setdefault(publisher.parameter, [])
        if publisher.parameter_text not in said:
            said.append(publisher.parameter_text)
    return {parameter: ", or ".join(said) for parameter, said in texts.items()}


def default_algorithm(parameter: str) -> str | None:
    """The algorithm run when the caller gives ``parameter`` and names none."""
    for publisher in publishers().values():
        if publisher.parameter == parameter and publisher.default_algorithm is not None:
            return publisher.default_algorithm
    return None
