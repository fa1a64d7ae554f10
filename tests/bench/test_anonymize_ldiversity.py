"""``anonratio anonymize --l L --sensitive COL``: l-diversity by suppression (paper 001).

Every published table is read back and checked from its own cells: the input's rows and columns,
the non-QI cells untouched, each QI cell the input's or ``*``, and every published QI class
l-eligible in the sensitive column; the ``pycanon`` test checks it with pycanon too.
"""

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from anonratio.bench.cli.parser import main

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
QI = ["age", "sex", "zip"]


def _write(path, rows=ROWS, sep=";"):
    text = sep.join(["age", "sex", "zip", "disease"]) + "\n"
    path.write_text(text + "".join(sep.join(r) + "\n" for r in rows))
    return path


def _run(capsys, *argv):
    code = main([*argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def _read(path, sep=";"):
    return pd.read_csv(path, sep=sep, dtype=str, keep_default_na=False)


def _diversity(published, qi, sensitive):
    classes = published.groupby(qi)
    return min(len(g) // g[sensitive].value_counts().max() for _, g in classes)


@pytest.mark.parametrize("algorithm", ["tp", "tp-plus", "hilbert", "ldiv-cpsat"])
def test_publishes_an_l_diverse_table(tmp_path, capsys, algorithm):
    data = _write(tmp_path / "people.csv")
    before = data.read_bytes()
    out = tmp_path / "pub.csv"
    code, info = _run(
        capsys,
        "anonymize",
        str(data),
        "--qi",
        "age,sex,zip",
        "--l",
        "2",
        "--sensitive",
        "disease",
        "--algorithm",
        algorithm,
        "--out",
        str(out),
    )
    assert code == 0, info
    assert data.read_bytes() == before
    original, published = _read(data), _read(out)
    assert list(published.columns) == list(original.columns) and len(published) == len(original)
    assert published["disease"].tolist() == original["disease"].tolist()
    for column in QI:
        kept = published[column] != "*"
        assert (published[column][kept] == original[column][kept]).all()
    assert _diversity(published, QI, "disease") >= 2 == info["l"]
    assert info["published_diversity"] >= 2 and info["verified"]
    stars = int((published[QI] == "*").to_numpy().sum())
    assert stars == info["stars"]
    assert info["lower_bound"] <= stars


def test_default_algorithm_is_tp_plus_and_text_output(tmp_path, capsys):
    data = _write(tmp_path / "people.csv")
    out = tmp_path / "pub.csv"
    argv = ["anonymize", str(data), "--qi", "age,sex,zip", "--l", "2", "--sensitive", "disease"]
    assert main([*argv, "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "tp-plus" in text and "2-diverse" in text


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--l", "2"], "`--l` needs `--sensitive`"),
        (["--l", "2", "--k", "3", "--sensitive", "disease"], "give one of `--k`"),
        ([], "give one of `--k`"),
        (["--l", "1", "--sensitive", "disease"], "`--l` must be an integer >= 2, got 1"),
        (["--l", "3", "--sensitive", "disease"], "not 3-eligible: sensitive value 'flu'"),
        (
            ["--l", "5", "--sensitive", "disease"],
            "`--l` must be at most the number of distinct values of the sensitive column "
            "'disease', 4",
        ),
        (
            ["--l", "100000000000000000000", "--sensitive", "disease"],
            "got 100000000000000000000",
        ),
        (["--l", "2", "--sensitive", "zip"], "also in `--qi`"),
        (["--l", "2", "--sensitive", "disease", "--algorithm", "forest"], "not l-diversity"),
    ],
)
def test_bad_input_is_a_clear_error(tmp_path, capsys, extra, message):
    data = _write(tmp_path / "people.csv")
    out = tmp_path / "pub.csv"
    code, doc = _run(
        capsys, "anonymize", str(data), "--qi", "age,sex,zip", "--out", str(out), *extra
    )
    assert code == 2 and message in doc["error"], doc
    assert not out.exists()


def test_constant_sensitive_column_is_refused(tmp_path, capsys):
    rows = [(a, s, z, "flu") for a, s, z, _ in ROWS]
    data = _write(tmp_path / "people.csv", rows)
    code, doc = _run(
        capsys,
        "anonymize",
        str(data),
        "--qi",
        "age,sex,zip",
        "--l",
        "2",
        "--sensitive",
        "disease",
        "--out",
        str(tmp_path / "o.csv"),
    )
    assert code == 2 and "constant" in doc["error"]


def _adult_dir():
    root = os.environ.get("ANONRATIO_DATASETS")
    if not root or not (Path(root) / "adult" / "adult.csv").exists():
        pytest.skip("ANONRATIO_DATASETS is not set: the Adult data set is not available")
    return Path(root) / "adult"


def test_adult_occupation_l4(tmp_path, capsys):
    folder = _adult_dir()
    data = tmp_path / "adult.csv"
    with open(folder / "adult.csv", encoding="utf-8", newline="") as fh:
        data.write_text("".join(next(fh) for _ in range(3001)), encoding="utf-8", newline="")
    qi = ["sex", "age", "race", "marital-status", "education"]
    code, info = _run(
        capsys,
        "anonymize",
        str(data),
        "--qi",
        ",".join(qi),
        "--l",
        "4",
        "--sensitive",
        "occupation",
        "--out",
        str(tmp_path / "out.csv"),
    )
    assert code == 0, info
    published = _read(tmp_path / "out.csv")
    assert _diversity(published, qi, "occupation") >= 4
    assert info["certified_ratio"] >= 1 and np.isfinite(info["stars"])


@pytest.mark.pycanon
def test_published_table_is_l_diverse_for_pycanon(tmp_path, capsys):
    """pycanon (the `check` extra), an outside checker, on the published QI and sensitive cells."""
    from pycanon import anonymity

    data = _write(tmp_path / "people.csv")
    out = tmp_path / "pub.csv"
    code, info = _run(
        capsys,
        "anonymize",
        str(data),
        "--qi",
        "age,sex,zip",
        "--l",
        "2",
        "--sensitive",
        "disease",
        "--out",
        str(out),
    )
    assert code == 0, info
    published = _read(out)
    # pycanon's l-diversity counts distinct values; l-eligibility (frequency) implies it
    assert anonymity.l_diversity(published, QI, ["disease"]) >= 2
