"""The algorithm registry: every algorithm the bench runs, with its proven guarantee and source.

Each :class:`Algorithm` declares how to run it (``run(instance, *, seed, time_limit) ->
Solution``), its proven approximation ratio as a function of the instance (``guarantee``), where
the guarantee comes from and the running time (DESIGN §2). Solver modules are imported lazily
inside the callables, so the registry imports even while a solver module is missing or broken;
such an algorithm then fails at run time and the runner records an ``error`` row.

Names are unique across problems (the CLI looks algorithms up by name). Min-Max Bin Covering
(problem ``"bin-covering"``) registers one entry per item order, so the four curves of the paper's
Figure 7 are four algorithms: ``fold-random``, ``fold-sorted``, ``simplified-spread-random`` and
``simplified-spread-sorted`` (the paper's experimental "Spread" is the simplified one), next to
Theorem 10's full ``spread-random`` / ``spread-sorted``, the relaxed scheme ``relaxed`` (a
bicriteria guarantee: its bins may hold only ``(1 - 2 eps) k``, so its rows carry
``relaxed=True`` and never count as an optimum or upper bound) and the exact models ``bc-cpsat``,
``bc-highs``, ``bc-cbc``.

The zip-code, GPS-rectangle and ordered-label problems of Du et al. (2009, §2-§4) register
``spanning-tree-split`` / ``zip-cpsat``, ``kdtree-split`` / ``gps-cpsat`` / ``gps-highs`` /
``gps-guillotine`` (heuristic: the best guillotine partition, an upper bound only) and
``ordered-greedy`` (exact) in :mod:`anonratio.bench._registry_paper004`.

``simplified-spread`` counts as an approximation: the paper proves no ratio for it, but Theorem 7's
argument bounds its cost by Fold's ``max(k - 1 + max x, 3k - 3)`` for either order (items ``>= k``
alone, closed greedy bins ``<= 2k - 2``, the greedy left-over phase never raises the maximum, the
round-robin phase adds at most the whole left-over ``<= k - 1`` to a bin); see
:func:`anonratio.solvers.simplified_spread.simplified_spread_guarantee`.

References
----------
Aggarwal, Feder, Kenthapadi, Motwani, Panigrahy, Thomas, Zhu. "Approximation Algorithms for
k-Anonymity". Journal of Privacy Technology, 2005: §4 (FOREST), §5 ([1,2]-factor, k = 2), §6
(2-factor, k = 3).

Du, Eppstein, Goodrich, Lueker. "On the Approximability of Geometric and Geographic
Generalization and the Min-Max Bin Covering Problem". WADS 2009: §4 (Theorems 7, 10, 11), §5
(experiments, Figure 7); §2 (zip codes), §3 (GPS rectangles, Theorem 4), §4 (ordered labels).
"""

from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "Algorithm",
    "REGISTRY",
    "get_algorithm",
    "algorithms_for",
    "KINDS",
    "BIN_COVERING_ORDERS",
    "RELAXED_EPSILON",
]

KINDS = ("approximation", "heuristic", "exact")


@dataclass(frozen=True)
class Algorithm:
    """One registered algorithm.

    Parameters
    ----------
    name : str
        Registry name (``"forest"``, ``"factor-2"``, ``"cpsat"``, ...).
    problem : str
        The problem it solves (``"k-anonymity"``).
    kind : {"approximation", "heuristic", "exact"}
    run : callable
        ``run(instance, *, seed, time_limit) -> Solution``.
    guarantee : callable
        ``guarantee(instance) -> float | None``: the proven ratio on this instance (``None`` when
        no guarantee is proven for it).
    guarantee_text : str
        The guarantee as a formula, for reports.
    source : str
        Paper and section.
    complexity : str
        Running time.
    supports : callable
        ``supports(instance) -> None`` if the algorithm can run on the instance, else a reason.
    """

    name: str
    problem: str
    kind: str
    run: Callable
    guarantee: Callable
    guarantee_text: str
    source: str
    complexity: str
    supports: Callable


# ---------------------------------------------------------------------------------------------
# k-anonymity: approximation algorithms (imported lazily)
# ---------------------------------------------------------------------------------------------
def _run_approx(method, *, timed=False):
    def run(instance, *, seed=None, time_limit=None):
        from anonratio.solvers import k_anonymize

        # the factor algorithms bound their factor ILP by the time limit (status "time_limit",
        # no guarantee, when it stops them); FOREST has no time limit of its own
        kw = {"time_limit": time_limit} if timed else {}
        return k_anonymize(instance, method=method, seed=seed, **kw)

    run.__name__ = f"run_{method.replace('-', '_')}"
    return run


def _forest_guarantee(instance):
    from anonratio.solvers.forest import forest_guarantee

    return forest_guarantee(instance.k)


