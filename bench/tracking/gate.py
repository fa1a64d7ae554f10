"""The quality gate: the ratios of every approximation algorithm and heuristic on the tracked
instance sets, compared with a committed baseline (``anonratio gate``; docs/tracking.md, section
*Quality gate*).

:func:`gate_results` runs, in this process and on the working tree, every registered algorithm of
kind ``approximation`` or ``heuristic`` (unless declared ``gated=False``) on every tracked
instance of its problem it supports
(:data:`~anonratio.bench.tracking.reference.ALL_REFERENCE`, ``alg.supports(instance) is None``),
with the algorithm seed a sweep would give it
(:func:`~anonratio.bench.engine.record.algorithm_seed`), verifies each solution with
:func:`anonratio.instances.verify` and divides the verified cost by the instance's reference optimum
(:func:`~anonratio.bench.tracking.reference.load_reference`; an instance without a proven optimum
gets no ratio and is listed as unrated). :func:`compare` checks each ratio against the baseline
(``results/baselines/gate.json``: per algorithm and instance name the ratio, cost, optimum, instance
id and the code version that produced it):

* **worse** (fails): ``ratio > baseline * (1 + tolerance)``, default tolerance ``1e-9``
  (relative; :data:`DEFAULT_TOLERANCE`): any increase beyond floating-point noise;
* **above guarantee** (fails, whatever the baseline): ``ratio > guarantee * (1 + 1e-9)``;
* **unverified** (fails): an error, or a solution the verifier rejects;
* **better**, **new** (no baseline entry), **missing** (a baseline entry no longer produced),
  **changed** (the tracked instance's content hash differs from the baseline's: not compared)
  and **unrated** (no reference optimum) are reported and do not fail.

The gate never passes vacuously: an algorithm name that is unknown or not gated
(:func:`gated_algorithms`), a selection that runs nothing, and a baseline that is not valid JSON
or holds an entry without a finite ``ratio``
(:func:`~anonratio.bench.tracking.gate_baseline.load_baseline`) raise ``ValueError`` naming
the name, or the file and the entry (``anonratio gate``: exit status 2).

:func:`~anonratio.bench.tracking.gate_baseline.write_baseline` (``anonratio gate --update``)
rewrites the baseline atomically: the selected algorithms' entries replaced, the others kept; the
report's ``changes`` say what was added, improved, worsened or removed per algorithm.

The baseline is the checkout's when the gate runs in one, and the gate refuses (``CodeMismatch``,
exit status 2) when the imported package is other code than that checkout's
(:func:`~anonratio.bench.tracking.gate_baseline.resolve_baseline`).
"""

from __future__ import annotations

import math
import time
import traceback
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from anonratio.bench.engine.record import algorithm_seed, package_version
from anonratio.bench.tracking import DEFAULT_TOLERANCE
from anonratio.bench.tracking.gate_baseline import (
    DEFAULT_BASELINE,
    baseline_changes,
    check_entries,
    load_baseline,
    resolve_baseline,
    write_baseline,
)
from anonratio.bench.tracking.reference import ALL_REFERENCE, load_reference, reference_instance
from anonratio.instances import instance_id, verify

__all__ = [
    "DEFAULT_BASELINE",
    "DEFAULT_TOLERANCE",
    "GUARANTEE_RTOL",
    "FAILING",
    "gated_algorithms",
    "gate_results",
    "load_baseline",
    "compare",
    "write_baseline",
    "run_gate",
    "format_gate",
]

#: relative slack of the guarantee check (floating-point noise only)
GUARANTEE_RTOL = 1e-9
#: the outcomes that fail the gate
FAILING = ("worse", "above-guarantee", "unverified")
#: seconds an algorithm may take on one tracked instance (the factor ILPs take a time limit)
TIME_LIMIT = 60.0
KINDS = ("approximation", "heuristic")


def _num(value: Any) -> float | None:
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _ratio(cost: float, optimum: float) -> float:
    if optimum == 0:
        return 1.0 if cost == 0 else math.inf
    return cost / optimum


