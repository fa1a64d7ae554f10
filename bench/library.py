"""The library of hard instances: the worst instance the hunter found for each algorithm,
committed under ``results/hard_instances/<algorithm>.json`` (instance files with their ratio,
optimum and guarantee in ``meta``), and the ``<prefix>-worst-found`` families that read it, so
that the reference optima, the asv ratio benchmarks and the quality gate track them like any
other instance.

``anonratio hunt --library [DIR]`` writes to a checkout or a folder of the user's, never into an
installed package (:func:`writable_library`): a hunt must not change what ``gate`` and
``reference`` see in an installation. Reading the shipped library is unchanged.
"""

from __future__ import annotations

import site
import sysconfig
from pathlib import Path
from typing import Any

from anonratio.bench.declarations import Family
from anonratio.instances.io import load_instance, save_instance

__all__ = [
    "LIBRARY",
    "library_entries",
    "library_path",
    "offer",
    "worst_found_family",
    "writable_library",
]

#: the committed folder of hard instances
LIBRARY = Path(__file__).resolve().parent.parent / "results" / "hard_instances"


def _install_dirs() -> list[Path]:
    """The folders packages are installed in (site-packages of this interpreter and the user)."""
    dirs = {sysconfig.get_paths().get(k) for k in ("purelib", "platlib")}
    dirs.update(site.getsitepackages() if hasattr(site, "getsitepackages") else [])
    dirs.add(site.getusersitepackages())
    return [Path(d).resolve() for d in dirs if d]


def _installed_under(path: Path) -> Path | None:
    """The install folder ``path`` lies in (None if it lies in none)."""
    path = path.resolve()
    for part in (path, *path.parents):
        if part.name in ("site-packages", "dist-packages"):
            return part
    return next((d for d in _install_dirs() if path.is_relative_to(d)), None)


def writable_library(folder: str | Path | None = None) -> Path:
    """The folder ``anonratio hunt --library [DIR]`` may write to.

    Parameters
    ----------
    folder : str or Path, optional
        The user's folder (created when written to); None: ``results/hard_instances`` of the
        checkout this package runs from.

    Returns
    -------
    Path

    Raises
    ------
    ValueError
        ``folder`` lies inside an installed package folder (``site-packages``) or is a file;
        without ``folder``, the package is installed rather than run from a checkout (no
        ``pyproject.toml`` beside it): the message asks for ``--library DIR``.
    """
    if folder is None or str(folder) == "":
        root = LIBRARY.parent.parent
        where = _installed_under(LIBRARY)
        if where is not None or not (root / "pyproject.toml").is_file():
            raise ValueError(
                f"`--library`: anonratio runs from an installed copy ({root}), not a checkout; "
                "its library is not written to: give a folder of your own, --library DIR"
            )
        return LIBRARY
    path = Path(folder)
    where = _installed_under(path)
    if where is not None:
        raise ValueError(
            f"`--library` {str(folder)!r} lies inside the installed packages ({where}): "
            "write the library to a checkout or a folder of your own"
        )
    if path.exists() and not path.is_dir():
        raise ValueError(f"`--library` {str(folder)!r} is a file, not a folder")
    return path


def library_path(algorithm: str, library: Path | None = None) -> Path:
    """The library file of ``algorithm``."""
    return (LIBRARY if library is None else Path(library)) / f"{algorithm}.json"


def library_entries(problem: str | None = None, library: Path | None = None) -> dict[str, dict]:
    """algorithm -> the ``meta`` of its library instance, with its ``problem`` (of ``problem``
    only, if given)."""
    folder = LIBRARY if library is None else Path(library)
    out = {}
    for path in sorted(folder.glob("*.json")):
        instance, meta = load_instance(path)
        if problem is None or instance.problem == problem:
            out[path.stem] = {**meta, "problem": instance.problem}
    return out


def offer(instance: Any, meta: dict[str, Any], library: Path | None = None) -> bool:
    """Keep ``instance`` as its algorithm's library instance if its proven ratio beats the one
    there (or there is none); ``True`` if it was written.

    ``library``: the folder (default: the checkout's); :func:`writable_library` refuses an
    installed package's folder with ``ValueError``.
    """
    path = library_path(meta["hunted"], writable_library(library))
    if path.exists():
        old = load_instance(path)[1]
        if old.get("ratio") is not None and float(old["ratio"]) >= float(meta["ratio"]):
            return False
    save_instance(path, instance, meta=meta)
    return True


def _build(problem: str):
    def build(rng: Any, *, algorithm: str) -> tuple[Any, dict[str, Any]]:
        path = library_path(algorithm)
        if not path.exists():
            known = sorted(library_entries(problem))
            raise ValueError(
                f"`algorithm` {algorithm!r} has no {problem} instance in {LIBRARY}; known: {known}"
            )
        instance, meta = load_instance(path)
        if instance.problem != problem:
            raise ValueError(
                f"`algorithm` {algorithm!r}: its library instance is {instance.problem}"
            )
        return instance, {"optimum": meta["optimum"]}

    return build


def worst_found_family(prefix: str, problem: str, algorithm: str) -> Family:
    """The family ``<prefix>-worst-found`` of ``problem``: parameter ``algorithm`` (default
    ``algorithm``) names the library instance; the seed is ignored."""
    return Family(
        f"{prefix}-worst-found",
        problem,
        f"the hardest {problem} instance the worst-case hunter found for an algorithm "
        "(results/hard_instances; `anonratio hunt ALGORITHM --library`)",
        {"algorithm": algorithm},
        _build(problem),
    )
