"""A k-anonymity partition certified by the strongest lower bound the time allows.

:func:`certify` takes a feasible partition (the registry's ``kanon-certified`` passes local search
from FOREST's and the box greedy's, the best-known partition) and spends its time on
:func:`~anonratio.exact.kanonymity.lp_bound.lp_bound`: nearest-neighbour prices, dual ascent over
the generalization lattice, then column generation where the master is small (seeded with the
partition's groups) or cutting planes over generalization boxes where it is not. The bound's
prices then drive the exact solver's reduced-cost rounds from the partition
(:func:`~anonratio.exact.kanonymity.cpsat.solve_cpsat` with ``bound=``): on tables where a
lattice sweep is small they find far better partitions than local moves do, and may raise the
bound or prove the partition optimal. The region search improves the result in the time left. The
run's bound is proven, so its ``gap`` says how far from optimal the partition can be.
"""

from __future__ import annotations

from time import perf_counter

from anonratio.exact.certify import certified_solution, check_start
from anonratio.exact.kanonymity.background_bound import BackgroundBound
from anonratio.exact.kanonymity.columns import fits
from anonratio.exact.kanonymity.cpsat import solve_cpsat
from anonratio.exact.kanonymity.ilp import solve_highs
from anonratio.exact.kanonymity.lp_bound import BOUND_SOURCES, LPBound, lp_bound, nn_bound
from anonratio.exact.kanonymity.region_search import region_search
from anonratio.instances import KAnonymityInstance, Solution, verify
from anonratio.instances.errors import UnsupportedInstanceError
from anonratio.instances.validation import check_instance, check_int

__all__ = ["certify", "CERTIFIED_SOURCES"]

#: the names of a certified run's bound: :func:`lp_bound`'s, or the exact rounds' when they
#: proved more
CERTIFIED_SOURCES = (*BOUND_SOURCES, "exact-rounds")

#: seconds a spawned bound process takes to start (imports), left out of its time limit
SPAWN_S = 3.0

#: shortest time limit worth a second process (below it ``threads`` is taken as 1)
SIDE_BY_SIDE_MIN_S = 4 * SPAWN_S

#: share of the time limit for the bound; the exact rounds and the region search take the rest
#: (and what the bound leaves when it converges early)
BOUND_SHARE = 0.75

#: share of the time left after the bound for the exact rounds; the region search takes the rest
#: (and what the rounds leave when they end early)
ROUNDS_SHARE = 0.75

#: fewest seconds worth starting the exact rounds with
MIN_ROUNDS_S = 2.0

#: most unique records the exact rounds are tried on. Measured on Adult samples (k = 5, 120 s,
#: one core): with them the run ends at 538.5 instead of 565.4 at 198 unique records and at
#: 951.6 instead of 984.0 at 389, but they improve nothing in their 27 s at 940 (too many
#: groups of small reduced cost), where the region search saves 37.
ROUNDS_MAX_UNIQUE = 500


