"""Records as points and the clustered table of paper 003 (instances/clustering/publish.py)."""

import warnings

import numpy as np
import pandas as pd
import pytest

from anonratio.instances import InstanceFormatError, RGatherInstance, Table, verify
from anonratio.instances.clustering.publish import (
    check_published,
    points_from_frame,
    points_from_table,
    publish_clusters,
)
from anonratio.instances.clustering.verify import best_centers, cluster_radii


@pytest.fixture
def frame():
    return pd.DataFrame(
        {
            "age": ["30", "32", "50", "51", " 52"],
            "income": ["10", "12", "40", "44", "41"],
            "disease": ["flu", "flu", "cold", "flu", "hiv"],
        }
    )


def test_scalings(frame):
    raw = points_from_frame(frame, ["age", "income"], scaling="none")
    assert raw[:, 0].tolist() == [30, 32, 50, 51, 52]
    std = points_from_frame(frame, ["age", "income"])
    np.testing.assert_allclose(std.mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(std.std(axis=0), 1)
    rng = points_from_frame(frame, ["age", "income"], scaling="range")
    assert rng.min() == 0 and rng.max() == 1


def test_constant_column_is_zero(frame):
    frame = frame.assign(age="40")
    assert np.all(points_from_frame(frame, ["age"]) == 0)


def test_non_numeric_cell_names_line_and_column(frame):
    frame.loc[3, "income"] = "n/a"
    with pytest.raises(InstanceFormatError, match=r"data.csv, line 5, column 'income': 'n/a'"):
        points_from_frame(frame, ["age", "income"], source="data.csv")
    with pytest.raises(InstanceFormatError, match="line 9"):
        points_from_frame(frame, ["income"], lines=[2, 3, 4, 9, 10])


def test_unknown_column_and_scaling(frame):
    with pytest.raises(ValueError, match="unknown columns"):
        points_from_frame(frame, ["zip"])
    with pytest.raises(ValueError, match="`scaling`"):
        points_from_frame(frame, ["age"], scaling="log")


def test_table_codes_use_hamming():
    table = Table([[0, 1], [0, 2], [1, 1]], ["a", "b"], [["x", "y"], ["p", "q", "r"]])
    points, metric = points_from_table(table)
    inst = RGatherInstance(points, r=2, metric=metric)
    # records differ in 1, 1 and 2 attributes: each attribute's values are equidistant
    assert inst.distances.dense().tolist() == [[0, 1, 1], [1, 0, 2], [1, 2, 0]]


def test_publish_replaces_qi_by_center_values(frame):
    qi = ["age", "income"]
    inst = RGatherInstance(points_from_frame(frame, qi), r=2)
    labels = np.array([0, 0, 1, 1, 1])
    centers = best_centers(inst, labels)
    radii = cluster_radii(inst, labels, centers)
    published, clusters = publish_clusters(frame, qi, labels, centers, radii)
    assert list(published.columns) == list(frame.columns) and len(published) == len(frame)
    assert published["disease"].tolist() == frame["disease"].tolist()
    for c, center in enumerate(centers):
        rows = published[labels == c]
        assert (rows["age"] == frame["age"][center]).all()
        assert (rows["income"] == frame["income"][center]).all()
    assert clusters["size"].tolist() == [2, 3]
    np.testing.assert_allclose(clusters["radius"], radii)
    assert check_published(frame, published, qi, labels, r=2) == 2
    assert frame["age"].tolist()[0] == "30"  # the input is untouched
    assert verify(inst, labels).feasible


def test_unclustered_rows_are_starred(frame):
    qi = ["age"]
    labels = np.array([0, 0, 0, -1, 0])
    published, _ = publish_clusters(frame, qi, labels, [1], [2.0])
    assert published["age"].tolist() == ["32", "32", "32", "*", "32"]


def test_check_published_rejects_tampering(frame):
    qi = ["age"]
    labels = np.array([0, 0, 1, 1, 1])
    published, _ = publish_clusters(frame, qi, labels, [0, 2], [1.0, 1.0])
    with pytest.raises(ValueError, match="outside the quasi-identifiers"):
        check_published(frame, published.assign(disease="x"), qi, labels, r=2)
    with pytest.raises(ValueError, match="rows and columns"):
        check_published(frame, published.iloc[:4], qi, labels, r=2)
    small = published.copy()
    small.loc[0, "age"] = "99"
    with pytest.raises(ValueError, match="shared by 1 < r=2"):
        check_published(frame, small, qi, labels, r=2)


@pytest.fixture
def huge():
    """A column spanning the whole float range: its range (2e308) is not a float."""
    return pd.DataFrame({"x": ["1e308", "-1e308", "5", "6"], "y": ["1", "2", "3", "4"]})


def test_huge_values_scale_without_overflow(huge):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow along the way either
        rng = points_from_frame(huge, ["x", "y"], scaling="range")
        std = points_from_frame(huge, ["x", "y"], scaling="standard")
    assert rng[:, 0].tolist() == [1.0, 0.0, 0.5, 0.5]
    assert rng[:, 1].tolist() == pytest.approx([0, 1 / 3, 2 / 3, 1])
    # the wide column still weighs as much as the other one: it is not flattened to 0
    np.testing.assert_allclose(std.std(axis=0), 1)
    np.testing.assert_allclose(std[:, 0], [2**0.5, -(2**0.5), 0, 0], atol=1e-12)


def test_huge_values_scale_as_small_ones(frame):
    """Scaling is exact under powers of two: the huge column gives the small one's points."""
    for scaling in ("range", "standard"):
        small = points_from_frame(frame, ["age", "income"], scaling=scaling)
        big = frame.assign(age=[f"{float(a) * 2.0**1000!r}" for a in frame["age"]])
        assert points_from_frame(big, ["age", "income"], scaling=scaling).tolist() == small.tolist()


def test_raw_units_whose_distances_overflow_are_refused(huge):
    with pytest.raises(
        InstanceFormatError,
        match=r"^data\.csv: with scaling 'none' .* overflow a float: column 'x' spans from "
        r"'-1e308' \(line 3\) to '1e308' \(line 2\).*use scaling 'range' or 'standard'$",
    ):
        points_from_frame(huge, ["x", "y"], scaling="none", source="data.csv")
    # 1e200 apart: a float, but its square is not
    wide = pd.DataFrame({"x": ["0", "1e200", "3"], "y": ["0", "0", " 1"]})
    with pytest.raises(InstanceFormatError, match=r"column 'x' spans from '0' \(line 7\)"):
        points_from_frame(wide, ["x", "y"], scaling="none", lines=[7, 8, 9])
    ok = points_from_frame(wide.assign(x=["0", "1e150", "3"]), ["x", "y"], scaling="none")
    assert ok[1, 0] == 1e150


def test_a_qi_name_in_other_code_points_is_named_with_both_spellings(frame):
    nfd = frame.rename(columns={"age": "a\u0302ge"})
    with pytest.raises(
        ValueError,
        match=r"^d\.csv: `qi` names unknown columns \['âge'\]; .* \(`qi` writes 'âge' as "
        r"'\\xe2ge' \(NFC\), the header as 'a\\u0302ge' \(NFD\)",
    ):
        points_from_frame(nfd, ["\u00e2ge"], source="d.csv")
