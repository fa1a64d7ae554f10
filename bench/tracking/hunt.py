"""The worst-case hunter: a seeded search for small instances that push an algorithm to its
guarantee.

A random instance says little about an approximation algorithm: its ratio sits far below the
guarantee. :func:`hunt` searches the small instances of the algorithm's problem for a high
ratio ``cost ÷ optimum``, the cost verified, the optimum proven by the problem's CP-SAT model.

The search
----------
Simulated annealing with restarts. A chain starts from a small seeded instance of the problem's
starting family (:class:`~anonratio.bench.declarations.Hunt`); each step applies one of the
problem's moves, drawn uniformly (a cell replaced, a record duplicated or deleted, a point moved,
an item resized: the problem module declares them), and evaluates the candidate. A candidate
with a proven optimum is accepted when its ratio is at least the current one, or with
probability ``exp((r' − r) / T)``; the temperature ``T`` falls linearly from ``T0`` to 0 over
``restart`` steps, after which, if the chain has not improved its best for that long, it restarts
from a fresh instance. Annealing, because ratios plateau: most moves leave a small instance's
ratio unchanged, and a hill climber that only takes strict improvements stalls on the plateau;
accepting equal ratios lets the chain drift across it, and the falling temperature lets it leave
a local maximum early and climb late. Restarts keep it from spending the budget in one basin.

Every decision depends on the seed and on the evaluations alone (the algorithm's seed is the
hunt's; CP-SAT runs on one worker), never on the clock: a hunt of ``steps`` steps is the same on
any machine (as long as every exact solve ends within ``time_limit``: a candidate proven on one
machine and not on a slower one is accepted on the first only), and a time ``budget`` stops it
after a prefix of that sequence. Instances stay small: a move that would take one past twice the
starting ``size`` is refused. Each evaluation is
journaled (``journal.jsonl``, appended and synced); a hunt started again on its folder replays
the journal instead of solving again, and goes on.

A candidate whose verified cost exceeds its guarantee times a proven optimum is a bug: it is
written to ``violation-<step>.json`` at once, and reported.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from anonratio.bench.engine.runner import run_record
from anonratio.bench.registry import HUNTS, get_algorithm
from anonratio.bench.tracking.reference import EXACT_METHODS
from anonratio.instances import instance_id
from anonratio.instances.io import atomic_write, save_instance
from anonratio.instances.validation import check_int, check_number

__all__ = ["Evaluation", "HuntResult", "hunt", "evaluate", "library_meta", "TOLERANCE"]

#: a ratio above guarantee * (1 + TOLERANCE) + TOLERANCE is a violation (float noise below)
TOLERANCE = 1e-9
#: starting temperature, in ratio units
_T0 = 0.05
#: attempts at a valid move before the step gives up on its candidate
_ATTEMPTS = 20


@dataclass
class Evaluation:
    """One candidate: the algorithm's verified cost, the proven optimum, their ratio."""

    instance: str
    cost: float
    optimum: float | None
    proven: bool
    ratio: float | None
    guarantee: float | None
    status: str
    time_s: float
    error: str | None = None

    @property
    def violates(self) -> bool:
        """A ratio above the proven guarantee."""
        return (
            self.ratio is not None
            and self.guarantee is not None
            and self.ratio > self.guarantee * (1 + TOLERANCE) + TOLERANCE
        )


def _ratio(cost: float, optimum: float) -> float:
    if optimum > TOLERANCE:
        return cost / optimum
    return 1.0 if cost <= TOLERANCE else math.inf


