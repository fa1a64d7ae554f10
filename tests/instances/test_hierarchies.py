"""Tests of instances/hierarchies.py: ARX hierarchy files, ARX's shared hierarchy folder, repeated
rows, nesting messages, and the CLI's warning line."""

import os
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonratio.bench.cli.parser import main
from anonratio.instances import InstanceFormatError, loaders
from anonratio.instances.hierarchies import (
    HierarchyWarning,
    find_hierarchies,
    hierarchy_levels,
    read_hierarchy,
)
from anonratio.instances.table import Hierarchy

AGE_CSV = "1;[1-2];*\n2;[1-2];*\n3;[3-4];*\n4;[3-4];*\n"
SEX_CSV = "M;*\nF;*\n"
# a different hierarchy of the same column, as another data set's file would hold
OTHER_AGE_CSV = "1;low;*\n2;low;*\n3;low;*\n4;high;*\n"
TABLE_CSV = "age;sex;disease\n1;M;flu\n2;M;flu\n3;F;cold\n4;F;hiv\n1;F;flu\n"


def _write(path, text):
    path.write_text(text, encoding="utf-8", newline="")
    return path


def _same(a: Hierarchy, b: Hierarchy) -> bool:
    return np.array_equal(a.groups, b.groups) and a.labels == b.labels


# -- read_hierarchy -----------------------------------------------------------------------------
def test_read_hierarchy(tmp_path):
    h = read_hierarchy(_write(tmp_path / "age.csv", AGE_CSV), attribute="age")
    assert h.height == 2 and h.labels[1] == ("[1-2]", "[3-4]") and h.labels[-1] == ("*",)
    np.testing.assert_array_equal(h.groups, [[0, 0, 0], [1, 0, 0], [2, 1, 0], [3, 1, 0]])
    crlf = read_hierarchy(_write(tmp_path / "c.csv", AGE_CSV.replace("\n", "\r\n")), attribute="a")
    assert _same(crlf, h)
    tab = read_hierarchy(_write(tmp_path / "t.csv", "a,x\nb,y\n"), attribute="q", sep=",")
    assert tab.height == 2 and tab.labels[-1] == ("*",)  # a missing `*` level is appended


def test_read_hierarchy_errors(tmp_path):
    empty = _write(tmp_path / "empty.csv", "\n\n")
    with pytest.raises(InstanceFormatError, match=r"empty\.csv: hierarchy of attribute 'age' is"):
        read_hierarchy(empty, attribute="age")
    ragged = _write(tmp_path / "ragged.csv", "1;a;*\n2;*\n")
    with pytest.raises(
        InstanceFormatError,
        match=r"ragged\.csv line 2: hierarchy of attribute 'age' is ragged: the row of '2' has 2 "
        r"fields, line 1 has 3$",
    ):
        read_hierarchy(ragged, attribute="age")
    blank = _write(tmp_path / "blank.csv", "1;a;*\n;;\n")
    with pytest.raises(InstanceFormatError, match=r"blank\.csv line 2: .* a row of empty fields"):
        read_hierarchy(blank, attribute="age")
    with pytest.raises(FileNotFoundError, match="hierarchy file of attribute 'age' not found"):
        read_hierarchy(tmp_path / "missing.csv", attribute="age")
    binary = tmp_path / "bin.csv"
    binary.write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(InstanceFormatError, match=r"bin\.csv line 1: not a UTF-8 text file"):
        read_hierarchy(binary, attribute="age")


# -- a value listed twice -----------------------------------------------------------------------
def test_identical_repeat_in_file_is_read_once_with_a_warning(tmp_path):
    file = _write(tmp_path / "dup.csv", AGE_CSV.replace("3;", "\n1;[1-2];*\n3;", 1))
    with pytest.warns(
        HierarchyWarning,
        match=r"dup\.csv line 4: hierarchy of attribute 'age' lists value '1' twice with "
        r"identical rows \(lines 1 and 4\); the repeat is ignored$",
    ):
        h = read_hierarchy(file, attribute="age")
    assert _same(h, read_hierarchy(_write(tmp_path / "age.csv", AGE_CSV), attribute="age"))