def _run_one(alg: Any, ref: Any, instance: Any, optimum: float | None) -> dict[str, Any]:
    row: dict[str, Any] = {
        "algorithm": alg.name,
        "instance": ref.name,
        "problem": alg.problem,
        "kind": alg.kind,
        "instance_id": instance_id(instance),
        "optimum": optimum,
        "cost": None,
        "ratio": None,
        "guarantee": None,
        "verified": False,
        "error": None,
    }
    start = time.perf_counter()
    try:
        solution = alg.run(instance, seed=algorithm_seed(ref.seed, alg.name), time_limit=TIME_LIMIT)
        check = verify(instance, solution, strict=False)
        row["verified"] = bool(check.feasible)
        if not check.feasible:
            row["error"] = "infeasible: " + "; ".join(map(str, check.violations))[:200]
        elif check.cost is None:  # never: a verifier gives the cost of what it accepts
            raise ValueError("the verifier accepted the solution but gave no cost")
        else:
            row["cost"] = float(check.cost)
            row["guarantee"] = _num(alg.guarantee(instance, solution))
            if optimum is not None:
                row["ratio"] = _ratio(row["cost"], optimum)
    except Exception as exc:  # a crash is a failed entry, never a crashed gate
        row["error"] = f"{type(exc).__name__}: {exc}"
        row["traceback"] = traceback.format_exc(limit=3)
    row["time_s"] = round(time.perf_counter() - start, 4)
    return row


def gated_algorithms(names: Iterable[str] | None = None) -> list[str]:
    """The registry names the gate runs: every gated approximation algorithm and heuristic, or
    those of ``names``.

    Raises
    ------
    ValueError
        An empty ``names``, or a name that is unknown or not gated (exact, or declared
        ``gated=False``); the message names it and lists the gated algorithms.
    """
    from anonratio.bench import registry  # here: `anonratio --help` need not load the solvers

    gated = [a.name for a in registry.REGISTRY.values() if a.kind in KINDS and a.gated]
    if names is None:
        return gated
    names = list(names)
    if not names:
        raise ValueError(f"no algorithm selected for the gate; gated algorithms: {gated}")
    out = []
    for name in names:
        alg = registry.REGISTRY.get(name)
        if alg is None:
            raise ValueError(f"unknown algorithm {name!r}; gated algorithms: {gated}")
        if alg.name not in gated:
            why = "declared gated=False" if alg.kind in KINDS else f"kind {alg.kind}"
            raise ValueError(f"algorithm {name!r} is not gated ({why}); gated algorithms: {gated}")
        if alg.name not in out:
            out.append(alg.name)
    return out


def gate_results(
    *,
    reference: Mapping[str, Mapping[str, Any]] | None = None,
    algorithms: Iterable[str] | None = None,
    refs: Iterable[Any] = ALL_REFERENCE,
) -> list[dict[str, Any]]:
    """One row per (algorithm, tracked instance it supports): cost, ratio, guarantee, verified.

    ``reference``: instance id -> reference entry (default: the committed reference file);
    ``algorithms``: restrict to these registry names (default: every approximation algorithm and
    heuristic in the registry, looked up now, so a replaced registry entry is the one run; an
    unknown or ungated name raises ``ValueError``, see :func:`gated_algorithms`).
    """
    from anonratio.bench import registry  # here: `anonratio --help` need not load the solvers

    reference = load_reference() if reference is None else reference
    wanted = set(gated_algorithms(algorithms))
    chosen = [a for a in registry.REGISTRY.values() if a.name in wanted]
    rows = []
    for ref in refs:
        instance, _ = reference_instance(ref)
        entry = reference.get(instance_id(instance)) or {}
        optimum = _num(entry.get("optimum")) if entry.get("status", "opt") == "opt" else None
        for alg in chosen:
            if alg.supports(instance) is None:
                rows.append(_run_one(alg, ref, instance, optimum))
    return rows


