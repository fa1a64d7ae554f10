"""A k-anonymity partition certified by the strongest lower bound the time allows.

:func:`certify` takes a feasible partition (the registry's ``kanon-certified`` passes local search
from FOREST's, the best-known partition) and spends its time on
:func:`~anonratio.exact.kanonymity.lp_bound.lp_bound`: nearest-neighbour prices, dual ascent over
the generalization lattice, then column generation where the master is small (seeded with the
partition's groups) or cutting planes over generalization boxes where it is not. The partition stays
the run's solution; the bound is its proven lower bound, so the run's ``gap`` says how far from
optimal the partition can be.
"""

from __future__ import annotations

from time import perf_counter

from anonratio.exact.certify import certified_solution, check_start
from anonratio.exact.kanonymity.lp_bound import lp_bound
from anonratio.instances import KAnonymityInstance, Solution
from anonratio.instances.validation import check_instance

__all__ = ["certify"]


def certify(
    instance: KAnonymityInstance,
    solution: Solution,
    *,
    time_limit: float = 60.0,
    seed: int | None = None,
    algorithm: str = "kanon-certified",
) -> Solution:
    """``solution`` with the best lower bound proven within ``time_limit`` seconds.

    Parameters
    ----------
    instance : KAnonymityInstance
    solution : Solution
        A feasible partition of ``instance`` (checked by the verifier).
    time_limit : float
        Seconds (>= 0) for the bound.
    seed : int, optional
        HiGHS's random seed.
    algorithm : str
        The returned solution's algorithm name.

    Returns
    -------
    Solution
        Status ``"feasible"``, the same labels, ``lower_bound`` the bound proven; ``info`` keeps
        ``solution``'s and adds each bound stage's value and seconds (``bound_<stage>``,
        ``bound_<stage>_s``), the winner (``lower_bound_source``), whether the LP relaxation was
        solved (``lp_solved``), the dual-ascent rounds and the unique records.

    Raises
    ------
    ValueError
        If ``solution`` is not a feasible partition of ``instance``.
    """
    check_instance(instance, KAnonymityInstance)
    t0 = perf_counter()
    check, time_limit, seed = check_start(instance, solution, time_limit=time_limit, seed=seed)
    bound = lp_bound(instance, time_limit=time_limit, starts=[solution.labels], seed=seed or 0)
    info = {}
    for stage, (value, seconds) in bound.stages.items():
        name = stage.replace("-", "_")
        info[f"bound_{name}"], info[f"bound_{name}_s"] = value, seconds
    info.update(
        lp_solved=bound.solved,
        ascent_rounds=bound.iterations,
        cg_iterations=bound.cg_iterations,
        box_lp_rounds=bound.box_rounds,
        n_unique=bound.prices.size,
    )  # fmt: skip
    return certified_solution(
        instance, solution, check, bound=bound.value, source=bound.source, info=info,
        algorithm=algorithm, t0=t0,
    )  # fmt: skip