def test_conflicting_repeat_in_file_names_file_value_and_both_lines(tmp_path):
    file = _write(tmp_path / "dup.csv", AGE_CSV + "\n2;[3-4];*\n")
    with pytest.raises(
        InstanceFormatError,
        match=r"dup\.csv line 6: hierarchy of attribute 'age' lists value '2' twice \(lines 2 and "
        r"6\) with different rows: \['2', '\[1-2\]', '\*'\] and \['2', '\[3-4\]', '\*'\]$",
    ):
        read_hierarchy(file, attribute="age")


def test_from_rows_repeats_name_attribute_value_and_rows():
    rows = [["a", "x", "*"], [], ["b", "x", "*"], ["a", "x", "*"], ["a", "x", "*"]]
    with pytest.warns(
        HierarchyWarning,
        match=r"^hierarchy of attribute 'q' lists value 'a' twice with identical rows \(rows 0 "
        r"and 3; 2 repeated rows in all\); the repeat is ignored$",
    ):
        h = Hierarchy.from_rows(rows, attribute="q")
    assert h.labels == (("a", "b"), ("x",), ("*",)) and h.height == 2
    with pytest.raises(
        InstanceFormatError,
        match=r"^hierarchy of attribute 'q' lists value 'b' twice \(rows 1 and 2\) with different "
        r"rows: \['b', 'x', 'P'\] and \['b', 'y', 'P'\]$",
    ):
        Hierarchy.from_rows([["a", "x", "P"], ["b", "x", "P"], ["b", "y", "P"]], attribute="q")


# -- nesting ------------------------------------------------------------------------------------
def test_not_nested_names_attribute_and_first_offending_value():
    rows = [["a", "x", "P", "*"], ["b", "y", "P", "*"], ["c", "x", "Q", "*"], ["d", "y", "Q", "*"]]
    with pytest.raises(
        InstanceFormatError,
        match=r"^hierarchy of attribute 'q': hierarchy level 1 does not refine level 2: value 'c' "
        r"is in group 'x' at level 1 but in group 'Q' at level 2, while value 'a' of the same "
        r"group is in 'P' \(rows 0 and 2\)$",
    ):
        Hierarchy.from_rows(rows, attribute="q")


def test_not_nested_file_names_file_and_lines(tmp_path):
    nested = _write(tmp_path / "nest.csv", "a;x;P;*\n\nb;x;Q;*\n")
    with pytest.raises(
        InstanceFormatError,
        match=r"nest\.csv: hierarchy of attribute 'q': hierarchy level 1 does not refine level "
        r"2: value 'b' is in group 'x' at level 1 but in group 'Q' at level 2, while value 'a' "
        r"of the same group is in 'P' \(lines 1 and 3\)$",
    ):
        read_hierarchy(nested, attribute="q")


def test_post_init_still_refuses_split_groups():
    # the constructor, given codes directly, keeps its own check
    with pytest.raises(InstanceFormatError, match="level 1 does not refine level 2"):
        Hierarchy([[0, 0, 0, 0], [1, 0, 1, 0]], (("a", "b"), ("x",), ("P", "Q"), ("*",)))


def _nested_rows(n: int, fan: tuple[int, int]) -> list[list[str]]:
    """Values ``v0..`` in groups ``g{v % fan[0]}`` at level 1, ``h{g % fan[1]}`` at level 2."""
    return [[f"v{v}", f"g{v % fan[0]}", f"h{v % fan[0] % fan[1]}", "*"] for v in range(n)]


@settings(derandomize=True, max_examples=60, deadline=None)
@given(
    n=st.integers(1, 12),
    fan=st.tuples(st.integers(1, 6), st.integers(1, 4)),
    repeats=st.lists(st.integers(0, 11), max_size=5),
)
def test_identical_repeats_never_change_the_hierarchy(n, fan, repeats):
    rows = _nested_rows(n, fan)
    base = Hierarchy.from_rows(rows, attribute="q")
    extra = [rows[i % n] for i in repeats]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        again = Hierarchy.from_rows(rows + extra, attribute="q")
    assert _same(again, base)
    assert [w.category for w in caught] == ([HierarchyWarning] if extra else [])


