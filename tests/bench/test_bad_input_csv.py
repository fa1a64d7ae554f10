"""``anonratio anonymize`` on the CSV and hierarchy files a demanding user would try.

Bad input ends with exit status 2 and one line ``anonratio: error: ...`` naming the parameter or
the file and line; no output file is created and the input files are left byte for byte as they
were. Odd but valid files (byte-order mark, CRLF line ends, quoted separators and line breaks,
empty cells, blank lines, tabs) are read correctly and published in their own shape; each
published table is re-verified independently (``reverify`` in conftest.py).

Decided: the input must be UTF-8 (a Latin-1 file is refused with a message saying how to convert
it, never read as mojibake); an empty or blank cell is the value ``''`` like any other; a line of
separators only is refused (it is no record, and dropping it silently would change the rows).
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from anonratio.bench.cli.parser import main

HEADER = "age;sex;zip;disease"
ROWS = [
    "34;M;13053;flu",
    "36;M;13068;cold",
    "35;F;13053;flu",
    "51;F;14850;cancer",
    "52;M;14853;flu",
    "55;F;14850;cold",
    "23;M;13053;hiv",
    "27;F;13068;flu",
    "28;M;13067;cold",
    "58;M;14853;cancer",
    "24;F;13068;flu",
    "33;F;13053;cold",
]
QI = ["age", "sex", "zip"]
GOOD = HEADER + "\n" + "\n".join(ROWS) + "\n"
ZIP_HIER = "".join(f"{z};{z[:4]}*;{z[:2]}***;*\n" for z in sorted({r.split(";")[2] for r in ROWS}))


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def _run(capsys, data, *extra, qi="age,sex,zip", k="3", out=None):
    out = out if out is not None else data.parent / "out.csv"
    argv = ["anonymize", str(data), "--qi", qi, "--k", str(k), "--out", str(out), *extra]
    return main(argv), out


def _refused(capsys, tmp_path, data, *extra, message, out=None, **kw):
    """Run; exit 2, one line matching ``message``, no output, every input file unchanged."""
    before = _snapshot(tmp_path)
    code, out = _run(capsys, data, *extra, out=out, **kw)
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert code == 2, captured.err
    assert len(lines) == 1 and lines[0].startswith("anonratio: error: "), captured.err
    assert "Traceback" not in captured.err and captured.out == ""
    assert re.search(message, lines[0]), lines[0]
    if not out.is_dir():
        assert not out.exists() or str(out.relative_to(tmp_path)) in before
    assert _snapshot(tmp_path) == before  # inputs byte for byte, no output, no temporary file
    return lines[0]


def _write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8", newline="")
    return path


def _hier(tmp_path, zip_text=ZIP_HIER):
    folder = tmp_path / "hier"
    _write(folder / "data_hierarchy_zip.csv", zip_text)
    return folder


# -- refused, with a message that says what is wrong and where --------------------------------
BAD_TABLES = {
    # case: (file content, extra options, message)
    "sep-two-chars": (GOOD, ["--sep", ";;"], r"`--sep` must be one character .*got ';;'$"),
    "sep-quote": (GOOD, ["--sep", '"'], r"`--sep` must be one character .*got '\"'$"),
    "separator-only-row": (
        GOOD + ";;;\n",
        [],
        r"data\.csv line 14: data row 13 has only empty fields \(a line of separators\)",
    ),
    "blank-separator-row-in-the-middle": (
        HEADER + "\n" + ROWS[0] + "\n ; ; ; \n" + "\n".join(ROWS[1:]) + "\n",
        [],
        r"data\.csv line 3: data row 2 has only empty fields",
    ),
    "qi-twice": (GOOD, [], r"`--qi` names column 'age' twice$"),
    "sensitive-in-qi": (
        GOOD,
        ["--sensitive", "zip"],
        r"`--sensitive` column 'zip' is also in `--qi`",
    ),
    "qi-missing-column": (GOOD, [], r"data\.csv: `qi` names unknown columns \['postcode'\]"),
    "sensitive-missing-column": (
        GOOD,
        ["--sensitive", "diagnosis"],
        r"data\.csv: `sensitive` column 'diagnosis' is not in the header",
    ),
    "latin-1": (
        (HEADER + "\n" + "\n".join(ROWS[:3]) + "\n34;M;13053;m\u00e9ningite\n").encode("latin-1"),
        [],
        r"data\.csv line 5: not a UTF-8 text file \(byte 0xe9\); save it as UTF-8, e\.g\. "
        r"`iconv -f latin1 -t utf-8`",
    ),
    "nul-byte": (
        GOOD.replace("flu", "f\0u", 1),
        [],
        r"data\.csv line 2: not a UTF-8 text file \(byte 0x00\)",
    ),
    "unterminated-quote": (
        GOOD + '40;F;"13053;flu\n',
        [],
        r"data\.csv line 14: malformed CSV \(unexpected end of data\)",
    ),
    "duplicate-columns": (
        "age;sex;age;disease\n" + "\n".join(ROWS) + "\n",
        [],
        r"data\.csv line 1: the header names column 'age' twice \(columns 1 and 3\)",
    ),
    "duplicate-columns-after-blanks": (
        "age;sex; sex ;disease\n" + "\n".join(ROWS) + "\n",
        [],
        r"data\.csv line 1: the header names column 'sex' twice \(columns 2 and 3\)",
    ),
    "unnamed-column": (
        "age;sex;;disease\n" + "\n".join(ROWS) + "\n",
        [],
        r"data\.csv line 1: header column 3 has no name",
    ),
    "ragged": (
        GOOD + "40;F;13053\n",
        [],
        r"data\.csv: ragged rows: data row 13 \(line 14\) has 3 fields, the header has 4 "
        r"\(1 such rows; separator ';' detected from the header\)",
    ),
    "wrong-sep-given": (
        GOOD,
        ["--sep", ","],
        r"`qi` names unknown columns \['age', 'sex', 'zip'\]; the header has "
        r"\['age;sex;zip;disease'\]",
    ),
    "huge-k": (GOOD, [], r"`--k` must be an integer in \[2, n_records=12\], got 1000"),
    "k-one": (GOOD, [], r"`--k` must be an integer in \[2, n_records=12\], got 1$"),
    "empty-file": ("", [], r"data\.csv: the file is empty"),
    "whitespace-only-file": (" \n\t\n\n", [], r"data\.csv: the file is empty"),
    "header-only": (HEADER + "\n", [], r"data\.csv: the table has a header but no records"),
}


@pytest.mark.parametrize("case", sorted(BAD_TABLES))
def test_bad_table_is_refused(case, tmp_path, capsys):
    text, extra, message = BAD_TABLES[case]
    data = _write(tmp_path / "data.csv", text)
    qi = {"qi-twice": "age,age,sex", "qi-missing-column": "age,postcode"}.get(case, "age,sex,zip")
    k = {"huge-k": 1000, "k-one": 1}.get(case, 3)
    _refused(capsys, tmp_path, data, *extra, qi=qi, k=k, message=message)


BAD_HIERARCHIES = {
    "ragged": (
        ZIP_HIER.replace("13067;1306*;13***;*", "13067;1306*;*"),
        r"data_hierarchy_zip\.csv line 2: hierarchy of attribute 'zip' is ragged: the row of "
        r"'13067' has 3 fields, line 1 has 4",
    ),
    "not-nested": (
        "13053;A;X;*\n13067;A;Y;*\n13068;B;Y;*\n14850;C;Z;*\n14853;C;Z;*\n",
        r"data_hierarchy_zip\.csv: hierarchy of attribute 'zip': hierarchy level 1 does not "
        r"refine level 2",
    ),
    "duplicate-value": (
        ZIP_HIER + "13053;1306*;13***;*\n",
        r"data_hierarchy_zip\.csv line 6: hierarchy of attribute 'zip' lists value '13053' "
        r"twice \(lines 1 and 6\)",
    ),
    "missing-value": (
        ZIP_HIER.replace("14853;1485*;14***;*\n", ""),
        r"data\.csv line 6: hierarchy of attribute 'zip' has no row for value '14853' "
        r"\(2 such records\)",
    ),
    "empty": ("\n\n", r"data_hierarchy_zip\.csv: hierarchy of attribute 'zip' is empty"),
    "separator-row": (
        ZIP_HIER + ";;;\n",
        r"data_hierarchy_zip\.csv line 6: hierarchy of attribute 'zip' has a row of empty",
    ),
    "binary": (
        b"\x89PNG\r\n\x1a\n\x00\x00",
        r"data_hierarchy_zip\.csv line 1: not a UTF-8 text file \(byte 0x89\)",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_HIERARCHIES))
def test_bad_hierarchy_is_refused(case, tmp_path, capsys):
    text, message = BAD_HIERARCHIES[case]
    data = _write(tmp_path / "data.csv", GOOD)
    hier = _hier(tmp_path, text)
    _refused(capsys, tmp_path, data, "--hierarchies", str(hier), message=message)


def test_a_folder_as_the_input_file_is_named_as_such(tmp_path, capsys):
    folder = tmp_path / "data.csv"
    folder.mkdir()
    _refused(capsys, tmp_path, folder, message=r"table file .*data\.csv is a folder, not a CSV")


def test_a_missing_input_file(tmp_path, capsys):
    _refused(capsys, tmp_path, tmp_path / "nope.csv", message=r"table file not found: .*nope")


def test_a_folder_as_the_output_is_refused(tmp_path, capsys):
    data = _write(tmp_path / "data.csv", GOOD)
    (tmp_path / "published").mkdir()
    message = r"`--out` must be a file path, got the folder .*published"
    _refused(capsys, tmp_path, data, out=tmp_path / "published", message=message)


@pytest.mark.parametrize("how", ["same", "symlink", "hardlink", "hierarchy", "hierarchy-link"])
def test_the_output_is_never_an_input(how, tmp_path, capsys):
    data = _write(tmp_path / "data.csv", GOOD)
    hier = _hier(tmp_path)
    target = hier / "data_hierarchy_zip.csv" if how.startswith("hierarchy") else data
    out = target if how in ("same", "hierarchy") else tmp_path / "link.csv"
    if how in ("symlink", "hierarchy-link"):
        out.symlink_to(target)
    elif how == "hardlink":
        os.link(data, out)
    message = r"`--out` '.*' is the input file '.*': anonymize never writes over an input"
    _refused(capsys, tmp_path, data, "--hierarchies", str(hier), out=out, message=message)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ([], "line 14: data row 13 has only empty fields"),
        # an option's error, from the same handler: in the slow tier (a second interpreter)
        pytest.param(["--sep", ";;"], "`--sep` must be one character", marks=pytest.mark.slow),
    ],
)
def test_errors_are_one_line_from_the_installed_command(tmp_path, extra, message):
    """The same messages from a separate interpreter: no traceback, exit status 2."""
    data = _write(tmp_path / "data.csv", GOOD + ";;;\n")
    argv = [sys.executable, "-m", "anonratio.bench.cli.parser", "anonymize", str(data)]
    argv += ["--qi", "age,sex", "--k", "3", "--out", str(tmp_path / "o.csv"), *extra]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("anonratio: error: ") and message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "o.csv").exists()


# -- odd but valid: read correctly, published in the input's own shape ------------------------
def _published(capsys, data, *extra, qi="age,sex,zip", k=3):
    code, out = _run(capsys, data, *extra, "--json", qi=qi, k=k)
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out), out


def test_utf8_byte_order_mark(tmp_path, capsys, reverify):
    data = _write(tmp_path / "data.csv", b"\xef\xbb\xbf" + GOOD.encode())
    info, out = _published(capsys, data)
    assert out.read_bytes().startswith(b"\xef\xbb\xbfage;sex;zip;disease\n")  # "age", no BOM in it
    reverify(data, out, QI, 3, cost=info["cost"])


def test_crlf_line_ends_are_kept(tmp_path, capsys, reverify):
    data = _write(tmp_path / "data.csv", GOOD.replace("\n", "\r\n"))
    info, out = _published(capsys, data, "--hierarchies", str(_hier(tmp_path)))
    raw = out.read_bytes()
    assert raw.count(b"\r\n") == len(ROWS) + 1 and b"\n" not in raw.replace(b"\r\n", b"")
    reverify(data, out, QI, 3, hierarchies=tmp_path / "hier", cost=info["cost"])


def test_quoted_separators_and_line_breaks(tmp_path, capsys, reverify):
    notes = ['"a;b"', '"two\nlines"', '"say ""hi"""'] + ["plain"] * (len(ROWS) - 3)
    text = HEADER + ";notes\n" + "".join(f"{r};{n}\n" for r, n in zip(ROWS, notes, strict=True))
    text = text.replace("34;M;", '"34";"M";', 1)  # quoted QI cells are values like the others
    data = _write(tmp_path / "data.csv", text)
    info, out = _published(capsys, data, "--sensitive", "disease")
    published = reverify(data, out, QI, 3, cost=info["cost"])
    assert published["notes"].tolist()[:3] == ["a;b", "two\nlines", 'say "hi"']
    assert len(published) == len(ROWS)


