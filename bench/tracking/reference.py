"""Committed reference optima of a fixed list of seeded benchmark instances.

:data:`ALL_REFERENCE` names small instances (family, parameters, seed) of every problem on which
the exact models prove optimality in seconds: :data:`REFERENCE` (k-anonymity),
:data:`BIN_COVERING_REFERENCE`, :data:`ZIP_CODES_REFERENCE`, :data:`GPS_RECTANGLES_REFERENCE`,
:data:`ORDERED_LABELS_REFERENCE`, :data:`CLUSTERING_REFERENCE`, :data:`LDIVERSITY_REFERENCE`,
:data:`HARD_REFERENCE` (the hunter's library of hard instances).
``anonratio reference update`` (:mod:`anonratio.bench.cli.reference`; also ``python -m
anonratio.bench.tracking.reference``) solves each with its problem's exact models
(:data:`EXACT_METHODS`, through :func:`~anonratio.bench.engine.runner.run_record`, so every solution
is verified), decides the
MIPLIB-style status (:func:`reference_status`: ``opt`` / ``best`` / ``unknown``) and writes
``results/reference_optima.json`` atomically (:func:`write_reference`):
``{"instances": {instance id: {name, problem, family, params, seed, n, k, status, optimum, best,
bound, bound_source, solvers, statuses, costs, time_s, time_limit, note, version}}}``.
The asv benchmarks (``bench/benchmarks``), the quality gate and
:func:`~anonratio.bench.engine.runner.finalize` read it.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from anonratio.instances.io import jsonable

__all__ = [
    "ReferenceInstance",
    "REFERENCE",
    "BIN_COVERING_REFERENCE",
    "ZIP_CODES_REFERENCE",
    "GPS_RECTANGLES_REFERENCE",
    "ORDERED_LABELS_REFERENCE",
    "CLUSTERING_REFERENCE",
    "LDIVERSITY_REFERENCE",
    "HARD_REFERENCE",
    "ALL_REFERENCE",
    "STATUSES",
    "EXACT_METHODS",
    "DEFAULT_PATH",
    "reference_instance",
    "load_reference",
    "reference_status",
    "solve_reference",
    "reference_document",
    "write_reference",
    "main",
]

DEFAULT_PATH = Path(__file__).resolve().parents[2] / "results" / "reference_optima.json"


@dataclass(frozen=True)
class ReferenceInstance:
    """One committed benchmark instance: ``generate(family, seed=seed, **params)``."""

    name: str
    family: str
    params: dict[str, Any] = field(default_factory=dict)
    seed: int = 0


def _ref(name: str, family: str, seed: int = 0, **params: Any) -> ReferenceInstance:
    return ReferenceInstance(name, family, params, seed)


#: the fixed benchmark instances (never change an entry: add new ones instead)
REFERENCE = (
    _ref("binary-12x6-k2", "kanon-binary", n=12, m=6, k=2),
    _ref("binary-12x6-k3", "kanon-binary", n=12, m=6, k=3),
    _ref("binary-12x6-k4", "kanon-binary", n=12, m=6, k=4),
    _ref("binary-12x6-k5", "kanon-binary", n=12, m=6, k=5),
    _ref("binary-16x5-k2", "kanon-binary", n=16, m=5, k=2),
    _ref("binary-16x5-k3", "kanon-binary", n=16, m=5, k=3),
    _ref("binary-20x6-k2", "kanon-binary", n=20, m=6, k=2),
    _ref("binary-20x6-k3", "kanon-binary", n=20, m=6, k=3),
    _ref("binary-20x6-k5", "kanon-binary", n=20, m=6, k=5),
    _ref("ternary-12x4-k2", "kanon-ternary", n=12, m=4, k=2),
    _ref("ternary-12x4-k3", "kanon-ternary", n=12, m=4, k=3),
    _ref("ternary-10x5-k4", "kanon-ternary", n=10, m=5, k=4),
    _ref(
        "generalization-10x3-k2",
        "kanon-random",
        n=10,
        m=3,
        k=2,
        cardinality=(4, 6),
        levels=(2, 3),
    ),
    _ref(
        "generalization-10x3-k3",
        "kanon-random",
        n=10,
        m=3,
        k=3,
        cardinality=(4, 6),
        levels=(2, 3),
    ),
    _ref("planted-24x6-k2", "kanon-planted", n=24, m=6, n_groups=4, k=2),
    _ref("planted-24x6-k3", "kanon-planted", n=24, m=6, n_groups=4, k=3),
    _ref("planted-24x6-k5", "kanon-planted", n=24, m=6, n_groups=4, k=5),
    _ref("triangles-3", "kanon-triangles", n_triangles=3, n_vertices=7),
)

#: the fixed Min-Max Bin Covering instances (Du et al. 2009, §4); kept apart from
#: :data:`REFERENCE`, whose users (the k-anonymity asv benchmarks) expect k-anonymity instances
BIN_COVERING_REFERENCE = (
    _ref("bc-uniform-10-k20", "bc-uniform", n=10, k=20),
    _ref("bc-uniform-12-k50", "bc-uniform", n=12, k=50),
    _ref("bc-uniform-12-k50-s1", "bc-uniform", seed=1, n=12, k=50),
    _ref("bc-zipf-20-k50", "bc-zipf", n=20, k=50),
    _ref("bc-zipf-30-k100", "bc-zipf", seed=1, n=30, k=100),
    _ref("bc-3partition-yes-4", "bc-3partition-yes", m=4),
    _ref("bc-3partition-no-4", "bc-3partition-no", m=4),
    _ref("bc-3partition-no-6", "bc-3partition-no", m=6),
)

#: small zip-code instances whose optimum CP-SAT proves in seconds
ZIP_CODES_REFERENCE = (
    _ref("zip-delaunay-12-k10", "zip-delaunay", n=12, k=10),
    _ref("zip-delaunay-14-k12-s1", "zip-delaunay", seed=1, n=14, k=12),
    _ref("zip-grid-3x4-k12", "zip-grid", rows=3, cols=4, k=12),
    _ref("zip-planted-12-k8", "zip-planted", n=12, n_parts=3, k=8),
)

#: small GPS-rectangle instances whose optimum CP-SAT and HiGHS prove in seconds
GPS_RECTANGLES_REFERENCE = (
    _ref("gps-uniform-8-k3", "gps-uniform", n=8, k=3),
    _ref("gps-uniform-10-k4-s1", "gps-uniform", seed=1, n=10, k=4),
    _ref("gps-clustered-10-k4", "gps-clustered", n=10, k=4),
    _ref("gps-cross-k3", "gps-cross", k=3),
    _ref("gps-pinwheel-k3", "gps-pinwheel", k=3),
)

#: small ordered-labels instances (the exact greedy)
ORDERED_LABELS_REFERENCE = (
    _ref("ordered-random-20-k5", "ordered-random", n=20, k=5),
    _ref("ordered-random-30-k10-s1", "ordered-random", seed=1, n=30, k=10),
)

#: small instances of the five clustering problems (Aggarwal et al. 2006) that the exact models
#: prove optimal in seconds
CLUSTERING_REFERENCE = (
    _ref("rgather-uniform-30-r4", "rgather-uniform", n=30, r=4),
    _ref("rgather-gaussian-6x5-r4", "rgather-gaussian", n_clusters=6, cluster_size=5, r=4),
    _ref("rgather-heavy-30-r3", "rgather-heavy", seed=1, n=30, r=3),
    _ref("rgather-sat-4-r7", "rgather-sat", n_vars=4, n_clauses=5, r=7),
    _ref("rgather-unsat-4-r7", "rgather-sat", n_vars=4, n_clauses=5, satisfiable=False, r=7),
    _ref("repsgather-outliers-30-r4", "repsgather-outliers", n=30, n_outliers=3, r=4, epsilon=0.1),
    _ref("krcenter-uniform-30-k4-r5", "krcenter-uniform", n=30, k=4, r=5),
    _ref("cellular-uniform-16", "cellular-uniform", n=16, facility_scale=0.5),
    _ref("cellular-gaussian-4x4", "cellular-gaussian", n_clusters=4, cluster_size=4),
    _ref("rcellular-uniform-16-r3", "rcellular-uniform", n=16, r=3),
    _ref("rcellular-heavy-14-r2", "rcellular-heavy", n=14, r=2),
)

#: small l-diversity instances (Xiao et al. 2010) that the exact models prove optimal in seconds
LDIVERSITY_REFERENCE = (
    _ref("ldiv-random-12-l2", "ldiv-random", n=12, d=3, cardinality=3, m=4, l=2),
    _ref("ldiv-random-15-l3", "ldiv-random", seed=1, n=15, d=3, cardinality=3, m=5, l=3),
    _ref(
        "ldiv-random-14-l2-tuples",
        "ldiv-random",
        n=14,
        d=4,
        cardinality=2,
        m=3,
        l=2,
        objective="tuples",
    ),
    _ref("ldiv-random-m2-12", "ldiv-random", n=12, d=3, cardinality=3, m=2, l=2),
    _ref("ldiv-random-30-l2", "ldiv-random", n=30, d=3, cardinality=3, m=4, l=2),
    _ref("ldiv-random-40-l3", "ldiv-random", seed=2, n=40, d=4, cardinality=2, m=6, l=3, skew=1.0),
    _ref("ldiv-3dm-3x5", "ldiv-3dm", q=3, t=5, has_matching=True),
    _ref("ldiv-3dm-3x5-no", "ldiv-3dm", q=3, t=5, has_matching=False),
)


def _hard_reference() -> tuple[ReferenceInstance, ...]:
    from anonratio.bench.library import PREFIX, library_entries

    return tuple(
        _ref(f"worst-found-{alg}", f"{PREFIX[meta['problem']]}-worst-found", algorithm=alg)
        for alg, meta in library_entries().items()
    )


#: the library of hard instances (``results/hard_instances``): the worst instance the hunter
#: found for each algorithm, through the ``<prefix>-worst-found`` families
HARD_REFERENCE = _hard_reference()

#: every committed reference instance (what ``anonratio reference update`` solves); the first
#: entries are :data:`REFERENCE` then :data:`BIN_COVERING_REFERENCE`
ALL_REFERENCE = (
    REFERENCE
    + BIN_COVERING_REFERENCE
    + ZIP_CODES_REFERENCE
    + GPS_RECTANGLES_REFERENCE
    + ORDERED_LABELS_REFERENCE
    + CLUSTERING_REFERENCE
    + LDIVERSITY_REFERENCE
    + HARD_REFERENCE
)

#: problem -> the exact registry algorithms that must prove and agree on each optimum
EXACT_METHODS = {
    "k-anonymity": ("kanon-cpsat", "kanon-highs"),
    "bin-covering": ("bc-cpsat", "bc-highs"),
    "zip-codes": ("zip-cpsat",),
    "gps-rectangles": ("gps-cpsat", "gps-highs"),
    "ordered-labels": ("ordered-greedy",),
    "l-diversity": ("ldiv-cpsat", "ldiv-highs"),
    **{
        problem: (f"{problem}-cpsat", f"{problem}-highs")
        for problem in ("r-gather", "r-eps-gather", "kr-center", "cellular", "r-cellular")
    },
}

#: MIPLIB-style status of a reference entry: ``opt`` (every exact model proved optimality, the
#: solutions are verified and the optima agree), ``best`` (only a verified cost, an upper bound),
#: ``unknown`` (no verified solution)
STATUSES = ("opt", "best", "unknown")


def reference_instance(ref: ReferenceInstance | str) -> tuple[Any, dict]:
    """``(instance, meta)`` of a :class:`ReferenceInstance` (or of its name)."""
    from anonratio.bench.registry import generate

    if isinstance(ref, str):
        by_name = {r.name: r for r in ALL_REFERENCE}
        if ref not in by_name:
            raise ValueError(f"unknown reference instance {ref!r}; known: {sorted(by_name)}")
        ref = by_name[ref]
    return generate(ref.family, seed=ref.seed, **ref.params)


def load_reference(path: str | Path | None = None) -> dict[str, dict]:
    """The reference file's ``instances`` mapping (instance id -> entry); {} when absent."""
    path = Path(path) if path is not None else DEFAULT_PATH
    if not path.exists():
        return {}
    return json.loads(path.read_text())["instances"]


