"""Committed reference optima of a fixed list of seeded benchmark instances.

:data:`REFERENCE` names small instances (family, parameters, seed) on which CP-SAT proves
optimality in seconds. ``python -m anonratio.bench.reference`` solves each with CP-SAT and HiGHS
(the registry's exact models of the instance's problem, :data:`EXACT_METHODS`: ``kanon-cpsat`` /
``kanon-highs`` for k-anonymity, ``bc-cpsat`` / ``bc-highs`` for Min-Max Bin Covering; through
:func:`~anonratio.bench.runner.run_record`, so both solutions are verified), checks that both
proved optimality and agree, and writes ``results/reference_optima.json``:
``{"instances": {instance id: {name, family, params, seed, n, k, optimum, statuses, ...}}}``.
The asv ``track_ratio_*`` benchmarks and :func:`~anonratio.bench.runner.finalize` read it.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from anonratio.instances.io import jsonable

__all__ = [
    "ReferenceInstance",
    "REFERENCE",
    "BIN_COVERING_REFERENCE",
    "ALL_REFERENCE",
    "EXACT_METHODS",
    "DEFAULT_PATH",
    "reference_instance",
    "load_reference",
    "solve_reference",
    "main",
]

DEFAULT_PATH = Path(__file__).resolve().parent.parent / "results" / "reference_optima.json"


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

#: every committed reference instance (what ``python -m anonratio.bench.reference`` solves)
ALL_REFERENCE = REFERENCE + BIN_COVERING_REFERENCE

#: problem -> the exact registry algorithms that must prove and agree on each optimum
EXACT_METHODS = {
    "k-anonymity": ("kanon-cpsat", "kanon-highs"),
    "bin-covering": ("bc-cpsat", "bc-highs"),
}


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


def solve_reference(
    *,
    methods: Sequence[str] | None = None,
    time_limit: float = 120.0,
    refs: Iterable[ReferenceInstance] = ALL_REFERENCE,
    log: Callable[[str], None] | None = None,
) -> dict[str, dict]:
    """Solve every reference instance with each exact method; check proofs and agreement.

    ``methods``: registry names used for every instance; None (default) picks
    :data:`EXACT_METHODS` of each instance's problem.

    Returns
    -------
    dict
        instance id -> entry (``name``, ``family``, ``params``, ``seed``, ``n``, ``k``,
        ``optimum``, ``statuses``, ``costs``, ``time_s``).

    Raises
    ------
    RuntimeError
        A solver did not prove optimality, or two proven optima differ (relative 1e-6).
    """
    from anonratio.bench.runner import RTOL, package_version, run_record

    out = {}
    for ref in refs:
        instance, meta = reference_instance(ref)
        names = methods if methods is not None else EXACT_METHODS[instance.problem]
        runs = {m: run_record(instance, m, seed=0, time_limit=time_limit, meta=meta) for m in names}
        statuses = {m: r.status for m, r in runs.items()}
        costs = {m: r.cost for m, r in runs.items()}
        bad = {m: s for m, s in statuses.items() if s != "optimal" or not runs[m].verified}
        if bad:
            errors = {m: runs[m].error for m in bad}
            raise RuntimeError(f"{ref.name}: no verified proven optimum from {bad} ({errors})")
        values = list(costs.values())
        if not all(math.isclose(v, values[0], rel_tol=RTOL, abs_tol=RTOL) for v in values):
            raise RuntimeError(f"{ref.name}: exact optima disagree: {costs}")
        known = meta.get("optimum")
        if known is not None and not math.isclose(known, values[0], rel_tol=RTOL, abs_tol=RTOL):
            raise RuntimeError(f"{ref.name}: solvers give {values[0]}, the family proves {known}")
        entry = {
            "name": ref.name,
            "problem": instance.problem,
            "family": ref.family,
            "params": {k: list(v) if isinstance(v, tuple) else v for k, v in ref.params.items()},
            "seed": ref.seed,
            "n": int(instance.n),
            "k": int(instance.k),
            "optimum": float(values[0]),
            "statuses": statuses,
            "costs": costs,
            "time_s": {m: round(r.time_s, 3) for m, r in runs.items()},
            "version": package_version(),
        }
        out[runs[names[0]].instance] = entry
        if log is not None:
            log(f"{ref.name}: optimum {values[0]:g} {statuses} {entry['time_s']}")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m anonratio.bench.reference [--out PATH] [--time-limit S]``."""
    parser = argparse.ArgumentParser(
        prog="python -m anonratio.bench.reference",
        description="Solve the committed benchmark instances with CP-SAT and HiGHS and write "
        "their verified, agreeing optima.",
    )
    parser.add_argument("--out", default=str(DEFAULT_PATH), help="output JSON file")
    parser.add_argument("--time-limit", type=float, default=120.0, help="seconds per solve")
    args = parser.parse_args(argv)
    entries = solve_reference(time_limit=args.time_limit, log=lambda s: print(s, flush=True))
    doc = {
        "description": "Reference optima of the fixed benchmark instances of "
        "anonratio.bench.reference (k-anonymity cost; Min-Max Bin Covering largest "
        "bin, §3.4), proven optimal by every "
        "listed exact solver, verified, and in agreement. Keys are instance content hashes.",
        "instances": entries,
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=2, sort_keys=False, default=jsonable) + "\n")
    print(f"wrote {len(entries)} reference optima to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
