"""One run as a typed record: :class:`RunRecord`, and the result columns it fills.

A :class:`RunRecord` holds every column of a result row as a named, typed attribute (in the way
SciPy's ``OptimizeResult`` holds an optimizer's outcome), plus the problem-specific columns of the
run's verification (:meth:`anonratio.instances.base.Verification.columns`) and the solution
itself. :func:`anonratio.bench.engine.runner.run_record` builds it; :meth:`RunRecord.to_row` gives
the row the results store keeps (the results schema: docs/architecture.md), and
:meth:`RunRecord.from_row` reads one back.

Missing values follow the store's conventions: a float column is NaN, any other column None.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import subprocess
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from anonratio.instances import Solution
from anonratio.instances.io import jsonable

__all__ = [
    "RunRecord",
    "SCHEMA_COLUMNS",
    "EXTRA_COLUMNS",
    "COLUMNS",
    "JSON_COLUMNS",
    "column_kinds",
    "json_text",
    "scalar_info",
    "package_version",
    "CodeIdentity",
    "CODE_DATA",
    "code_files",
    "source_hash",
    "code_identity",
    "package_root",
    "algorithm_seed",
]

#: the schema columns (docs/architecture.md), in order
SCHEMA_COLUMNS = [
    "problem",
    "family",
    "instance",
    "n",
    "params",
    "algorithm",
    "kind",
    "seed",
    "status",
    "verified",
    "cost",
    "lower_bound",
    "lower_bound_source",
    "optimum",
    "optimum_status",
    "ratio",
    "certified_ratio",
    "guarantee",
    "bound",
    "gap",
    "time_s",
    "peak_mb",
    "version",
]

#: what the runner adds after them
EXTRA_COLUMNS = [
    "k",
    "m",
    "instance_seed",
    "family_params",
    "time_limit",
    "memory_limit_mb",
    "objective",
    "cpu_s",
    "known_optimum",
    "run_lower_bound",
    "run_lower_bound_source",
    "bound_time_s",
    "utility",
    "utility_time_s",
    "best_known",
    "ratio_at_least",
    "exact_agree",
    "optimum_note",
    "error",
    "info",
]

#: every column a record fills (problem-specific ones follow them)
COLUMNS = SCHEMA_COLUMNS + EXTRA_COLUMNS

#: columns holding a JSON document as text
JSON_COLUMNS = ["params", "family_params", "info", "utility"]

_NAN = math.nan


@dataclass
class RunRecord:
    """Everything one run of one algorithm on one instance produced: one result row.

    The attributes are the result columns (docs/architecture.md; docs/results.md): the
    instance's (``problem`` … ``params``, ``k``, ``m``, ``family_params``, ``instance_seed``,
    ``known_optimum``), the run's (``algorithm`` … ``peak_mb``, ``time_limit``, ``objective``,
    ``run_lower_bound``, ``run_lower_bound_source``, ``error``, ``info``) and the per-instance
    ones :func:`~anonratio.bench.engine.runner.finalize` settles across runs (``lower_bound``,
    ``lower_bound_source``, ``optimum``, ``optimum_status``, ``ratio``, ``certified_ratio``,
    ``exact_agree``, ``optimum_note``). ``params``, ``family_params`` and ``info`` are JSON text.

    Attributes
    ----------
    lower_bound, lower_bound_source : float or None, str or None
        ``None`` until finalized: the row then shows the run's own bound (``run_lower_bound``).
    problem_columns : dict
        The verifier's problem-specific columns (bin covering: ``relaxed``,
        ``strictly_feasible``, ``min_load_ratio``, ``overfull_ratio``, ``n_bins``); empty for
        most problems. They follow the schema columns in the row.
    solution : Solution or None
        The run's solution (labels included); not a column.
    exception : BaseException or None
        The exception the algorithm raised (the run is then an error, ``error`` its text); not a
        column, kept in the process that ran it.
    """

    # --- schema columns ---
    problem: str | None = None
    family: str | None = None
    instance: str | None = None
    n: int | None = None
    params: str | None = None
    algorithm: str | None = None
    kind: str | None = None
    seed: int | None = None
    status: str = "error"
    verified: bool = False
    cost: float = _NAN
    lower_bound: float | None = None
    lower_bound_source: str | None = None
    optimum: float = _NAN
    optimum_status: str = "unknown"
    ratio: float = _NAN
    certified_ratio: float = _NAN
    guarantee: float = _NAN
    bound: float = _NAN
    gap: float = _NAN
    time_s: float = _NAN
    peak_mb: float = _NAN
    version: str | None = None
    # --- the runner's extra columns ---
    k: int | None = None
    m: int | None = None
    instance_seed: int | None = None
    family_params: str | None = None
    time_limit: float = _NAN
    #: the sweep's memory limit per worker (MB), empty when there was none
    memory_limit_mb: float = _NAN
    objective: float = _NAN
    #: CPU seconds of the process that ran it (all its threads), over the same span as ``time_s``:
    #: what a loaded machine does not inflate
    cpu_s: float = _NAN
    known_optimum: float = _NAN
    run_lower_bound: float = 0.0
    run_lower_bound_source: str = "none"
    bound_time_s: float = _NAN
    #: the utility metrics asked for (JSON: name -> value; :mod:`.utility`), empty when none
    utility: str | None = None
    utility_time_s: float = _NAN
    #: the least verified cost of the instance over the frame's runs (its optimum when proven)
    best_known: float = _NAN
    #: cost / best_known: the true ratio is at least this (and at most ``certified_ratio``)
    ratio_at_least: float = _NAN
    exact_agree: bool | None = None
    optimum_note: str | None = None
    error: str | None = None
    info: str | None = None
    # --- not columns of their own ---
    problem_columns: dict[str, Any] = field(default_factory=dict)
    solution: Solution | None = field(default=None, repr=False, compare=False)
    exception: BaseException | None = field(default=None, repr=False, compare=False)

    def to_row(self) -> dict[str, Any]:
        """The result row: every column of :data:`COLUMNS`, then the problem-specific ones.

        Returns
        -------
        dict
            Column name -> value; NaN for a missing float, None for anything else missing.
        """
        row = {name: getattr(self, name) for name in COLUMNS}
        if row["lower_bound"] is None:
            row["lower_bound"] = self.run_lower_bound
        if row["lower_bound_source"] is None:
            row["lower_bound_source"] = self.run_lower_bound_source
        row.update(self.problem_columns)
        return row

    @classmethod
    def from_row(cls, row: dict[str, Any], *, solution: Solution | None = None) -> RunRecord:
        """The record of a result row (e.g. a finalized one, read back from a frame).

        Parameters
        ----------
        row : dict
            Column name -> value. Missing values (None, NaN, ``pandas.NA``) take the attribute's
            default; numpy scalars become Python scalars. Columns outside :data:`COLUMNS` go to
            ``problem_columns``.
        solution : Solution, optional

        Returns
        -------
        RunRecord
        """
        if not isinstance(row, dict):
            raise ValueError(f"`row` must be a dict, got {type(row).__name__}")
        kinds = column_kinds()
        values: dict[str, Any] = {}
        extra: dict[str, Any] = {}
        for name, value in row.items():
            if isinstance(value, np.generic):
                value = value.item()
            if name not in kinds:
                extra[str(name)] = value
            elif not _missing(value):
                values[name] = _KIND_TYPES[kinds[name]](value)
        return cls(**values, problem_columns=extra, solution=solution)


def _missing(value: Any) -> bool:
    if value is None or type(value).__name__ in ("NAType", "NaTType"):
        return True
    return isinstance(value, float) and math.isnan(value)


def _flag(value: Any) -> bool:
    """A boolean cell: a bool, a number, or text read back from CSV (``"True"``, ``"1"``)."""
    if isinstance(value, str):
        return value.strip().lower() in ("true", "1", "1.0", "yes")
    return bool(value)


_KIND_TYPES: dict[str, Callable[[Any], Any]] = {
    "float": float,
    "int": int,
    "bool": _flag,
    "str": str,
}


def column_kinds() -> dict[str, str]:
    """``{column: "float" | "int" | "bool" | "str"}`` for :data:`COLUMNS`, from the annotations."""
    kinds = {f.name: str(f.type).split("|")[0].strip() for f in dataclasses.fields(RunRecord)}
    return {name: kinds[name] for name in COLUMNS}


def json_text(obj: Any) -> str:
    """``obj`` as the JSON text of a ``params``/``family_params``/``info`` column (sorted keys)."""
    return json.dumps(obj, sort_keys=True, default=jsonable, separators=(", ", ": "))


_SCALAR = str | int | float | bool | np.integer | np.floating | np.bool_


def scalar_info(info: Mapping[str, Any] | None) -> dict[str, Any]:
    """The scalar entries of a Solution's ``info`` (arrays and nested objects are left out)."""
    keep: dict[str, Any] = {}
    for key, value in dict(info or {}).items():
        if value is None or isinstance(value, _SCALAR):
            keep[str(key)] = value
    return keep


