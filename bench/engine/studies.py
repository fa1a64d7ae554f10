"""Studies declared in TOML files: which instances, algorithms, seeds and limits a sweep runs.

A study file (format in docs/suites.md) is read with :mod:`tomllib` and checked
before anything runs: unknown keys, wrong types, unknown families, algorithms and family
parameters, empty grids and algorithms of another problem are refused with a message that
names the file, the line, the key and what is known
(``my-study.toml line 7: unknown algorithm 'frest' in [[sweep]] algorithms; known: [...]``).

A study names registered things only: families, algorithms, and for a grid that Python must
compute one of the task generators of :data:`GENERATORS` (nothing else is imported or called).
A run listed twice (a repeated algorithm, seed or grid value, or the same run in two
``[[sweep]]`` blocks: same family, parameters with their defaults filled in, seed, algorithm and
time limit) is refused, as is a grid value the family refuses when it generates the instance
(:meth:`Study.tasks`, naming the line of the value).

Line numbers: :mod:`tomllib` reports positions only for syntax errors;
:class:`~anonratio.bench.engine.study_lines.Locator` finds the line of a key or value by scanning
the text.

:func:`expand` (also exported by :mod:`anonratio.bench.engine.suites`) builds the tasks of one grid,
dropping the combinations an algorithm does not support.
"""

from __future__ import annotations

import importlib
import inspect
import math
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from itertools import product
from pathlib import Path
from typing import Any, NoReturn

from anonratio.bench.engine.record import json_text
from anonratio.bench.engine.runner import Task
from anonratio.bench.engine.study_lines import Locator
from anonratio.bench.engine.utility import check_utility
from anonratio.bench.registry import FAMILIES, REGISTRY, get_algorithm
from anonratio.instances.validation import check_time_limit

__all__ = [
    "Study",
    "StudyError",
    "load_study",
    "parse_study",
    "expand",
    "first_duplicate",
    "STUDY_DIR",
    "GENERATORS",
]

#: the built-in studies (``quick.toml``, ...), shipped with the package
STUDY_DIR = Path(__file__).resolve().parent.parent / "studies"

#: top-level keys and their meaning
TOP_KEYS = ("name", "description", "time_limit", "memory_limit", "sweep")
#: keys of a ``[[sweep]]`` block of instances
SWEEP_KEYS = ("family", "problem", "seeds", "grid", "params", "algorithms", "time_limit", "utility")
#: keys of a ``[[sweep]]`` block whose tasks a Python function builds
GENERATOR_KEYS = ("generator", "args")
#: the task generators a ``[[sweep]]`` may name (``generator = "..."``); nothing else is called
GENERATORS = ("anonratio.bench.experiments.fig7:fig7_tasks",)


class StudyError(ValueError):
    """A study file that cannot be run; the message names the file, the line and the key."""


@cache
def _generated(family: str, params_key: tuple, seed: int) -> Any:
    from anonratio.bench.registry import generate

    return generate(family, seed=seed, **dict(params_key))[0]


def _supported(task: Task) -> bool:
    """True when the task's algorithm supports the task's instance."""
    instance = _generated(task.family, tuple(sorted(task.family_params.items())), task.seed)
    return get_algorithm(task.algorithm).supports(instance) is None


def expand(
    instances: Iterable[tuple[str, dict[str, Any], int]],
    algorithms: Iterable[str],
    *,
    time_limit: float,
    utility: tuple[str, ...] = (),
) -> list[Task]:
    """Tasks for every (family, params, seed) × algorithm, dropping unsupported combinations.

    Parameters
    ----------
    instances : iterable of (family, params, seed)
    algorithms : iterable of str
        Registry names.
    time_limit : float
        Seconds per run (exact solvers and the factor ILPs stop there; the sweep kills a run a
        grace period later).
    utility : tuple of str
        Utility metrics every run reports (checked names,
        :func:`~anonratio.bench.engine.utility.check_utility`).

    Returns
    -------
    list of Task
    """
    time_limit = check_time_limit(time_limit)
    algorithms = list(algorithms)
    for name in algorithms:
        get_algorithm(name)  # unknown names fail here, with the known ones listed
    tasks = []
    for family, params, seed in instances:
        for algorithm in algorithms:
            task = Task(
                family, dict(params), int(seed), algorithm, float(time_limit), utility=utility
            )
            if _supported(task):
                tasks.append(task)
    return tasks


def grid(family: str, seeds: Iterable[int], **axes: list) -> list[tuple[str, dict, int]]:
    """(family, params, seed) for the product of the listed parameter values (seeds innermost)."""
    keys = list(axes)
    seeds = list(seeds)
    out = []
    for values in product(*(axes[k] for k in keys)):
        for seed in seeds:
            out.append((family, dict(zip(keys, values, strict=True)), seed))
    return out


