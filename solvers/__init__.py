"""Approximation algorithms and heuristics, one module per paper algorithm.

The public entry point per problem dispatches on ``method=`` (networkx ``flow/maxflow.py`` style).
"""

from importlib import import_module

__all__ = ["k_anonymize", "K_ANONYMITY_METHODS"]

#: method name -> (module, function) of the k-anonymity algorithms
K_ANONYMITY_METHODS = {
    "forest": ("forest", "forest"),
    "factor-2": ("one_two_factor", "one_two_factor"),
    "factor-3": ("two_factor", "two_factor"),
}


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
        Passed to the algorithm.

    Returns
    -------
    Solution
    """
    try:
        module, func = K_ANONYMITY_METHODS[method]
    except KeyError:
        raise ValueError(
            f"`method` must be one of {sorted(K_ANONYMITY_METHODS)}, got {method!r}"
        ) from None
    return getattr(import_module(f"{__name__}.{module}"), func)(instance, seed=seed, **kwargs)