def _close(a: float, b: float) -> bool:
    from anonratio.bench.engine.runner import RTOL

    return math.isclose(a, b, rel_tol=RTOL, abs_tol=RTOL)


def reference_status(
    runs: Mapping[str, Mapping[str, Any]], known: float | None = None
) -> tuple[str, float | None, str | None]:
    """The MIPLIB-style status of one instance from its exact runs: ``(status, value, note)``.

    ``runs``: method -> ``{"status", "verified", "cost"}`` (a run record's fields); ``known``:
    an optimum the instance's construction proves. ``opt`` when every run proved optimality
    (status ``optimal``), is verified, and all agree (with ``known`` too); ``best`` when some run
    has a verified cost (``value`` is the smallest); ``unknown`` otherwise (``value`` None).
    ``note`` says why a verified instance is not ``opt``.
    """
    verified = [float(r["cost"]) for r in runs.values() if r.get("verified")]
    verified = [c for c in verified if math.isfinite(c)]
    if not verified:
        return "unknown", None, "no verified solution"
    best = min(verified)
    unproven = sorted(m for m, r in runs.items() if r.get("status") != "optimal")
    unverified = sorted(m for m, r in runs.items() if not r.get("verified"))
    if unproven or unverified:
        return "best", best, f"not proven optimal: {sorted(set(unproven + unverified))}"
    if not all(_close(c, best) for c in verified):
        return "best", best, f"exact optima disagree: {sorted(verified)}"
    if known is not None and not _close(known, best):
        return "best", best, f"solvers give {best:g}, the family proves {known:g}"
    return "opt", best, None