def _factor_2_guarantee(instance):
    from anonratio.solvers.one_two_factor import one_two_factor_guarantee

    return one_two_factor_guarantee(instance)


def _factor_3_guarantee(instance):
    from anonratio.solvers.two_factor import two_factor_guarantee

    return two_factor_guarantee(instance)


def _supports_any(instance):
    return None


def _supports_k(name, k):
    def supports(instance):
        if instance.k != k:
            return f"{name} needs k={k}, got k={instance.k}"
        return None

    supports.__name__ = f"supports_k{k}"
    return supports


# ---------------------------------------------------------------------------------------------
# k-anonymity: exact models
# ---------------------------------------------------------------------------------------------
def _run_exact(method):
    def run(instance, *, seed=None, time_limit=60.0):
        from anonratio.exact import solve_k_anonymity

        # one thread per run: the sweep already runs n_jobs runs side by side
        return solve_k_anonymity(
            instance, method=method, time_limit=time_limit, seed=seed, threads=1
        )

    run.__name__ = f"run_{method}"
    return run


def _exact_guarantee(instance):
    return 1.0


_AGGARWAL = "Aggarwal et al. 2005"

REGISTRY = {
    "forest": Algorithm(
        name="forest",
        problem="k-anonymity",
        kind="approximation",
        run=_run_approx("forest"),
        guarantee=_forest_guarantee,
        guarantee_text="max(2k-1, 3k-5)",
        source=f"{_AGGARWAL}, §4 (FOREST + DECOMPOSE-COMPONENT)",
        complexity="O(k n^2) distances over unique records",
        supports=_supports_any,
    ),
    "factor-2": Algorithm(
        name="factor-2",
        problem="k-anonymity",
        kind="approximation",
        run=_run_approx("factor-2", timed=True),
        guarantee=_factor_2_guarantee,
        guarantee_text="1.5 (binary), 2 (suppression, any alphabet); k = 2 only",
        source=f"{_AGGARWAL}, §5 (minimum-weight [1,2]-factor)",
        complexity="O(n^3) (minimum-weight perfect matching)",
        supports=_supports_k("factor-2", 2),
    ),
    "factor-3": Algorithm(
        name="factor-3",
        problem="k-anonymity",
        kind="approximation",
        run=_run_approx("factor-3", timed=True),
        guarantee=_factor_3_guarantee,
        guarantee_text="2 (binary); k = 3 only",
        source=f"{_AGGARWAL}, §6 (minimum-weight 2-factor + cycle decomposition)",
        complexity="O(n^3) (minimum-weight perfect matching)",
        supports=_supports_k("factor-3", 3),
    ),
    "cpsat": Algorithm(
        name="cpsat",
        problem="k-anonymity",
        kind="exact",
        run=_run_exact("cpsat"),
        guarantee=_exact_guarantee,
        guarantee_text="1 (exact)",
        source="CP-SAT model of the optimal partition cost (DESIGN §3.1)",
        complexity="exponential (branch and bound / clause learning)",
        supports=_supports_any,
    ),
    "highs": Algorithm(
        name="highs",
        problem="k-anonymity",
        kind="exact",
        run=_run_exact("highs"),
        guarantee=_exact_guarantee,
        guarantee_text="1 (exact)",
        source="ILP model solved by HiGHS through PuLP (DESIGN §3.1)",
        complexity="exponential (branch and bound)",
        supports=_supports_any,
    ),
    "cbc": Algorithm(
        name="cbc",
        problem="k-anonymity",
        kind="exact",
        run=_run_exact("cbc"),
        guarantee=_exact_guarantee,
        guarantee_text="1 (exact)",
        source="ILP model solved by CBC through PuLP (DESIGN §3.1)",
        complexity="exponential (branch and bound)",
        supports=_supports_any,
    ),
}


# ---------------------------------------------------------------------------------------------
# Min-Max Bin Covering (Du, Eppstein, Goodrich and Lueker 2009, §4-§5)
# ---------------------------------------------------------------------------------------------
#: item orders registered for Fold, Spread and simplified Spread (Figure 7: random and sorted)
BIN_COVERING_ORDERS = ("random", "sorted")

#: epsilon of the registered relaxed scheme (Theorem 11)
RELAXED_EPSILON = 0.2

_DU = "Du et al. 2009"


def _supports_bin_covering(instance):
    problem = getattr(instance, "problem", type(instance).__name__)
    if problem != "bin-covering":
        return f"needs a bin-covering instance, got {problem}"
    return None


