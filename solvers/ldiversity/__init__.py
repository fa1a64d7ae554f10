"""l-diversity by suppression (Xiao, Yi and Tao, EDBT 2010, §4-§6).

``ldiversify(instance, method=...)`` takes the algorithm's registry name (a key of
:data:`METHODS`) or the function itself; the algorithms themselves are in their modules
(``tp.tp``, ``tp_plus.tp_plus``, ``hilbert.hilbert``, ``matching.matching``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from anonratio.instances import Solution
from anonratio.instances.ldiversity import LDiversityInstance
from anonratio.instances.validation import dispatch

from . import hilbert, matching, metrics, tds, tp, tp_plus

__all__ = ["ldiversify", "METHODS", "tp", "tp_plus", "hilbert", "matching", "metrics", "tds"]

#: registry name -> algorithm
METHODS = {
    "tp": tp.tp,
    "tp-plus": tp_plus.tp_plus,
    "hilbert": hilbert.hilbert,
    "matching": matching.matching,
    "ldiv-tds": tds.ldiv_tds,
}


def ldiversify(
    instance: LDiversityInstance,
    *,
    method: str | Callable[..., Solution] = "tp",
    seed: int | np.random.Generator | None = None,
    **kwargs: Any,
) -> Solution:
    """l-diversity by suppression (Xiao, Yi and Tao 2010).

    Parameters
    ----------
    instance : LDiversityInstance
    method : str or callable
        A registry name or an algorithm itself (``method=tp.tp``).
        ``"tp"``: the three-phase algorithm (§5), optimal for tuples when it ends in phase 1,
        within ``l - 1`` tuples when in phase 2, O(l d) for stars (Theorem 5.19). ``"tp-plus"``:
        TP, then Hilbert on the residue (§6.1; TP's guarantee). ``"hilbert"``: the Hilbert-order
        heuristic (Ghinita et al. 2007), no proven ratio. ``"matching"``: ``m = 2`` exactly by
        minimum-cost perfect matching (§4). ``"ldiv-tds"``: Top-Down
        Specialization (Fung et al. 2005), the generalization baseline of §6.2, no ratio.
    seed : int, numpy.random.Generator or None
        Recorded; the algorithms are deterministic.
    **kwargs
        Passed to the algorithm.

    Returns
    -------
    Solution
    """
    return dispatch(METHODS, method, instance, seed=seed, **kwargs)
