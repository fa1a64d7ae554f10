"""The layers and their import rules (docs/architecture.md), read from the source with ``ast``.

* ``instances`` imports none of ``solvers``, ``exact``, ``bench``;
* ``exact`` imports neither ``solvers`` nor ``bench``; ``solvers`` does not import ``bench``
  (it may use ``exact``'s model runner);
* no import cycle between modules, function-level imports included (imports needed only by the
  type checker, under ``if TYPE_CHECKING:``, run nowhere and are left out);
* every problem has the same name in every layer that has something for it;
* inside ``bench``, imports point one way between its groups (:data:`BENCH_ORDER`), function-level
  imports included: a module may import its own group and the groups below it, never a group
  above it or a sibling group of the same rank.
"""

import ast
import re
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("instances", "solvers", "exact", "bench")

#: layer -> the layers it must not import
FORBIDDEN = {
    "instances": {"solvers", "exact", "bench"},
    "exact": {"solvers", "bench"},
    "solvers": {"bench"},
    "bench": set(),
}

#: the problem subpackages: one declaration module per problem in bench/problems
PROBLEMS = tuple(
    sorted(p.stem for p in (ROOT / "bench" / "problems").glob("*.py") if p.stem != "__init__")
)


def _module_name(path):
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(["anonratio", *parts])


def _modules():
    out = {}
    for layer in LAYERS:
        for path in sorted((ROOT / layer).rglob("*.py")):
            out[_module_name(path)] = path
    return out


MODULES = _modules()


