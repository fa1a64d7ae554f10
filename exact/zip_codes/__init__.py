"""Exact zip codes: CP-SAT with flow-based connectivity of every part.

``solve_zip_codes(instance, method=...)`` dispatches on ``method`` through :data:`METHODS`.
"""

from __future__ import annotations

from typing import Any

from anonratio.instances import Solution
from anonratio.instances.validation import dispatch
from anonratio.instances.zip_codes.instance import ZipCodesInstance

from .cpsat import solve_cpsat

__all__ = ["solve_zip_codes", "METHODS", "solve_cpsat"]

#: method name -> solver
METHODS = {"cpsat": solve_cpsat}


def solve_zip_codes(
    instance: ZipCodesInstance, *, method: str = "cpsat", **kwargs: Any
) -> Solution:
    """Solve a zip-code (connected planar partition) instance exactly with CP-SAT."""
    return dispatch(METHODS, method, instance, **kwargs)
