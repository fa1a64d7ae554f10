"""The instance and the release of each publishing path (bench/publish/release.py): a model no
release can satisfy is refused before any run, and every published table is checked against every
requested model on its own cells before it is written."""

import json

import numpy as np
import pandas as pd
import pytest

import anonratio
from anonratio.bench.cli.parser import main
from anonratio.instances.errors import InfeasibleInstanceError

#: 28 records, 14 distinct sensitive values
ROWS = [(str(20 + i % 7), f"1305{i % 2}", f"d{i % 14}") for i in range(28)]


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "data.csv"
    path.write_text("age,zip,disease\n" + "".join(",".join(r) + "\n" for r in ROWS))
    return path


def _run(capsys, *argv):
    code = main(["anonymize", *map(str, argv), "--json"])
    captured = capsys.readouterr()
    return code, json.loads(captured.out), captured.err


@pytest.mark.parametrize("algorithm", ["samarati", "incognito", "datafly"])
@pytest.mark.parametrize("suppression", [[], ["--max-suppression", "0.1"]])
def test_a_model_no_release_can_satisfy_is_refused_up_front(
    data, tmp_path, capsys, algorithm, suppression
):
    out = tmp_path / "out.csv"
    code, doc, err = _run(
        capsys,
        data,
        "--qi",
        "age,zip",
        "--k",
        2,
        "--sensitive",
        "disease",
        "--algorithm",
        algorithm,
        "--privacy",
        "l-diversity:l=50",
        *suppression,
        "--out",
        out,
    )
    assert code == 2 and doc["kind"] == "bad_input", doc
    assert doc["error"] == (
        "`--privacy` 'l-diversity:l=50': no release can satisfy distinct 50-diversity, since even "
        "the whole table as one class fails it (fewest distinct sensitive values 14; the "
        "sensitive column 'disease' has 14 distinct values)"
    )
    assert len(err.strip().splitlines()) == 1 and not out.exists()


def test_the_api_refuses_it_too():
    df = pd.DataFrame(ROWS, columns=["age", "zip", "disease"])
    with pytest.raises(InfeasibleInstanceError, match="`privacy` 'l-diversity:l=50'"):
        anonratio.anonymize(
            df,
            ["age", "zip"],
            2,
            algorithm="incognito",
            sensitive="disease",
            privacy="l-diversity:l=50",
        )
    _, result = anonratio.anonymize(
        df,
        ["age", "zip"],
        2,
        algorithm="incognito",
        sensitive="disease",
        privacy="l-diversity:l=14",
    )
    assert [c.satisfied for c in result.checks] == [True, True]


def test_a_whole_table_failure_proves_nothing_for_a_model_not_monotone_under_suppression():
    """Entropy l-diversity may hold on a subset when the whole table fails it: with suppression
    the up-front check leaves it to the algorithm."""
    from anonratio.bench.publish.anonymize import check_request
    from anonratio.bench.publish.release import check_satisfiable
    from anonratio.instances import Table

    df = pd.DataFrame({"a": list("xxxxy"), "s": ["flu", "flu", "flu", "flu", "hiv"]})
    table = Table.from_dataframe(df, qi=["a"], sensitive="s")
    spec = "entropy-l-diversity:l=2"
    strict = check_request(qi=["a"], k=2, algorithm="datafly", sensitive="s", privacy=spec)
    with pytest.raises(InfeasibleInstanceError, match="smallest exp.entropy."):
        check_satisfiable(strict, table)
    loose = check_request(
        qi=["a"], k=2, algorithm="datafly", sensitive="s", privacy=spec, max_suppression=0.5
    )
    check_satisfiable(loose, table)  # no error


def test_l_eligibility_is_checked_from_counts():
    from anonratio.bench.publish.problems.ldiversity import LEligibility

    classes = np.array([0, 0, 0, 0, 1, 1, 1, -1])
    sensitive = np.array([0, 1, 0, 1, 0, 0, 1, 0])
    check = LEligibility(2).check(classes, sensitive)
    assert not check.satisfied and check.failing_classes.tolist() == [1]
    assert check.worst == 1.0 and str(LEligibility(3)) == "3-diversity (l-eligible)"
    assert LEligibility(2).check(classes[:4], sensitive[:4]).satisfied


NUMBERS = "age,income,disease\n" + "".join(
    f"{30 + 10 * (i // 4)},{20000 + 1000 * i},{['flu', 'cold', 'hiv'][i % 3]}\n" for i in range(12)
)


def _leave_as_is(monkeypatch, path):
    """Make the publisher of ``path`` return the input's cells unchanged."""
    if path == "l-diversity":
        import anonratio.instances.ldiversity.publish as module

        monkeypatch.setattr(module, "publish", lambda instance, labels, *, frame: frame.copy())
    elif path == "clusters":
        import anonratio.instances.clustering.publish as module

        real = module.publish_clusters
        monkeypatch.setattr(
            module, "publish_clusters", lambda frame, *args: (frame.copy(), real(frame, *args)[1])
        )
    else:
        from anonratio.instances.kanonymity.recoding import Recoding

        monkeypatch.setattr(Recoding, "to_dataframe", lambda self, frame, **kw: frame.copy())


@pytest.mark.parametrize(
    ("path", "argv", "broken"),
    [
        ("l-diversity", ["--l", "2", "--sensitive", "disease"], "2-diversity (l-eligible)"),
        ("clusters", ["--k", "3", "--algorithm", "r-gather"], "3-anonymity"),
        ("k-anonymity", ["--k", "3", "--algorithm", "mondrian"], "3-anonymity"),
    ],
)
def test_a_release_that_breaks_a_model_is_never_written(
    tmp_path, capsys, monkeypatch, path, argv, broken
):
    """A publisher that left the input as it is: the check on the published cells stops it."""
    _leave_as_is(monkeypatch, path)
    data = tmp_path / "numbers.csv"
    data.write_text(NUMBERS)
    out = tmp_path / "out.csv"
    code, doc, _ = _run(capsys, data, "--qi", "age,income", *argv, "--out", out)
    assert code == 1 and doc["kind"] == "run_failed", doc
    assert doc["error"].startswith(f"the published table breaks {broken}")
    assert not out.exists() and not (tmp_path / "out.clusters.csv").exists()


def test_a_changed_cell_outside_the_quasi_identifiers_is_never_published():
    """The kept rows' other cells must be the input's, as text: a changed string, a number
    written otherwise (1 and 1.0) or a filled missing cell is refused; the same cells pass."""
    from anonratio.bench.errors import RunFailure
    from anonratio.bench.publish.release import _kept_rows
    from anonratio.bench.publish.request import Source

    frame = pd.DataFrame(
        {
            "age": ["30", "31", "32"],
            "zip": ["1", "2", "3"],
            "n": pd.Series([1, 2, None], dtype=object),
        }
    )
    source = Source(frame, table=lambda **kwargs: None)
    withheld = np.array([True, True, False])

    def published(**columns):
        return frame.assign(age="*", **columns)

    assert _kept_rows(published(), source, np.zeros(3, bool), ["age"]).shape == (3, 3)
    assert _kept_rows(published().iloc[2:], source, withheld, ["age"]).index.tolist() == [2]
    for changed in ({"zip": ["1", "2", "4"]}, {"n": pd.Series([1.0, 2, None], dtype=object)}):
        with pytest.raises(RunFailure, match="changed a cell outside the quasi-identifiers"):
            _kept_rows(published(**changed), source, np.zeros(3, bool), ["age"])
    with pytest.raises(RunFailure, match="outside"):
        _kept_rows(published(n=[1, 2, 0]).iloc[2:], source, withheld, ["age"])
