"""Tests of instances/lazy_exports.py: a package's names load on first use, once."""

import subprocess
import sys
import types

import pytest

from anonratio.instances.lazy_exports import LazyExports


def _package(name, targets):
    module = types.ModuleType(name)
    sys.modules[name] = module
    return module, LazyExports(name, targets)


def test_a_name_loads_on_first_use_and_stays_a_plain_attribute():
    module, exports = _package("lazy_pkg_a", {"sqrt": "math:sqrt", "json": "json"})
    import json
    import math

    assert "sqrt" not in vars(module)
    assert exports.load("sqrt") is math.sqrt and vars(module)["sqrt"] is math.sqrt
    assert exports.load("json") is json  # a module itself
    assert exports.names() == sorted({*vars(module), "sqrt", "json"})
    del sys.modules["lazy_pkg_a"]


def test_an_unknown_name_is_an_attribute_error_naming_the_package():
    _, exports = _package("lazy_pkg_b", {"sqrt": "math:sqrt"})
    with pytest.raises(AttributeError, match="module 'lazy_pkg_b' has no attribute 'cbrt'"):
        exports.load("cbrt")
    del sys.modules["lazy_pkg_b"]


#: (package, name, the module that name loads), in the order one interpreter checks them: a
#: subpackage after its parent, whose check asserts the subpackage still unloaded
LAZY = [
    ("anonratio.instances", "verify", "anonratio.instances.base"),
    ("anonratio.solvers", "k_anonymize", "anonratio.solvers.kanonymity"),
    ("anonratio.solvers.kanonymity", "forest", "anonratio.solvers.kanonymity.forest"),
    ("anonratio.exact", "solve_ldiversity", "anonratio.exact.ldiversity"),
]


def test_the_packages_load_their_names_only_when_asked():
    """In one fresh interpreter, each package in turn: importing it leaves the module behind
    its name unloaded, asking for the name loads it and lists the name."""
    code = ["import importlib, sys"]
    for package, name, module in LAZY:
        code += [
            f"p = importlib.import_module({package!r}); assert {module!r} not in sys.modules",
            f"p.{name}; assert {module!r} in sys.modules; assert {name!r} in dir(p)",
        ]
    subprocess.run([sys.executable, "-c", "\n".join(code)], check=True)