def _run_key(task: Task) -> tuple:
    """What makes two tasks the same run: family, resolved parameters, seed, algorithm, limit."""
    family = FAMILIES.get(task.family)
    params = family.resolve(task.family_params) if family is not None else task.family_params
    return (task.family, json_text(params), int(task.seed), task.algorithm, task.time_limit)


def first_duplicate(tasks: Iterable[Task]) -> tuple[int, int] | None:
    """Positions ``(first, again)`` of the first task that repeats an earlier run, or None."""
    seen: dict[tuple, int] = {}
    for i, task in enumerate(tasks):
        j = seen.setdefault(_run_key(task), i)
        if j != i:
            return j, i
    return None


def describe(task: Task) -> str:
    """A task in a message: ``forest on kanon-binary {"k": 2, "n": 8} seed 0 at 5 s``."""
    params = json_text(task.family_params)
    return f"{task.algorithm} on {task.family} {params} seed {task.seed} at {task.time_limit:g} s"


# ---------------------------------------------------------------------------------------------
# the parsed study
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Sweep:
    """One ``[[sweep]]`` block: a grid of instances × algorithms, or a generator's tasks."""

    family: str | None = None
    seeds: tuple[int, ...] = (0,)
    grid: dict[str, list] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)
    algorithms: tuple[str, ...] = ()
    time_limit: float = 60.0
    #: the utility metrics its runs report (none by default)
    utility: tuple[str, ...] = ()
    generator: Callable[..., list] | None = None
    args: dict[str, Any] = field(default_factory=dict)
    #: where the block is: the file's name and the line of its ``[[sweep]]`` header
    source: str = "<study>"
    line: int = 1
    #: (parameter, repr of a value) -> the line of that value in ``grid`` or ``params``
    value_lines: dict[tuple[str, str], int] = field(default_factory=dict)

    def tasks(self) -> list[Task]:
        """The block's tasks; ``StudyError`` naming the line of a value the family refuses."""
        if self.generator is not None:
            return list(self.generator(**self.args))
        axes = {**self.grid, **{k: [v] for k, v in self.params.items()}}
        out: list[Task] = []
        for instance in grid(self.family or "", self.seeds, **axes):
            try:
                out += expand(
                    [instance], self.algorithms, time_limit=self.time_limit, utility=self.utility
                )
            except ValueError as exc:
                raise self._refused(instance, exc) from None
        return out

    def _refused(self, instance: tuple[str, dict, int], exc: ValueError) -> StudyError:
        family, params, seed = instance
        text = str(exc)
        blamed = [k for k in params if f"`{k}`" in text or f"'{k}'" in text]
        line = self.line
        if blamed:
            line = self.value_lines.get((blamed[0], repr(params[blamed[0]])), line)
        shown = ", ".join(f"{k}={v!r}" for k, v in params.items())
        return StudyError(
            f"{self.source} line {line}: family {family!r} refuses {shown} (seed {seed}) "
            f"in [[sweep]]: {text}"
        )


@dataclass(frozen=True)
class Study:
    """A parsed, checked study: its sweeps in file order; :meth:`tasks` builds the task list."""

    name: str
    description: str
    sweeps: tuple[Sweep, ...]
    time_limit: float = 60.0
    memory_limit: float | None = None
    path: Path | None = None

    def tasks(self) -> list[Task]:
        """Every sweep's tasks, in file order (generates the instances to check support).

        Raises
        ------
        StudyError
            A value a family refuses, or a run listed twice (the message names both lines).
        """
        out: list[Task] = []
        lines: list[int] = []
        for sweep in self.sweeps:
            tasks = sweep.tasks()
            out += tasks
            lines += [sweep.line] * len(tasks)
        twice = first_duplicate(out)
        if twice is not None:
            first, again = twice
            where = "the same [[sweep]]" if lines[first] == lines[again] else "the [[sweep]]"
            source = self.sweeps[0].source
            raise StudyError(
                f"{source} line {lines[again]}: the run {describe(out[again])} is already in "
                f"{where} at line {lines[first]}: list each run once"
            )
        return out


