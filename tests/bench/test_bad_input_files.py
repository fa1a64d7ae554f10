"""Bad input files through the command line: instance JSON for ``solve``, results for ``report``.

Every case asserts the exit status (2 bad input, 1 failed run), the one line on stderr (naming the
file, the field and the value), that ``--json`` adds one JSON document ``{"error", "kind"}`` on
stdout with the same status, and that no file was created and the input was left as it was.
"""

import dataclasses
import json
import re

import numpy as np
import pandas as pd
import pytest

from anonratio.bench.cli.parser import main
from anonratio.instances import (
    BinCoveringInstance,
    KAnonymityInstance,
    OrderedLabelsInstance,
    instance_from_dict,
    instance_to_dict,
)
from anonratio.instances.errors import InstanceFormatError
from anonratio.instances.io import load_instance
from anonratio.instances.kanonymity.generators import binary_table

PREFIX = "anonratio: error: "


def _snapshot(folder):
    return {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def _expect_error(capsys, tmp_path, argv, status, pattern, kind="bad_input"):
    """Run ``argv`` without and with ``--json``: same status, same message, nothing written."""
    before = _snapshot(tmp_path)
    assert main(argv) == status
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(PREFIX), err
    message = lines[0][len(PREFIX) :]
    assert re.search(pattern, message), message
    assert out == ""
    assert _snapshot(tmp_path) == before  # no output file, the input unharmed

    assert main([*argv, "--json"]) == status
    out, err = capsys.readouterr()
    doc = json.loads(out)  # one JSON document on stdout
    assert doc["error"] == message and doc["kind"] == kind, doc
    assert err.strip().splitlines() == [lines[0]]  # the stderr line stays
    assert _snapshot(tmp_path) == before
    return message


def _file(tmp_path, content, name="inst.json"):
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif isinstance(content, str):
        path.write_text(content)
    else:
        path.write_text(json.dumps(content))
    return path


def _solve_error(capsys, tmp_path, content, pattern, name="inst.json"):
    path = _file(tmp_path, content, name)
    message = _expect_error(
        capsys, tmp_path, ["solve", str(path), "--algorithm", "forest"], 2, pattern
    )
    assert message.startswith(f"{path}: "), message  # the path comes first
    return message


# ---------------------------------------------------------------------------------------------
# valid documents of each problem, to be broken one field at a time
# ---------------------------------------------------------------------------------------------
def _kanon_doc():
    return instance_to_dict(KAnonymityInstance(binary_table(6, 3, seed=0), 2))


BASE = {
    "bin-covering": lambda: {"problem": "bin-covering", "sizes": [1, 20, 30, 40], "k": 3},
    "ordered-labels": lambda: {"problem": "ordered-labels", "sizes": [1, 2, 3], "k": 2},
    "gps-rectangles": lambda: {
        "problem": "gps-rectangles",
        "points": [[0, 0], [1, 1]],
        "weights": [1, 2],
        "k": 2,
    },
    "zip-codes": lambda: {
        "problem": "zip-codes",
        "n": 3,
        "edges": [[0, 1], [1, 2]],
        "weights": [1, 2, 3],
        "k": 2,
    },
    "k-anonymity": _kanon_doc,
}

_K1 = r"`k` must be an integer >= 1, got "
_KN = r"`k` must be an integer in \[2, n_records=6\], got "
_POS = r"`sizes` must be positive integers, got "
_NONNEG = r"must be non-negative integers, got "

FIELD_CASES = [
    # bin covering: the truncations, then every kind of junk
    ("bin-covering", "sizes", [1.5, 20.25, 30.0, 40.7], _POS + r"1\.5 at index 0"),
    ("bin-covering", "k", 3.9, _K1 + r"3\.9$"),
    ("bin-covering", "k", "three", _K1 + r"'three'$"),
    ("bin-covering", "k", True, _K1 + r"True$"),
    ("bin-covering", "k", 3.0, _K1 + r"3\.0$"),
    ("bin-covering", "k", None, _K1 + r"None$"),
    ("bin-covering", "k", [3], _K1 + r"\[3\]$"),
    ("bin-covering", "k", {"value": 3}, _K1 + r"\{'value': 3\}$"),
    ("bin-covering", "k", 0, _K1 + r"0$"),
    ("bin-covering", "k", 10**30, r"sum to 91, less than k=1000000000000000000000000000000"),
    ("bin-covering", "sizes", [1, -2], _POS + r"-2 at index 1"),
    ("bin-covering", "sizes", [1, 0], _POS + r"0 at index 1"),
    ("bin-covering", "sizes", [1, True], _POS + r"True at index 1"),
    ("bin-covering", "sizes", [True, False], _POS + r"dtype bool"),
    ("bin-covering", "sizes", [1, "2"], _POS + r"dtype <U\d+: '2' at index 1"),
    ("bin-covering", "sizes", [1, None], _POS + r"None at index 1"),
    ("bin-covering", "sizes", [1, [2]], _POS + r"\[2\] at index 1"),
    ("bin-covering", "sizes", [1, {"a": 2}], _POS + r"\{'a': 2\} at index 1"),
    (
        "bin-covering",
        "sizes",
        [[1, 2], [3, 4]],
        r"`sizes` must be a non-empty 1-D .*shape \(2, 2\)",
    ),
    ("bin-covering", "sizes", "1,2,3", r"`sizes` must be a non-empty 1-D sequence, got '1,2,3'"),
    ("bin-covering", "sizes", {"a": 1}, r"`sizes` must be a non-empty 1-D sequence, got \{"),
    ("bin-covering", "sizes", [], r"`sizes` must be a non-empty 1-D sequence, got shape \(0,\)"),
    ("bin-covering", "sizes", [1e30], r"positive integers <= 2\*\*53, got 1e\+30 at index 0"),
    ("bin-covering", "sizes", [10**30], r"<= 2\*\*53, got 10{30} at index 0"),
    ("bin-covering", "sizes", [2**52] * 3, r"`sizes` must sum to at most 2\*\*53"),
    ("bin-covering", "names", ["a", "b", "c", 4], r"`names` must be strings, got 4 at index 3"),
    ("bin-covering", "names", "abcd", r"`names` must be a sequence of strings or None, got"),
    ("bin-covering", "names", ["a"], r"`names` must have one entry per item \(4\), got 1"),
    # ordered labels
    ("ordered-labels", "k", 2.5, _K1 + r"2\.5$"),
    ("ordered-labels", "k", "2", _K1 + r"'2'$"),
    ("ordered-labels", "sizes", [1, 2.5], r"`sizes` " + _NONNEG + r"2\.5 at position 1"),
    ("ordered-labels", "sizes", [1, -1, 3], r"`sizes` " + _NONNEG + r"-1 at position 1"),
    ("ordered-labels", "sizes", [1, False, 3], r"`sizes` " + _NONNEG + r"False at position 1"),
    ("ordered-labels", "k", 7, r"total size 6 is below k=7"),
    # gps rectangles
    ("gps-rectangles", "k", "2", _K1 + r"'2'$"),
    ("gps-rectangles", "k", 1.5, _K1 + r"1\.5$"),
    ("gps-rectangles", "points", [[0, "1"], [1, 1]], r"`points` must be numeric.*\[0, '1'\] at"),
    ("gps-rectangles", "points", [[0, True], [1, 1]], r"`points` must be numeric.*True\] at i"),
    ("gps-rectangles", "points", [[0, None], [1, 1]], r"`points` must be numeric.*None\] at i"),
    ("gps-rectangles", "points", [[0], [1, 1]], r"`points` must be .*rows of different lengths"),
    ("gps-rectangles", "points", [[0, 0, 0], [1, 1, 1]], r"shape \(n, 2\), got \(2, 3\)"),
    ("gps-rectangles", "weights", [1, 2.5], r"`weights` " + _NONNEG + r"2\.5 at index 1"),
    ("gps-rectangles", "weights", [1, -1], r"`weights` " + _NONNEG + r"-1 at index 1"),
    ("gps-rectangles", "weights", [1, True], r"`weights` " + _NONNEG + r"True at index 1"),
    ("gps-rectangles", "weights", [1], r"`weights` must have one entry per point \(2\)"),
    # zip codes
    ("zip-codes", "n", 3.5, r"`n` must be an integer >= 1, got 3\.5"),
    ("zip-codes", "n", "3", r"`n` must be an integer >= 1, got '3'"),
    ("zip-codes", "k", True, _K1 + r"True$"),
    ("zip-codes", "edges", [[0, 1.5], [1, 2]], r"`edges` " + _NONNEG + r"1\.5 at index 1"),
    ("zip-codes", "edges", [[0, 1], [1, 5]], r"`edges` must name nodes 0\.\.2, got 5 in edge 1"),
    ("zip-codes", "edges", [[0, 1, 2]], r"`edges` must be a list of \[u, v\] node pairs"),
    ("zip-codes", "edges", "0-1", r"`edges` must be a list of \[u, v\] node pairs"),
    ("zip-codes", "weights", [1, 2, 3.5], r"`weights` " + _NONNEG + r"3\.5 at node 2"),
    ("zip-codes", "weights", [1, 2, "x"], r"`weights` " + _NONNEG + r"dtype <U\d+: 'x' at node 2"),
    ("zip-codes", "weights", [1, 2], r"`weights` must have one entry per node \(3\)"),
    ("zip-codes", "positions", [[0, 0], [1, "a"], [2, 2]], r"`positions` .*got 'a' at node 1"),
    # k-anonymity
    ("k-anonymity", "k", "three", _KN + r"'three'$"),
    ("k-anonymity", "k", 3.9, _KN + r"3\.9$"),
    ("k-anonymity", "k", True, _KN + r"True$"),
    ("k-anonymity", "k", 10**30, _KN + r"10{30}$"),
    ("k-anonymity", "model", "stars", r"`model` must be one of .*, got 'stars'"),
    ("k-anonymity", "row_deletion", "no", r"`row_deletion` must be a bool, got 'no'"),
    ("k-anonymity", "row_deletion", 1, r"`row_deletion` must be a bool, got 1"),
    ("k-anonymity", "table", [1, 2], r"`table` must be a JSON object, got list"),
]


@pytest.mark.parametrize(("problem", "field", "value", "pattern"), FIELD_CASES)
def test_a_bad_field_names_the_file_the_field_and_the_value(
    problem, field, value, pattern, tmp_path, capsys
):
    doc = BASE[problem]()
    doc[field] = value
    message = _solve_error(capsys, tmp_path, doc, pattern)
    assert f": malformed {problem} instance: " in message


@pytest.mark.parametrize("problem", sorted(BASE))
def test_a_missing_or_unknown_field_is_named(problem, tmp_path, capsys):
    doc = BASE[problem]()
    doc["K"] = doc.pop("k")  # a misspelt field is neither ignored nor defaulted
    _solve_error(capsys, tmp_path, doc, rf"malformed {problem} instance: missing field 'k'")
    doc = BASE[problem]()
    doc["extra"] = 1
    _solve_error(capsys, tmp_path, doc, r"unknown field 'extra'; known fields: \[")


def test_table_codes_that_are_not_integers_are_not_truncated(tmp_path, capsys):
    doc = _kanon_doc()
    doc["table"]["codes"][0][1] = 0.5
    _solve_error(capsys, tmp_path, doc, r"`table\.codes` " + _NONNEG + r"0\.5 at cell \(0, 1\)")
    doc = _kanon_doc()
    doc["table"]["codes"][2][0] = True
    _solve_error(capsys, tmp_path, doc, r"`table\.codes` " + _NONNEG + r"True at cell \(2, 0\)")


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ('{"problem": "bin-covering", "sizes": [1, NaN, 3], "k": 2}', _POS + r"nan at index 1"),
        ('{"problem": "bin-covering", "sizes": [1, Infinity], "k": 2}', _POS + r"inf at index 1"),
        ('{"problem": "bin-covering", "sizes": [1, 2], "k": -Infinity}', _K1 + r"-inf$"),
        ('{"problem": "bin-covering", "sizes": [1, 2], "k": NaN}', _K1 + r"nan$"),
        ('{"problem": "bin-covering", "sizes": [1, 2], "k": 1e400}', _K1 + r"inf$"),
        (
            '{"problem": "gps-rectangles", "points": [[0, NaN]], "weights": [1], "k": 1}',
            r"`points` must have finite coordinates, got \(0\.0, nan\) at index 0",
        ),
    ],
)
def test_nan_and_infinities_are_refused_by_name(text, pattern, tmp_path, capsys):
    _solve_error(capsys, tmp_path, text, pattern)


