"""The published file's writer: formula cells as they came, or neutralized on request."""

import json

import pandas as pd

from anonratio.bench.cli.csv_output import neutralize_formulas
from anonratio.bench.cli.parser import main

CELLS = ['=HYPERLINK("http://x")', "+1+2", "-2+3", "@SUM(A1)", "\tx", "-5", "+1.5e3", "a=b"]


def test_neutralize_formulas_prefixes_formulas_and_keeps_numbers():
    out = neutralize_formulas(pd.DataFrame({"c": CELLS}))["c"].tolist()
    assert out == ["'" + c for c in CELLS[:5]] + ["-5", "+1.5e3", "a=b"]


def _table(tmp_path):
    path = tmp_path / "data.csv"
    rows = [f"{20 + i};{'=1+' + str(i) if i % 2 else '@x'}" for i in range(6)]
    path.write_text("age;note\n" + "\n".join(rows) + "\n")
    return path


def test_anonymize_publishes_formula_cells_as_they_came(tmp_path, capsys):
    path, out = _table(tmp_path), tmp_path / "out.csv"
    code = main(["anonymize", str(path), "--qi", "age", "--k", "3", "--out", str(out), "--json"])
    assert code == 0, capsys.readouterr()
    lines = out.read_text().splitlines()
    assert [line.split(";")[1] for line in lines[1:]] == ["@x", "=1+1", "@x", "=1+3", "@x", "=1+5"]


def test_anonymize_neutralizes_formula_cells_on_request(tmp_path, capsys):
    path, out = _table(tmp_path), tmp_path / "out.csv"
    argv = ["anonymize", str(path), "--qi", "age", "--k", "3", "--out", str(out)]
    assert main([*argv, "--neutralize-formulas", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["verified"] is True
    lines = out.read_text().splitlines()
    assert [line.split(";")[1] for line in lines[1:]] == ["'@x", "'=1+1", "'@x", "'=1+3"] + [
        "'@x",
        "'=1+5",
    ]