def certify(
    instance: KAnonymityInstance,
    solution: Solution,
    *,
    time_limit: float = 60.0,
    seed: int | None = None,
    algorithm: str = "kanon-certified",
    threads: int = 1,
) -> Solution:
    """``solution`` improved, with the best lower bound proven, within ``time_limit`` seconds.

    Parameters
    ----------
    instance : KAnonymityInstance
    solution : Solution
        A feasible partition of ``instance`` (checked by the verifier).
    time_limit : float
        Seconds (>= 0). With one thread, ``BOUND_SHARE`` of them for the bound at most,
        ``ROUNDS_SHARE`` of the rest for the exact rounds, then the region search; with two, the
        bound and the region search take the whole time side by side, and the exact rounds any
        time they leave.
    seed : int, optional
        HiGHS's and CP-SAT's random seed.
    algorithm : str
        The returned solution's algorithm name.
    threads : int
        1, or 2 and more: the bound then runs in a second process
        (:class:`~anonratio.exact.kanonymity.background_bound.BackgroundBound`) and the region
        search orders its regions by the newest prices it has proven. Only two processes are
        used, however many threads are allowed; under ``SIDE_BY_SIDE_MIN_S`` seconds, one.

    Returns
    -------
    Solution
        Status ``"feasible"``, the best partition of the rounds and the region search (never
        dearer than ``solution``), ``lower_bound`` the bound proven (``lower_bound_source``
        ``"exact-rounds"`` when the rounds proved more than the bound stages, e.g. the
        partition's optimality); ``info`` keeps ``solution``'s and adds each bound
        stage's value and seconds (``bound_<stage>``, ``bound_<stage>_s``), the winner
        (``lower_bound_source``), whether the LP relaxation was solved (``lp_solved``), the
        dual-ascent rounds, the unique records, ``solution``'s cost (``input_cost``; its own
        ``start`` and ``start_cost``, if any, are kept), the region
        search's counts (``region_*``), the exact rounds' status, cost, bound, seconds, saving and
        whether they reused the bound (``rounds_*``; absent when they did not run: too little
        time, more than ``ROUNDS_MAX_UNIQUE`` unique records, or a table too large for the
        exact models) and ``threads`` (the processes used, 1 or 2). With two, a bound process
        that fails or overruns its time leaves ``bound_note``: its best progress report is the
        bound (the nearest-neighbour bound when it sent none).

    Raises
    ------
    ValueError
        If ``solution`` is not a feasible partition of ``instance``.
    """
    check_instance(instance, KAnonymityInstance)
    t0 = perf_counter()
    threads = min(2, check_int("threads", threads, low=1))
    start, time_limit, seed = check_start(instance, solution, time_limit=time_limit, seed=seed)
    assert solution.labels is not None  # check_start refused a solution without labels
    deadline = t0 + time_limit
    if time_limit < SIDE_BY_SIDE_MIN_S:
        threads = 1  # starting a second interpreter would take most of the time
    if threads == 1:
        bound = lp_bound(
            instance, time_limit=BOUND_SHARE * time_limit, starts=[solution.labels], seed=seed or 0
        )
        left = ROUNDS_SHARE * (deadline - perf_counter())
        rounds = _exact_rounds(instance, solution.labels, bound, perf_counter() + left, seed)
        labels, gain = _better(instance, solution.labels, rounds)
        labels, searched = region_search(
            instance, labels, deadline=deadline, prices=bound.prices, seed=seed or 0
        )
        note = None
    else:
        bound, labels, searched, note = _side_by_side(instance, solution, deadline, seed or 0)
        rounds = _exact_rounds(instance, labels, bound, deadline, seed)  # if the time allows
        labels, gain = _better(instance, labels, rounds)
    check = verify(instance, labels, strict=False)
    if not check.feasible:  # a defect of the region search: never return an unchecked partition
        raise RuntimeError(f"region search broke the partition: {check.violations[:3]}")
    assert check.cost is not None  # a feasible partition has its cost
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
        input_cost=float(start.cost),
        threads=threads,
        **searched,
    )
    if note is not None:
        info["bound_note"] = note
    value, source = bound.value, bound.source
    if rounds is not None:
        info.update(
            rounds_status=rounds.status,
            rounds_cost=rounds.objective,
            rounds_lower_bound=rounds.lower_bound,
            rounds_s=rounds.time_s,
            rounds_gain=gain,
            rounds_bound_given=bool(rounds.info.get("bound_given", False)),
        )
        if rounds.lower_bound is not None and rounds.lower_bound > value:
            value, source = float(rounds.lower_bound), "exact-rounds"
    if value > check.cost + 1e-6 * max(1.0, abs(check.cost)):  # a defect, never a result
        raise RuntimeError(f"the bound {value} exceeds the partition's cost {check.cost}")
    return certified_solution(
        instance,
        solution,
        check,
        bound=min(value, float(check.cost)),
        source=source,
        info=info,
        algorithm=algorithm,
        t0=t0,
        labels=labels,
    )


def _exact_rounds(
    instance: KAnonymityInstance, labels, bound: LPBound, deadline: float, seed: int | None
) -> Solution | None:
    """The exact solver's reduced-cost rounds at ``bound``'s prices, from ``labels``, until
    ``deadline``: CP-SAT, or HiGHS where the weights do not scale to integers. None when less
    than ``MIN_ROUNDS_S`` seconds are left, or the table has more than ``ROUNDS_MAX_UNIQUE``
    unique records or is too large for the exact models."""
    left = deadline - perf_counter()
    u = len(instance.unique_records[2])
    if left < MIN_ROUNDS_S or u > ROUNDS_MAX_UNIQUE or not fits(instance):
        return None
    options = dict(time_limit=left, seed=seed or 0, hint=labels, bound=bound)
    try:
        return solve_cpsat(instance, **options)
    except UnsupportedInstanceError:  # weights CP-SAT cannot scale to integers
        return solve_highs(instance, **options)


def _better(instance, labels, rounds):
    """``(labels, gain)``: the rounds' partition and its saving when it is verified and cheaper
    than ``labels``, else ``labels`` and 0."""
    if rounds is None or rounds.labels is None:
        return labels, 0.0
    mine, theirs = verify(instance, labels, strict=False), verify(instance, rounds, strict=False)
    if theirs.feasible and theirs.cost is not None and mine.cost is not None:
        if theirs.cost < mine.cost:
            return rounds.labels, float(mine.cost - theirs.cost)
    return labels, 0.0


def _side_by_side(instance, solution, deadline, seed):
    """The bound in a second process, the region search here, both until ``deadline``."""
    # the child needs a moment to start an interpreter: its limit leaves it
    left = max(0.0, deadline - perf_counter() - SPAWN_S)
    with BackgroundBound(instance, time_limit=left, starts=[solution.labels], seed=seed) as bg:
        labels, searched = region_search(
            instance,
            solution.labels,
            deadline=deadline,
            seed=seed,
            refresh=bg.poll,
            more_prices=bg.running,
        )
        bound, note = bg.result(deadline)  # the search may end early: the bound has till then
    if bound is None:  # nothing proven in the other process: the nearest-neighbour prices
        bound = nn_bound(instance)
    return bound, labels, searched, note
