"""Tests of instances/loaders.py: CSV tables and the real Adult data (hierarchy files:
test_hierarchies.py)."""

import os
from pathlib import Path

import numpy as np
import pytest

from anonratio.bench.registry import generate
from anonratio.instances import InstanceFormatError, KAnonymityInstance, verify
from anonratio.instances.loaders import (
    ADULT_QI,
    DATASETS_ENV,
    check_separator,
    datasets_dir,
    load_adult,
    read_csv_table,
    read_table,
    table_from_csv,
)

AGE_CSV = "1;[1-2];*\n2;[1-2];*\n3;[3-4];*\n4;[3-4];*\n"
SEX_CSV = "M;*\nF;*\n"
TABLE_CSV = "age;sex;disease\n1;M;flu\n2;M;flu\n3;F;cold\n4;F;hiv\n1;F;flu\n"


def _write(path, text):
    path.write_text(text, encoding="utf-8", newline="")
    return path


def _adult_dir():
    root = os.environ.get(DATASETS_ENV)
    if not root:
        pytest.skip(f"{DATASETS_ENV} is not set: the Adult data set is not available")
    folder = Path(root) / "adult"
    if not (folder / "adult.csv").is_file():
        pytest.skip(f"the Adult data set is absent from {folder}")
    return folder


# -- read_table ---------------------------------------------------------------------------------
def test_read_table_semicolon_and_comma(tmp_path):
    t = read_table(_write(tmp_path / "t.csv", TABLE_CSV), sensitive="disease")
    assert t.attributes == ("age", "sex") and t.n_records == 5
    assert t.sensitive_values == ("cold", "flu", "hiv")
    c = read_table(_write(tmp_path / "c.csv", TABLE_CSV.replace(";", ",")), sensitive="disease")
    np.testing.assert_array_equal(c.codes, t.codes)
    crlf = _write(tmp_path / "crlf.csv", TABLE_CSV.replace("\n", "\r\n") + "\r\n")
    np.testing.assert_array_equal(read_table(crlf, sensitive="disease").codes, t.codes)
    only = read_table(_write(tmp_path / "q.csv", TABLE_CSV), qi=["sex"])
    assert only.attributes == ("sex",) and only.sensitive is None


def test_read_table_with_hierarchies(tmp_path):
    table = _write(tmp_path / "t.csv", TABLE_CSV)
    age = _write(tmp_path / "data_hierarchy_age.csv", AGE_CSV)
    _write(tmp_path / "data_hierarchy_sex.csv", SEX_CSV)
    by_dir = read_table(table, sensitive="disease", hierarchies=tmp_path)
    assert [h.height for h in by_dir.hierarchies] == [2, 1]
    by_dict = read_table(table, sensitive="disease", hierarchies={"age": age}, weights={"age": 2})
    assert by_dict.hierarchies[0].height == 2 and by_dict.hierarchies[1] is None
    np.testing.assert_array_equal(by_dict.weights, [2.0, 1.0])
    inst = KAnonymityInstance(by_dir, 2, "generalization")
    # records (1,M) (2,M) | (3,F) (4,F) (1,F): age at level 1 of 2 (0.5 each), then at the top
    # (1 each); sex agrees in both groups
    assert verify(inst, np.array([0, 0, 1, 1, 1])).cost == 2 * 0.5 + 3 * 1
    # suppression ignores the hierarchies: any differing age costs 1
    assert verify(KAnonymityInstance(by_dir, 2), np.array([0, 0, 1, 1, 1])).cost == 5


