"""Tests of ``anonratio anonymize``: published tables checked independently with pycanon."""

import json
import os
import re
from pathlib import Path

import pandas as pd
import pytest
from anonratio.bench.cli import main
from pycanon import anonymity

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


def _check_published(original, published, qi, k):
    assert published.shape == original.shape
    assert list(published.columns) == list(original.columns)
    other = [c for c in original.columns if c not in qi]
    pd.testing.assert_frame_equal(published[other], original[other])
    assert anonymity.k_anonymity(published, qi) >= k


def test_anonymize_without_hierarchies_suppresses_cells(tmp_path, capsys):
    data = _write_csv(tmp_path / "data.csv")
    info = _anonymize(capsys, data, tmp_path / "out.csv", "--sensitive", "disease")
    assert info["model"] == "suppression" and info["verified"] is True
    published = _read(tmp_path / "out.csv")
    _check_published(_read(data), published, QI, 3)
    original = _read(data)
    for c in QI:  # every cell is the original value or a star
        kept = published[c] != "*"
        assert (published.loc[kept, c] == original.loc[kept, c]).all()
    stars = int((published[QI] == "*").to_numpy().sum())
    assert info["cost"] == pytest.approx(stars)  # suppression cost = number of stars
    assert info["lower_bound"] <= info["cost"]
    assert info["certified_ratio"] is None or info["certified_ratio"] >= 1
    assert info["published_min_class"] >= 3


def test_anonymize_with_hierarchies_generalizes_cells(tmp_path, capsys):
    data = _write_csv(tmp_path / "data.csv")
    hier = _write_hierarchies(tmp_path / "hier")
    info = _anonymize(capsys, data, tmp_path / "out.csv", "--hierarchies", str(hier))
    assert info["model"] == "generalization" and info["verified"] is True
    published = _read(tmp_path / "out.csv")
    _check_published(_read(data), published, QI, 3)
    age_labels = set(AGES) | {f"{d}0-{d}9" for d in range(2, 6)} | {"*"}
    zip_labels = set(ZIPS) | {z[:4] + "*" for z in ZIPS} | {z[:2] + "***" for z in ZIPS} | {"*"}
    assert set(published["age"]) <= age_labels
    assert set(published["zip"]) <= zip_labels
    assert set(published["sex"]) <= {"M", "F", "*"}  # no hierarchy: suppression


def test_anonymize_keeps_a_comma_separator_and_exact_solvers_are_no_worse(tmp_path, capsys):
    data = _write_csv(tmp_path / "data.csv", sep=",")
    forest = _anonymize(capsys, data, tmp_path / "forest.csv", k=2)
    exact = _anonymize(capsys, data, tmp_path / "cpsat.csv", "--algorithm", "cpsat", k=2)
    assert exact["cost"] <= forest["cost"] + 1e-9
    assert forest["cost"] <= forest["guarantee"] * exact["cost"] + 1e-9
    for name in ("forest.csv", "cpsat.csv"):
        text = (tmp_path / name).read_text()
        assert text.splitlines()[0] == "age,sex,zip,disease"
        _check_published(_read(data, ","), _read(tmp_path / name, ","), QI, 2)


def test_anonymize_text_output(tmp_path, capsys):
    data = _write_csv(tmp_path / "data.csv")
    argv = ["anonymize", str(data), "--qi", "age,zip", "--k", "4", "--out", str(tmp_path / "o.csv")]
    assert main(argv) == 0
    out = capsys.readouterr().out
    for label in ("cost", "lower bound", "certified ratio", "verified", "guarantee"):
        assert f"\n{label} " in out
    assert anonymity.k_anonymity(_read(tmp_path / "o.csv"), ["age", "zip"]) >= 4


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
        ("missing-value", r"hierarchy of attribute 'age' has no row for value '51'"),
        ("k-too-large", r"`k` must be an integer in \[2, n_records=12\], got 13"),
        ("generalization-without-hierarchies", "needs `--hierarchies DIR`"),
        ("missing-file", "table file not found|No such file or directory"),
        ("unsupported-algorithm", "does not support this instance"),
        ("binary-file", "not a UTF-8 text file"),
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


def test_anonymize_adult_first_2000_rows_k5_forest_is_k_anonymous(tmp_path, capsys):
    folder = _adult_dir()
    with open(folder / "adult.csv", encoding="utf-8", newline="") as fh:
        head = [next(fh) for _ in range(2001)]  # header + 2,000 records
    data = tmp_path / "adult2000.csv"
    data.write_text("".join(head), encoding="utf-8", newline="")
    qi = [
        "sex",
        "age",
        "race",
        "marital-status",
        "education",
        "native-country",
        "workclass",
        "occupation",
    ]
    argv = ["--hierarchies", str(folder), "--sensitive", "salary-class"]
    info = _anonymize(capsys, data, tmp_path / "adult-k5.csv", *argv, k=5, qi=qi)
    assert info["n"] == 2000 and info["verified"] is True
    assert info["model"] == "generalization" and info["algorithm"] == "forest"
    original = _read(data)
    published = _read(tmp_path / "adult-k5.csv")
    _check_published(original, published, qi, 5)
    assert anonymity.k_anonymity(published, qi) == info["published_min_class"]
    assert 0 < info["lower_bound"] <= info["cost"]
    assert info["certified_ratio"] == pytest.approx(info["cost"] / info["lower_bound"])
    assert info["certified_ratio"] >= 1