# ---------------------------------------------------------------------------------------------
# parsing and checking
# ---------------------------------------------------------------------------------------------
class _Checker:
    def __init__(self, text: str, source: str) -> None:
        self.loc = Locator(text)
        self.source = source

    def fail(
        self, block: int | None, path: tuple[str, ...], message: str, value: Any = None
    ) -> NoReturn:
        line = self.loc.line(block, path, value)
        raise StudyError(f"{self.source} line {line}: {message}")

    def keys(self, table: dict, known: Iterable[str], block: int | None, where: str) -> None:
        known = tuple(known)
        for key in table:
            if key not in known:
                self.fail(block, (key,), f"unknown key {key!r} in {where}; known: {list(known)}")

    def number(self, value: Any, block: int | None, key: str, where: str, *, none=False) -> Any:
        if none and value is None:
            return None
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        if not ok or not math.isfinite(value) or value <= 0:
            self.fail(block, (key,), f"`{key}` in {where} must be a positive number, got {value!r}")
        return float(value)

    def text(self, value: Any, block: int | None, key: str, where: str) -> str:
        if not isinstance(value, str) or not value.strip():
            self.fail(
                block, (key,), f"`{key}` in {where} must be a non-empty string, got {value!r}"
            )
        return value

    def array(self, value: Any, block: int, key: str, kind: type, what: str) -> list:
        where = "[[sweep]]"
        if not isinstance(value, list):
            self.fail(
                block, (key,), f"`{key}` in {where} must be an array of {what}, got {value!r}"
            )
        if not value:
            self.fail(block, (key,), f"`{key}` in {where} is empty: give at least one value")
        for item in value:
            if not isinstance(item, kind) or isinstance(item, bool):
                self.fail(
                    block,
                    (key,),
                    f"`{key}` in {where} must be an array of {what}, got {item!r}",
                    item,
                )
        self.once(value, block, (key,), f"`{key}` in {where}")
        return value

    def once(self, values: list, block: int, path: tuple[str, ...], what: str) -> None:
        """Refuse a value listed twice (its runs would run twice)."""
        seen: list = []
        for item in values:
            if item in seen:
                self.fail(
                    block,
                    path,
                    f"{what} lists {item!r} twice: its runs would run twice; list it once",
                    item,
                )
            seen.append(item)


def _tuples(value: Any) -> Any:
    """TOML arrays inside a parameter value -> tuples (the families' tuple parameters)."""
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def _import_generator(spec: str) -> Callable[..., list]:
    """The registered generator ``spec`` (one of :data:`GENERATORS`, imported now)."""
    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(module), name)


def _parse_generator(ck: _Checker, raw: dict, i: int) -> Sweep:
    ck.keys(raw, GENERATOR_KEYS, i, "a [[sweep]] with `generator`")
    spec = ck.text(raw["generator"], i, "generator", "[[sweep]]")
    if spec not in GENERATORS:
        ck.fail(
            i,
            ("generator",),
            f"`generator` in [[sweep]] must be a registered task generator, one of "
            f"{list(GENERATORS)}, got {spec!r} (a study runs registered code only)",
        )
    func = _import_generator(spec)
    args = raw.get("args", {})
    if not isinstance(args, dict):
        ck.fail(i, ("args",), f"`args` in [[sweep]] must be a table, got {args!r}")
    args = {k: _tuples(v) for k, v in args.items()}
    try:
        inspect.signature(func).bind(**args)
    except TypeError as exc:
        ck.fail(i, ("args",), f"`args` in [[sweep]] do not fit generator {spec!r}: {exc}")
    return Sweep(generator=func, args=args, source=ck.source, line=ck.loc.line(i))


def _check_params(ck: _Checker, family: Any, values: dict, i: int, key: str) -> None:
    for name, value in values.items():
        if name not in family.defaults:
            ck.fail(
                i,
                (key, name),
                f"unknown parameter {name!r} for family {family.name!r} in [[sweep]] {key}; "
                f"known: {sorted(family.defaults)}",
            )
        for v in value if key == "grid" else [value]:
            try:
                family.resolve({name: _tuples(v)})
            except ValueError as exc:
                ck.fail(i, (key, name), f"{exc} (in [[sweep]] {key})")
        if key == "grid":
            ck.once([_tuples(v) for v in value], i, (key, name), f"grid `{name}` in [[sweep]]")


def _value_lines(ck: _Checker, i: int, axes: dict, params: dict) -> dict[tuple[str, str], int]:
    """(parameter, repr of a value) -> its line, for :meth:`Sweep.tasks`'s messages."""
    out = {}
    for key, table in (("grid", axes), ("params", params)):
        for name, values in table.items():
            for v in values if key == "grid" else [values]:
                scalar = isinstance(v, str | int | float) and not isinstance(v, bool)
                out[(name, repr(_tuples(v)))] = ck.loc.line(i, (key, name), v if scalar else None)
    return out


