"""Exact models: CP-SAT (OR-Tools) and ILP (PuLP with HiGHS or CBC), one module per problem.

Every solver takes ``time_limit`` (s), ``seed``, ``threads`` and ``hint``, and returns a
:class:`~anonratio.instances.Solution` whose ``status`` is ``optimal`` only when the solver proved
it; after a time limit the best solution found comes with ``status="time_limit"`` and the bound.
"""

from importlib import import_module

__all__ = [
    "solve_k_anonymity",
    "solve_bin_covering",
    "solve_planar",
    "solve_rectangles",
    "K_ANONYMITY_EXACT",
    "BIN_COVERING_EXACT",
    "PLANAR_EXACT",
    "RECTANGLE_EXACT",
]

#: method name -> (module, function)
K_ANONYMITY_EXACT = {
    "cpsat": ("kanonymity_cpsat", "solve_cpsat"),
    "highs": ("kanonymity_ilp", "solve_highs"),
    "cbc": ("kanonymity_ilp", "solve_cbc"),
}

BIN_COVERING_EXACT = {
    "cpsat": ("bin_covering_cpsat", "solve_cpsat"),
    "highs": ("bin_covering_ilp", "solve_highs"),
    "cbc": ("bin_covering_ilp", "solve_cbc"),
}

PLANAR_EXACT = {"cpsat": ("planar_cpsat", "solve_cpsat")}

#: "guillotine" is exact over guillotine partitions only (an upper bound on the optimum)
RECTANGLE_EXACT = {
    "cpsat": ("gps_exact", "solve_cpsat"),
    "highs": ("gps_ilp", "solve_highs"),
    "cbc": ("gps_ilp", "solve_cbc"),
    "guillotine": ("gps_exact", "solve_guillotine"),
}


def _dispatch(methods, method, instance, kwargs):
    try:
        module, func = methods[method]
    except (KeyError, TypeError):
        raise ValueError(f"`method` must be one of {sorted(methods)}, got {method!r}") from None
    return getattr(import_module(f"{__name__}.{module}"), func)(instance, **kwargs)


def solve_k_anonymity(instance, *, method="cpsat", **kwargs):
    """Solve a k-anonymity instance exactly (or to a time limit, with its bound).

    Parameters
    ----------
    instance : KAnonymityInstance
    method : {"cpsat", "highs", "cbc"}
    **kwargs
        ``time_limit`` (s), ``seed``, ``threads``, ``hint`` (a Solution or labels to start from),
        ``upper_bound``.

    Returns
    -------
    Solution
    """
    return _dispatch(K_ANONYMITY_EXACT, method, instance, kwargs)


def solve_bin_covering(instance, *, method="cpsat", **kwargs):
    """Solve a Min-Max Bin Covering instance exactly (or to a time limit, with its bound).

    Parameters
    ----------
    instance : BinCoveringInstance
    method : {"cpsat", "highs", "cbc"}
    **kwargs
        ``time_limit`` (s), ``seed``, ``threads``, ``hint``, ``upper_bound``.

    Returns
    -------
    Solution
    """
    return _dispatch(BIN_COVERING_EXACT, method, instance, kwargs)


def solve_planar(instance, *, method="cpsat", **kwargs):
    """Solve a zip-code (connected planar partition) instance exactly with CP-SAT."""
    return _dispatch(PLANAR_EXACT, method, instance, kwargs)


def solve_rectangles(instance, *, method="cpsat", **kwargs):
    """Solve a GPS rectangle-partition instance on the compressed grid.

    ``"cpsat"``, ``"highs"``, ``"cbc"`` are exact; ``"guillotine"`` is the best guillotine
    partition by dynamic programming (exact for the general problem only when it meets the lower
    bound, which its status says).
    """
    return _dispatch(RECTANGLE_EXACT, method, instance, kwargs)
