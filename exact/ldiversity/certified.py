"""An l-diversity partition certified by the pattern model's LP bound.

:func:`certify` takes a feasible partition (the registry's ``ldiv-certified`` passes TP+'s,
Xiao et al. 2010, §6) and spends its time on
:func:`~anonratio.exact.ldiversity.lp_bound.lp_bound`: the LP relaxation of the pattern model,
tightened by phase 1's bounds, certified by a Lagrangian bound from its duals. The partition
stays the run's solution; the bound is its proven lower bound, so the run's ``gap`` says how far
from optimal the partition can be.
"""

from __future__ import annotations

from time import perf_counter

from anonratio.exact.certify import certified_solution, check_start
from anonratio.exact.ldiversity.lp_bound import lp_bound
from anonratio.instances import Solution
from anonratio.instances.ldiversity import LDiversityInstance
from anonratio.instances.validation import check_instance

__all__ = ["certify"]


def certify(
    instance: LDiversityInstance,
    solution: Solution,
    *,
    time_limit: float = 60.0,
    seed: int | None = 0,
    algorithm: str = "ldiv-certified",
) -> Solution:
    """``solution`` with the lower bound :func:`lp_bound` proves within ``time_limit`` seconds.

    Parameters
    ----------
    instance : LDiversityInstance
        Either objective.
    solution : Solution
        A feasible partition of ``instance`` (checked by the verifier).
    time_limit : float
        Seconds (>= 0) for the bound; 0 gives the instance bound ``max(|R1|, l h(R1))``.
    seed : int or None
        HiGHS's random seed (None means 0).
    algorithm : str
        The returned solution's algorithm name.

    Returns
    -------
    Solution
        Status ``"feasible"``, the same labels, ``objective`` the verified cost and
        ``lower_bound`` the proven bound (at most the cost, since the bound is valid). ``info``
        keeps ``solution``'s and adds ``lower_bound_source`` (``"lp-relaxation"`` or the instance
        bound's source), ``lp_solved``, ``lp_status``, ``bound_instance``, ``bound_lp`` (the
        rounded Lagrangian bound, None without an LP), ``lp_value`` (HiGHS's objective, not a
        proven bound), ``bound_s`` and the LP's size (``lp_n_rows``, ...).

    Raises
    ------
    ValueError
        If ``solution`` is not a feasible partition of ``instance``.
    """
    check_instance(instance, LDiversityInstance)
    t0 = perf_counter()
    check, time_limit, seed = check_start(instance, solution, time_limit=time_limit, seed=seed)
    bound = lp_bound(instance, time_limit=time_limit, seed=seed)
    info = dict(
        lp_solved=bound.solved,
        lp_status=bound.status,
        bound_instance=bound.instance_bound,
        bound_lp=bound.lagrangian,
        lp_value=bound.lp_value,
        bound_s=bound.seconds,
        **{f"lp_{k}".replace("lp_lp_", "lp_"): v for k, v in bound.size.items()},
    )
    return certified_solution(
        instance,
        solution,
        check,
        bound=bound.value,
        source=bound.source,
        info=info,
        algorithm=algorithm,
        t0=t0,
    )
