"""The asv suite (``bench/benchmarks``): every benchmark has a finite budget, and the fast set a
commit comparison runs leaves out the long set, which ``ANONRATIO_ASV_LONG=1`` adds."""

from __future__ import annotations

import ast
import importlib
import inspect
import math
import time
from pathlib import Path

import pytest

from anonratio.bench import benchmarks
from anonratio.bench.benchmarks import (
    bench_ratios,
    bench_startup,
    bench_times,
    common,
    long_bin_covering,
    long_scale,
    long_times,
)
from anonratio.bench.registry import REGISTRY

#: asv's benchmark name prefixes
PREFIXES = ("time_", "timeraw_", "track_", "peakmem_", "mem_")
MODULES = sorted(Path(benchmarks.__file__).parent.glob("*.py"))
FAST = (bench_ratios, bench_times, bench_startup)
LONG = (long_scale, long_bin_covering, long_times)


def discovered(module) -> dict[str, type]:
    """What asv finds in ``module``: public classes with a benchmark method, public functions
    named as benchmarks."""
    return {
        name: obj
        for name, obj in vars(module).items()
        if not name.startswith("_")
        and (
            (inspect.isclass(obj) and any(m.startswith(PREFIXES) for m in dir(obj)))
            or (inspect.isfunction(obj) and name.startswith(PREFIXES))
        )
    }


@pytest.fixture
def long_set(monkeypatch):
    """The long modules as asv imports them with ``ANONRATIO_ASV_LONG=1``; restored after."""
    monkeypatch.setenv(common.LONG_ENV, "1")
    yield [importlib.reload(m) for m in LONG]
    monkeypatch.delenv(common.LONG_ENV)
    for module in LONG:
        importlib.reload(module)


def _all_classes() -> list[type]:
    classes = [cls for module in FAST for cls in discovered(module).values()]
    return classes + [cls for module in LONG for cls in module.CLASSES.values()]


def test_every_benchmark_has_an_explicit_finite_timeout():
    classes = _all_classes()
    assert len(classes) > 60
    for cls in classes:
        assert "timeout" in {k for c in cls.__mro__ for k in vars(c)}, cls.__name__
        for name in (m for m in dir(cls) if m.startswith(PREFIXES)):
            timeout = getattr(getattr(cls, name), "timeout", cls.timeout)
            assert isinstance(timeout, (int, float)), (cls.__name__, name)
            assert math.isfinite(timeout) and timeout > 0, (cls.__name__, name, timeout)


def _infinities(tree: ast.AST) -> list[int]:
    """Lines that spell an infinity: ``float("inf")``, ``math.inf``, ``np.inf``, ``inf``."""
    lines = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "float"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and str(node.args[0].value).strip().lower().lstrip("+-") in ("inf", "infinity")
        ):
            lines.append(node.lineno)
        elif (isinstance(node, ast.Attribute) and node.attr in ("inf", "infty", "Inf")) or (
            isinstance(node, ast.Name) and node.id == "inf"
        ):
            lines.append(node.lineno)
    return lines


def test_no_benchmark_passes_an_infinite_budget():
    assert {p.name for p in MODULES} >= {"long_scale.py", "bench_ratios.py", "common.py"}
    for path in MODULES:
        assert _infinities(ast.parse(path.read_text())) == [], path.name
    assert _infinities(ast.parse('f(deadline=float("inf"), t=np.inf)')) == [1, 1]


def test_a_value_computed_past_its_budget_is_refused():
    long_scale.finished(time.perf_counter() + 60, "ok")
    with pytest.raises(TimeoutError, match="the compact LP: not finished within the budget"):
        long_scale.finished(time.perf_counter() - 1, "the compact LP")
    assert long_scale.deadline() - time.perf_counter() == pytest.approx(long_scale.BUDGET, 1)


def _methods(classes) -> set[str]:
    return {m for cls in classes for m in dir(cls) if m.startswith(PREFIXES)}


def test_the_fast_set_excludes_the_long_set():
    assert {p.stem for p in MODULES if p.stem.startswith(("bench_", "long_"))} == {
        m.__name__.rsplit(".", 1)[1] for m in FAST + LONG
    }
    for module in LONG:
        assert module.CLASSES and discovered(module) == {}, module.__name__
    ratios = discovered(bench_ratios)
    assert set(ratios) == set(bench_ratios.CLASSES) and "Ratio_forest" in ratios
    times = discovered(bench_times)
    assert set(times) == set(bench_times.CLASSES)
    assert not any(m.startswith(("peakmem_", "mem_")) for m in _methods(times.values()))
    slow = common.SLOW_SIZES
    for name, cls in times.items():
        key = name.removeprefix("Time_")
        assert cls.params and not set(cls.params) & set(slow.get(key.replace("_", "-"), ()))
    assert "Time_r_cellular_certified" not in times  # both of its sizes are slow
    assert times["Time_kanon_certified"].params == ["small"]
    assert {(cls.repeat, cls.warmup_time) for cls in times.values()} == {((1, 2, 5.0), 0.0)}


def test_the_long_set_is_defined_with_its_environment_variable(long_set):
    scale, bin_covering, times = long_set
    assert set(discovered(scale)) == set(scale.CLASSES) >= {"ForestScale", "AdultBound"}
    assert set(discovered(bin_covering)) == {"OverfullLast1990", "TimeLast1990"}
    assert set(discovered(times)) == set(times.CLASSES)
    assert times.CLASSES["SlowTime_kanon_certified"].params == ["large"]
    assert {f"peakmem_{common.ident(a)}" for a in REGISTRY} == {
        m for m in _methods(times.CLASSES.values()) if m.startswith("peakmem_")
    }
    for name, sizes in common.SLOW_SIZES.items():
        assert times.CLASSES[f"SlowTime_{common.ident(name)}"].params == list(sizes)


def test_long_benchmarks_keeps_the_classes_only_when_asked():
    class Long:
        timeout = 1.0

    names = {"Long": Long}
    assert common.long_benchmarks(names, [Long], environ={common.LONG_ENV: "1"}) == names
    assert names == {"Long": Long}
    assert common.long_benchmarks(names, [Long], environ={common.LONG_ENV: "0"}) == {"Long": Long}
    assert names == {}


def test_the_start_up_benchmarks_run_what_a_user_waits_for():
    """The timeraw code imports what it names, and the bound benchmark computes both bounds."""
    import subprocess
    import sys

    startup = bench_startup.Startup()
    for code in (startup.timeraw_import_registry(), startup.timeraw_cli_parser()):
        subprocess.run([sys.executable, "-c", code], check=True)
    bench = long_scale.CLASSES["BoundScale"]()  # the long set keeps its classes there
    for bound in bench.params[0]:
        bench.setup(bound)
        bench.time_bound(bound)
        assert bench.instance.n == 5000
