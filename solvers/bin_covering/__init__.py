"""Min-Max Bin Covering approximation algorithms (Du, Eppstein, Goodrich and Lueker 2009, §4-§5).

``bin_cover(instance, method=...)`` takes the algorithm's registry name (a key of
:data:`METHODS`) or the function itself; the algorithms themselves are in their modules
(``fold.fold``, ``spread.spread``, ...).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from anonratio.instances import BinCoveringInstance, Solution
from anonratio.instances.validation import dispatch

from . import fold, relaxed_scheme, simplified_spread, spread

__all__ = ["bin_cover", "METHODS", "fold", "spread", "simplified_spread", "relaxed_scheme"]

#: registry name -> algorithm with its item order (and the scheme's epsilon)
METHODS = {
    **{
        f"{name}-{order}": partial(function, order=order)
        for name, function in (
            ("fold", fold.fold),
            ("spread", spread.spread),
            ("simplified-spread", simplified_spread.simplified_spread),
        )
        for order in ("random", "sorted")
    },
    "relaxed": partial(relaxed_scheme.relaxed_scheme, order="sorted", epsilon=0.2),
}


def bin_cover(
    instance: BinCoveringInstance,
    *,
    method: str | Callable[..., Solution] = "spread-sorted",
    seed: int | np.random.Generator | None = None,
    **kwargs: Any,
) -> Solution:
    """Min-Max Bin Covering (Du, Eppstein, Goodrich and Lueker 2009, §4).

    Parameters
    ----------
    instance : BinCoveringInstance
    method : str or callable
        A registry name, or an algorithm itself (``method=fold.fold``). ``"fold-random"``,
        ``"fold-sorted"``: Theorem 7, largest bin <= max(k − 1 + max x, 3k − 3).
        ``"spread-random"``, ``"spread-sorted"``: Theorem 10, ratio 5/2.
        ``"simplified-spread-random"``, ``"simplified-spread-sorted"``: the variant of the
        paper's experiments (§5), no proven ratio of its own. The suffix is the item order.
        ``"relaxed"``: Theorem 11's scheme, items sorted, ε = 0.2 unless ``epsilon`` is
        given; its bins may hold only (1 − 2ε)k.
    seed : int, numpy.random.Generator or None
        Used by ``order="random"``.
    **kwargs
        Passed to the algorithm (``epsilon``, ``time_limit``, ...; they override the name's).

    Returns
    -------
    Solution
    """
    return dispatch(METHODS, method, instance, seed=seed, **kwargs)
