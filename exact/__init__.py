"""Exact models: CP-SAT (OR-Tools) and ILP (PuLP with HiGHS or CBC), one module per problem."""

from importlib import import_module

__all__ = ["solve_k_anonymity", "K_ANONYMITY_EXACT"]

#: method name -> (module, function)
K_ANONYMITY_EXACT = {
    "cpsat": ("kanonymity_cpsat", "solve_cpsat"),
    "highs": ("kanonymity_ilp", "solve_highs"),
    "cbc": ("kanonymity_ilp", "solve_cbc"),
}


def solve_k_anonymity(instance, *, method="cpsat", **kwargs):
    """Solve a k-anonymity instance exactly (or to a time limit, with its bound).

    Parameters
    ----------
    instance : KAnonymityInstance
    method : {"cpsat", "highs", "cbc"}
    **kwargs
        ``time_limit`` (s), ``seed``, ``threads``, ``hint`` (a Solution or labels to start from).

    Returns
    -------
    Solution
        ``status`` is ``optimal`` only when the solver proved it; after a time limit the best
        solution found comes with ``status="time_limit"`` and the solver's bound.
    """
    try:
        module, func = K_ANONYMITY_EXACT[method]
    except KeyError:
        raise ValueError(
            f"`method` must be one of {sorted(K_ANONYMITY_EXACT)}, got {method!r}"
        ) from None
    return getattr(import_module(f"{__name__}.{module}"), func)(instance, **kwargs)