def test_empty_and_whitespace_only_cells_are_values(tmp_path, capsys, reverify):
    rows = [r.split(";") for r in ROWS]
    for i in (0, 2, 6):
        rows[i][2] = ""  # three empty zip codes: one more value of zip
    rows[3][3] = "   "  # a blank sensitive cell, kept as written
    rows[1][1] = "  "  # a whitespace-only sex: the value ''
    data = _write(tmp_path / "data.csv", HEADER + "\n" + "".join(";".join(r) + "\n" for r in rows))
    info, out = _published(capsys, data, "--sensitive", "disease")
    published = reverify(data, out, QI, 3, cost=info["cost"])
    assert published["disease"][3] == "   "
    assert set(published["zip"]) <= {"", "*", "13053", "13068", "13067", "14850", "14853"}


def test_blank_lines_tabs_and_a_literal_backslash_t(tmp_path, capsys, reverify):
    text = "\n" + GOOD.replace(";", "\t").replace("\n", "\n\n")
    data = _write(tmp_path / "data.csv", text)
    for extra in ([], ["--sep", "\\t"], ["--sep", "tab"]):
        info, out = _published(capsys, data, *extra)
        assert out.read_text().splitlines()[0] == "age\tsex\tzip\tdisease"
        reverify(data, out, QI, 3, sep="\t", cost=info["cost"])