@settings(derandomize=True, max_examples=60, deadline=None)
@given(n=st.integers(2, 12), fan=st.integers(2, 6), data=st.data())
def test_a_moved_value_is_named_in_the_nesting_error(n, fan, data):
    # level 1: v % fan; level 2: the parity of the level-1 group; moving value j to the other
    # level-2 group splits its level-1 group whenever that group has another member
    rows = [[f"v{v}", f"g{v % fan}", f"h{v % fan % 2}", "*"] for v in range(n)]
    j = data.draw(st.integers(0, n - 1))
    rows[j][2] = f"h{1 - j % fan % 2}"
    shared = [v for v in range(n) if v % fan == j % fan and v != j]
    if not shared:
        Hierarchy.from_rows(rows, attribute="q")  # nothing to split: accepted
        return
    with pytest.raises(InstanceFormatError, match=r"level 1 does not refine level 2") as err:
        Hierarchy.from_rows(rows, attribute="q")
    first, offender = min(shared[0], j), max(shared[0], j)
    assert f"value 'v{offender}' is in group 'g{j % fan}'" in str(err.value)
    assert f"while value 'v{first}' of the same group" in str(err.value)


def test_hierarchy_levels_numbers_groups_by_first_appearance():
    groups, labels = hierarchy_levels([["b", "y"], ["a", "x"], ["c", "y"]], attribute="q")
    np.testing.assert_array_equal(groups, [[0, 0, 0], [1, 1, 0], [2, 0, 0]])
    assert labels == [("b", "a", "c"), ("y", "x"), ("*",)]
    with pytest.raises(ValueError, match=r"`lines` must hold one line per row \(3\), got 2"):
        hierarchy_levels([["b", "y"], ["a", "x"], ["c", "y"]], lines=[1, 2])


# -- find_hierarchies ---------------------------------------------------------------------------
def test_find_hierarchies(tmp_path):
    _write(tmp_path / "adult_hierarchy_age.csv", AGE_CSV)
    _write(tmp_path / "sex.csv", SEX_CSV)
    _write(tmp_path / "notes.txt", "x")
    with pytest.warns(HierarchyWarning, match=r"for QI columns \['zip'\] .*suppression only$"):
        found = find_hierarchies(tmp_path, ["age", "sex", "zip"])
    assert found == {"age": tmp_path / "adult_hierarchy_age.csv", "sex": tmp_path / "sex.csv"}
    _write(tmp_path / "other_hierarchy_sex.csv", SEX_CSV)
    with pytest.raises(
        InstanceFormatError,
        match=r"column 'sex' matches several hierarchy files in .*: \['other_hierarchy_sex\.csv', "
        r"'sex\.csv'\]; pass `dataset` to prefer <dataset>_hierarchy_<column>\.csv$",
    ):
        find_hierarchies(tmp_path, ["sex"])
    with pytest.raises(FileNotFoundError, match="hierarchy folder not found"):
        find_hierarchies(tmp_path / "nope", ["age"])
    assert loaders.find_hierarchies is find_hierarchies  # still importable from loaders
    assert loaders.read_hierarchy is read_hierarchy
    assert loaders.HierarchyWarning is HierarchyWarning


def test_find_hierarchies_matches_file_names_in_either_unicode_form(tmp_path):
    """A file system may store "âge" decomposed (NFD); the header writes it composed (NFC)."""
    nfc, nfd = "\u00e2ge", "a\u0302ge"
    _write(tmp_path / f"adult_hierarchy_{nfd}.csv", AGE_CSV)
    _write(tmp_path / "s\u0301ex.csv", SEX_CSV)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # both found: no "suppression only" warning
        found = find_hierarchies(tmp_path, [nfc, "s\u0301ex"], dataset="adult")
    assert found == {
        nfc: tmp_path / f"adult_hierarchy_{nfd}.csv",
        "s\u0301ex": tmp_path / "s\u0301ex.csv",
    }
    _write(tmp_path / f"adult_hierarchy_{nfc}.csv", AGE_CSV)  # both spellings: ambiguous
    with pytest.raises(InstanceFormatError, match=r"matches several hierarchy files"):
        find_hierarchies(tmp_path, [nfc])


DATASETS = ("adult", "other", "x")


