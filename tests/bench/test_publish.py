"""One publishing path (bench/publish/anonymize.py): ``anonratio.anonymize()`` and ``anonratio
anonymize`` report the same figures, every publishing mode of the command line is in the API, and
the certified ratio is that of the published table."""

import dataclasses
import json

import numpy as np
import pandas as pd
import pytest

import anonratio
from anonratio.bench.cli.parser import main

FIGURES = ("cost", "published_cost", "lower_bound", "lower_bound_source", "certified_ratio")


def _figures(result):
    """The figures of an API result, named as the command line's ``--json`` names them."""
    return {
        "cost": result.cost,
        "published_cost": result.published_cost,
        "lower_bound": result.lower_bound,
        "lower_bound_source": result.bound_source,
        "certified_ratio": result.certified_ratio,
    }


def _cli(capsys, *argv):
    code = main(["anonymize", *map(str, argv), "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out)


def _read(path, sep=","):
    return pd.read_csv(path, sep=sep, dtype=str, keep_default_na=False)


def _same(written, published):
    """The file written is the published frame (cells as text, the index aside)."""
    pd.testing.assert_frame_equal(
        written.reset_index(drop=True),
        published.astype(str).reset_index(drop=True),
        check_dtype=False,
    )


def _categorical(tmp_path, seed=0, n=40):
    """A 40-row table where the nearest-neighbour bound (63) is far below the optimum (80), which
    ``kanon-certified`` proves."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "a": rng.integers(0, 5, n).astype(str),
            "b": rng.integers(0, 5, n).astype(str),
            "c": rng.integers(0, 4, n).astype(str),
            "d": rng.integers(0, 3, n).astype(str),
            "s": rng.choice(["flu", "cold", "hiv"], n),
        }
    )
    path = tmp_path / "t40.csv"
    df.to_csv(path, index=False)
    return df, path


def test_api_and_cli_report_the_proven_optimum_of_kanon_certified(tmp_path, capsys):
    df, path = _categorical(tmp_path)
    published, result = anonratio.anonymize(
        df, ["a", "b", "c", "d"], 3, algorithm="kanon-certified"
    )
    code, info = _cli(
        capsys,
        path,
        "--qi",
        "a,b,c,d",
        "--k",
        3,
        "--algorithm",
        "kanon-certified",
        "--out",
        tmp_path / "out.csv",
    )
    assert code == 0, info
    assert {f: info[f] for f in FIGURES} == _figures(result)
    assert result.lower_bound == 80 and result.certified_ratio == 1.0  # not 80 / 63
    assert result.lower_bound_source.startswith("optimum")
    _same(_read(tmp_path / "out.csv"), published)


HIER = {
    "age": {a: [f"{a // 10 * 10}s", "<40" if a < 40 else ">=40"] for a in range(20, 70)},
    "zip": {z: [z[:4] + "*", z[:3] + "**"] for z in ["13053", "13068", "14850", "14853"]},
}


def _people(tmp_path, seed=3, n=30):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "age": rng.integers(20, 70, n).astype(str),
            "zip": rng.choice(["13053", "13068", "14850", "14853"], n),
            "sex": rng.choice(["F", "M"], n),
            "disease": rng.choice(["flu", "cancer", "heart", "none"], n),
        }
    )
    folder = tmp_path / "hier"
    folder.mkdir()
    for column, rows in HIER.items():
        lines = [";".join([str(v), *levels, "*"]) for v, levels in rows.items()]
        (folder / f"people_hierarchy_{column}.csv").write_text("\n".join(lines) + "\n")
    (folder / "people_hierarchy_sex.csv").write_text("F;*\nM;*\n")
    path = tmp_path / "people.csv"
    df.to_csv(path, index=False)
    hierarchies = {c: {str(v): levels for v, levels in rows.items()} for c, rows in HIER.items()}
    hierarchies["sex"] = {"F": [], "M": []}
    return df, path, hierarchies


def test_the_certified_ratio_is_of_the_published_table(tmp_path, capsys):
    """A global recoding publishes more than its partition costs: the ratio is of what is
    published, and says so."""
    df, path, hierarchies = _people(tmp_path)
    _, result = anonratio.anonymize(
        df,
        ["age", "zip", "sex"],
        3,
        hierarchies=hierarchies,
        algorithm="datafly",
        max_suppression=0.1,
    )
    assert result.published_cost > result.cost  # 43.3 against the partition's 35.7
    assert result.certified_ratio == pytest.approx(result.published_cost / result.lower_bound)
    from anonratio.bench.publish.anonymize import RATIO_OF

    assert result.ratio_of == RATIO_OF == "published cost / lower bound"
    assert f"certified ratio ({RATIO_OF})" in result.summary()
    code, info = _cli(
        capsys,
        path,
        "--qi",
        "age,zip,sex",
        "--k",
        3,
        "--hierarchies",
        tmp_path / "hier",
        "--algorithm",
        "datafly",
        "--max-suppression",
        0.1,
        "--out",
        tmp_path / "out.csv",
    )
    assert code == 0, info
    assert {f: info[f] for f in FIGURES} == _figures(result)
    assert info["certified_ratio_of"] == RATIO_OF
    main(
        [
            "anonymize",
            str(path),
            "--qi",
            "age,zip,sex",
            "--k",
            "3",
            "--hierarchies",
            str(tmp_path / "hier"),
            "--algorithm",
            "datafly",
            "--max-suppression",
            "0.1",
            "--out",
            str(tmp_path / "out.csv"),
        ]
    )
    text = capsys.readouterr().out
    assert f"certified ratio  {info['certified_ratio']:.6g} ({RATIO_OF})" in text
    assert f"the partition's cost {info['cost']:.6g}" in text


def _numbers(tmp_path, n=12):
    rows = [
        (30 + 10 * (i // 4), 20_000 + 1_000 * (i % 2), "flu cold hiv".split()[i % 3])
        for i in range(n)
    ]
    df = pd.DataFrame(rows, columns=["age", "income", "disease"]).astype(str)
    path = tmp_path / "numbers.csv"
    df.to_csv(path, index=False)
    return df, path


@pytest.mark.parametrize(
    "algorithm", ["r-gather", "greedy-gather", "min-size-kmeans", "r-cellular"]
)
def test_cluster_publishing_is_in_the_api(tmp_path, capsys, algorithm):
    df, path = _numbers(tmp_path)
    published, result = anonratio.anonymize(
        df, ["age", "income"], 3, algorithm=algorithm, scaling="range"
    )
    out = tmp_path / "out.csv"
    code, info = _cli(
        capsys,
        path,
        "--qi",
        "age,income",
        "--k",
        3,
        "--algorithm",
        algorithm,
        "--scaling",
        "range",
        "--out",
        out,
    )
    assert code == 0, info
    assert {f: info[f] for f in FIGURES} == _figures(result)
    _same(_read(out), published)
    clusters = _read(info["clusters"])
    _same(clusters.drop(columns="radius"), result.clusters.drop(columns="radius"))
    assert np.allclose(clusters["radius"].astype(float), result.clusters["radius"])
    assert result.clusters["size"].sum() == len(df) and result.problem in ("r-gather", "r-cellular")
    assert [c.model for c in result.checks] == ["3-anonymity"] and result.checks[0].satisfied


def test_l_diversity_publishing_is_in_the_api(tmp_path, capsys):
    df, path = _numbers(tmp_path)
    published, result = anonratio.anonymize(
        df, ["age", "income"], l=2, sensitive="disease", algorithm="tp-plus"
    )
    out = tmp_path / "out.csv"
    code, info = _cli(
        capsys, path, "--qi", "age,income", "--l", 2, "--sensitive", "disease", "--out", out
    )
    assert code == 0, info
    assert {f: info[f] for f in FIGURES} == _figures(result)
    _same(_read(out), published)
    assert result.l == 2 and result.k is None and result.published_cost == info["stars"]
    assert [c.model for c in result.checks] == ["2-diversity (l-eligible)"]
    assert result.checks[0].satisfied and result.recoding == "local recoding (suppression)"


def _forest_raising(monkeypatch, error):
    """Make ``forest`` raise ``error`` from inside its run."""
    from anonratio.bench.registry import REGISTRY

    def run(instance, seed=None):
        raise error

    monkeypatch.setitem(REGISTRY, "forest", dataclasses.replace(REGISTRY["forest"], function=run))


def test_an_error_inside_an_algorithm_is_a_failed_run_not_bad_input(tmp_path, capsys, monkeypatch):
    """A plain ``ValueError`` raised inside an algorithm (a bug) is a failed run (exit 1), not
    the caller's fault: only a domain bad-input error refuses the request."""
    from anonratio.bench.errors import RunFailure

    _forest_raising(monkeypatch, ValueError("operands could not be broadcast together"))
    df, path = _numbers(tmp_path)
    with pytest.raises(RunFailure, match="forest found no solution .ValueError: operands"):
        anonratio.anonymize(df, ["age", "income"], 3, algorithm="forest")
    out = tmp_path / "out.csv"
    code, info = _cli(capsys, path, "--qi", "age,income", "--k", 3, "--out", out)
    assert code == 1 and info["kind"] == "run_failed", info
    assert not out.exists()


def test_an_algorithm_refusing_the_request_is_bad_input(tmp_path, capsys, monkeypatch):
    """The algorithm's own refusal (a domain ``ValueError``, here ``UnsupportedInstanceError``)
    is bad input (exit 2); the runner hands the exception itself, not its text."""
    from anonratio.bench.engine import runner
    from anonratio.bench.publish.anonymize import refusal
    from anonratio.instances import KAnonymityInstance, Table
    from anonratio.instances.errors import InfeasibleSolutionError, UnsupportedInstanceError

    refused = UnsupportedInstanceError("`privacy` model x is not monotone")
    _forest_raising(monkeypatch, refused)
    df, path = _numbers(tmp_path)
    with pytest.raises(ValueError, match="^algorithm 'forest' refuses the request: `privacy`"):
        anonratio.anonymize(df, ["age", "income"], 3, algorithm="forest")
    out = tmp_path / "out.csv"
    code, info = _cli(capsys, path, "--qi", "age,income", "--k", 3, "--out", out)
    assert code == 2 and info["kind"] == "bad_input", info
    assert (
        info["error"] == "algorithm 'forest' refuses the request: `privacy` model x is not monotone"
    )
    instance = KAnonymityInstance(Table.from_dataframe(df, qi=["age", "income"]), 3)
    assert runner.run_and_finalize(instance, "forest").exception is refused
    assert refusal(refused) and not refusal(ValueError("x"))
    assert not refusal(InfeasibleSolutionError("x")) and not refusal(None)
