"""t-closeness by suppression (Li, Li and Venkatasubramanian, ICDE 2007; star objective).

``t_close(instance, method=...)`` takes the algorithm's registry name (a key of
:data:`METHODS`) or the function itself; the algorithm is in its module (``mondrian.mondrian``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from anonratio.instances import Solution
from anonratio.instances.tcloseness import TClosenessInstance
from anonratio.instances.validation import dispatch

from . import mondrian

__all__ = ["t_close", "METHODS", "mondrian"]

#: registry name -> algorithm
METHODS = {"tclose-mondrian": mondrian.mondrian}


def t_close(
    instance: TClosenessInstance,
    *,
    method: str | Callable[..., Solution] = "tclose-mondrian",
    seed: int | np.random.Generator | None = None,
    **kwargs: Any,
) -> Solution:
    """t-closeness by suppression.

    Parameters
    ----------
    instance : TClosenessInstance
    method : str or callable
        A registry name or an algorithm itself (``method=mondrian.mondrian``).
        ``"tclose-mondrian"``: Mondrian's top-down cuts (LeFevre et al. 2006), a cut allowed
        only between halves of ``>= k`` t-close records; no proven ratio.
    seed : int, numpy.random.Generator or None
        Recorded; the algorithm is deterministic.
    **kwargs
        Passed to the algorithm (``cuts`` for Mondrian).

    Returns
    -------
    Solution
    """
    return dispatch(METHODS, method, instance, seed=seed, **kwargs)
