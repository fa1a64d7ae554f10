"""Committed reference optima of a fixed list of seeded benchmark instances.

:data:`ALL_REFERENCE` names small instances (family, parameters, seed) of every problem on which
the exact models prove optimality in seconds: each problem declares its own (its
:class:`~anonratio.bench.problem.Problem`'s ``reference``, :data:`BY_PROBLEM`), then
:data:`HARD_REFERENCE` (the hunter's library of hard instances).
``anonratio reference update`` (:mod:`anonratio.bench.cli.reference`; also ``python -m
anonratio.bench.tracking.reference``) solves each with its problem's exact models (its
declaration's ``exact``, :data:`EXACT_METHODS`) through
:func:`~anonratio.bench.engine.runner.run_record`, so every solution is verified, decides the
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
from pathlib import Path
from typing import Any

from anonratio.bench.problem import ReferenceInstance, reference
from anonratio.bench.registry import PROBLEMS
from anonratio.instances.io import jsonable

__all__ = [
    "ReferenceInstance",
    "BY_PROBLEM",
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


def _hard_reference() -> tuple[ReferenceInstance, ...]:
    from anonratio.bench.library import library_entries

    return tuple(
        reference(
            f"worst-found-{alg}", f"{PROBLEMS[meta['problem']].prefix}-worst-found", algorithm=alg
        )
        for alg, meta in library_entries().items()
    )


#: problem -> its reference instances (its declaration's ``reference``), in registry order
BY_PROBLEM: dict[str, tuple[ReferenceInstance, ...]] = {
    name: problem.reference for name, problem in PROBLEMS.items()
}

#: the library of hard instances (``results/hard_instances``): the worst instance the hunter
#: found for each algorithm, through the ``<prefix>-worst-found`` families
HARD_REFERENCE = _hard_reference()

#: every committed reference instance (what ``anonratio reference update`` solves): each
#: problem's, in registry order, then the library's
ALL_REFERENCE = tuple(ref for refs in BY_PROBLEM.values() for ref in refs) + HARD_REFERENCE

#: problem -> the exact registry algorithms that must prove and agree on each optimum (its
#: declaration's ``exact``)
EXACT_METHODS: dict[str, tuple[str, ...]] = {
    name: problem.exact for name, problem in PROBLEMS.items()
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
        if status == "opt" and value is not None:
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
        if status == "opt" and value is not None:
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
        out[str(runs[names[0]].instance)] = entry
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
