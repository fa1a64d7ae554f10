"""The README's algorithm table is ``anonratio list --markdown``, generated from the registry."""

import json
from pathlib import Path

from anonratio.bench.cli import main
from anonratio.bench.registry import REGISTRY
from anonratio.bench.report import algorithms_markdown

#: the checkout's README (tests run from a checkout; the installed package holds no README)
README = Path(__file__).resolve().parents[2] / "README.md"


def _algorithms_section():
    text = README.read_text(encoding="utf-8")
    start = text.index("\n## Algorithms\n")
    end = text.index("\n## ", start + 1)
    return text[start:end]


def test_readme_algorithm_table_is_the_registry_table():
    table = algorithms_markdown()
    assert table in _algorithms_section(), (
        "the README's algorithm table differs from the registry: replace it in the "
        "'## Algorithms' section by the output of `anonratio list --markdown`"
    )


def test_list_markdown_prints_the_table(capsys):
    assert main(["list", "--markdown"]) == 0
    out = capsys.readouterr().out
    assert out == algorithms_markdown() + "\n"
    lines = out.splitlines()
    assert lines[0] == "| name | problem | kind | proven guarantee | source | running time |"
    assert len(lines) == 2 + len(REGISTRY)
    for line, alg in zip(lines[2:], REGISTRY.values(), strict=True):
        assert line.startswith(f"| `{alg.name}`")
        assert f"| {alg.problem} | {alg.kind} |" in line
    assert "| `kanon-cpsat` (alias `cpsat`) | k-anonymity | exact |" in out


def test_list_json_names_the_aliases(capsys):
    assert main(["list", "--json"]) == 0
    algos = {a["name"]: a for a in json.loads(capsys.readouterr().out)["algorithms"]}
    assert algos["kanon-highs"]["aliases"] == ["highs"] and algos["forest"]["aliases"] == []


def test_list_json_and_markdown_exclude_each_other(capsys):
    assert main(["list", "--json", "--markdown"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("anonratio: error: argument --markdown: not allowed with argument --json")