@pytest.mark.parametrize(
    ("content", "pattern"),
    [
        (
            '{"problem": "bin-covering",\n "sizes": [1, 2],\n "k": 2,,\n}',
            r"inst\.json: not a valid JSON instance file: Expecting property name enclosed in "
            r"double quotes at line 3, column 9$",
        ),
        ('{"problem": "k-anonymity", "k": 2,', r"not a valid JSON instance file: .* at line 1"),
        ("", r"inst\.json: empty file, not a JSON instance$"),
        (" \n\t\n", r"inst\.json: empty file, not a JSON instance$"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", r"not UTF-8 text \(byte 0x89 at offset 0"),
        (b"\x00\x01\x02", r"not a valid JSON instance file"),
        ([1, 2], r"inst\.json: expected a JSON object, got array$"),
        ("null", r"inst\.json: expected a JSON object, got null$"),
        ('"bin-covering"', r"inst\.json: expected a JSON object, got string$"),
        ({"sizes": [1, 2], "k": 2}, r"inst\.json: missing field 'problem'$"),
        ({"problem": "tsp", "k": 2}, r"inst\.json: unknown problem 'tsp'; known problems: \["),
        ({"problem": ["bin-covering"]}, r"unknown problem \['bin-covering'\]"),
        ({"problem": None}, r"unknown problem None"),
        (
            '{"problem": "bin-covering", "k": 2, "sizes": [1, 2], "k": 3}',
            r"not a valid JSON instance file: the key 'k' appears twice in one object$",
        ),
        ("[" * 100_000 + "]" * 100_000, r"not a valid JSON instance file: nested too deeply$"),
        (
            '{"problem": "bin-covering", "sizes": [1, 2], "k": ' + "9" * 5000 + "}",
            r"not a valid JSON instance file: Exceeds the limit",
        ),
        (
            {"problem": "bin-covering", "sizes": [1, 2], "k": 2, "meta": [1]},
            r"field 'meta' must be an object, got array$",
        ),
        (
            {"problem": "bin-covering", "sizes": [1, 2], "k": 2, "id": 5},
            r"field 'id' must be a string, got 5$",
        ),
        (
            {"problem": "bin-covering", "sizes": [1, 2], "k": 2, "id": "0123456789abcdef"},
            r"stored id '0123456789abcdef' does not match the content hash",
        ),
    ],
)
def test_a_broken_file_is_named_with_what_is_wrong(content, pattern, tmp_path, capsys):
    _solve_error(capsys, tmp_path, content, pattern)


def test_a_corrupt_gzip_file_is_named(tmp_path, capsys):
    _solve_error(
        capsys, tmp_path, b"not gzip", r"inst\.json\.gz: .*not a gzip file", "inst.json.gz"
    )


def test_a_folder_instead_of_a_file(tmp_path, capsys):
    folder = tmp_path / "inst.json"
    folder.mkdir()
    argv = ["solve", str(folder), "--algorithm", "forest"]
    _expect_error(capsys, tmp_path, argv, 2, rf"^{re.escape(str(folder))}: is a directory")


def test_a_missing_file(tmp_path, capsys):
    argv = ["solve", str(tmp_path / "nope.json"), "--algorithm", "forest"]
    _expect_error(capsys, tmp_path, argv, 2, r"instance file not found: .*nope\.json$")


# ---------------------------------------------------------------------------------------------
# one validation path: the constructors and the JSON loader accept and refuse the same values
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "value", [3, 3.0, 3.9, "3", True, None, np.nan, np.inf, [3], 0, -1, 10**30]
)
def test_k_follows_the_constructor_rule(value):
    for cls, doc in [
        (BinCoveringInstance, {"problem": "bin-covering", "sizes": [2, 4], "k": value}),
        (OrderedLabelsInstance, {"problem": "ordered-labels", "sizes": [2, 4], "k": value}),
    ]:
        try:
            expected = cls([2, 4], value)
        except ValueError as exc:
            with pytest.raises(InstanceFormatError) as got:
                instance_from_dict(doc)
            assert str(got.value).endswith(str(exc))
        else:
            assert instance_from_dict(doc).k == expected.k


@pytest.mark.parametrize(
    "sizes", [[1, 20, 30.0, 40], [1.5, 20.25, 30.0, 40.7], [1, True], [1, "2"], [1, None], [1, -1]]
)
def test_sizes_follow_the_constructor_rule(sizes):
    doc = {"problem": "bin-covering", "sizes": sizes, "k": 2}
    try:
        expected = BinCoveringInstance(sizes, 2)
    except ValueError as exc:
        with pytest.raises(InstanceFormatError) as got:
            instance_from_dict(doc)
        assert str(got.value).endswith(str(exc))
    else:
        assert instance_from_dict(doc).sizes.tolist() == expected.sizes.tolist()


def test_an_integral_float_size_is_the_integer(tmp_path):
    # 30.0 is 30 for the constructor (a float array holds counts so) and so for the file
    path = _file(tmp_path, {"problem": "bin-covering", "sizes": [1, 20, 30.0, 40], "k": 3})
    inst, _ = load_instance(path)
    assert inst.sizes.tolist() == [1, 20, 30, 40] and inst.sizes.dtype == np.int64


# ---------------------------------------------------------------------------------------------
# results files for `report`
# ---------------------------------------------------------------------------------------------
def _results(tmp_path):
    from anonratio.bench.engine.store import write_results

    frame = pd.DataFrame(
        [
            {
                "problem": "bin-covering",
                "instance": "i0",
                "algorithm": "spread",
                "kind": "approximation",
                "status": "feasible",
                "verified": True,
                "cost": 12.0,
                "optimum": 10.0,
                "optimum_status": "opt",
            }
        ]
    )
    return write_results(frame, tmp_path / "good")


def _report_error(capsys, tmp_path, path, pattern):
    message = _expect_error(capsys, tmp_path, ["report", str(path)], 2, pattern)
    assert str(path) in message, message
    return message


@pytest.mark.parametrize(
    ("name", "content", "pattern"),
    [
        ("results.parquet", b"", r"results\.parquet: empty file, not a Parquet results file$"),
        ("results.parquet", b"PAR1garbagePAR1", r"results\.parquet: corrupt Parquet results"),
        ("results.parquet", b"a,b\n1,2\n", r"not a Parquet results file \(it does not start"),
        ("results.csv", b"", r"results\.csv: empty file, not a CSV results file$"),
        ("results.csv", b"\x89PNG\r\n\x1a\n\x00\x00", r"binary content \(a NUL byte at offset"),
        ("results.csv", b"problem,cost\n\xff\xfe,1\n", r"not a CSV results file: not UTF-8 text"),
        ("results.csv", b"a,b\n1,2\n", r"not a results file: none of its columns \(a, b\)"),
        ("results.csv", b'problem,cost\nx,1\n"y,2\n', r"results\.csv: not a CSV results file"),
        (
            "results.csv",
            b"problem,algorithm,cost\nbin-covering,spread,12\nbin-covering,fold,abc\n",
            r"column 'cost' must hold numbers, got 'abc' in row 2$",
        ),
        ("results.txt", b"problem\n", r"`path` must be a \.parquet or \.csv file or a directory"),
    ],
)
def test_report_names_a_bad_results_file(name, content, pattern, tmp_path, capsys):
    path = _file(tmp_path, content, name)
    _report_error(capsys, tmp_path, path, pattern)


def test_report_names_a_truncated_parquet_file_in_a_folder(tmp_path, capsys):
    paths = _results(tmp_path)
    data = paths["parquet"].read_bytes()
    paths["parquet"].write_bytes(data[: len(data) // 2])
    message = _report_error(capsys, tmp_path, tmp_path / "good", r"results\.parquet: corrupt")
    assert str(paths["parquet"]) in message


def test_report_on_good_results_still_works(tmp_path, capsys):
    paths = _results(tmp_path)
    assert main(["report", str(paths["parquet"]), "--json"]) == 0
    assert "summary" in json.loads(capsys.readouterr().out)


# ---------------------------------------------------------------------------------------------
# --json errors of every kind
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("argv", "pattern"),
    [
        (["solve"], r"the following arguments are required: FILE\.json, --algorithm"),
        (["frobnicate"], r"invalid choice: 'frobnicate'"),
        (["solve", "x.json", "--algorithm", "forest", "--seed", "one"], r"--seed: invalid int"),
        (["list", "--frob"], r"unrecognized arguments: --frob"),
        (["report"], r"required: RESULTS"),
    ],
)
def test_usage_errors_with_json(argv, pattern, tmp_path, capsys):
    _expect_error(capsys, tmp_path, argv, 2, pattern)


def test_generate_into_a_folder_writes_nothing(tmp_path, capsys):
    (tmp_path / "out.json").mkdir()
    argv = ["generate", "bc-uniform", "--seed", "1", "--out", str(tmp_path / "out.json")]
    _expect_error(capsys, tmp_path, argv, 2, r"Is a directory: .*out\.json$")


def test_a_failed_run_with_json_is_one_error_document_with_the_record(
    tmp_path, capsys, monkeypatch
):
    import anonratio.bench.engine.runner as runner

    real = runner.run_and_finalize

    def failing(*args, **kwargs):
        record = real(*args, **kwargs)
        return dataclasses.replace(record, verified=False, status="error", error="solver blew up")

    monkeypatch.setattr(runner, "run_and_finalize", failing)
    path = _file(tmp_path, {"problem": "bin-covering", "sizes": [3, 4, 5], "k": 4})
    argv = ["solve", str(path), "--algorithm", "spread-sorted"]
    assert main([*argv, "--json"]) == 1
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert doc["kind"] == "run_failed" and doc["type"] == "RunFailure"
    assert doc["error"] == "spread-sorted produced no verified solution: solver blew up"
    assert doc["result"]["algorithm"] == "spread-sorted" and doc["result"]["verified"] is False
    assert err.strip() == f"{PREFIX}{doc['error']}"
    assert main(argv) == 1  # without --json: the text report, then the one error line
    out, err = capsys.readouterr()
    assert "spread" in out and err.strip() == f"{PREFIX}{doc['error']}"


def test_an_unexpected_exception_is_one_line_and_one_document(tmp_path, capsys, monkeypatch):
    import anonratio.bench.cli.commands as commands

    def boom(args):
        raise RuntimeError("something broke\nacross lines")

    monkeypatch.setattr(commands, "cmd_list", boom)  # the parser imports it when it runs
    message = _expect_error(
        capsys, tmp_path, ["list"], 1, r"^internal error: RuntimeError: ", "internal_error"
    )
    assert message.endswith("something broke across lines")