def _outcome(row: Mapping[str, Any], base: Mapping[str, Any] | None, tolerance: float) -> str:
    if not row["verified"]:
        return "unverified"
    ratio, guarantee = row["ratio"], row["guarantee"]
    if ratio is not None and guarantee is not None and ratio > guarantee * (1 + GUARANTEE_RTOL):
        return "above-guarantee"
    if ratio is None:
        return "unrated"
    if base is None:
        return "new"
    if base.get("instance_id") not in (None, row["instance_id"]):
        return "changed"
    old = _num(base.get("ratio"))
    if old is None:
        return "new"
    if ratio > old * (1 + tolerance):
        return "worse"
    return "better" if ratio < old * (1 - tolerance) else "same"


def compare(
    rows: Iterable[Mapping[str, Any]],
    baseline: Mapping[str, Mapping[str, Mapping[str, Any]]],
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    algorithms: Iterable[str] | None = None,
) -> list[dict[str, Any]]:
    """Each row with its ``outcome`` and ``baseline`` ratio, then the baseline's missing entries.

    ``algorithms``: the algorithms the rows cover (a restricted gate reports missing entries of
    those only).
    """
    if not (isinstance(tolerance, int | float) and math.isfinite(tolerance) and tolerance >= 0):
        raise ValueError(f"`tolerance` must be a number >= 0, got {tolerance!r}")
    check_entries(baseline)
    out, seen = [], set()
    for row in rows:
        base = baseline.get(row["algorithm"], {}).get(row["instance"])
        seen.add((row["algorithm"], row["instance"]))
        out.append(
            {
                **row,
                "baseline": None if base is None else _num(base.get("ratio")),
                "baseline_version": None if base is None else base.get("version"),
                "outcome": _outcome(row, base, tolerance),
            }
        )
    covered = None if algorithms is None else set(algorithms)
    for alg, entries in baseline.items():
        if covered is not None and alg not in covered:
            continue
        for name, base in entries.items():
            if (alg, name) not in seen:
                out.append(
                    {
                        "algorithm": alg,
                        "instance": name,
                        "ratio": None,
                        "guarantee": None,
                        "baseline": _num(base.get("ratio")),
                        "baseline_version": base.get("version"),
                        "outcome": "missing",
                    }
                )
    return out