def evaluate(
    instance: Any, algorithm: str, *, seed: int = 0, time_limit: float = 20.0
) -> tuple[Evaluation, dict[str, Any]]:
    """Run ``algorithm`` and the problem's first exact model on ``instance``, both verified.

    Returns the :class:`Evaluation` and the two run records (``"algorithm"``, ``"exact"``).
    ``status`` is ``ok`` (a verified cost and a proven optimum), ``unproven`` (the exact model
    stopped at its time limit) or ``error`` (the algorithm failed or its solution was refused).
    """
    start = time.perf_counter()
    ident = instance_id(instance)
    run = run_record(instance, algorithm, seed=seed, time_limit=time_limit)
    exact = run_record(instance, EXACT_METHODS[instance.problem][0], seed=0, time_limit=time_limit)
    runs = {"algorithm": run, "exact": exact}
    spent = time.perf_counter() - start
    guarantee = None if math.isnan(run.guarantee) else float(run.guarantee)
    if not run.verified:
        error = run.error or f"status {run.status}"
        return Evaluation(
            ident, math.nan, None, False, None, guarantee, "error", spent, error
        ), runs
    proven = exact.verified and exact.status == "optimal"
    optimum = float(exact.cost) if exact.verified else None
    ratio = _ratio(float(run.cost), optimum) if proven and optimum is not None else None
    status = "ok" if proven else "unproven"
    return Evaluation(
        ident, float(run.cost), optimum, proven, ratio, guarantee, status, spent
    ), runs


@dataclass
class HuntResult:
    """What a hunt found: the worst instance, its ratio against the guarantee, the two
    solutions side by side, every violation."""

    algorithm: str
    problem: str
    steps: int
    evaluated: int
    proven: int
    worst: Evaluation | None
    worst_instance: Any = None
    worst_step: int | None = None
    labels: dict[str, list] = field(default_factory=dict)
    confirmed: dict[str, Any] = field(default_factory=dict)
    violations: list[dict[str, Any]] = field(default_factory=list)
    out: Path | None = None

    def summary(self) -> dict[str, Any]:
        """A JSON-able summary."""
        w = self.worst
        return {
            "algorithm": self.algorithm,
            "problem": self.problem,
            "steps": self.steps,
            "evaluated": self.evaluated,
            "proven": self.proven,
            "worst_ratio": None if w is None else w.ratio,
            "guarantee": None if w is None else w.guarantee,
            "gap": None
            if w is None or w.guarantee is None or w.ratio is None
            else w.guarantee - w.ratio,
            "cost": None if w is None else w.cost,
            "optimum": None if w is None else w.optimum,
            "worst_instance": None if w is None else w.instance,
            "worst_step": self.worst_step,
            "n": None if self.worst_instance is None else int(self.worst_instance.n),
            "labels": self.labels,
            "confirmed": self.confirmed,
            "violations": self.violations,
            "out": None if self.out is None else str(self.out),
        }


class _Journal:
    """``journal.jsonl`` in the hunt's folder: one line per evaluated step, appended and synced;
    ``settings.json`` names the hunt, so that another hunt cannot resume it by mistake."""

    def __init__(self, out: Path | None, settings: Mapping[str, Any]) -> None:
        self.out, self.rows = out, {}
        if out is None:
            return
        out.mkdir(parents=True, exist_ok=True)
        path = out / "settings.json"
        if path.exists():
            old = json.loads(path.read_text())
            if old != dict(settings):
                changed = sorted(
                    k for k in set(old) | set(settings) if old.get(k) != settings.get(k)
                )
                raise ValueError(
                    f"{out}: holds a hunt with other settings ({', '.join(changed)}); "
                    f"choose another `--out` folder"
                )
        else:
            atomic_write(path, lambda f: f.write(json.dumps(dict(settings), indent=1)), mode="w")
        journal = out / "journal.jsonl"
        if journal.exists():
            for line in journal.read_text().splitlines():
                try:
                    row = json.loads(line)
                except json.JSONDecodeError:  # a line cut by a kill: evaluated again
                    continue
                self.rows[row["step"]] = row
        self.file = open(journal, "a")  # noqa: SIM115 (closed by close())

    def lookup(self, step: int, ident: str) -> Evaluation | None:
        row = self.rows.get(step)
        if row is None or row["instance"] != ident:
            return None
        keys = Evaluation.__dataclass_fields__
        return Evaluation(**{k: row[k] for k in keys})

    def write(self, step: int, ev: Evaluation, **extra: Any) -> None:
        if self.out is None:
            return
        row = {"step": step, **ev.__dict__, **extra}
        self.file.write(json.dumps(row, allow_nan=True) + "\n")
        self.file.flush()
        os.fsync(self.file.fileno())

    def close(self) -> None:
        if self.out is not None:
            self.file.close()


