"""Records as points and the clustered table of paper 003 (instances/clustering/publish.py)."""

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