def test_read_table_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="table file not found"):
        read_table(tmp_path / "missing.csv")
    with pytest.raises(InstanceFormatError, match=r"empty\.csv: the file is empty"):
        read_table(_write(tmp_path / "empty.csv", ""))
    with pytest.raises(InstanceFormatError, match=r"head\.csv: the table has a header but no"):
        read_table(_write(tmp_path / "head.csv", "a;b\n"))
    ragged = _write(tmp_path / "ragged.csv", "a;b\n1;2\n3\n4;5;6\n")
    with pytest.raises(
        InstanceFormatError, match=r"ragged\.csv: ragged rows: data row 2 \(line 3\) has 1 fields"
    ):
        read_table(ragged)
    with pytest.raises(InstanceFormatError, match=r"dup\.csv line 1: the header names column 'a'"):
        read_table(_write(tmp_path / "dup.csv", "a; a \n1;2\n"))
    with pytest.raises(InstanceFormatError, match=r"noname\.csv line 2: header column 2 has no"):
        read_table(_write(tmp_path / "noname.csv", "\na;;c\n1;2;3\n"))
    with pytest.raises(InstanceFormatError, match=r"seps\.csv line 3: data row 2 has only empty"):
        read_table(_write(tmp_path / "seps.csv", "a;b\n1;2\n ; \n"))
    with pytest.raises(IsADirectoryError, match="is a folder, not a CSV file"):
        read_table(tmp_path)
    with pytest.raises(ValueError, match=r"`sep` must be one character .*got ';;'"):
        read_table(_write(tmp_path / "ok.csv", "a;b\n1;2\n"), sep=";;")
    table = _write(tmp_path / "t.csv", TABLE_CSV)
    with pytest.raises(ValueError, match=r"t\.csv: `qi` names unknown columns \['zip'\]"):
        read_table(table, qi=["age", "zip"])
    with pytest.raises(ValueError, match=r"t\.csv: `sensitive` column 'x' is not in the header"):
        read_table(table, sensitive="x")
    with pytest.raises(ValueError, match=r"t\.csv: `qi` names column 'age' twice"):
        read_table(table, qi=["age", "sex", "age"])
    with pytest.raises(ValueError, match=r"t\.csv: `sensitive` column 'sex' is also in `qi`"):
        read_table(table, qi=["age", "sex"], sensitive="sex")
    with pytest.raises(ValueError, match=r"t\.csv: `hierarchies` names columns that are not QI"):
        read_table(table, qi=["age"], hierarchies={"sex": [["M"], ["F"]]})
    with pytest.raises(ValueError, match=r"t\.csv: `weights` names columns that are not QI"):
        read_table(table, qi=["age"], weights={"sex": 2.0})
    with pytest.raises(ValueError, match="`hierarchies` must be a dict or a folder path"):
        read_table(table, hierarchies=[1, 2])


def test_read_table_value_missing_from_hierarchy(tmp_path):
    table = _write(tmp_path / "t.csv", TABLE_CSV)
    short = _write(tmp_path / "age.csv", "1;*\n2;*\n3;*\n")
    with pytest.raises(
        InstanceFormatError,
        match=r"t\.csv line 5: hierarchy of attribute 'age' has no row for value '4' \(1 such",
    ):
        read_table(table, sensitive="disease", hierarchies={"age": short})


def test_read_csv_table_keeps_the_file_shape(tmp_path):
    text = 'age ; sex;notes\r\n34; M ;"a;b"\r\n\r\n35;F;"two\r\nlines"\r\n'
    path = tmp_path / "t.csv"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    data = read_csv_table(path)
    assert data.header == ("age ", " sex", "notes") and list(data.frame.columns) == [
        "age",
        "sex",
        "notes",
    ]
    assert (data.sep, data.lineterminator, data.bom, data.lines) == (";", "\r\n", True, (2, 4))
    assert data.frame["notes"].tolist() == ["a;b", "two\r\nlines"]
    assert data.frame["sex"].tolist() == [" M ", "F"]  # cells as written ...
    table = table_from_csv(data, qi=["age", "sex"])
    assert table.values[1] == ("F", "M")  # ... values stripped
    with pytest.raises(InstanceFormatError, match=r"q\.csv line 2: malformed CSV"):
        read_csv_table(_write(tmp_path / "q.csv", 'a;b\n1;"open\n'))


# -- names that differ only in Unicode normalization ---------------------------------------------
NFC_AGE, NFD_AGE = "\u00e2ge", "a\u0302ge"  # "âge" composed and decomposed


@pytest.mark.parametrize(("header", "given"), [(NFD_AGE, NFC_AGE), (NFC_AGE, NFD_AGE)])
def test_a_name_in_other_code_points_is_refused_with_both_spellings(tmp_path, header, given):
    table = _write(tmp_path / "t.csv", TABLE_CSV.replace("age", header, 1))
    forms = {NFC_AGE: r"'\\xe2ge' \(NFC\)", NFD_AGE: r"'a\\u0302ge' \(NFD\)"}
    both = rf"writes '{given}' as {forms[given]}, the header as {forms[header]}: the same letters"
    with pytest.raises(ValueError, match=rf"t\.csv: `qi` names unknown columns .*\(`qi` {both}"):
        read_table(table, qi=[given, "sex"], sensitive="disease")
    with pytest.raises(ValueError, match=rf"`sensitive` column .*\(`sensitive` {both}"):
        read_table(table, qi=["sex"], sensitive=given)
    with pytest.raises(ValueError, match=r"`weights` names columns that are not QI: .*\(`weights`"):
        read_table(table, qi=[header, "sex"], weights={given: 2.0})
    # the header's own spelling reads, and the header keeps it as written
    data = read_csv_table(table)
    assert table_from_csv(data, qi=[header]).attributes == (header,) and data.header[0] == header


