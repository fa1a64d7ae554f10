"""What the asv benchmarks share: the reference instance set, the benchmark sizes, the caches.

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
from pathlib import Path
from typing import Any

from anonratio.bench.registry import REGISTRY, generate
from anonratio.instances import instance_id, lower_bound, verify
from anonratio.instances.base import cold_copy

#: the committed reference optima (working tree, beside ``bench/benchmarks``)
REFERENCE_FILE = Path(__file__).resolve().parents[2] / "results" / "reference_optima.json"

#: seconds an exact model may take on a timing instance (they solve in about a second)
EXACT_TIME_LIMIT = 60.0

#: problem -> size -> candidate (family, params); an algorithm runs on the first candidate it
#: supports (``Algorithm.supports``: the factor algorithms need k = 2 or k = 3)
SIZES: dict[str, dict[str, list[tuple[str, dict[str, Any]]]]] = {
    "k-anonymity": {
        "small": [
            ("kanon-binary", {"n": 60, "m": 8, "k": 3}),
            ("kanon-binary", {"n": 60, "m": 8, "k": 2}),
        ],
        "large": [
            ("kanon-random", {"n": 2000, "m": 8, "k": 10}),
            ("kanon-binary", {"n": 400, "m": 10, "k": 3}),
            ("kanon-binary", {"n": 400, "m": 10, "k": 2}),
        ],
    },
    "bin-covering": {
        "small": [("bc-zipf", {"n": 5000, "k": 500})],
        "large": [("bc-zipf", {"n": 100_000, "k": 5000})],
    },
    "zip-codes": {
        "small": [("zip-delaunay", {"n": 500, "k": 30})],
        "large": [("zip-delaunay", {"n": 5000, "k": 50})],
    },
    "gps-rectangles": {
        "small": [("gps-uniform", {"n": 2000, "k": 10})],
        "large": [("gps-uniform", {"n": 20_000, "k": 10})],
    },
    "l-diversity": {
        "small": [("ldiv-sal", {"n": 20_000, "d": 7, "l": 6})],
        "large": [("ldiv-sal", {"n": 200_000, "d": 7, "l": 6})],
    },
    "r-gather": {
        "small": [("rgather-uniform", {"n": 1000, "r": 5})],
        "large": [("rgather-uniform", {"n": 10_000, "r": 5})],
    },
    "r-eps-gather": {
        "small": [("repsgather-outliers", {"n": 1000, "n_outliers": 20, "r": 5})],
        "large": [("repsgather-outliers", {"n": 10_000, "n_outliers": 200, "r": 5})],
    },
    "kr-center": {
        "small": [("krcenter-uniform", {"n": 1000, "k": 50, "r": 5})],
        "large": [("krcenter-uniform", {"n": 10_000, "k": 200, "r": 5})],
    },
    "cellular": {
        "small": [("cellular-uniform", {"n": 500, "facility_scale": 0.1})],
        "large": [("cellular-uniform", {"n": 5000, "facility_scale": 0.05})],
    },
    "r-cellular": {
        "small": [("rcellular-uniform", {"n": 500, "r": 5})],
        "large": [("rcellular-uniform", {"n": 5000, "r": 5})],
    },
}

#: algorithm -> its own sizes: where the problem's would take minutes (the relaxed scheme's
#: configuration search) or exceed the algorithm's memory cap (the guillotine heuristic), and for
#: an exact algorithm that scales (the ordered-labels greedy); other exact models time on the
#: smallest and the largest reference instance of their problem
SIZE_OVERRIDES: dict[str, dict[str, list[tuple[str, dict[str, Any]]]]] = {
    "relaxed": {
        "small": [("bc-uniform", {"n": 30, "k": 50})],
        "large": [("bc-zipf", {"n": 5000, "k": 500})],
    },
    "gps-guillotine": {
        "small": [("gps-uniform", {"n": 20, "k": 5})],
        "large": [("gps-uniform", {"n": 30, "k": 5})],
    },
    "ordered-greedy": {
        "small": [("ordered-random", {"n": 10_000, "k": 10})],
        "large": [("ordered-random", {"n": 100_000, "k": 10})],
    },
}

SIZE_NAMES = ["small", "large"]

#: set to ``1``, asv also sees the long set, the modules ``long_*`` (:func:`long_benchmarks`)
LONG_ENV = "ANONRATIO_ASV_LONG"

#: algorithm -> the sizes timed in the long set only (:mod:`.long_times`): each takes 10 s or
#: more on a laptop core (an exact model at its time limit, a search run to convergence), too
#: slow for a commit comparison; every other size is timed in the fast set (:mod:`.bench_times`)
SLOW_SIZES: dict[str, tuple[str, ...]] = {
    "kanon-certified": ("large",),
    "kanon-local-search": ("large",),
    "kanon-box-greedy": ("large",),
    "samarati": ("large",),
    "r-cellular-certified": ("small", "large"),
}
STATS = ["worst", "mean"]


def ident(name: str) -> str:
    """A Python identifier for a registry name (``fold-random`` -> ``fold_random``)."""
    return re.sub(r"\W", "_", name)


def long_benchmarks(
    namespace: dict[str, Any], classes: list[type], environ: dict[str, str] | None = None
) -> dict[str, type]:
    """The classes of a long-set module by name, left in its ``namespace`` (what asv discovers)
    only when :data:`LONG_ENV` is ``1``: by default asv runs the fast set alone."""
    environ = os.environ if environ is None else environ
    out = {cls.__name__: cls for cls in classes}
    if environ.get(LONG_ENV) != "1":
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
        if not check.feasible:
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
    return SIZE_OVERRIDES.get(alg.name, SIZES.get(alg.problem, {})).get(size, [])


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
            if alg.kind == "exact" and alg.name not in SIZE_OVERRIDES:
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
