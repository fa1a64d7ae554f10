"""Tests of ``anonratio anonymize``: every published table is read back and re-verified
independently (``reverify`` in conftest.py: the project's verifier on the partition the published
cells define); the ``pycanon`` tests check them with pycanon too (the ``check`` extra)."""

import json
import os
import re
from pathlib import Path

import pandas as pd
import pytest

from anonratio.bench.cli.parser import main
from anonratio.instances.loaders import ADULT_QI

QI = ["age", "sex", "zip"]

ROWS = [
    ("34", "M", "13053", "flu"),
    ("36", "M", "13068", "cold"),
    ("35", "F", "13053", "flu"),
    ("51", "F", "14850", "cancer"),
    ("52", "M", "14853", "flu"),
    ("55", "F", "14850", "cold"),
    ("23", "M", "13053", "hiv"),
    ("27", "F", "13068", "flu"),
    ("28", "M", "13067", "cold"),
    ("58", "M", "14853", "cancer"),
    ("24", "F", "13068", "flu"),
    ("33", "F", "13053", "cold"),
]
AGES = sorted({r[0] for r in ROWS})
ZIPS = sorted({r[2] for r in ROWS})


def _write_csv(path, sep=";", rows=ROWS, header=("age", "sex", "zip", "disease")):
    lines = [sep.join(header)] + [sep.join(r) for r in rows]
    path.write_text("\n".join(lines) + "\n")
    return path


def _write_hierarchies(folder, *, drop_age=None):
    """ARX naming for age (``data_hierarchy_age.csv``), plain naming for zip (``zip.csv``)."""
    folder.mkdir(exist_ok=True)
    ages = [a for a in AGES if a != drop_age]
    age_rows = [f"{a};{int(a) // 10 * 10}-{int(a) // 10 * 10 + 9};*" for a in ages]
    (folder / "data_hierarchy_age.csv").write_text("\n".join(age_rows) + "\n")
    zip_rows = [f"{z};{z[:4]}*;{z[:2]}***;*" for z in ZIPS]
    (folder / "zip.csv").write_text("\n".join(zip_rows) + "\n")
    return folder