#: the shipped data files that change results, hashed with the code (globs relative to the
#: package root): the reference optima (ratios), the hard-instance library (the *-worst-found
#: families) and the built-in studies. The gate's baseline is not among them: it is what the
#: gate compares against, and ``anonratio gate --update`` rewrites it.
CODE_DATA = (
    "results/reference_optima.json",
    "results/hard_instances/*.json",
    "bench/studies/*.toml",
)
#: top-level folders never hashed (not installed with the package)
_NOT_CODE = frozenset({"tests", "docs", "results", "scratch", "build", "dist"})


def code_files(root: str | Path) -> list[str]:
    """The files the code identity hashes: paths relative to the package root ``root``.

    Every ``.py`` file of the root folder and of the package folders below it (folders holding an
    ``__init__.py``, reached through package folders, as ``setup.py`` installs them; hidden
    folders, ``__pycache__`` and the top-level ``tests``, ``docs``, ``results``, ``scratch``,
    ``build`` and ``dist`` left out), and the shipped data of :data:`CODE_DATA`. The same set for
    an installed copy and for the checkout it was installed from.

    Returns
    -------
    list of str
        Sorted POSIX paths relative to ``root``.
    """
    root = Path(root)
    files: set[str] = set()
    for folder, dirs, names in os.walk(root):
        here = Path(folder)
        top = here == root
        dirs[:] = [
            d
            for d in dirs
            if not d.startswith(".")
            and d != "__pycache__"
            and not (top and d in _NOT_CODE)
            and (here / d / "__init__.py").is_file()
        ]
        rel = here.relative_to(root)
        files.update((rel / name).as_posix() for name in names if name.endswith(".py"))
    for pattern in CODE_DATA:
        files.update(p.relative_to(root).as_posix() for p in root.glob(pattern) if p.is_file())
    return sorted(files)


