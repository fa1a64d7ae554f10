"""Studies declared in TOML files: which instances, algorithms, seeds and limits a sweep runs.

A study file (format in the README, section *Suites*) is read with :mod:`tomllib` and checked
before anything runs: unknown keys, wrong types, unknown families, algorithms and family
parameters, empty grids and algorithms of another problem are refused with a message that
names the file, the line, the key and what is known
(``my-study.toml line 7: unknown algorithm 'frest' in [[sweep]] algorithms; known: [...]``).

Line numbers: :mod:`tomllib` reports positions only for syntax errors, not for the keys of a
parsed document. :func:`_Locator.line` finds them by scanning the text: it splits the file into
the top-level part and one block per ``[[sweep]]`` header, then looks inside the block of the
offending entry for a line assigning the key (``key =``, also inside inline tables), after the
line of its parent key (``[sweep.grid]`` or ``grid =``), and for a value it looks from there for
the value's TOML spelling (``"frest"``), which finds entries of arrays written over several
lines. When nothing matches it falls back to the block's header line (or line 1).

:func:`expand` (also exported by :mod:`anonratio.bench.suites`) builds the tasks of one grid,
dropping the combinations an algorithm does not support.
"""

from __future__ import annotations

import importlib
import math
import re
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from itertools import product
from pathlib import Path
from typing import Any

from anonratio.bench.registry import FAMILIES, REGISTRY, get_algorithm
from anonratio.bench.runner import Task
from anonratio.instances.validation import check_time_limit

__all__ = ["Study", "StudyError", "load_study", "parse_study", "expand", "STUDY_DIR"]

#: the built-in studies (``quick.toml``, ...), shipped with the package
STUDY_DIR = Path(__file__).resolve().parent / "studies"

#: top-level keys and their meaning
TOP_KEYS = ("name", "description", "time_limit", "memory_limit", "sweep")
#: keys of a ``[[sweep]]`` block of instances
SWEEP_KEYS = ("family", "problem", "seeds", "grid", "params", "algorithms", "time_limit")
#: keys of a ``[[sweep]]`` block whose tasks a Python function builds
GENERATOR_KEYS = ("generator", "args")


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
            task = Task(family, dict(params), int(seed), algorithm, float(time_limit))
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
    generator: Callable[..., list] | None = None
    args: dict[str, Any] = field(default_factory=dict)

    def tasks(self) -> list[Task]:
        if self.generator is not None:
            return list(self.generator(**self.args))
        axes = {**self.grid, **{k: [v] for k, v in self.params.items()}}
        instances = grid(self.family or "", self.seeds, **axes)
        return expand(instances, self.algorithms, time_limit=self.time_limit)


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
        """Every sweep's tasks, in file order (generates the instances to check support)."""
        out: list[Task] = []
        for sweep in self.sweeps:
            out += sweep.tasks()
        return out


# ---------------------------------------------------------------------------------------------
# line numbers
# ---------------------------------------------------------------------------------------------
_SWEEP_HEADER = re.compile(r"^\s*\[\[\s*sweep\s*\]\]")


def _toml_key(key: str) -> str:
    k = re.escape(key)
    return rf"(?:{k}|\"{k}\"|'{k}')"


class _Locator:
    """Line numbers of keys and values in the text of a study (see the module docstring)."""

    def __init__(self, text: str) -> None:
        self.lines = [
            line.split("#", 1)[0] if '"' not in line else line for line in text.split("\n")
        ]
        starts = [i for i, line in enumerate(self.lines) if _SWEEP_HEADER.match(line)]
        self.blocks = starts

    def _range(self, block: int | None) -> tuple[int, int]:
        if block is None:
            return 0, (self.blocks[0] if self.blocks else len(self.lines))
        if block >= len(self.blocks):
            return 0, len(self.lines)
        end = self.blocks[block + 1] if block + 1 < len(self.blocks) else len(self.lines)
        return self.blocks[block], end

    def line(self, block: int | None, path: tuple[str, ...] = (), value: Any = None) -> int:
        """1-based line of ``path`` (keys, outermost first) in ``block`` (None: top level)."""
        start, end = self._range(block)
        found = start
        for depth, key in enumerate(path):
            table = rf"^\s*\[\s*sweep\s*\.\s*{_toml_key(key)}\s*\]" if depth == 0 else None
            assign = re.compile(rf"(?:^|[\s{{,]){_toml_key(key)}\s*=")
            for i in range(found, end):
                if assign.search(self.lines[i]) or (table and re.match(table, self.lines[i])):
                    found = i
                    break
        if value is not None:
            needles = [f'"{value}"', f"'{value}'"] if isinstance(value, str) else [str(value)]
            for i in range(found, end):
                if any(n in self.lines[i] for n in needles):
                    return i + 1
        return found + 1


# ---------------------------------------------------------------------------------------------
# parsing and checking
# ---------------------------------------------------------------------------------------------
class _Checker:
    def __init__(self, text: str, source: str) -> None:
        self.loc = _Locator(text)
        self.source = source

    def fail(self, block: int | None, path: tuple[str, ...], message: str, value: Any = None):
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
        return value


def _tuples(value: Any) -> Any:
    """TOML arrays inside a parameter value -> tuples (the families' tuple parameters)."""
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def _import_generator(spec: str) -> Callable[..., list]:
    module, _, name = spec.partition(":")
    func = getattr(importlib.import_module(module), name, None) if name else None
    if not callable(func):
        raise ImportError(spec)
    return func


def _parse_generator(ck: _Checker, raw: dict, i: int) -> Sweep:
    ck.keys(raw, GENERATOR_KEYS, i, "a [[sweep]] with `generator`")
    spec = ck.text(raw["generator"], i, "generator", "[[sweep]]")
    try:
        func = _import_generator(spec)
    except ImportError:
        ck.fail(
            i,
            ("generator",),
            f"`generator` in [[sweep]] must name a function as 'package.module:function', "
            f"got {spec!r}",
        )
    args = raw.get("args", {})
    if not isinstance(args, dict):
        ck.fail(i, ("args",), f"`args` in [[sweep]] must be a table, got {args!r}")
    return Sweep(generator=func, args={k: _tuples(v) for k, v in args.items()})


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
    return Sweep(
        family=name,
        seeds=tuple(seeds),
        grid={k: [_tuples(v) for v in vs] for k, vs in axes.items()},
        params={k: _tuples(v) for k, v in params.items()},
        algorithms=tuple(algorithms),
        time_limit=ck.number(raw.get("time_limit", time_limit), i, "time_limit", "[[sweep]]"),
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
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FileNotFoundError(2, "No such study file", str(path)) from None
    study = parse_study(text, source=path.name, default_name=path.stem)
    return Study(
        study.name, study.description, study.sweeps, study.time_limit, study.memory_limit, path
    )
