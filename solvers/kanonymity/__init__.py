"""k-anonymity approximation algorithms (Aggarwal et al. 2005, §4-§6).

``k_anonymize(instance, method=...)`` takes the algorithm's registry name (a key of
:data:`METHODS`) or the function itself; the algorithms themselves are in their modules
(``forest.forest``, ``factor_2.one_two_factor``, ``factor_3.two_factor``, ...).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from importlib import import_module
from typing import TYPE_CHECKING, Any

from anonratio.instances.lazy_exports import LazyExports
from anonratio.instances.validation import dispatch

if TYPE_CHECKING:
    import numpy as np

    from anonratio.instances import KAnonymityInstance, Solution

__all__ = [
    "k_anonymize",
    "METHODS",
    "forest",
    "factor_2",
    "factor_3",
    "decompose_component",
    "min_weight_factor",
    "samarati",
    "tds",
    "incognito",
    "flash",
    "k_optimize",
    "datafly",
    "mondrian",
    "box_greedy",
    "local_search",
    "alpha_k_topdown",
]

#: the algorithm modules, imported on first use: running one algorithm does not import the
#: others (nor OR-Tools and PuLP with the factor algorithms' ILPs)
_MODULES = frozenset(__all__) - {"k_anonymize", "METHODS"}

#: registry name -> ``"module:function"`` of :data:`METHODS`
_TARGETS = {
    "forest": "forest:forest",
    "factor-2": "factor_2:one_two_factor",
    "factor-3": "factor_3:two_factor",
    "samarati": "samarati:samarati",
    "incognito": "incognito:incognito",
    "flash": "flash:flash",
    "datafly": "datafly:datafly",
    "tds": "tds:tds",
    "k-optimize": "k_optimize:k_optimize",
    "mondrian": "mondrian:mondrian",
    "mondrian-relaxed": "mondrian:mondrian_relaxed",
    "kanon-box-greedy": "box_greedy:box_greedy",
    "kanon-local-search": "local_search:local_search",
    "alpha-k-topdown": "alpha_k_topdown:alpha_k_topdown",
}


class _Methods(Mapping[str, Callable[..., "Solution"]]):
    """Registry name -> algorithm function; looking a name up imports that algorithm's module."""

    def __getitem__(self, name: str) -> Callable[..., Solution]:
        module, _, function = _TARGETS[name].partition(":")
        return getattr(import_module(f"{__name__}.{module}"), function)

    def __contains__(self, name: object) -> bool:
        return name in _TARGETS

    def __iter__(self) -> Iterator[str]:
        return iter(_TARGETS)

    def __len__(self) -> int:
        return len(_TARGETS)

    def __repr__(self) -> str:
        return f"METHODS({', '.join(_TARGETS)})"


#: registry name -> algorithm
METHODS: Mapping[str, Callable[..., Solution]] = _Methods()


_EXPORTS = LazyExports(__name__, {m: f"{__name__}.{m}" for m in _MODULES})


def __getattr__(name: str) -> Any:
    return _EXPORTS.load(name)


def __dir__() -> list[str]:
    return _EXPORTS.names()


def k_anonymize(
    instance: KAnonymityInstance,
    *,
    method: str | Callable[..., Solution] = "forest",
    seed: int | np.random.Generator | None = None,
    **kwargs: Any,
) -> Solution:
    """Anonymize a :class:`~anonratio.instances.KAnonymityInstance` with an approximation algorithm.

    Parameters
    ----------
    instance : KAnonymityInstance
    method : str or callable
        A registry name, ``"forest"``, ``"factor-2"``, ``"factor-3"``, ``"samarati"``,
        ``"incognito"``, ``"flash"``, ``"datafly"``, ``"tds"``, ``"k-optimize"``, ``"mondrian"``,
        ``"mondrian-relaxed"``, ``"kanon-box-greedy"``, ``"kanon-local-search"`` or
        ``"alpha-k-topdown"``, or an algorithm itself
        (``method=forest.forest``).
        ``"forest"``: FOREST + DECOMPOSE-COMPONENT, ratio max(2k−1, 3k−5), any k (Aggarwal et al.
        2005, §4). ``"factor-2"``: minimum-weight [1,2]-factor, k = 2, ratio 1.5 on binary tables
        and 2 for suppression on any alphabet (§5). ``"factor-3"``: minimum-weight 2-factor and
        cycle decomposition, k = 3, ratio 2 on binary tables (§6). The classic algorithms of
        the survey of Ciriani et al. (2009), no ratio: ``"samarati"``, ``"incognito"``,
        ``"flash"`` (Kohlmayer et al. 2012, ARX's algorithm; the same optimum as Incognito) and
        ``"datafly"`` (full-domain generalization, global recoding), ``"tds"`` (top-down
        specialization of taxonomy cuts, global recoding), ``"k-optimize"`` (Bayardo and
        Agrawal's branch and bound over interval cuts: the interval recoding of least
        discernibility, anytime), ``"mondrian"`` and
        ``"mondrian-relaxed"`` (multidimensional partitioning, local recoding). No ratio either:
        ``"kanon-box-greedy"`` and ``"kanon-local-search"`` (its local search from FOREST's and
        the box greedy's partitions). ``"alpha-k-topdown"``: (alpha, k)-anonymity by top-down
        local recoding (Wong et al. 2006), on a table with a sensitive attribute.
    seed : int, numpy.random.Generator or None
    **kwargs
        Passed to the algorithm (e.g. ``time_limit`` for the factor algorithms).

    Returns
    -------
    Solution
    """
    return dispatch(METHODS, method, instance, seed=seed, **kwargs)
