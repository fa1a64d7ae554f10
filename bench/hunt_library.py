"""The library of hard instances: the worst instance the hunter found for each algorithm,
committed under ``results/hard_instances/<algorithm>.json`` (instance files with their ratio,
optimum and guarantee in ``meta``), and the ``<prefix>-worst-found`` families that read it, so
that the reference optima, the asv ratio benchmarks and the quality gate track them like any
other instance.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from anonratio.bench.declarations import Family
from anonratio.instances.io import load_instance, save_instance

__all__ = [
    "LIBRARY",
    "PREFIX",
    "library_entries",
    "library_path",
    "offer",
    "worst_found_family",
]

#: the committed folder of hard instances
LIBRARY = Path(__file__).resolve().parent.parent / "results" / "hard_instances"

#: problem -> the prefix of its family names (``kanon-worst-found``)
PREFIX = {
    "k-anonymity": "kanon",
    "bin-covering": "bc",
    "zip-codes": "zip",
    "gps-rectangles": "gps",
    "r-gather": "rgather",
    "r-eps-gather": "repsgather",
    "kr-center": "krcenter",
    "cellular": "cellular",
    "r-cellular": "rcellular",
    "l-diversity": "ldiv",
}


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
    there (or there is none); ``True`` if it was written."""
    path = library_path(meta["hunted"], library)
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


def worst_found_family(problem: str, algorithm: str) -> Family:
    """The family ``<prefix>-worst-found`` of ``problem``: parameter ``algorithm`` (default
    ``algorithm``) names the library instance; the seed is ignored."""
    return Family(
        f"{PREFIX[problem]}-worst-found",
        problem,
        f"the hardest {problem} instance the worst-case hunter found for an algorithm "
        "(results/hard_instances; `anonratio hunt ALGORITHM --library`)",
        {"algorithm": algorithm},
        _build(problem),
    )
