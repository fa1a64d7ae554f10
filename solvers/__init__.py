"""Approximation algorithms and heuristics, one module per paper algorithm.

One public entry point per problem dispatches on ``method=`` through a dict (networkx
``flow/maxflow.py`` style); the algorithm modules are imported when first used.
"""

from importlib import import_module

__all__ = [
    "k_anonymize",
    "bin_cover",
    "partition_planar",
    "partition_rectangles",
    "partition_ordered",
    "K_ANONYMITY_METHODS",
    "BIN_COVERING_METHODS",
    "PLANAR_METHODS",
    "RECTANGLE_METHODS",
    "ORDERED_METHODS",
]

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

#: zip codes: connected parts of a planar graph
PLANAR_METHODS = {"spanning-tree-split": ("spanning_tree_split", "spanning_tree_split")}

#: GPS points: axis-aligned rectangles
RECTANGLE_METHODS = {"kdtree-split": ("kdtree_split", "kdtree_split")}

#: ordered labels: consecutive intervals
ORDERED_METHODS = {"ordered-greedy": ("ordered_greedy", "ordered_greedy")}


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


def partition_planar(instance, *, method="spanning-tree-split", seed=None, **kwargs):
    """Zip codes: connected parts of weight >= k of a planar graph (Du et al. 2009, §2).

    ``"spanning-tree-split"``: a low-degree spanning tree (degree d), then cuts of the lightest
    subtree of weight >= k whose complement also weighs >= k; the heaviest part is at most
    κ + d(k − 1) with κ = max(k, max weight): ratio 4 on 3-connected planar graphs (d = 3),
    3 on 4-connected ones (Theorem 3).
    """
    return _dispatch(PLANAR_METHODS, method, instance, {"seed": seed, **kwargs})


def partition_rectangles(instance, *, method="kdtree-split", **kwargs):
    """GPS points: axis-aligned rectangles of weight >= k tiling the box (Du et al. 2009, §3).

    ``"kdtree-split"``: kd-tree cuts while both sides keep weight >= k; the heaviest rectangle is
    at most 4(k − 1) + max weight < 5·OPT (Theorem 4).
    """
    return _dispatch(RECTANGLE_METHODS, method, instance, kwargs)


def partition_ordered(instance, *, method="ordered-greedy", seed=None, **kwargs):
    """Ordered labels: consecutive intervals of weight >= k minimizing the heaviest (§4 remark).

    ``"ordered-greedy"``: binary search on the answer with a greedy feasibility test; optimal.
    """
    return _dispatch(ORDERED_METHODS, method, instance, {"seed": seed, **kwargs})
