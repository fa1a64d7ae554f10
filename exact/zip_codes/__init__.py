"""Exact zip codes: CP-SAT with flow-based connectivity of every part.

``solve_zip_codes(instance, method=...)`` takes the model's registry name (a key of
:data:`METHODS`) or the solver function itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from anonratio.instances import Solution
from anonratio.instances.validation import dispatch
from anonratio.instances.zip_codes.instance import ZipCodesInstance

from .cpsat import solve_cpsat

__all__ = ["solve_zip_codes", "METHODS", "solve_cpsat"]

#: registry name -> solver
METHODS = {"zip-cpsat": solve_cpsat}


def solve_zip_codes(
    instance: ZipCodesInstance,
    *,
    method: str | Callable[..., Solution] = "zip-cpsat",
    **kwargs: Any,
) -> Solution:
    """Solve a zip-code (connected planar partition) instance exactly with CP-SAT."""
    return dispatch(METHODS, method, instance, **kwargs)
