"""``anonratio anonymize`` with the classic algorithms (survey 002): global and local recoding,
privacy models beyond k (``--privacy``), tuple suppression and the utility metrics printed."""

import json

import pandas as pd
import pytest

from anonratio.bench.cli.parser import main
from anonratio.instances.privacy_specs import check_published

ROWS = [
    (str(20 + (7 * i) % 40), "MF"[i % 2], f"1305{i % 4}", ["flu", "cold", "hiv"][i % 3])
    for i in range(30)
]
QI = ["age", "sex", "zip"]


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "data.csv"
    lines = ["age;sex;zip;disease"] + [";".join(r) for r in ROWS]
    path.write_text("\n".join(lines) + "\n")
    hier = tmp_path / "hier"
    hier.mkdir()
    ages = sorted({r[0] for r in ROWS})
    rows = [f"{a};{int(a) // 10 * 10}s;{'<40' if int(a) < 40 else '>=40'};*" for a in ages]
    (hier / "data_hierarchy_age.csv").write_text("\n".join(rows) + "\n")
    zips = sorted({r[2] for r in ROWS})
    (hier / "data_hierarchy_zip.csv").write_text("\n".join(f"{z};{z[:4]}*;*" for z in zips))
    (hier / "data_hierarchy_sex.csv").write_text("M;*\nF;*\n")
    return path, hier


def _run(capsys, *argv):
    code = main(["anonymize", *map(str, argv), "--json"])
    out = capsys.readouterr()
    return code, json.loads(out.out)


@pytest.mark.parametrize("algorithm", ["samarati", "incognito", "flash", "datafly"])
def test_full_domain_publishes_a_global_recoding_with_privacy_models(
    data, tmp_path, capsys, algorithm
):
    path, hier = data
    out = tmp_path / f"{algorithm}.csv"
    code, info = _run(
        capsys,
        path,
        "--qi",
        ",".join(QI),
        "--k",
        3,
        "--hierarchies",
        hier,
        "--algorithm",
        algorithm,
        "--sensitive",
        "disease",
        "--privacy",
        "l-diversity:l=2",
        "--max-suppression",
        0.1,
        "--out",
        out,
    )
    assert code == 0
    assert info["recoding"] == "global recoding"
    assert set(info["levels"]) == set(QI) and info["suppressed"] <= 3
    assert info["privacy"] == {"3-anonymity": "ok", "distinct 2-diversity": "ok"}
    assert info["metrics"]["generalization-cost"] == pytest.approx(info["published_cost"])
    published = pd.read_csv(out, sep=";", dtype=str, keep_default_na=False)
    original = pd.read_csv(path, sep=";", dtype=str, keep_default_na=False)
    # the suppressed tuples are withheld: the kept rows, in order, with the input's columns
    assert list(published) == list(original)
    assert len(published) == len(original) - info["suppressed"]
    assert _is_subsequence(published["disease"].tolist(), original["disease"].tolist())
    for check in check_published(published, QI, "disease", ["k-anonymity:k=3", "l-diversity:l=2"]):
        assert check.satisfied, check.message


def _is_subsequence(part, whole):
    it = iter(whole)
    return all(any(x == y for y in it) for x in part)


@pytest.fixture
def leaky(tmp_path):
    """Four records of zip 11111 (flu, cold, flu, cold) and one of zip 99999 (hiv): at k = 2 and
    2-diversity with a 20 % budget Incognito suppresses the zip-99999 record."""
    path = tmp_path / "leaky.csv"
    path.write_text("zip;disease\n11111;flu\n11111;cold\n11111;flu\n11111;cold\n99999;hiv\n")
    hier = tmp_path / "hier"
    hier.mkdir()
    (hier / "leaky_hierarchy_zip.csv").write_text("11111;1111*;*\n99999;9999*;*\n")
    args = ["--qi", "zip", "--k", 2, "--hierarchies", hier, "--algorithm", "incognito"]
    args += ["--sensitive", "disease", "--privacy", "l-diversity:l=2", "--max-suppression", 0.2]
    return path, args


def test_a_suppressed_record_is_withheld_not_published(leaky, tmp_path, capsys):
    path, args = leaky
    out, rows = tmp_path / "out.csv", tmp_path / "withheld.csv"
    code, info = _run(capsys, path, *args, "--out", out, "--withheld-rows", rows)
    assert code == 0 and info["suppressed"] == 1 and info["suppressed_rows"] == "withhold"
    assert out.read_text() == "zip;disease\n11111;flu\n11111;cold\n11111;flu\n11111;cold\n"
    assert rows.read_text() == "record,line\n5,6\n"


def test_kept_suppressed_rows_star_the_sensitive_cell(leaky, tmp_path, capsys):
    path, args = leaky
    out = tmp_path / "out.csv"
    code, info = _run(capsys, path, *args, "--out", out, "--keep-suppressed")
    assert code == 0 and info["suppressed_rows"] == "star"
    assert out.read_text().splitlines()[-1] == "*;*"
    assert "hiv" not in out.read_text()


def test_the_withheld_rows_file_is_never_the_output(leaky, tmp_path, capsys):
    path, args = leaky
    out = tmp_path / "out.csv"
    code, err = _run(capsys, path, *args, "--out", out, "--withheld-rows", path)
    assert code == 2 and "never writes over an input" in err["error"]


@pytest.mark.parametrize("algorithm", ["mondrian", "mondrian-relaxed", "forest"])
def test_local_recodings_print_every_metric(data, tmp_path, capsys, algorithm):
    path, hier = data
    out = tmp_path / "out.csv"
    code, info = _run(
        capsys,
        path,
        "--qi",
        ",".join(QI),
        "--k",
        4,
        "--hierarchies",
        hier,
        "--algorithm",
        algorithm,
        "--utility",
        "all",
        "--out",
        out,
    )
    assert code == 0 and info["recoding"] == "local recoding"
    assert set(info["metrics"]) == {
        "stars",
        "generalization-cost",
        "discernibility",
        "c-avg",
        "ncp",
        "precision",
        "non-uniform-entropy",
        "kl-divergence",
    }
    assert info["published_min_class"] >= 4
    published = pd.read_csv(out, sep=";", dtype=str, keep_default_na=False)
    (check,) = check_published(published, QI, None, ["k-anonymity:k=4"])
    assert check.satisfied


def test_unsupported_pairs_are_refused_naming_both(data, tmp_path, capsys):
    path, hier = data
    out = tmp_path / "out.csv"
    code, err = _run(
        capsys,
        path,
        "--qi",
        "age",
        "--k",
        3,
        "--algorithm",
        "forest",
        "--sensitive",
        "disease",
        "--privacy",
        "l-diversity:l=2",
        "--out",
        out,
    )
    assert code != 0 and "`--privacy` is not supported by algorithm 'forest'" in err["error"]
    code, err = _run(
        capsys,
        path,
        "--qi",
        "age",
        "--k",
        3,
        "--algorithm",
        "incognito",
        "--privacy",
        "l-diversity:l=2",
        "--out",
        out,
    )
    assert code != 0 and "--sensitive" in err["error"]
    code, err = _run(
        capsys,
        path,
        "--qi",
        "age",
        "--k",
        3,
        "--algorithm",
        "incognito",
        "--sensitive",
        "disease",
        "--privacy",
        "entropy:l=2",
        "--out",
        out,
    )
    assert code != 0 and "`--privacy` 'entropy:l=2'" in err["error"]
    assert not out.exists()