def source_hash(root: str | Path) -> str:
    """SHA-256 (hex) of the package's source at ``root``: each file of :func:`code_files` as its
    relative path and the SHA-256 of its bytes, in path order."""
    root = Path(root)
    digest = hashlib.sha256()
    for rel in code_files(root):
        digest.update(rel.encode() + b"\0" + hashlib.sha256((root / rel).read_bytes()).digest())
    return digest.hexdigest()


@dataclass(frozen=True)
class CodeIdentity:
    """The code a process runs: :func:`code_identity`.

    Attributes
    ----------
    version : str
        The package version (``anonratio.__version__``).
    source : str
        :func:`source_hash` of the imported package's folder.
    commit : str or None
        ``git rev-parse HEAD`` when the package folder is a git checkout, else None.
    dirty : bool or None
        Whether ``git status --porcelain`` lists a change (None without git).
    root : str
        The imported package's folder.
    """

    version: str
    source: str
    commit: str | None
    dirty: bool | None
    root: str

    @property
    def label(self) -> str:
        """The ``version`` column: ``<version>+src.<source[:12]>``, then ``.g<commit[:9]>`` and
        ``.dirty`` in a git checkout (a PEP 440 local version)."""
        text = f"{self.version}+src.{self.source[:12]}"
        if self.commit:
            text += f".g{self.commit[:9]}" + (".dirty" if self.dirty else "")
        return text


def package_root() -> Path:
    """The folder of the imported ``anonratio`` package (``anonratio.__file__``), resolved: the
    installed copy, or the checkout when that is what is imported."""
    import anonratio

    return Path(anonratio.__file__).resolve().parent


def _git(root: Path, *args: str) -> str | None:
    try:
        return subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None


@cache
def code_identity() -> CodeIdentity:
    """The identity of the code this process runs (computed once per process).

    The source hash covers the files actually imported (:func:`package_root`, installed copy or
    checkout); git is asked only when that folder is itself a git checkout (it holds ``.git``),
    never a repository that merely encloses site-packages.
    """
    from anonratio import __version__

    root = package_root()
    commit = dirty = None
    if (root / ".git").exists():
        head = _git(root, "rev-parse", "HEAD")
        status = _git(root, "status", "--porcelain")
        commit = (head or "").strip() or None
        dirty = bool(status.strip()) if commit and status is not None else None
    return CodeIdentity(__version__, source_hash(root), commit, dirty, str(root))


def package_version() -> str:
    """The ``version`` column: :attr:`CodeIdentity.label` of :func:`code_identity`, e.g.
    ``0.1.0+src.3f2a9c0d1e4b.g1a2b3c4d5.dirty``."""
    return code_identity().label


def algorithm_seed(instance_seed: int | None, algorithm: str) -> int:
    """The ``seed`` column: the seed an algorithm gets for the instance generated with
    ``instance_seed``, ``SeedSequence([instance_seed, crc32(algorithm)])`` cut to 31 bits."""
    entropy = [int(instance_seed or 0) & 0xFFFFFFFF, zlib.crc32(algorithm.encode())]
    return int(np.random.SeedSequence(entropy).generate_state(1)[0] & 0x7FFFFFFF)
