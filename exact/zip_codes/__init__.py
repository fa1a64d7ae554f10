"""Exact zip codes: CP-SAT with flow-based connectivity of every part.

``solve_zip_codes(instance, method=...)`` dispatches on ``method`` through :data:`METHODS`.
"""

from anonratio.instances.validation import dispatch

from .cpsat import solve_cpsat

__all__ = ["solve_zip_codes", "METHODS", "solve_cpsat"]

#: method name -> solver
METHODS = {"cpsat": solve_cpsat}


def solve_zip_codes(instance, *, method="cpsat", **kwargs):
    """Solve a zip-code (connected planar partition) instance exactly with CP-SAT."""
    return dispatch(METHODS, method, instance, **kwargs)
