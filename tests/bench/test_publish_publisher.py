"""The publishers (bench/publish/publisher.py, bench/publish/problems/): the generic publishing
code names no problem, each publishable problem's declaration names its publisher, and a problem
without one is refused, listing the publishable problems the registry declares."""

import ast
import dataclasses
from pathlib import Path

import pytest

import anonratio
from anonratio.bench.publish.publisher import (
    Publisher,
    load_publisher,
    publishable,
    publisher_of,
    publishers,
)
from anonratio.bench.publish.request import check_request
from anonratio.bench.registry import PROBLEMS, REGISTRY

BENCH = Path(anonratio.__file__).resolve().parent / "bench"

#: the modules of the generic publishing path
GENERIC = [
    *sorted((BENCH / "publish").glob("*.py")),
    BENCH / "cli" / "anonymize.py",
]


def _squash(text):
    return text.lower().replace("-", "").replace("_", "")


def _code_words(path):
    """Every identifier and string constant of ``path`` but its docstrings."""
    tree = ast.parse(path.read_text())
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) not in docstrings:
                yield node.lineno, node.value
        elif isinstance(node, ast.Name):
            yield node.lineno, node.id
        elif isinstance(node, ast.Attribute):
            yield node.lineno, node.attr
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            yield node.lineno, node.name
        elif isinstance(node, ast.alias):
            yield node.lineno, node.name
        elif isinstance(node, ast.ImportFrom):
            yield node.lineno, node.module or ""


def test_the_generic_publishing_code_names_no_problem():
    names = {_squash(p.name) for p in PROBLEMS.values()} | {"kanon", "ldiv"}
    found = [
        f"{path.name}:{line}: {word!r}"
        for path in GENERIC
        for line, word in _code_words(path)
        for name in names
        if name in _squash(word)
    ]
    assert len(GENERIC) >= 6 and not found, "\n".join(found)


def test_every_publishable_problem_declares_a_publisher():
    named = publishers()
    assert list(named) == publishable() == [p.name for p in PROBLEMS.values() if p.publisher]
    assert {"k-anonymity", "l-diversity", "r-gather", "r-cellular"} <= set(named)
    for problem, publisher in named.items():
        assert isinstance(publisher, Publisher), problem
        assert publisher.parameter in ("k", "l") and publisher.parameter_text
        default = publisher.default_algorithm
        assert default is None or REGISTRY[default].problem == problem


def test_a_problem_without_a_publisher_is_refused_listing_the_publishable_ones():
    with pytest.raises(ValueError) as caught:
        check_request(qi=["age"], k=3, algorithm="primal-dual")
    assert str(caught.value) == (
        f"algorithm 'primal-dual' solves cellular; anonymize publishes {publishable()}"
    )


def test_the_publisher_is_read_from_the_problem_declaration(monkeypatch):
    """Take r-gather's publisher out of its declaration: r-gather is no longer published."""
    monkeypatch.setitem(
        PROBLEMS, "r-gather", dataclasses.replace(PROBLEMS["r-gather"], publisher=None)
    )
    assert "r-gather" not in publishable() and "r-cellular" in publishable()
    with pytest.raises(ValueError, match=r"solves r-gather; anonymize publishes \[.*\]$") as e:
        check_request(qi=["age"], k=3, algorithm="r-gather")
    assert "r-gather" not in str(e.value).split("publishes")[1]
    request = check_request(qi=["age"], k=3, algorithm="r-cellular")
    assert request.publisher is publisher_of(REGISTRY["r-cellular"])


def test_load_publisher_checks_its_target():
    target = "anonratio.bench.publish.problems.clustering:PUBLISHER"
    assert load_publisher(target) is load_publisher(target)
    with pytest.raises(ValueError, match="a publisher is 'module:attribute'"):
        load_publisher("anonratio.bench.publish.problems.clustering")
    with pytest.raises(TypeError, match="not a Publisher"):
        load_publisher("anonratio.bench.publish.problems.clustering:ClusterPublisher")


def test_the_publisher_says_what_the_command_line_offers():
    """The options of one problem's publishing (withheld rows, clusters, hierarchies) come from
    its publisher, not from its name."""
    offers = {
        problem: (p.withheld_rows, p.clusters, "hierarchies" in p.options)
        for problem, p in publishers().items()
    }
    assert offers["k-anonymity"] == (True, False, True)
    assert offers["l-diversity"] == (False, False, False)
    assert offers["r-gather"] == offers["r-cellular"] == (False, True, False)