def test_k_equal_to_the_number_of_rows(tmp_path, capsys, reverify):
    data = _write(tmp_path / "data.csv", GOOD)
    info, out = _published(capsys, data, k=len(ROWS))
    published = reverify(data, out, QI, len(ROWS), cost=info["cost"])
    assert published.groupby(QI).ngroups == 1


# -- numbers at the edge of the float range, for cluster publishing ---------------------------
HUGE = "x;y;disease\n1e308;1;flu\n-1e308;2;cold\n5;3;flu\n6;4;hiv\n"


def test_raw_units_that_overflow_are_refused_naming_file_column_and_lines(tmp_path, capsys):
    data = _write(tmp_path / "data.csv", HUGE)
    message = (
        r"data\.csv: with scaling 'none' the distances are in raw units and their squares overflow "
        r"a float: column 'x' spans from '-1e308' \(line 3\) to '1e308' \(line 2\)"
    )
    extra = ["--algorithm", "r-gather", "--scaling", "none"]
    _refused(capsys, tmp_path, data, *extra, qi="x,y", k=2, message=message)


@pytest.mark.parametrize("scaling", ["range", "standard"])
def test_scaled_huge_values_are_published(scaling, tmp_path, capsys):
    """Published like a small column with the same scaled values: x = 1, -1, 0, 0 times 1e308."""
    extra = ["--algorithm", "r-gather", "--scaling", scaling]
    small = _write(
        tmp_path / "small" / "data.csv", "x;y;disease\n1;1;flu\n-1;2;cold\n0;3;flu\n0;4;hiv\n"
    )
    expected, _ = _published(capsys, small, *extra, qi="x,y", k=2)
    data = _write(tmp_path / "data.csv", HUGE.replace("\n6;", "\n5;"))
    info, out = _published(capsys, data, *extra, qi="x,y", k=2)
    assert info["verified"] and info["cost"] == pytest.approx(expected["cost"], rel=1e-12)
    assert info["lower_bound"] == pytest.approx(expected["lower_bound"], rel=1e-12)
    assert out.read_text().splitlines()[0] == "x;y;disease"


