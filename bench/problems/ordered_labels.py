"""Ordered labels (Du, Eppstein, Goodrich and Lueker 2009, §4 remark): consecutive intervals of an
ordered domain, each of weight >= k, minimizing the heaviest. Its instance family and its exact
algorithm, declared once.

References
----------
W. Du, D. Eppstein, M. T. Goodrich, G. S. Lueker. "On the Approximability of Geometric and
Geographic Generalization and the Min-Max Bin Covering Problem". WADS 2009.
"""

from anonratio.bench.declarations import Algorithm, Family, exact_guarantee
from anonratio.bench.problem import Problem, lazy, reference

# the solvers and exact models load on first use, not when the problem is declared
ordered_greedy = lazy("anonratio.exact.ordered_labels.ordered_greedy:ordered_greedy")

__all__ = ["PROBLEM"]

NAME = "ordered-labels"


_DU = "Du et al. 2009"

FAMILIES = (
    Family(
        "ordered-random",
        "ordered-labels",
        f"n ordered label sizes uniform in the integers [low, high], consecutive intervals of "
        f"weight >= k ({_DU}, §4)",
        {"n": 30, "k": 10, "low": 0, "high": 10},
        lazy("anonratio.instances.ordered_labels.families:random_sizes"),
    ),
)

ALGORITHMS = (
    Algorithm(
        name="ordered-greedy",
        problem=NAME,
        kind="exact",
        function=ordered_greedy,
        guarantee=exact_guarantee,
        guarantee_text="1 (provably optimal)",
        source=f"{_DU}, §4 (ordered labels: greedy feasibility test + binary search)",
        complexity="O(n log S)",
    ),
)

PROBLEM = Problem(
    name=NAME,
    prefix="ordered",
    n_label="labels",
    size="k",
    families=FAMILIES,
    algorithms=ALGORITHMS,
    exact=("ordered-greedy",),
    reference=(
        reference("ordered-random-20-k5", "ordered-random", n=20, k=5),
        reference("ordered-random-30-k10-s1", "ordered-random", seed=1, n=30, k=10),
    ),
    contract=("ordered-random", {"n": 12, "k": 8}),
    # an exact algorithm that scales: timed on its own sizes, not on the reference instances
    asv_overrides={
        "ordered-greedy": {
            "small": (("ordered-random", {"n": 10_000, "k": 10}),),
            "large": (("ordered-random", {"n": 100_000, "k": 10}),),
        },
    },
)