def _jsonable_params(params: Mapping[str, Any]) -> dict[str, Any]:
    return {k: list(v) if isinstance(v, tuple) else v for k, v in params.items()}


def solve_reference(
    *,
    methods: Sequence[str] | None = None,
    time_limit: float = 120.0,
    refs: Iterable[ReferenceInstance] = ALL_REFERENCE,
    log: Callable[[str], None] | None = None,
    strict: bool = False,
) -> dict[str, dict]:
    """Solve every reference instance with each exact method; record status, bound and times.

    ``methods``: registry names used for every instance; None (default) picks
    :data:`EXACT_METHODS` of each instance's problem.

    Returns
    -------
    dict
        instance id -> entry (``name``, ``problem``, ``family``, ``params``, ``seed``, ``n``,
        ``k``, ``status`` (:data:`STATUSES`, :func:`reference_status`), ``optimum`` (only when
        ``opt``), ``best`` (smallest verified cost), ``bound`` and ``bound_source`` (the proven
        optimum, else the best valid lower bound), ``solvers``, ``statuses``, ``costs``,
        ``time_s``, ``time_limit``, ``note``, ``version``).

    Raises
    ------
    RuntimeError
        ``strict`` and an instance is not ``opt``.
    """
    from anonratio.bench.engine.runner import package_version, run_record

    out = {}
    for ref in refs:
        instance, meta = reference_instance(ref)
        names = tuple(methods) if methods is not None else EXACT_METHODS[instance.problem]
        runs = {m: run_record(instance, m, seed=0, time_limit=time_limit, meta=meta) for m in names}
        fields = {
            m: {"status": r.status, "verified": r.verified, "cost": r.cost} for m, r in runs.items()
        }
        status, value, note = reference_status(fields, meta.get("optimum"))
        if strict and status != "opt":
            errors = {m: r.error for m, r in runs.items() if r.error}
            raise RuntimeError(f"{ref.name}: {status}: {note} {errors or ''}".rstrip())
        bounds = [
            (float(r.run_lower_bound), f"{m}: {r.run_lower_bound_source}") for m, r in runs.items()
        ]
        bound, bound_source = max(bounds, default=(0.0, "none"))
        if status == "opt":
            bound, bound_source = value, "optimum"
        entry: dict[str, Any] = {
            "name": ref.name,
            "problem": instance.problem,
            "family": ref.family,
            "params": _jsonable_params(ref.params),
            "seed": ref.seed,
            "n": int(instance.n),
            "k": int(instance.k) if getattr(instance, "k", None) is not None else None,
            "status": status,
        }
        if status == "opt":
            entry["optimum"] = float(value)
        entry.update(
            {
                "best": None if value is None else float(value),
                "bound": float(bound),
                "bound_source": bound_source,
                "solvers": list(names),
                "statuses": {m: r.status for m, r in runs.items()},
                "costs": {m: r.cost for m, r in runs.items()},
                "time_s": {m: round(r.time_s, 3) for m, r in runs.items()},
                "time_limit": time_limit,
                "note": note,
                "version": package_version(),
            }
        )
        out[runs[names[0]].instance] = entry
        if log is not None:
            log(f"{ref.name}: {status} {value} bound {bound:g} {entry['statuses']}")
    return out