def _start(
    spec: Any, alg: Any, params: Mapping[str, Any], size: int, rng: np.random.Generator
) -> Any:
    """A fresh small instance of the hunt's starting family, one the algorithm supports."""
    from anonratio.bench.registry import generate

    overrides = {**spec.fixed, **params, spec.size_param: size}
    instance = generate(spec.family, seed=int(rng.integers(2**31)), **overrides)[0]
    reason = alg.supports(instance)
    if reason is not None:
        raise ValueError(
            f"`params`: the starting instances ({spec.family}, {overrides}) do not suit "
            f"{alg.name}: {reason}"
        )
    return instance


def _moved(
    instance: Any, spec: Any, alg: Any, rng: np.random.Generator, max_n: int
) -> tuple[Any, str]:
    """One valid move of ``instance`` (the move's name), or ``instance`` itself and ``"none"``
    after ``_ATTEMPTS`` refused moves; a result of more than ``max_n`` records is refused."""
    for _ in range(_ATTEMPTS):
        moves = spec.load_moves()
        name, move = moves[int(rng.integers(len(moves)))]
        try:
            candidate = move(instance, rng)
        except ValueError:  # the move does not apply, or the instance refuses the result
            continue
        if candidate.n <= max_n and alg.supports(candidate) is None:
            return candidate, name
    return instance, "none"


def hunt(
    algorithm: str,
    *,
    params: Mapping[str, Any] | None = None,
    size: int = 8,
    budget: float = 60.0,
    steps: int | None = None,
    seed: int = 0,
    restart: int = 100,
    time_limit: float = 20.0,
    out: str | os.PathLike[str] | None = None,
    progress: Callable[[int, float, Evaluation | None], None] | None = None,
) -> HuntResult:
    """Search small instances for the highest ratio ``cost ÷ optimum`` of ``algorithm``.

    Parameters
    ----------
    algorithm : str
        A registered approximation algorithm or heuristic.
    params : mapping, optional
        Parameters of the problem's starting family (``{"k": 3}``); the family's own defaults
        otherwise.
    size : int
        Records (points, items) of the starting instances (>= 2).
    budget : float
        Seconds of evaluation (> 0); the hunt stops at the first step past it.
    steps : int, optional
        Stop after this many steps (the budget still applies).
    seed : int
        Seeds the chain, its starting instances and the algorithm.
    restart : int
        Steps of one annealing schedule; a chain that has not improved for this long restarts.
    time_limit : float
        Seconds of the exact model per candidate; a candidate it does not prove is not accepted.
    out : path, optional
        Folder of the journal, ``worst.json`` (the worst instance, rewritten whenever it is
        beaten), ``violation-<step>.json`` and ``summary.json``; a hunt started again on it
        resumes.
    progress : callable, optional
        ``progress(step, seconds, worst)`` after every step.

    Returns
    -------
    HuntResult

    Raises
    ------
    ValueError
        An unknown or exact algorithm, a problem without moves, a bad parameter, a folder that
        holds another hunt.
    """
    alg = get_algorithm(algorithm)
    if alg.kind == "exact":
        raise ValueError(f"`algorithm` {alg.name!r} is exact: hunt an approximation or heuristic")
    spec = HUNTS.get(alg.problem)
    if spec is None:
        raise ValueError(f"`algorithm` {alg.name!r}: problem {alg.problem!r} declares no moves")
    size = check_int("size", size, low=2)
    budget = check_number("budget", budget, low=0, closed="neither")
    steps = check_int("steps", steps, low=1, allow_none=True)
    seed = check_int("seed", seed, low=0)
    restart = check_int("restart", restart, low=1)
    time_limit = check_number("time_limit", time_limit, low=0, closed="neither")
    params = dict(params or {})
    settings = {
        "algorithm": alg.name,
        "params": {k: str(v) for k, v in params.items()},
        "size": size,
        "seed": seed,
        "restart": restart,
        "time_limit": time_limit,
    }
    folder = None if out is None else Path(out)
    journal = _Journal(folder, settings)
    rng = np.random.default_rng(seed)
    result = HuntResult(alg.name, alg.problem, 0, 0, 0, None, out=folder)

    def run(step: int, instance: Any, move: str) -> Evaluation:
        ident = instance_id(instance)
        ev = journal.lookup(step, ident)
        if ev is None:
            ev = evaluate(instance, alg.name, seed=seed, time_limit=time_limit)[0]
            journal.write(step, ev, move=move)
        result.evaluated += 1
        result.proven += ev.proven
        if ev.violates:
            result.violations.append(_violation(folder, step, instance, ev))
        worst = None if result.worst is None else result.worst.ratio
        if ev.ratio is not None and (worst is None or ev.ratio > worst):
            result.worst, result.worst_instance, result.worst_step = ev, instance, step
            if folder is not None:
                save_instance(
                    folder / "worst.json", instance, meta=library_meta(alg.name, ev, step)
                )
        return ev

    spent, step = 0.0, 0
    try:
        while spent < budget and (steps is None or step < steps):
            current = _start(spec, alg, params, size, rng)
            now = run(step, current, "start")
            spent, step = spent + now.time_s, step + 1
            best, since = now.ratio or 0.0, 0
            while spent < budget and (steps is None or step < steps) and since < restart:
                candidate, move = _moved(current, spec, alg, rng, 2 * size)
                ev = run(step, candidate, move)
                spent, step = spent + ev.time_s, step + 1
                temperature = _T0 * max(0.0, 1.0 - since / restart)
                draw = rng.random()
                if ev.ratio is not None and (
                    ev.ratio >= (now.ratio or 0.0)
                    or draw < math.exp((ev.ratio - (now.ratio or 0.0)) / max(temperature, 1e-12))
                ):
                    current, now = candidate, ev
                since = 0 if ev.ratio is not None and ev.ratio > best + TOLERANCE else since + 1
                best = max(best, ev.ratio or 0.0)
                if progress is not None:
                    progress(step, spent, result.worst)
    finally:
        journal.close()
    result.steps = step
    if result.worst_instance is not None:
        _side_by_side(result, alg.name, seed, time_limit)
    if folder is not None:
        atomic_write(
            folder / "summary.json",
            lambda f: f.write(json.dumps(result.summary(), indent=1, default=str)),
            mode="w",
        )
    return result