def _run_bin_cover(method, order, **options):
    def run(instance, *, seed=None, time_limit=None):
        from anonratio.solvers import bin_cover

        kw = dict(options)
        if method == "relaxed" and time_limit is not None:
            kw["time_limit"] = time_limit  # the type enumeration stops there (status time_limit)
        return bin_cover(instance, method=method, order=order, seed=seed, **kw)

    run.__name__ = f"run_{method.replace('-', '_')}_{order}"
    return run


def _fold_guarantee(instance):
    from anonratio.solvers.fold import fold_guarantee

    return fold_guarantee(instance)


def _spread_guarantee(instance):
    from anonratio.solvers.spread import spread_guarantee

    return spread_guarantee(instance)


def _simplified_spread_guarantee(instance):
    from anonratio.solvers.simplified_spread import simplified_spread_guarantee

    return simplified_spread_guarantee(instance)


def _relaxed_guarantee(instance):
    from anonratio.solvers.relaxed_scheme import relaxed_guarantee

    return relaxed_guarantee(instance, epsilon=RELAXED_EPSILON)


def _run_bc_exact(method):
    def run(instance, *, seed=None, time_limit=60.0):
        from anonratio.exact import solve_bin_covering

        return solve_bin_covering(
            instance, method=method, time_limit=time_limit, seed=seed, threads=1
        )

    run.__name__ = f"run_bc_{method}"
    return run


def _bin_covering_algorithms():
    out = []
    lb = "LB = max(k, max x, ceil(S / floor(S/k)))"
    approx = [
        (
            "fold",
            _fold_guarantee,
            f"max(k-1+max x, 3k-3) / LB < 3 ({lb})",
            f"{_DU}, §4 Theorem 7 (Fold)",
            "O(n) after the O(n log n) sort",
        ),
        (
            "spread",
            _spread_guarantee,
            "5/2",
            f"{_DU}, §4 Theorem 10 (Spread, with its exhaustive small case)",
            "O(n log n); the small case (<= 3 bins) adds a budgeted exhaustive search",
        ),
        (
            "simplified-spread",
            _simplified_spread_guarantee,
            f"max(k-1+max x, 3k-3) / LB < 3 (Theorem 7's argument, derived here; the paper "
            f"proves no ratio for it; {lb})",
            f"{_DU}, §5 (the experiments' simplified Spread, Figure 7)",
            "O(n log n)",
        ),
    ]
    for method, guarantee, text, source, complexity in approx:
        for order in BIN_COVERING_ORDERS:
            name = f"{method}-{order}"
            out.append(
                Algorithm(
                    name=name,
                    problem="bin-covering",
                    kind="approximation",
                    run=_run_bin_cover(method, order),
                    guarantee=guarantee,
                    guarantee_text=text,
                    source=f"{source}; items in {order} order",
                    complexity=complexity,
                    supports=_supports_bin_covering,
                )
            )
    eps = RELAXED_EPSILON
    out.append(
        Algorithm(
            name="relaxed",
            problem="bin-covering",
            kind="approximation",
            run=_run_bin_cover("relaxed", "sorted", epsilon=eps),
            guarantee=_relaxed_guarantee,
            guarantee_text=f"bicriteria, eps = {eps:g}: cost <= (1+eps)(OPT + eps k), ratio "
            f"<= (1+eps)(1 + eps k/LB) <= (1+eps)^2; bins only >= (1-2eps)k (relaxed rows)",
            source=f"{_DU}, §4 Theorem 11 (relaxed approximation scheme)",
            complexity="polynomial for fixed eps, of degree growing with 1/eps (type enumeration)",
            supports=_supports_bin_covering,
        )
    )
    for method, solver in (("cpsat", "CP-SAT"), ("highs", "HiGHS"), ("cbc", "CBC")):
        out.append(
            Algorithm(
                name=f"bc-{method}",
                problem="bin-covering",
                kind="exact",
                run=_run_bc_exact(method),
                guarantee=_exact_guarantee,
                guarantee_text="1 (exact)",
                source=f"{solver} model over aggregated sizes (DESIGN §3.4)",
                complexity="exponential (branch and bound)",
                supports=_supports_bin_covering,
            )
        )
    return out


REGISTRY.update((a.name, a) for a in _bin_covering_algorithms())

# zip codes, GPS rectangles, ordered labels (Du et al. 2009, §2-§4); kept in their own module
from ._registry_paper004 import paper004_algorithms  # noqa: E402

REGISTRY.update((a.name, a) for a in paper004_algorithms())


def get_algorithm(name):
    """The registered :class:`Algorithm` called ``name``.

    Raises
    ------
    ValueError
        ``unknown algorithm 'x'; known: [...]``.
    """
    try:
        return REGISTRY[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown algorithm {name!r}; known: {sorted(REGISTRY)}") from None


def algorithms_for(problem):
    """The registered algorithms of ``problem``, in registry order."""
    return [a for a in REGISTRY.values() if a.problem == problem]