def test_find_hierarchies_precedence_in_a_shared_folder(tmp_path):
    for name in ("adult_hierarchy_age", "other_hierarchy_age", "age", "other_hierarchy_sex"):
        _write(tmp_path / f"{name}.csv", AGE_CSV)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every column has a file: no warning
        pick = {d: find_hierarchies(tmp_path, ["age"], dataset=d)["age"].name for d in DATASETS}
        # a single match is used whatever its prefix
        only = find_hierarchies(tmp_path, ["sex"], dataset="adult")["sex"].name
    assert pick == {
        "adult": "adult_hierarchy_age.csv",
        "other": "other_hierarchy_age.csv",
        "x": "age.csv",
    }
    assert only == "other_hierarchy_sex.csv"
    (tmp_path / "age.csv").unlink()
    with pytest.raises(
        InstanceFormatError,
        match=r"column 'age' matches several hierarchy files in .*: \['adult_hierarchy_age\.csv', "
        r"'other_hierarchy_age\.csv'\]; none is named x_hierarchy_age\.csv or age\.csv$",
    ):
        find_hierarchies(tmp_path, ["age"], dataset="x")


def test_read_table_prefers_the_data_files_own_hierarchies(tmp_path):
    data = _write(tmp_path / "adult.csv", TABLE_CSV)
    folder = tmp_path / "hier"
    folder.mkdir()
    _write(folder / "adult_hierarchy_age.csv", AGE_CSV)
    _write(folder / "other_hierarchy_age.csv", OTHER_AGE_CSV)
    with pytest.warns(HierarchyWarning, match=r"for QI columns \['sex'\]"):
        t = loaders.read_table(data, sensitive="disease", hierarchies=folder)
    assert t.hierarchies[0].labels[1] == ("[1-2]", "[3-4]") and t.hierarchies[1] is None
    other = _write(tmp_path / "other.csv", TABLE_CSV)
    with pytest.warns(HierarchyWarning):
        assert loaders.read_table(other, sensitive="disease", hierarchies=folder).hierarchies[
            0
        ].labels[1] == ("low", "high")


def test_real_arx_folder_picks_adults_files(tmp_path):
    root = os.environ.get(loaders.DATASETS_ENV)
    adult = Path(root or ".") / "adult"
    if not root or not (adult / "adult.csv").is_file():
        pytest.skip(f"{loaders.DATASETS_ENV} is not set or has no adult/: Adult is not available")
    for f in adult.glob("*hierarchy*"):
        shutil.copy(f, tmp_path / f.name)
    _write(tmp_path / "other_hierarchy_age.csv", "17;young;*\n90;old;*\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error", HierarchyWarning)  # every QI has its file
        t = loaders.read_table(
            adult / "adult.csv",
            qi=list(loaders.ADULT_QI),
            sensitive="salary-class",
            hierarchies=tmp_path,
            sep=";",
        )
    age = read_hierarchy(adult / "adult_hierarchy_age.csv", attribute="age")
    j = t.attributes.index("age")
    assert t.n_records == 30162 and _same(t.hierarchies[j], age) and age.n_values == 100


# -- the CLI ------------------------------------------------------------------------------------
def test_cli_prints_one_warning_line_and_uses_the_data_files_hierarchy(tmp_path, capsys):
    data = _write(tmp_path / "adult.csv", TABLE_CSV)
    folder = tmp_path / "hier"
    folder.mkdir()
    _write(folder / "adult_hierarchy_age.csv", AGE_CSV)
    _write(folder / "other_hierarchy_age.csv", OTHER_AGE_CSV)
    out = tmp_path / "out.csv"
    argv = ["anonymize", str(data), "--qi", "age,sex", "--k", "2", "--out", str(out)]
    assert main([*argv, "--hierarchies", str(folder), "--sensitive", "disease"]) == 0
    err = capsys.readouterr().err.splitlines()
    warning = [line for line in err if "warning:" in line]
    assert len(warning) == 1 and warning[0].startswith("anonratio: warning: no hierarchy file in ")
    assert "['sex']" in warning[0] and "suppression only" in warning[0]
    published = out.read_text().splitlines()
    assert {line.split(";")[0] for line in published[1:]} <= {
        "1",
        "2",
        "3",
        "4",
        "[1-2]",
        "[3-4]",
        "*",
    }