# -- header names in another Unicode form than the options ------------------------------------
NFC_AGE, NFD_AGE = "\u00e2ge", "a\u0302ge"  # "âge" composed and decomposed


@pytest.mark.parametrize("extra", [[], ["--algorithm", "r-gather"]], ids=["kanon", "clusters"])
@pytest.mark.parametrize(("header", "given"), [(NFD_AGE, NFC_AGE), (NFC_AGE, NFD_AGE)])
def test_a_qi_name_in_other_code_points_is_refused_with_both_spellings(
    header, given, extra, tmp_path, capsys
):
    data = _write(tmp_path / "data.csv", GOOD.replace("age", header, 1))
    forms = {NFC_AGE: r"'\\xe2ge' \(NFC\)", NFD_AGE: r"'a\\u0302ge' \(NFD\)"}
    message = (
        rf"data\.csv: `qi` names unknown columns \['{given}'\]; .* \(`qi` writes '{given}' as "
        rf"{forms[given]}, the header as {forms[header]}: the same letters in other Unicode code "
        r"points; pass the spelling of the header, or write both in NFC\)$"
    )
    _refused(capsys, tmp_path, data, *extra, qi=f"{given},zip", message=message)
    code, out = _run(capsys, data, *extra, qi=f"{header},zip")  # as the header writes it
    assert code == 0, capsys.readouterr().err
    assert out.read_text(encoding="utf-8").splitlines()[0] == f"{header};sex;zip;disease"


@pytest.mark.parametrize("extra", [[], ["--algorithm", "r-gather"]], ids=["kanon", "clusters"])
def test_a_sensitive_name_in_other_code_points_is_refused_with_both_spellings(
    extra, tmp_path, capsys
):
    data = _write(tmp_path / "data.csv", GOOD.replace("age", NFD_AGE, 1))
    message = r"`(--)?sensitive` column .*'a\\u0302ge' \(NFD\)"
    _refused(capsys, tmp_path, data, *extra, "--sensitive", NFC_AGE, qi="sex,zip", message=message)