def library_meta(algorithm: str, ev: Evaluation, step: int) -> dict[str, Any]:
    """The ``meta`` of a worst instance's file (``worst.json``, the library)."""
    return {
        "family": "hunt",
        "hunted": algorithm,
        "ratio": ev.ratio,
        "cost": ev.cost,
        "optimum": ev.optimum,
        "guarantee": ev.guarantee,
        "step": step,
    }


def _violation(folder: Path | None, step: int, instance: Any, ev: Evaluation) -> dict[str, Any]:
    """Write the instance that breaks the guarantee at once; its description."""
    record = {
        "step": step,
        "instance": ev.instance,
        "ratio": ev.ratio,
        "cost": ev.cost,
        "optimum": ev.optimum,
        "guarantee": ev.guarantee,
    }
    if folder is not None:
        path = folder / f"violation-{step}.json"
        save_instance(path, instance, meta={"violation": record})
        record["file"] = str(path)
    return record


def _side_by_side(result: HuntResult, algorithm: str, seed: int, time_limit: float) -> None:
    """The worst instance again: both solutions' labels, and every exact model's optimum (they
    must agree)."""
    instance = result.worst_instance
    run = run_record(instance, algorithm, seed=seed, time_limit=time_limit)
    exact = {
        m: run_record(instance, m, seed=0, time_limit=time_limit)
        for m in EXACT_METHODS[instance.problem]
    }
    first = next(iter(exact.values()))
    for name, rec in (("algorithm", run), ("optimum", first)):
        labels = None if rec.solution is None else rec.solution.labels
        result.labels[name] = [] if labels is None else np.asarray(labels).tolist()
    result.confirmed = {m: {"status": r.status, "cost": r.cost} for m, r in exact.items()}
