"""The hook through which experiments add their findings to a report.

The report is generic: it names no experiment and imports none. An experiment that checks a
paper's findings on its own runs (Figure 7 of Du et al. 2009, the l-diversity experiments of Xiao
et al. 2010) provides a function ``report_findings(df, out_dir) -> Findings | None``: ``None``
when ``df`` holds none of its runs, otherwise the figures and files it wrote into ``out_dir`` and
the verdicts the report shows. :data:`SOURCES` lists these functions as ``"module:function"``
strings, imported with :mod:`importlib` when a report is written, so that the lower layer
(``report``) never imports the higher one (``experiments``) while the report still finds them
(the same scheme as the task generators of studies,
:data:`anonratio.bench.engine.studies.GENERATORS`). ``tests/test_architecture.py`` checks that
every entry resolves. An experiment outside the package adds itself with :func:`register`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Findings", "SOURCES", "collect", "register", "resolve"]


@dataclass(frozen=True)
class Findings:
    """What an experiment adds to a report.

    Attributes
    ----------
    key : str
        The key under which :func:`~anonratio.bench.report.summary.write_report` returns ``data``.
    title : str
        The heading of the findings on the report page.
    verdicts : list of (str, bool)
        ``(statement, holds)`` for the page.
    summary_title : str
        The heading of the findings in the terminal summary.
    summary_lines : list of str
        One line per finding in the terminal summary.
    markdown : str
        The findings in Markdown (``report.md``).
    files : list of Path
        The files written (PNG figures and finding files).
    data : Any
        The experiment's own record of its findings.
    """

    key: str
    title: str
    verdicts: list[tuple[str, bool]]
    summary_title: str
    summary_lines: list[str]
    markdown: str
    files: list[Path] = field(default_factory=list)
    data: Any = None


#: the experiments that add findings to a report, as ``"module:function"``; the first that finds
#: its runs in a frame reports
SOURCES: list[str] = [
    "anonratio.bench.experiments.fig7_plot:report_findings",
    "anonratio.bench.experiments.paper_ldiv:report_findings",
]


def register(source: str) -> None:
    """Add ``"module:function"`` to :data:`SOURCES` (once)."""
    module, sep, name = source.partition(":")
    if not (module and sep and name):
        raise ValueError(f"`source` must look like 'module:function', got {source!r}")
    if source not in SOURCES:
        SOURCES.append(source)


def resolve(source: str) -> Callable[..., Findings | None]:
    """The function a ``"module:function"`` entry names."""
    module, _, name = source.partition(":")
    return getattr(importlib.import_module(module), name)


def collect(df: pd.DataFrame, out_dir: Path) -> Findings | None:
    """The findings of the first source whose runs are in ``df`` (files written to ``out_dir``),
    or None."""
    for source in SOURCES:
        found = resolve(source)(df, out_dir)
        if found is not None:
            return found
    return None