def _anonymize(capsys, data, out, *extra, k=3, qi=QI):
    argv = ["anonymize", str(data), "--qi", ",".join(qi), "--k", str(k), "--out", str(out)]
    assert main([*argv, *extra, "--json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def _read(path, sep=";"):
    return pd.read_csv(path, sep=sep, dtype=str, keep_default_na=False)


def test_anonymize_without_hierarchies_suppresses_cells(tmp_path, capsys, reverify):
    data = _write_csv(tmp_path / "data.csv")
    info = _anonymize(capsys, data, tmp_path / "out.csv", "--sensitive", "disease")
    assert info["model"] == "suppression" and info["verified"] is True
    published = reverify(data, tmp_path / "out.csv", QI, 3, cost=info["cost"])
    original = _read(data)
    for c in QI:  # every cell is the original value or a star
        kept = published[c] != "*"
        assert (published.loc[kept, c] == original.loc[kept, c]).all()
    stars = int((published[QI] == "*").to_numpy().sum())
    assert info["cost"] == pytest.approx(stars)  # suppression cost = number of stars
    assert info["lower_bound"] <= info["cost"]
    assert info["certified_ratio"] is None or info["certified_ratio"] >= 1
    assert info["published_min_class"] >= 3


def test_anonymize_with_hierarchies_generalizes_cells(tmp_path, capsys, reverify):
    data = _write_csv(tmp_path / "data.csv")
    hier = _write_hierarchies(tmp_path / "hier")
    info = _anonymize(capsys, data, tmp_path / "out.csv", "--hierarchies", str(hier))
    assert info["model"] == "generalization" and info["verified"] is True
    published = reverify(data, tmp_path / "out.csv", QI, 3, hierarchies=hier, cost=info["cost"])
    age_labels = set(AGES) | {f"{d}0-{d}9" for d in range(2, 6)} | {"*"}
    zip_labels = set(ZIPS) | {z[:4] + "*" for z in ZIPS} | {z[:2] + "***" for z in ZIPS} | {"*"}
    assert set(published["age"]) <= age_labels
    assert set(published["zip"]) <= zip_labels
    assert set(published["sex"]) <= {"M", "F", "*"}  # no hierarchy: suppression


def test_anonymize_keeps_a_comma_separator_and_exact_solvers_are_no_worse(
    tmp_path, capsys, reverify
):
    data = _write_csv(tmp_path / "data.csv", sep=",")
    forest = _anonymize(capsys, data, tmp_path / "forest.csv", k=2)
    exact = _anonymize(capsys, data, tmp_path / "cpsat.csv", "--algorithm", "kanon-cpsat", k=2)
    assert exact["cost"] <= forest["cost"] + 1e-9
    assert forest["cost"] <= forest["guarantee"] * exact["cost"] + 1e-9
    for name in ("forest.csv", "cpsat.csv"):
        text = (tmp_path / name).read_text()
        assert text.splitlines()[0] == "age,sex,zip,disease"
        reverify(data, tmp_path / name, QI, 2, sep=",")


def test_anonymize_text_output(tmp_path, capsys, reverify):
    data = _write_csv(tmp_path / "data.csv")
    argv = ["anonymize", str(data), "--qi", "age,zip", "--k", "4", "--out", str(tmp_path / "o.csv")]
    assert main(argv) == 0
    out = capsys.readouterr().out
    for label in ("cost", "lower bound", "certified ratio", "verified", "guarantee"):
        assert f"\n{label} " in out
    reverify(data, tmp_path / "o.csv", ["age", "zip"], 4)


def test_header_names_with_blanks_are_published_as_written_and_replaced(tmp_path, capsys, reverify):
    """The leak: names stripped on one copy only, the QI columns added instead of replaced."""
    data = _write_csv(tmp_path / "data.csv", header=("age ", " sex", " zip ", "disease"))
    out = tmp_path / "out.csv"
    info = _anonymize(capsys, data, out, "--sensitive", "disease")
    assert info["verified"] is True
    assert out.read_text().splitlines()[0] == "age ; sex; zip ;disease"
    published = reverify(data, out, QI, 3, cost=info["cost"])
    assert published.shape == (len(ROWS), 4)
    original = _read(data)
    assert (published[["age ", " zip "]] == "*").to_numpy().any()
    for c in ("age ", " sex", " zip "):  # each cell is the (stripped) original value or a star
        assert ((published[c] == "*") | (published[c] == original[c].str.strip())).all()


def test_published_cells_are_the_verified_ones_with_spaces_in_cells(tmp_path, capsys, reverify):
    rows = [(f" {a} ", s, f"{z} ", d) for a, s, z, d in ROWS]
    data = _write_csv(tmp_path / "data.csv", rows=rows)
    hier = _write_hierarchies(tmp_path / "hier")
    out = tmp_path / "out.csv"
    info = _anonymize(capsys, data, out, "--hierarchies", str(hier), "--sensitive", "disease")
    reverify(data, out, QI, 3, hierarchies=hier, cost=info["cost"])


@pytest.mark.parametrize("how", ["same", "relative", "symlink", "hardlink", "hierarchy"])
def test_anonymize_never_writes_over_an_input(how, tmp_path, capsys, monkeypatch):
    data = _write_csv(tmp_path / "data.csv")
    hier = _write_hierarchies(tmp_path / "hier")
    out = {"same": data, "relative": Path("sub/../data.csv"), "hierarchy": hier / "zip.csv"}.get(
        how, tmp_path / "link.csv"
    )
    if how == "symlink":
        out.symlink_to(data)
    elif how == "hardlink":
        os.link(data, out)
    elif how == "relative":
        monkeypatch.chdir(tmp_path)
        (tmp_path / "sub").mkdir()
    before = {p: p.read_bytes() for p in (data, hier / "zip.csv", hier / "data_hierarchy_age.csv")}
    argv = ["anonymize", str(data), "--qi", "age,sex,zip", "--k", "3", "--out", str(out)]
    assert main([*argv, "--hierarchies", str(hier)]) == 2
    assert re.search(
        r"`--out` .* is the input file .*never writes over an input", _one_line_error(capsys)
    )
    assert {p: p.read_bytes() for p in before} == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_anonymize_replaces_an_existing_output_through_a_temporary_file(tmp_path, capsys):
    data = _write_csv(tmp_path / "data.csv")
    out = tmp_path / "out.csv"
    out.write_text("old\n")
    _anonymize(capsys, data, out)
    assert out.read_text().startswith("age;sex;zip;disease\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.csv", "out.csv"]  # no leftovers


def _one_line_error(capsys):
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("anonratio: error: ")
    return lines[0]


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("unknown-column", r"`qi` names unknown columns \['postcode'\]"),
        ("ragged", r"ragged rows: data row 3 \(line 4\) has 5 fields, the header has 4"),
        (
            "missing-value",
            r"data\.csv line 5: hierarchy of attribute 'age' has no row for "
            "value '51'",
        ),
        ("k-too-large", r"`--k` must be an integer in \[2, n_records=12\], got 13"),
        ("generalization-without-hierarchies", "needs `--hierarchies DIR`"),
        ("missing-file", "table file not found"),
        ("unsupported-algorithm", "does not support this instance"),
        ("binary-file", r"blob\.csv line 1: not a UTF-8 text file \(byte 0x80\)"),
        ("empty-qi", "`--qi` must name at least one column"),
    ],
)
def test_anonymize_user_errors_give_one_line(case, message, tmp_path, capsys):
    data = _write_csv(tmp_path / "data.csv")
    qi, k, extra = "age,sex,zip", "3", []
    if case == "unknown-column":
        qi = "age,postcode"
    elif case == "ragged":
        rows = list(ROWS)
        rows[2] = (*rows[2], "extra")
        data = _write_csv(tmp_path / "ragged.csv", rows=rows)
    elif case == "missing-value":
        extra = ["--hierarchies", str(_write_hierarchies(tmp_path / "h", drop_age="51"))]
    elif case == "k-too-large":
        k = "13"
    elif case == "generalization-without-hierarchies":
        extra = ["--model", "generalization"]
    elif case == "missing-file":
        data = tmp_path / "nope.csv"
    elif case == "unsupported-algorithm":
        extra = ["--algorithm", "factor-2"]
    elif case == "binary-file":
        data = tmp_path / "blob.csv"
        data.write_bytes(bytes(range(128, 256)) * 4)
    elif case == "empty-qi":
        qi = ","
    out = tmp_path / "out.csv"
    code = main(["anonymize", str(data), "--qi", qi, "--k", k, "--out", str(out), *extra])
    assert code == 2
    assert re.search(message, _one_line_error(capsys))
    assert not out.exists()


