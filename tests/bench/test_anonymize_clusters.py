"""``anonratio anonymize --algorithm r-gather``: the clustered publication of paper 003.

Every published table is read back and checked independently of the run: the same rows and
columns, the non-QI cells untouched, each QI row a real input record's values shared by >= k
records, and the cluster table consistent with it.
"""

import json

import numpy as np
import pandas as pd
import pytest

from anonratio.bench.cli.parser import main

ROWS = [
    ("34", "41000", "flu"),
    ("36", "43000", "cold"),
    ("35", "40000", "flu"),
    ("51", "82000", "cancer"),
    ("52", "80000", "flu"),
    ("55", "85000", "cold"),
    ("23", "21000", "hiv"),
    ("27", "25000", "flu"),
    ("28", "26000", "cold"),
    ("58", "90000", "cancer"),
    ("24", "22000", "flu"),
    ("33", "39000", "cold"),
]
QI = ["age", "income"]


def _write(path, rows=ROWS, sep=","):
    text = sep.join(["age", "income", "disease"]) + "\n"
    text += "".join(sep.join(r) + "\n" for r in rows)
    path.write_bytes(text.encode())
    return path


def _run(capsys, *argv):
    code = main([*argv, "--json"])
    captured = capsys.readouterr()
    return code, json.loads(captured.out)


def _read(path):
    return pd.read_csv(path, dtype=str, keep_default_na=False)


@pytest.mark.parametrize("algorithm", ["r-gather", "greedy-gather", "r-cellular"])
def test_publishes_centers_with_k_records_each(tmp_path, capsys, algorithm):
    data = _write(tmp_path / "people.csv")
    before = data.read_bytes()
    out = tmp_path / "out" / "published.csv"
    code, info = _run(
        capsys,
        "anonymize",
        str(data),
        "--qi",
        "age,income",
        "--k",
        "3",
        "--algorithm",
        algorithm,
        "--out",
        str(out),
    )
    assert code == 0, info
    assert data.read_bytes() == before  # the input is never touched
    assert info["verified"] and info["algorithm"] == algorithm
    original, published = _read(data), _read(out)
    assert list(published.columns) == list(original.columns)
    assert len(published) == len(original)
    assert published["disease"].tolist() == original["disease"].tolist()
    records = set(map(tuple, original[QI].to_numpy()))
    assert set(map(tuple, published[QI].to_numpy())) <= records  # centers are real records
    assert published.groupby(QI).size().min() >= 3
    clusters = _read(info["clusters"])
    assert clusters["size"].astype(int).sum() == len(original)
    assert (clusters["size"].astype(int) >= 3).all()
    assert info["groups"] == len(clusters)
    radius = clusters["radius"].astype(float)
    assert np.isclose(radius.max(), info["max_radius"])
    if algorithm == "r-gather":
        assert info["certified_ratio"] <= info["guarantee"] + 1e-9


def test_clusters_file_option_and_text_output(tmp_path, capsys):
    data = _write(tmp_path / "people.csv", sep=";")
    out, side = tmp_path / "pub.csv", tmp_path / "c.csv"
    argv = ["anonymize", str(data), "--qi", "age", "--k", "4", "--algorithm", "r-gather"]
    assert main([*argv, "--out", str(out), "--clusters", str(side)]) == 0
    text = capsys.readouterr().out
    assert "r-gather" in text and "largest radius" in text
    assert side.exists() and ";" in out.read_text().splitlines()[0]


def test_non_numeric_qi_is_a_clear_error(tmp_path, capsys):
    rows = [*ROWS[:5], ("n/a", "1", "flu"), *ROWS[5:]]
    data = _write(tmp_path / "people.csv", rows)
    out = tmp_path / "pub.csv"
    code, doc = _run(
        capsys,
        "anonymize",
        str(data),
        "--qi",
        "age,income",
        "--k",
        "3",
        "--algorithm",
        "r-gather",
        "--out",
        str(out),
    )
    assert code == 2
    assert "line 7" in doc["error"] and "'age'" in doc["error"]
    assert not out.exists()


def test_refuses_to_overwrite_input_and_wrong_options(tmp_path, capsys):
    data = _write(tmp_path / "people.csv")
    before = data.read_bytes()
    base = ["anonymize", str(data), "--qi", "age", "--k", "3", "--algorithm", "r-gather"]
    code, doc = _run(capsys, *base, "--out", str(data))
    assert code == 2 and "never writes over an input" in doc["error"]
    code, doc = _run(capsys, *base, "--out", str(tmp_path / "o.csv"), "--clusters", str(data))
    assert code == 2
    code, doc = _run(capsys, *base, "--out", str(tmp_path / "o.csv"), "--model", "suppression")
    assert code == 2 and "k-anonymity" in doc["error"]
    assert data.read_bytes() == before
    code, doc = _run(
        capsys,
        "anonymize",
        str(data),
        "--qi",
        "age",
        "--k",
        "3",
        "--algorithm",
        "primal-dual",
        "--out",
        str(tmp_path / "o.csv"),
    )
    assert code == 2 and "cellular" in doc["error"]


def test_k_above_n_is_a_clear_error(tmp_path, capsys):
    data = _write(tmp_path / "people.csv")
    code, doc = _run(
        capsys,
        "anonymize",
        str(data),
        "--qi",
        "age",
        "--k",
        "13",
        "--algorithm",
        "r-gather",
        "--out",
        str(tmp_path / "o.csv"),
    )
    assert code == 2 and "`--k` must be an integer in [2, n_records=12], got 13" in doc["error"]
