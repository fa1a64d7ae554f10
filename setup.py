"""Package discovery for the repository-root layout; all metadata is in ``pyproject.toml``.

The repository root is the ``anonratio`` package and its layers are the top-level folders
(docs/architecture.md). Every folder with an ``__init__.py`` below a layer is installed as
``anonratio.<layer>.<...>``, so a new problem subpackage needs no packaging change; nothing is
installed under a generic top-level name such as ``solvers``, ``exact`` or ``bench``.
"""

import tempfile
from pathlib import Path

from setuptools import setup

LAYERS = ("instances", "solvers", "exact", "bench")
ROOT = Path(__file__).resolve().parent

packages = ["anonratio"] + sorted(
    ".".join(("anonratio", *init.parent.relative_to(ROOT).parts))
    for layer in LAYERS
    for init in (ROOT / layer).rglob("__init__.py")
)

# `pip install .` builds in the checkout: send setuptools' build/ and *.egg-info to a temporary
# folder so that installing leaves nothing behind in the repository
SCRATCH = tempfile.mkdtemp(prefix="anonratio-build-")

setup(
    packages=packages,
    package_dir={"anonratio": "."},
    options={"build": {"build_base": SCRATCH}, "egg_info": {"egg_base": SCRATCH}},
)