def reference_document(entries: Mapping[str, dict]) -> dict[str, Any]:
    """The reference file's JSON document of ``entries`` (from :func:`solve_reference`)."""
    return {
        "description": "Reference optima of the fixed benchmark instances of "
        "anonratio.bench.tracking.reference, recomputed by `anonratio reference update`: per "
        "instance the MIPLIB-style status (opt: every listed exact model proved optimality, "
        "verified and in agreement; best: only a verified cost; unknown: none), the optimum "
        "(opt only), the best verified cost, the best valid bound, the solvers, their statuses "
        "and times. Keys are instance content hashes.",
        "instances": dict(entries),
    }


def write_reference(entries: Mapping[str, dict], path: str | Path | None = None) -> Path:
    """Write the reference file atomically (never half-written); returns its path."""
    from anonratio.instances.io import atomic_write

    out = Path(path) if path is not None else DEFAULT_PATH
    out.parent.mkdir(parents=True, exist_ok=True)
    doc = reference_document(entries)

    def dump(f: Any) -> None:  # streamed: a failure half-way leaves ``out`` untouched
        json.dump(doc, f, indent=2, default=jsonable)
        f.write("\n")

    atomic_write(out, dump, mode="w", encoding="utf-8")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m anonratio.bench.tracking.reference [--out PATH] [--time-limit S]``.

    The same as ``anonratio reference update``.
    """
    parser = argparse.ArgumentParser(
        prog="python -m anonratio.bench.tracking.reference",
        description="Solve the committed benchmark instances with the exact models and write "
        "their reference optima (status, bound, solvers, times).",
    )
    parser.add_argument("--out", default=str(DEFAULT_PATH), help="output JSON file")
    parser.add_argument("--time-limit", type=float, default=120.0, help="seconds per solve")
    args = parser.parse_args(argv)
    entries = solve_reference(time_limit=args.time_limit, log=lambda s: print(s, flush=True))
    out = write_reference(entries, args.out)
    print(f"wrote {len(entries)} reference entries to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