def run_gate(
    *,
    baseline: str | Path | None = None,
    tolerance: float = DEFAULT_TOLERANCE,
    update: bool = False,
    algorithms: Iterable[str] | None = None,
    reference: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """Run the gate; the report: ``passed``, ``counts``, ``failures`` and every row.

    ``baseline``: the file to compare with (default: the checkout's, see
    :func:`~anonratio.bench.tracking.gate_baseline.resolve_baseline`). ``update``: write this run's
    ratios into the baseline, replacing the selected algorithms' entries and keeping the others
    (refused, ``passed`` False, when a run is unverified or above its guarantee: those are bugs, not
    a new baseline); ``changes`` then holds
    :func:`~anonratio.bench.tracking.gate_baseline.baseline_changes` and ``unchanged_algorithms``
    the number of algorithms whose entries are as they were.

    Raises
    ------
    ValueError
        An unknown or ungated algorithm name (:func:`gated_algorithms`), a corrupt baseline
        (:func:`load_baseline`; both checked before anything runs), or a selection that runs
        nothing (no tracked instance supported): a gate of no runs does not pass.
        ``update`` outside a checkout without ``baseline``.
    CodeMismatch
        Run in a checkout whose code the imported package is not (reinstall it).
    FileNotFoundError
        No baseline file, without ``update``.
    """
    start = time.perf_counter()
    chosen = gated_algorithms(algorithms)
    path, checkout = resolve_baseline(baseline, update=update)
    if not path.exists() and not update:
        raise FileNotFoundError(
            2, "No gate baseline (create it with `anonratio gate --update`)", str(path)
        )
    old = load_baseline(path) if path.exists() else {}
    rows = gate_results(reference=reference, algorithms=chosen)
    if not rows:
        raise ValueError(
            f"the gate ran nothing: no tracked instance is supported by {chosen} "
            "(a gate of no runs does not pass)"
        )
    compared = compare(
        rows, old, tolerance=tolerance, algorithms=None if algorithms is None else chosen
    )
    counts: dict[str, int] = {}
    for row in compared:
        counts[row["outcome"]] = counts.get(row["outcome"], 0) + 1
    failures = [r for r in compared if r["outcome"] in FAILING]
    changes = unchanged = None
    if update:
        failures = [r for r in failures if r["outcome"] != "worse"]
        if not failures:
            # the other algorithms' entries are kept; the chosen ones' keep their place in the file
            others = {} if algorithms is None else {a: {} if a in chosen else old[a] for a in old}
            write_baseline(rows, path, keep=others)
            new = load_baseline(path)
            changes = baseline_changes(old, new)
            unchanged = len(set(new) - set(changes))
    return {
        "passed": not failures,
        "updated": bool(update and not failures),
        "changes": changes,
        "unchanged_algorithms": unchanged,
        "baseline": str(path),
        "checkout": None if checkout is None else str(checkout),
        "tolerance": tolerance,
        "version": package_version(),
        "runs": len(rows),
        "time_s": round(time.perf_counter() - start, 2),
        "counts": dict(sorted(counts.items())),
        "failures": failures,
        "results": compared,
    }


def _cell(value: Any, width: int) -> str:
    if value is None:
        text = "-"
    elif isinstance(value, float):
        text = f"{value:.6g}"
    else:
        text = str(value)
    return text if len(text) <= width else text[: width - 1] + "…"


#: (header, key, width) of the text table: 24 + 24 + 3 × 9 + 15 + 5 gaps of 2 = 100 columns
_COLUMNS = (
    ("algorithm", "algorithm", 24),
    ("instance", "instance", 24),
    ("baseline", "baseline", 9),
    ("ratio", "ratio", 9),
    ("guarantee", "guarantee", 9),
    ("outcome", "outcome", 15),
)


def table(rows: Iterable[Mapping[str, Any]]) -> str:
    """Rows as a text table at most 100 columns wide."""
    lines = ["  ".join(h.ljust(w) for h, _, w in _COLUMNS).rstrip()]
    for row in rows:
        lines.append("  ".join(_cell(row.get(k), w).ljust(w) for _, k, w in _COLUMNS).rstrip())
    return "\n".join(lines)


def format_gate(report: Mapping[str, Any]) -> str:
    """The text report: the failures' table, then new, missing, changed and better entries."""
    out = []
    results = report["results"]
    counts = ", ".join(f"{n} {k}" for k, n in report["counts"].items())
    out.append(
        f"gate: {report['runs']} runs in {report['time_s']:g} s against {report['baseline']} "
        f"(tolerance {report['tolerance']:g} relative): {counts}"
    )
    failed = "FAILED (worse than the baseline, above the guarantee, or unverified)"
    if report.get("updated"):  # a worse ratio recorded on purpose is no failure
        failed = "worse than the old baseline (recorded by --update)"
    for title, outcomes in (
        (failed, FAILING),
        ("better than the baseline (record it with `anonratio gate --update`)", ("better",)),
        ("new (no baseline entry)", ("new",)),
        ("missing (in the baseline, not produced now)", ("missing",)),
        ("changed instance (content differs from the baseline's; not compared)", ("changed",)),
        ("unrated (no reference optimum)", ("unrated",)),
    ):
        chosen = [r for r in results if r["outcome"] in outcomes]
        if chosen:
            out += ["", f"{title}:", table(chosen)]
            errors = [r for r in chosen if r.get("error")]
            out += [f"  {r['algorithm']} on {r['instance']}: {r['error']}"[:100] for r in errors]
    if report.get("updated"):
        out += ["", f"wrote {report['baseline']}", *_format_changes(report)]
    elif report["passed"]:
        out += ["", "gate passed"]
    return "\n".join(out)


def _format_changes(report: Mapping[str, Any]) -> list[str]:
    """One line per algorithm whose baseline entries changed, then the count of the others."""
    changes = report.get("changes") or {}
    lines = []
    for alg, change in changes.items():
        parts = [f"{len(change[k])} {k}" for k in ("added", "improved", "worsened", "removed")]
        lines.append(f"  {alg}: {', '.join(parts)}, {change['same']} unchanged")
    head = "baseline changes:" if lines else "baseline unchanged"
    return [head, *lines, f"  {report['unchanged_algorithms']} algorithms' entries unchanged"]
