"""The README is a front page with the README contract's two commands; ``anonratio list``.

The algorithm table itself is checked in ``docs/algorithms.md`` (tests/bench/test_docs.py).
"""

import json
from pathlib import Path

from anonratio.bench.cli.parser import main
from anonratio.bench.registry import REGISTRY
from anonratio.bench.report.summary import algorithms_markdown

#: the checkout's README (tests run from a checkout; the installed package holds no README)
README = Path(__file__).resolve().parents[2] / "README.md"

#: the README contract: the command that installs and runs the main job, and the tests' (.ci/run)
INSTALL_AND_RUN = "pip install . && anonratio run quick --out scratch/quick"
INSTALL_AND_TEST = 'pip install ".[test]" && python -m pytest'


def test_readme_is_a_front_page_with_the_two_commands():
    text = README.read_text(encoding="utf-8")
    assert len(text.encode("utf-8")) <= 12_000, "the README is a front page: move detail to docs/"
    for command in (INSTALL_AND_RUN, INSTALL_AND_TEST):
        assert f"```bash\n{command}\n```" in text, command
    assert "](docs/index.md)" in text


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
    assert "| `kanon-cpsat` | k-anonymity | exact |" in out


def test_list_json_gives_one_name_per_algorithm(capsys):
    assert main(["list", "--json"]) == 0
    algos = {a["name"]: a for a in json.loads(capsys.readouterr().out)["algorithms"]}
    assert "kanon-highs" in algos and "highs" not in algos
    assert all("aliases" not in a for a in algos.values())


def test_list_json_and_markdown_exclude_each_other(capsys):
    assert main(["list", "--json", "--markdown"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("anonratio: error: argument --markdown: not allowed with argument --json")
