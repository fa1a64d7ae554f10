"""What the asv benchmarks share: the reference instance set, the benchmark sizes, the caches.

The sizes each algorithm is timed at are its problem's declaration's (``asv_sizes``,
``asv_overrides``, ``asv_slow`` of :class:`~anonratio.bench.problem.Problem`).

The benchmarks live in the working tree and run against whichever commit asv installed, so they
use only the stable public API (the registry, ``generate``, ``verify``, ``lower_bound``,
``instance_id``) and read the reference optima from the working tree's
``results/reference_optima.json`` (``ANONRATIO_REFERENCE`` overrides the path): every entry
names its family, parameters and seed, so an older commit regenerates the same instances. An
instance whose content hash differs from its entry's key (its generator changed at that commit)
is left out rather than compared against a stale optimum.

Instances, optima and the approximation runs are built once per benchmark run, in the classes'
shared ``setup_cache`` (asv keys the cache by the function's module and line, so all the classes
that hold :func:`ratio_cache` share one computation, and all that hold :func:`size_cache` share
another), never per parameter.
"""

from __future__ import annotations

import json
import math
import os
import re
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from anonratio.bench import registry
from anonratio.bench.registry import REGISTRY, generate
from anonratio.instances import instance_id, lower_bound, verify
from anonratio.instances.base import cold_copy

#: the committed reference optima (working tree, beside ``bench/benchmarks``)
REFERENCE_FILE = Path(__file__).resolve().parents[2] / "results" / "reference_optima.json"

#: seconds an exact model may take on a timing instance (they solve in about a second)
EXACT_TIME_LIMIT = 60.0

SIZE_NAMES = ["small", "large"]

#: set to ``1``, asv also sees the long set, the modules ``long_*`` (:func:`long_benchmarks`)
LONG_ENV = "ANONRATIO_ASV_LONG"

#: algorithm -> the sizes timed in the long set only (:mod:`.long_times`; its problem's
#: declaration's ``asv_slow``): each takes 10 s or more on a laptop core (an exact model at its
#: time limit, a search run to convergence), too slow for a commit comparison; every other size
#: is timed in the fast set (:mod:`.bench_times`)
SLOW_SIZES: dict[str, tuple[str, ...]] = {
    name: sizes
    for problem in getattr(registry, "PROBLEMS", {}).values()
    for name, sizes in problem.asv_slow.items()
}
STATS = ["worst", "mean"]


def ident(name: str) -> str:
    """A Python identifier for a registry name (``fold-random`` -> ``fold_random``)."""
    return re.sub(r"\W", "_", name)


def long_benchmarks(
    namespace: dict[str, Any], classes: list[type], environ: Mapping[str, str] | None = None
) -> dict[str, type]:
    """The classes of a long-set module by name, left in its ``namespace`` (what asv discovers)
    only when :data:`LONG_ENV` is ``1``: by default asv runs the fast set alone."""
    env = os.environ if environ is None else environ
    out = {cls.__name__: cls for cls in classes}
    if env.get(LONG_ENV) != "1":
        for name in out:
            namespace.pop(name, None)
    return out


def fast_sizes(name: str) -> list[str]:
    """The sizes at which the fast set times the algorithm ``name`` (not :data:`SLOW_SIZES`)."""
    return [size for size in SIZE_NAMES if size not in SLOW_SIZES.get(name, ())]


def tracked_algorithms() -> list[Any]:
    """Every registered algorithm that is not exact (approximations and heuristics)."""
    return [a for a in REGISTRY.values() if a.kind != "exact"]


def load_entries(path: str | Path | None = None) -> dict[str, dict]:
    """The reference file's entries (instance id -> entry); {} when absent."""
    path = Path(path or os.environ.get("ANONRATIO_REFERENCE") or REFERENCE_FILE)
    if not path.exists():
        return {}
    return json.loads(path.read_text())["instances"]


def entry_status(entry: dict) -> str:
    """``opt`` / ``best`` / ``unknown`` (older files carry only proven ``optimum`` values)."""
    return entry.get("status") or ("opt" if "optimum" in entry else "unknown")


def reference_instances(path: str | Path | None = None) -> list[dict[str, Any]]:
    """The reference instances that regenerate to their recorded ids at this commit.

    Each item: ``name``, ``problem``, ``instance``, ``optimum`` (None unless status ``opt``),
    ``bound`` (the best valid lower bound: the entry's and this commit's ``lower_bound``).
    """
    out = []
    for key, entry in load_entries(path).items():
        try:
            instance, _ = generate(entry["family"], seed=entry["seed"], **entry["params"])
        except Exception:  # the family or a parameter does not exist at this commit
            continue
        if instance_id(instance) != key:
            continue
        status = entry_status(entry)
        optimum = float(entry["optimum"]) if status == "opt" else None
        bounds = [float(lower_bound(instance)[0]), float(entry.get("bound") or 0.0)]
        if optimum is not None:
            bounds.append(optimum)
        out.append(
            {
                "name": entry["name"],
                "problem": instance.problem,
                "instance": instance,
                "optimum": optimum,
                "bound": max(bounds),
            }
        )
    return out


