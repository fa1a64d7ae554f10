"""Names of a package that load on first use (PEP 562 module ``__getattr__``).

A package that re-exports its subpackages' functions would import all of them (and OR-Tools,
scipy, pandas with them) when it is imported. :class:`LazyExports` holds where each name lives
and loads it on first access; the package defines its two hooks in one line each::

    _EXPORTS = LazyExports(__name__, {"verify": "anonratio.instances.base:verify"})

    def __getattr__(name: str) -> Any:
        return _EXPORTS.load(name)

    def __dir__() -> list[str]:
        return _EXPORTS.names()
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from importlib import import_module
from typing import Any

__all__ = ["LazyExports"]


class LazyExports:
    """The lazily loaded names of ``package``.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    targets : mapping
        name -> ``"module:attribute"`` (an attribute of that module) or ``"module"`` (the module
        itself), with absolute module names.
    """

    def __init__(self, package: str, targets: Mapping[str, str]) -> None:
        self.package = package
        self.targets = dict(targets)

    def load(self, name: str) -> Any:
        """The value of ``name``, imported now and kept as a plain attribute of the package;
        ``AttributeError`` for a name the package does not have."""
        target = self.targets.get(name)
        if target is None:
            raise AttributeError(f"module {self.package!r} has no attribute {name!r}")
        module, _, attribute = target.partition(":")
        value = import_module(module)
        if attribute:
            value = getattr(value, attribute)
        setattr(sys.modules[self.package], name, value)  # the next access skips the hook
        return value

    def names(self) -> list[str]:
        """``dir()`` of the package: its loaded attributes and the lazy names."""
        return sorted({*vars(sys.modules[self.package]), *self.targets})
