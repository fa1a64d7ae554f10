"""The bound in a second process (exact/kanonymity/background_bound.py): the bound lp_bound
proves in-process, dual-feasible progress reports on the way, and a note (never a hang, never a
bound without proof) when the child dies or overruns."""

from time import perf_counter

import numpy as np
import pytest

from anonratio.bench.registry import generate
from anonratio.exact.kanonymity.background_bound import BackgroundBound
from anonratio.exact.kanonymity.box_pricing import BoxLattice
from anonratio.exact.kanonymity.lp_bound import lp_bound
from anonratio.instances import lower_bound
from anonratio.solvers.kanonymity.forest import forest

TOL = 1e-7


def _assert_dual_feasible(inst, prices):
    """No group of k .. 2k − 1 copies costs less than its members' prices."""
    priced = BoxLattice(inst).price(prices, max_columns=1)
    assert priced.shift >= -1e-9 * max(1.0, float(np.abs(prices).max()))


@pytest.mark.slow  # the LP bound twice, once in a second process
def test_the_child_proves_what_lp_bound_proves_here_and_reports_on_the_way():
    inst, _ = generate("kanon-categorical", seed=2, n=40, k=3)
    starts = [forest(inst).labels]
    here = lp_bound(inst, time_limit=60, starts=starts)
    with BackgroundBound(inst, time_limit=60, starts=starts) as bg:
        bound, note = bg.result(perf_counter() + 120, grace=0)  # waits till the deadline
        reported = bg.poll()
    assert note is None and here.solved and bound.solved
    assert bound.value == pytest.approx(here.value, rel=1e-6)
    assert bound.source == here.source
    assert here.stages["compact-lp"][0] == pytest.approx(here.lp_value, rel=1e-6)
    _assert_dual_feasible(inst, bound.prices)
    assert reported is not None  # the reports are still there to take after the end
    counts = inst.unique_records[2]
    assert bg.best[0] == pytest.approx(float(bg.best[1] @ counts))
    assert lower_bound(inst)[0] - TOL <= bg.best[0] <= bound.value + TOL
    _assert_dual_feasible(inst, bg.best[1])


def test_a_child_that_dies_leaves_a_note_and_no_unproven_bound():
    inst, _ = generate("kanon-random", seed=0, n=60, k=3)
    with BackgroundBound(inst, time_limit=60) as bg:
        bg._process.kill()
        bound, note = bg.result(grace=30)
    assert "ended without a result" in note
    if bound is not None:  # a report that came before the kill: still a proof
        _assert_dual_feasible(inst, bound.prices)


def test_an_overrun_returns_at_once_with_the_best_report():
    inst, _ = generate("kanon-random", seed=0, n=60, k=3)
    with BackgroundBound(inst, time_limit=120) as bg:
        bound, note = bg.result(grace=0)
    assert "did not finish within 0 s" in note
    if bound is not None:
        _assert_dual_feasible(inst, bound.prices)
        assert bound.stages[bound.source] == (bound.value, None)
