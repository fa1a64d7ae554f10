"""Approximation algorithms and heuristics, one module per paper algorithm.

One public entry point per problem dispatches on ``method=`` through a dict (networkx
``flow/maxflow.py`` style); the algorithm modules are imported when first used.
"""

from importlib import import_module

__all__ = ["k_anonymize", "bin_cover", "K_ANONYMITY_METHODS", "BIN_COVERING_METHODS"]

#: method name -> (module, function) of the k-anonymity algorithms
K_ANONYMITY_METHODS = {
    "forest": ("forest", "forest"),
    "factor-2": ("one_two_factor", "one_two_factor"),
    "factor-3": ("two_factor", "two_factor"),
}

#: method name -> (module, function) of the Min-Max Bin Covering algorithms
BIN_COVERING_METHODS = {
    "fold": ("fold", "fold"),
    "spread": ("spread", "spread"),
    "simplified-spread": ("simplified_spread", "simplified_spread"),
    "relaxed": ("relaxed_scheme", "relaxed_scheme"),
}


def _dispatch(methods, method, instance, kwargs):
    try:
        module, func = methods[method]
    except (KeyError, TypeError):
        raise ValueError(f"`method` must be one of {sorted(methods)}, got {method!r}") from None
    return getattr(import_module(f"{__name__}.{module}"), func)(instance, **kwargs)


def k_anonymize(instance, *, method="forest", seed=None, **kwargs):
    """Anonymize a :class:`~anonratio.instances.KAnonymityInstance` with an approximation algorithm.

    Parameters
    ----------
    instance : KAnonymityInstance
    method : {"forest", "factor-2", "factor-3"}
        ``"forest"``: FOREST + DECOMPOSE-COMPONENT, ratio max(2k−1, 3k−5), any k (Aggarwal et al.
        2005, §4). ``"factor-2"``: minimum-weight [1,2]-factor, k = 2, ratio 1.5 on binary tables
        and 2 for suppression on any alphabet (§5). ``"factor-3"``: minimum-weight 2-factor and
        cycle decomposition, k = 3, ratio 2 on binary tables (§6).
    seed : int, numpy.random.Generator or None
    **kwargs
        Passed to the algorithm (e.g. ``time_limit`` for the factor algorithms).

    Returns
    -------
    Solution
    """
    return _dispatch(K_ANONYMITY_METHODS, method, instance, {"seed": seed, **kwargs})


def bin_cover(instance, *, method="spread", seed=None, **kwargs):
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
    return _dispatch(BIN_COVERING_METHODS, method, instance, {"seed": seed, **kwargs})
