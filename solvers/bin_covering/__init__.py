"""Min-Max Bin Covering approximation algorithms (Du, Eppstein, Goodrich and Lueker 2009, §4-§5).

``bin_cover(instance, method=...)`` dispatches on ``method`` through :data:`METHODS`; the
algorithms themselves are in their modules (``fold.fold``, ``spread.spread``, ...).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from anonratio.instances import BinCoveringInstance, Solution
from anonratio.instances.validation import dispatch

from . import fold, relaxed_scheme, simplified_spread, spread

__all__ = ["bin_cover", "METHODS", "fold", "spread", "simplified_spread", "relaxed_scheme"]

#: method name -> algorithm
METHODS = {
    "fold": fold.fold,
    "spread": spread.spread,
    "simplified-spread": simplified_spread.simplified_spread,
    "relaxed": relaxed_scheme.relaxed_scheme,
}


def bin_cover(
    instance: BinCoveringInstance,
    *,
    method: str = "spread",
    seed: int | np.random.Generator | None = None,
    **kwargs: Any,
) -> Solution:
    """Min-Max Bin Covering (Du, Eppstein, Goodrich and Lueker 2009, §4).

    Parameters
    ----------
    instance : BinCoveringInstance
    method : {"fold", "spread", "simplified-spread", "relaxed"}
        ``"fold"``: Theorem 7, largest bin <= max(k − 1 + max x, 3k − 3). ``"spread"``:
        Theorem 10, ratio 5/2. ``"simplified-spread"``: the variant of the paper's experiments
        (§5), no proven ratio of its own. ``"relaxed"``: Theorem 11's scheme for ``epsilon``; its
        bins may hold only (1 − 2ε)k.
    seed : int, numpy.random.Generator or None
        Used by ``order="random"``.
    **kwargs
        Passed to the algorithm (``order``, ``epsilon``, ...).

    Returns
    -------
    Solution
    """
    return dispatch(METHODS, method, instance, seed=seed, **kwargs)