def _quotient(cost: float, den: float | None) -> float:
    if den is None or math.isnan(den):
        return math.nan
    if den == 0:
        return 1.0 if cost == 0 else math.nan
    return cost / den


def run_ratios(alg: Any, refs: list[dict[str, Any]]) -> dict[str, Any]:
    """Run ``alg`` once on each reference instance of its problem; its ratios, or its error."""
    ratios, certified, errors = [], [], []
    for ref in refs:
        if ref["problem"] != alg.problem or alg.supports(ref["instance"]) is not None:
            continue
        try:
            solution = alg.run(ref["instance"], seed=0, time_limit=EXACT_TIME_LIMIT)
            check = verify(ref["instance"], solution, strict=False)
        except Exception as exc:  # recorded: the benchmark of this algorithm fails, no other
            errors.append(f"{ref['name']}: {type(exc).__name__}: {exc}")
            continue
        if not check.feasible or check.cost is None:
            errors.append(f"{ref['name']}: infeasible: {check.violations[:3]}")
            continue
        ratios.append(_quotient(check.cost, ref["optimum"]))
        certified.append(_quotient(check.cost, ref["bound"]))
    return {"ratio": ratios, "certified_ratio": certified, "errors": errors}


def ratio_cache() -> dict[str, Any]:
    """asv ``setup_cache`` of the ratio benchmarks: every tracked algorithm on the reference set."""
    refs = reference_instances()
    return {a.name: run_ratios(a, refs) for a in tracked_algorithms()}


def statistic(values: list[float], stat: str) -> float:
    """``worst`` (largest) or ``mean`` of the finite values; NaN when there are none."""
    finite = [v for v in values if not math.isnan(v)]
    if not finite:
        return math.nan
    return max(finite) if stat == "worst" else sum(finite) / len(finite)


def _candidates(alg: Any, size: str) -> list[tuple[str, dict[str, Any]]]:
    """The (family, params) ``alg`` is timed on at ``size``: its problem's declaration's
    ``asv_sizes`` (or its own ``asv_overrides``); none at a commit that declares none."""
    problem = getattr(registry, "PROBLEMS", {}).get(alg.problem)
    return (
        [] if problem is None else [(f, dict(p)) for f, p in problem.asv_candidates(alg.name, size)]
    )


def _own_sizes(alg: Any) -> bool:
    """Whether the exact ``alg`` is timed on sizes of its own rather than reference instances."""
    problem = getattr(registry, "PROBLEMS", {}).get(alg.problem)
    return problem is not None and alg.name in problem.asv_overrides


def _exact_sizes(refs: list[dict[str, Any]], problem: str) -> dict[str, list[Any]]:
    """Exact models time on reference instances: the smallest and the largest of the problem."""
    mine = sorted((r for r in refs if r["problem"] == problem), key=lambda r: r["instance"].n)
    if not mine:
        return {}
    return {"small": [r["instance"] for r in mine], "large": [r["instance"] for r in mine[::-1]]}


def size_cache() -> dict[str, dict[str, Any]]:
    """asv ``setup_cache`` of the timing benchmarks: algorithm -> size -> instance (or None)."""
    refs = reference_instances()
    built: dict[tuple[str, str], Any] = {}
    out: dict[str, dict[str, Any]] = {}
    for alg in REGISTRY.values():
        out[alg.name] = {}
        exact = _exact_sizes(refs, alg.problem) if alg.kind == "exact" else {}
        for size in SIZE_NAMES:
            if alg.kind == "exact" and not _own_sizes(alg):
                found = [i for i in exact.get(size, []) if alg.supports(i) is None]
            else:
                found = []
                for family, params in _candidates(alg, size):
                    key = (family, json.dumps(params, sort_keys=True))
                    if key not in built:
                        built[key] = generate(family, seed=0, **params)[0]
                    if alg.supports(built[key]) is None:
                        found = [built[key]]
                        break
            out[alg.name][size] = found[0] if found else None
    return out


def run_timed(name: str, instance: Any) -> float:
    """Run a registered algorithm once, on a cold copy of the instance (what it builds, such as
    FOREST's neighbours, counts in its time and memory, never cached from an earlier repeat or
    the bound); NotImplementedError (asv: skipped) without an instance."""
    if instance is None:
        raise NotImplementedError(f"{name}: no instance of this size")
    work = cold_copy(instance)
    start = time.perf_counter()
    REGISTRY[name].run(work, seed=0, time_limit=EXACT_TIME_LIMIT)
    return time.perf_counter() - start