def _adult_dir():
    root = os.environ.get("ANONRATIO_DATASETS")
    if not root:
        pytest.skip("ANONRATIO_DATASETS is not set: the Adult data set is not available")
    folder = Path(root) / "adult"
    if not (folder / "adult.csv").is_file():
        pytest.skip(f"no adult/adult.csv under ANONRATIO_DATASETS={root}")
    return folder


def test_anonymize_adult_first_2000_rows_k5_forest_is_k_anonymous(tmp_path, capsys, reverify):
    folder = _adult_dir()
    with open(folder / "adult.csv", encoding="utf-8", newline="") as fh:
        head = [next(fh) for _ in range(2001)]  # header + 2,000 records
    data = tmp_path / "adult2000.csv"
    data.write_text("".join(head), encoding="utf-8", newline="")
    qi = list(ADULT_QI)
    argv = ["--hierarchies", str(folder), "--sensitive", "salary-class"]
    info = _anonymize(capsys, data, tmp_path / "adult-k5.csv", *argv, k=5, qi=qi)
    assert info["n"] == 2000 and info["verified"] is True
    assert info["model"] == "generalization" and info["algorithm"] == "forest"
    published = reverify(
        data, tmp_path / "adult-k5.csv", qi, 5, hierarchies=folder, cost=info["cost"]
    )
    assert published.groupby(qi).size().min() == info["published_min_class"]
    assert 0 < info["lower_bound"] <= info["cost"]
    assert info["certified_ratio"] == pytest.approx(info["cost"] / info["lower_bound"])
    assert info["certified_ratio"] >= 1


@pytest.mark.pycanon
@pytest.mark.parametrize("case", ["suppression", "generalization", "blank-names", "comma", "adult"])
def test_published_tables_are_k_anonymous_for_pycanon(case, tmp_path, capsys):
    """pycanon (the `check` extra), an outside checker, on the published frame's QI columns."""
    from pycanon import anonymity

    sep, qi, k, extra = ";", QI, 3, []
    header = ("age", "sex", "zip", "disease")
    if case == "generalization":
        extra = ["--hierarchies", str(_write_hierarchies(tmp_path / "hier"))]
    elif case == "blank-names":
        header = ("age ", " sex", " zip ", "disease")
    elif case == "comma":
        sep, k = ",", 2
    data = _write_csv(tmp_path / "data.csv", sep=sep, header=header)
    if case == "adult":
        folder = _adult_dir()
        with open(folder / "adult.csv", encoding="utf-8", newline="") as fh:
            data.write_text("".join(next(fh) for _ in range(1001)), encoding="utf-8", newline="")
        qi, k = ["sex", "age", "race", "marital-status", "education"], 5
        extra = ["--hierarchies", str(folder), "--sensitive", "salary-class"]
    info = _anonymize(capsys, data, tmp_path / "out.csv", *extra, k=k, qi=qi)
    published = _read(tmp_path / "out.csv", sep)
    cols = [c for c in published.columns if c.strip() in qi]
    assert len(cols) == len(qi) and list(published.columns) == list(_read(data, sep).columns)
    assert anonymity.k_anonymity(published, cols) == info["published_min_class"] >= k
