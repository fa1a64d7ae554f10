"""The documentation pages stay true: generated tables, links and the commands they show.

The algorithm table of ``docs/algorithms.md`` is ``anonratio list --markdown``, every relative
link of the README and of ``docs/`` reaches an existing file (and heading), and every command of a
``bash`` block starts with a known program; an ``anonratio`` command names a subcommand and
options that the command line's own parser accepts (parsed, not run).
"""

import re
import shlex
import unicodedata
from pathlib import Path

import pytest

from anonratio.bench.cli.parser import build_parser
from anonratio.bench.errors import UsageError
from anonratio.bench.registry import FAMILIES, get_algorithm
from anonratio.bench.report.summary import algorithms_markdown

#: the checkout's root (tests run from a checkout; the installed package holds no docs)
ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README, *sorted(DOCS.rglob("*.md"))]

#: programs a ``bash`` block may run
PROGRAMS = {
    "anonratio",
    "asv",
    "cd",
    "export",
    "git",
    "head",
    "mypy",
    "pip",
    "printf",
    "python",
    "ruff",
}
#: the value that stands in for an environment variable or a command substitution
DUMMY = "/tmp/anonratio-docs-dummy"

_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)


def _prose(text):
    """The text without its fenced code blocks (a ``#`` there is no heading)."""
    return _FENCE.sub("", text)


def _slug(heading):
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = heading.strip().lower()
    text = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LN")
    return text.replace(" ", "-")


def _anchors(page):
    anchors, seen = set(), {}
    for line in _prose(page.read_text(encoding="utf-8")).splitlines():
        if m := re.match(r"^#{1,6} (.+)$", line):
            slug = _slug(m.group(1))
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            anchors.add(slug if n == 0 else f"{slug}-{n}")
    return anchors


def _links():
    for page in PAGES:
        for target in _LINK.findall(_prose(page.read_text(encoding="utf-8"))):
            if not re.match(r"^[a-z]+:", target):
                yield pytest.param(page, target, id=f"{page.relative_to(ROOT)}:{target}")


def _commands():
    """Every command of every ``bash`` block: (page, line, tokens), pipelines and ``&&`` split."""
    for page in PAGES:
        for lang, body in _FENCE.findall(page.read_text(encoding="utf-8")):
            if lang != "bash":
                continue
            for line in body.splitlines():
                line = re.sub(r"\$\([^)]*\)", DUMMY, line)
                line = re.sub(r"\$\{?[A-Z_]+\}?", DUMMY, line)
                lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|<>")
                lexer.whitespace_split = True
                tokens, command = list(lexer), []
                for tok in [*tokens, ";"]:
                    if tok in {";", "&&", "||", "|"}:
                        if command:
                            yield page, line, command
                        command = []
                    else:
                        command.append(tok)


def _program(command):
    """The program a command runs (its path's last part), and its arguments, redirections cut."""
    words = list(command)
    while words and re.match(r"^[A-Z_]+=", words[0]):
        words.pop(0)
    args, skip = [], False
    for word in words[1:]:
        if skip:
            skip = False
        elif word in {">", ">>", "<"}:
            skip = True
        else:
            args.append(word)
    return Path(words[0]).name, args


COMMANDS = list(_commands())


def test_algorithms_page_is_the_registry_table():
    text = (DOCS / "algorithms.md").read_text(encoding="utf-8")
    assert algorithms_markdown() in text, (
        "docs/algorithms.md's algorithm table differs from the registry: replace it by the output "
        "of `anonratio list --markdown`"
    )


def test_index_lists_every_page():
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    listed = {(DOCS / t).resolve() for t in _LINK.findall(index)}
    pages = {p.resolve() for p in DOCS.rglob("*.md") if p.name != "index.md"}
    assert pages - listed == set()


@pytest.mark.parametrize(("page", "target"), list(_links()))
def test_relative_link_reaches_a_file_and_heading(page, target):
    path, _, anchor = target.partition("#")
    dest = (page.parent / path).resolve() if path else page
    assert dest.exists(), f"{page.relative_to(ROOT)}: link {target!r}: no file {dest}"
    if anchor and dest.suffix == ".md":
        assert anchor in _anchors(dest), f"{page.relative_to(ROOT)}: no heading #{anchor}"


def test_the_pages_show_commands():
    assert len(COMMANDS) > 40
    assert sum(_program(c)[0] == "anonratio" for _, _, c in COMMANDS) > 20


@pytest.mark.parametrize(
    ("page", "line", "command"),
    [pytest.param(*c, id=f"{c[0].relative_to(ROOT)}:{' '.join(c[2])[:60]}") for c in COMMANDS],
)
def test_command_runs_a_known_program(page, line, command):
    program, args = _program(command)
    assert program in PROGRAMS, f"{page.relative_to(ROOT)}: unknown program in {line!r}"
    if program == "anonratio":
        ns = build_parser().parse_args(args)  # raises UsageError on what it does not know
        names = getattr(ns, "algorithm", None) or []
        for name in [names] if isinstance(names, str) else names:
            get_algorithm(name)  # a registered name (raises on an unknown one)
        if ns.command == "generate":
            assert ns.family in FAMILIES, f"{page.relative_to(ROOT)}: unknown family in {line!r}"


def test_parse_check_catches_a_wrong_option():
    with pytest.raises(UsageError, match="unrecognized arguments: --algoritm"):
        build_parser().parse_args(["solve", "i.json", "--algorithm", "forest", "--algoritm", "x"])
    with pytest.raises(UsageError, match="invalid choice: 'frobnicate'"):
        build_parser().parse_args(["frobnicate"])


def test_slug_is_githubs():
    hunter = "The worst-case hunter (`anonratio hunt`)"
    assert _slug(hunter) == "the-worst-case-hunter-anonratio-hunt"
    assert _slug("Reproducing the experiments of §6.1") == "reproducing-the-experiments-of-61"


def _python_blocks():
    """Every ``python`` block of the pages but docs/api.md's (tests/bench/test_api.py runs it)."""
    for page in sorted([README, *DOCS.rglob("*.md")]):
        if page == DOCS / "api.md":
            continue
        text = page.read_text(encoding="utf-8")
        for i, block in enumerate(re.findall(r"```python\n(.*?)```", text, re.S)):
            yield pytest.param(block, id=f"{page.relative_to(ROOT)}#{i}")


@pytest.mark.parametrize("block", list(_python_blocks()))
def test_python_example_runs_as_written(block, capsys):
    exec(compile(block, "<docs example>", "exec"), {})  # noqa: S102 - the page's own example
    assert capsys.readouterr().out.strip(), "the example prints what it shows"