def _resolve(module, node, is_package):
    """Absolute module names an import statement of ``module`` refers to."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = module if is_package else module.rsplit(".", 1)[0]
    for _ in range(node.level - 1):
        base = base.rsplit(".", 1)[0]
    target = node.module or ""
    if node.level:
        target = f"{base}.{target}" if target else base
    # `from package import submodule` imports the submodule
    subs = [f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in MODULES]
    return [target, *subs]


def _runtime_imports(tree):
    """Every import statement, at any depth, except those under ``if TYPE_CHECKING:``."""
    skip = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom) and id(node) not in skip
    ]


def _imports():
    graph = nx.DiGraph()
    for module, path in MODULES.items():
        graph.add_node(module)
        tree = ast.parse(path.read_text(), filename=str(path))
        is_package = path.name == "__init__.py"
        for node in _runtime_imports(tree):
            for target in _resolve(module, node, is_package):
                if target in MODULES and target != module:
                    graph.add_edge(module, target, line=node.lineno)
    return graph


GRAPH = _imports()


def _layer(module):
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def test_the_graph_is_read():
    """The scan sees the real structure (so the rules below are not vacuous)."""
    assert len(MODULES) > 80
    assert GRAPH.has_edge("anonratio.bench.registry", "anonratio.bench.problems")
    assert GRAPH.has_edge("anonratio.solvers.kanonymity.forest", "anonratio.instances")


@pytest.mark.parametrize("layer", LAYERS)
def test_layer_imports(layer):
    bad = [
        f"{a} imports {b} (line {GRAPH.edges[a, b]['line']})"
        for a, b in GRAPH.edges
        if _layer(a) == layer and _layer(b) in FORBIDDEN[layer]
    ]
    assert not bad, "\n".join(bad)


def test_no_import_cycles():
    cycles = list(nx.simple_cycles(GRAPH))
    shown = [" -> ".join([*c, c[0]]) for c in cycles[:10]]
    assert not cycles, "import cycles:\n" + "\n".join(shown)


def test_one_name_per_problem_in_every_layer():
    import importlib

    from anonratio.bench.problems import DECLARED

    declared = []
    for name in PROBLEMS:  # each declaration module declares PROBLEM, or PROBLEMS
        module = importlib.import_module(f"anonratio.bench.problems.{name}")
        found = getattr(module, "PROBLEMS", None) or (module.PROBLEM,)
        declared += [p.name for p in found]
    assert sorted(declared) == sorted(p.name for p in DECLARED)
    for layer in ("instances", "solvers", "exact"):
        present = {p.name for p in (ROOT / layer).iterdir() if (p / "__init__.py").exists()}
        assert present <= set(PROBLEMS), f"{layer}: {sorted(present - set(PROBLEMS))}"
    for problem in PROBLEMS:
        assert (ROOT / "instances" / problem / "__init__.py").exists()


def test_no_module_over_500_lines():
    long = {m: n for m, p in MODULES.items() if (n := len(p.read_text().splitlines())) > 500}
    assert not long, long


#: the groups of ``bench`` from the bottom up; groups sharing a rank do not import each other
BENCH_ORDER = (
    {"core"},
    {"engine"},
    {"publish", "report"},
    {"api"},
    {"tracking", "experiments"},
    {"cli", "benchmarks"},
)
BENCH_RANK = {group: rank for rank, groups in enumerate(BENCH_ORDER) for group in groups}
#: the top-level modules and subpackages of ``bench`` that are not a group of their own name
CORE = {"__init__", "declarations", "problem", "registry", "errors", "library", "problems"}


def _bench_group(module):
    """The group of a ``bench`` module, from its path: the subpackage it sits in
    (``bench/engine/runner.py``: ``engine``) or, at the top, its name; the core for :data:`CORE`."""
    path = MODULES[module].relative_to(ROOT / "bench")
    top = path.parts[0] if len(path.parts) > 1 else path.stem
    return "core" if top in CORE else top


def test_every_bench_module_has_a_group():
    groups = {_bench_group(m) for m in MODULES if _layer(m) == "bench"}
    assert groups == set(BENCH_RANK), sorted(groups ^ set(BENCH_RANK))


def test_bench_has_a_handful_of_top_level_modules():
    top = sorted(p.stem for p in (ROOT / "bench").glob("*.py"))
    assert len(top) <= 8, top


def test_bench_imports_point_one_way():
    bad = []
    for a, b in GRAPH.edges:
        if _layer(a) != "bench" or _layer(b) != "bench":
            continue
        ga, gb = _bench_group(a), _bench_group(b)
        if ga != gb and BENCH_RANK[gb] >= BENCH_RANK[ga]:
            bad.append(f"{a} ({ga}) imports {b} ({gb}) (line {GRAPH.edges[a, b]['line']})")
    assert not bad, "\n".join(bad)


def test_the_one_way_rule_is_read():
    """The rule above sees real imports upward and would see one downward."""
    assert GRAPH.has_edge("anonratio.bench.cli.parser", "anonratio.bench.cli.common")
    assert GRAPH.has_edge("anonratio.bench.tracking.gate", "anonratio.bench.engine.record")
    assert _bench_group("anonratio.bench.engine.runner") == "engine"
    assert _bench_group("anonratio.bench.registry") == "core"


def test_hooks_resolve_to_higher_groups():
    """The lazily imported ``"module:function"`` names of the lower groups' hooks (report
    findings, study task generators) exist and point upward, never downward."""
    from anonratio.bench.engine.studies import GENERATORS
    from anonratio.bench.report import findings

    for owner, sources in (("report", findings.SOURCES), ("engine", GENERATORS)):
        for source in sources:
            assert callable(findings.resolve(source)), source
            module = source.partition(":")[0]
            assert BENCH_RANK[_bench_group(module)] > BENCH_RANK[owner], source


#: the places of bench where a module is about one problem or one paper: the declarations, the
#: publishers, the paper reproductions and the long asv benchmarks of one problem at scale
PROBLEM_SPECIFIC = (
    "bench/problems/",
    "bench/publish/problems/",
    "bench/experiments/",
    "bench/benchmarks/long_scale.py",
    "bench/benchmarks/long_bin_covering.py",
)


def _code_strings(tree):
    """The string constants of a module's code (docstrings and argparse help texts left out:
    they may give a problem as an example)."""
    skip = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            if isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
                skip.add(id(body[0].value))
        if isinstance(node, ast.keyword) and node.arg in ("help", "description", "epilog"):
            skip.update(id(n) for n in ast.walk(node.value))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            yield node


def test_generic_bench_code_names_no_problem():
    """The generic bench reads every per-problem fact from the declarations: no problem name, no
    family prefix in its code (``git grep`` finds them in docstrings and help texts only)."""
    from anonratio.bench.registry import PROBLEMS as DECLARED_PROBLEMS

    names = set(DECLARED_PROBLEMS)
    prefixes = {f"{p.prefix}-" for p in DECLARED_PROBLEMS.values()}
    bad = []
    for module, path in MODULES.items():
        rel = path.relative_to(ROOT).as_posix()
        if _layer(module) != "bench" or rel.startswith(PROBLEM_SPECIFIC):
            continue
        for node in _code_strings(ast.parse(path.read_text())):
            text = node.value
            words = set(re.findall(r"[a-z][a-z-]*[a-z]", text))
            if words & names or any(w.startswith(tuple(prefixes)) for w in words):
                bad.append(f"{rel}:{node.lineno}: {text[:60]!r}")
    assert not bad, "\n".join(bad)
