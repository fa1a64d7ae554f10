"""Line numbers of keys and values in the text of a study file
(:mod:`anonratio.bench.engine.studies`).

:mod:`tomllib` reports positions only for syntax errors, not for the keys of a parsed document.
:meth:`Locator.line` finds them by scanning the text: it splits the file into the top-level part
and one block per ``[[sweep]]`` header, then looks inside the block of the offending entry for a
line assigning the key (``key =``, also inside inline tables), after the line of its parent key
(``[sweep.grid]`` or ``grid =``), and for a value it looks from there for the value's TOML
spelling (``"frest"``), which finds entries of arrays written over several lines. When nothing
matches it falls back to the block's header line (or line 1).
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["Locator"]

_SWEEP_HEADER = re.compile(r"^\s*\[\[\s*sweep\s*\]\]")


def _toml_key(key: str) -> str:
    k = re.escape(key)
    return rf"(?:{k}|\"{k}\"|'{k}')"


class Locator:
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