def _parse_sweep(ck: _Checker, raw: Any, i: int, time_limit: float) -> Sweep:
    if not isinstance(raw, dict):
        ck.fail(i, (), f"`sweep` must be an array of tables ([[sweep]]), got {raw!r}")
    if "generator" in raw:
        return _parse_generator(ck, raw, i)
    ck.keys(raw, SWEEP_KEYS, i, "[[sweep]]")
    for key in ("family", "algorithms"):
        if key not in raw:
            ck.fail(i, (), f"[[sweep]] needs `{key}` (or `generator`)")
    name = ck.text(raw["family"], i, "family", "[[sweep]]")
    if name not in FAMILIES:
        ck.fail(
            i,
            ("family",),
            f"unknown family {name!r} in [[sweep]] family; known: {sorted(FAMILIES)}",
        )
    family = FAMILIES[name]
    if "problem" in raw and raw["problem"] != family.problem:
        ck.fail(
            i,
            ("problem",),
            f"`problem` in [[sweep]] is {raw['problem']!r}, family {name!r} is {family.problem!r}",
        )
    algorithms = ck.array(raw["algorithms"], i, "algorithms", str, "algorithm names")
    for alg in algorithms:
        if alg not in REGISTRY:
            ck.fail(
                i,
                ("algorithms",),
                f"unknown algorithm {alg!r} in [[sweep]] algorithms; known: {sorted(REGISTRY)}",
                alg,
            )
        if REGISTRY[alg].problem != family.problem:
            ck.fail(
                i,
                ("algorithms",),
                f"algorithm {alg!r} in [[sweep]] algorithms solves {REGISTRY[alg].problem}, "
                f"family {name!r} is {family.problem}",
                alg,
            )
    seeds = ck.array(raw.get("seeds", [0]), i, "seeds", int, "integers >= 0")
    if any(s < 0 for s in seeds):
        ck.fail(i, ("seeds",), f"`seeds` in [[sweep]] must be integers >= 0, got {seeds}")
    axes, params = raw.get("grid", {}), raw.get("params", {})
    for key, table in (("grid", axes), ("params", params)):
        if not isinstance(table, dict):
            ck.fail(i, (key,), f"`{key}` in [[sweep]] must be a table, got {table!r}")
    for key, values in axes.items():
        if not isinstance(values, list):
            ck.fail(
                i,
                ("grid", key),
                f"grid `{key}` in [[sweep]] must be an array of values, got {values!r}",
            )
        if not values:
            ck.fail(
                i, ("grid", key), f"grid `{key}` in [[sweep]] is empty: give at least one value"
            )
        if key in params:
            ck.fail(i, ("params", key), f"`{key}` is both in [[sweep]] grid and params")
    _check_params(ck, family, axes, i, "grid")
    _check_params(ck, family, params, i, "params")
    utility: tuple[str, ...] = ()
    if "utility" in raw:
        asked = ck.array(raw["utility"], i, "utility", str, "metric names")
        try:
            utility = check_utility(family.problem, asked)
        except ValueError as exc:
            ck.fail(i, ("utility",), f"{exc} in [[sweep]]")
    return Sweep(
        family=name,
        seeds=tuple(seeds),
        grid={k: [_tuples(v) for v in vs] for k, vs in axes.items()},
        params={k: _tuples(v) for k, v in params.items()},
        algorithms=tuple(algorithms),
        time_limit=ck.number(raw.get("time_limit", time_limit), i, "time_limit", "[[sweep]]"),
        utility=utility,
        source=ck.source,
        line=ck.loc.line(i),
        value_lines=_value_lines(ck, i, axes, params),
    )


def parse_study(text: str, *, source: str = "<study>", default_name: str = "study") -> Study:
    """The :class:`Study` of a TOML text (``StudyError`` naming ``source`` and the line)."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise StudyError(f"{source}: not valid TOML: {exc}") from None
    ck = _Checker(text, source)
    ck.keys(doc, TOP_KEYS, None, "the study")
    name = ck.text(doc.get("name", default_name), None, "name", "the study")
    description = ck.text(doc.get("description", name), None, "description", "the study")
    time_limit = ck.number(doc.get("time_limit", 60.0), None, "time_limit", "the study")
    memory = ck.number(doc.get("memory_limit"), None, "memory_limit", "the study", none=True)
    raw = doc.get("sweep")
    if not isinstance(raw, list) or not raw:
        ck.fail(None, ("sweep",), "the study has no [[sweep]] table: give at least one")
    sweeps = tuple(_parse_sweep(ck, s, i, time_limit) for i, s in enumerate(raw))
    return Study(name, description, sweeps, time_limit, memory)


def load_study(path: str | Path) -> Study:
    """Read and check a study file; ``StudyError`` names the file and line of a problem."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise FileNotFoundError(2, "No such study file", str(path)) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise StudyError(
            f"{path.name} line {line}: not a study file: not UTF-8 text "
            f"(byte {data[exc.start]:#04x} at offset {exc.start})"
        ) from None
    study = parse_study(text, source=path.name, default_name=path.stem)
    return Study(
        study.name, study.description, study.sweeps, study.time_limit, study.memory_limit, path
    )