def test_a_header_naming_a_column_twice_in_other_code_points_is_refused(tmp_path):
    table = _write(tmp_path / "t.csv", f"{NFC_AGE};sex;{NFD_AGE}\n1;M;2\n")
    with pytest.raises(
        InstanceFormatError,
        match=rf"^.*t\.csv line 1: the header names column '{NFD_AGE}' twice, in other Unicode "
        r"code points: column 1 as '\\xe2ge' \(NFC\), column 3 as 'a\\u0302ge' \(NFD\); rename",
    ):
        read_csv_table(table)


@pytest.mark.parametrize(
    ("sep", "expected"), [(";", ";"), ("\\t", "\t"), ("tab", "\t"), ("|", "|")]
)
def test_check_separator(sep, expected):
    assert check_separator(sep) == expected


@pytest.mark.parametrize("sep", ["", ";;", '"', "\n", 3])
def test_check_separator_refuses(sep):
    with pytest.raises(ValueError, match="`--sep` must be one character"):
        check_separator(sep, "--sep")


# -- the real data ------------------------------------------------------------------------------
def test_datasets_dir_needs_the_variable(monkeypatch, tmp_path):
    monkeypatch.delenv(DATASETS_ENV, raising=False)
    with pytest.raises(FileNotFoundError, match=f"{DATASETS_ENV} is not set"):
        datasets_dir()
    monkeypatch.setenv(DATASETS_ENV, str(tmp_path))
    assert datasets_dir() == tmp_path
    with pytest.raises(FileNotFoundError, match="datasets folder not found: .*adult"):
        datasets_dir("adult")


def test_load_adult_with_all_hierarchies():
    folder = _adult_dir()
    table = load_adult(directory=folder)
    assert table.n_records == 30162
    assert table.attributes == ADULT_QI and table.sensitive_name == "salary-class"
    heights = dict(zip(table.attributes, (h.height for h in table.hierarchies), strict=True))
    assert heights == {
        "sex": 1,
        "age": 4,
        "race": 1,
        "marital-status": 2,
        "education": 3,
        "native-country": 2,
        "workclass": 2,
        "occupation": 2,
    }
    inst = KAnonymityInstance(table, 5, "generalization")
    # trivial solution: one group; every attribute climbs to the top: 8 per record
    assert verify(inst, np.zeros(table.n_records, dtype=int)).cost == 8 * 30162
    # group by sex: sex stays published, the others are computed independently here
    labels = table.codes[:, 0].astype(np.int64)
    expected = 0.0
    for g in np.unique(labels):
        rows = table.codes[labels == g]
        for j, h in enumerate(table.hierarchies):
            level = next(
                t for t in range(h.height + 1) if len(np.unique(h.groups[rows[:, j], t])) == 1
            )
            expected += len(rows) * level / h.height
    assert verify(inst, labels).cost == pytest.approx(expected)


def test_load_adult_from_environment_and_family():
    _adult_dir()
    table = load_adult(qi=["age", "sex"], sensitive=None, hierarchies=False)
    assert table.attributes == ("age", "sex") and table.hierarchies == (None, None)
    inst, meta = generate("kanon-adult", seed=3, n="200", qi="age,education", k=4)
    assert inst.n == 200 and inst.table.attributes == ("age", "education")
    assert meta["n_records"] == 200 and meta["params"]["qi"] == ["age", "education"]
    again, _ = generate("kanon-adult", seed=3, n=200, qi="age,education", k=4)
    np.testing.assert_array_equal(again.table.codes, inst.table.codes)
    with pytest.raises(ValueError, match=r"parameter `n` must be in \[0, 30162\]"):
        generate("kanon-adult", seed=0, n=10**6)


@pytest.mark.parametrize("blank", ["", "\n", " \r\n\t\r\n", "\f\n", "\u2028 \n"])
def test_the_separator_is_sniffed_from_the_first_non_blank_line(tmp_path, blank):
    """Leading blank lines (any line break ``str.splitlines`` knows) are skipped; the header line
    decides the separator even when the records hold more of another one."""
    path = tmp_path / "t.csv"
    path.write_text(blank + "zip;note\n1305;a,b,c,d\n1306;e,f,g\n", encoding="utf-8", newline="")
    data = read_csv_table(path)
    assert data.sep == ";" and list(data.frame.columns) == ["zip", "note"]
    assert data.frame["note"].tolist() == ["a,b,c,d", "e,f,g"]
