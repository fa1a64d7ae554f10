"""Non-uniform entropy with suppressed tuples: the suite's form (a suppressed cell costs as ``*``)
and ARX's (a suppressed tuple costs only its generalization), by hand and on UCI Adult."""

import math
import os
from pathlib import Path

import numpy as np
import pytest

from anonratio.instances import Hierarchy, KAnonymityInstance, Table
from anonratio.instances.kanonymity import metrics as M
from anonratio.instances.kanonymity.recoding import Recoding

# x, x, y, y, z, z, w under {x, y} / {z, w} / *
H = Hierarchy(
    np.array([[0, 0, 0], [1, 0, 0], [2, 1, 0], [3, 1, 0]]),
    (("x", "y", "z", "w"), ("xy", "zw"), ("*",)),
)
TABLE = Table(np.array([[0], [0], [1], [1], [2], [2], [3]]), ("a",), (H.labels[0],), (H,))
LONE_W = np.array([False] * 6 + [True])


def test_a_suppressed_cell_costs_as_a_star_and_arx_charges_its_generalization():
    """Level 1, ``w`` suppressed: x, y -> xy (4 records), z -> zw (3 records). Ours charges the
    suppressed cell ``log2(7 / 1)``; ARX's MetricMDNUEntropy charges it at the node,
    ``log2(3 / 1)``, as if it were published as ``zw``."""
    rec = Recoding.full_domain(TABLE, [1], LONE_W)
    kept = 4 * math.log2(4 / 2) + 2 * math.log2(3 / 2)
    assert M.non_uniform_entropy(rec) == pytest.approx(kept + math.log2(7))
    assert M.non_uniform_entropy(rec, suppressed="generalized") == pytest.approx(
        kept + math.log2(3)
    )
    # ARX's form does not depend on which tuples are suppressed: the node's value
    whole = Recoding.full_domain(TABLE, [1])
    assert M.non_uniform_entropy(rec, suppressed="generalized") == pytest.approx(
        M.non_uniform_entropy(whole)
    )
    # the two agree without suppressed tuples
    assert M.non_uniform_entropy(whole, suppressed="generalized") == M.non_uniform_entropy(whole)


def test_arx_form_needs_a_global_recoding_and_a_known_choice():
    inst = KAnonymityInstance(TABLE, 2, "generalization", row_deletion=True)
    local = Recoding.from_partition(inst, [0, 0, 1, 1, 2, 2, -1])
    with pytest.raises(ValueError, match="`suppressed`.*global recoding"):
        M.non_uniform_entropy(local, suppressed="generalized")
    assert M.non_uniform_entropy(local) == pytest.approx(math.log2(7))  # ours: as a star
    with pytest.raises(ValueError, match="suppressed"):
        M.non_uniform_entropy(local, suppressed="zero")


def _adult_folder() -> Path:
    root = os.environ.get("ANONRATIO_DATASETS")
    if not root:
        pytest.skip("ANONRATIO_DATASETS is not set: the UCI Adult data is absent")
    folder = Path(root) / "adult"
    if not (folder / "adult.csv").is_file():
        pytest.skip(f"no adult/adult.csv under ANONRATIO_DATASETS={root}")
    return folder


@pytest.mark.parametrize(
    "algorithm",
    ["flash", pytest.param("incognito", marks=pytest.mark.slow)],  # 0.3 s and 3 s
)
def test_adult_reproduces_arx_non_uniform_entropy(algorithm):
    """UCI Adult with ARX's hierarchies, all 9 columns as QI, k = 5, at most 4 % suppressed:
    ARX reports a non-uniform entropy of 255,559.85 for its optimum; at the same node (906
    tuples suppressed) the suite's form adds their suppression, 267,793.35. Flash (ARX's own
    search) and Incognito both find that node."""
    from anonratio.instances.loaders import ADULT_QI, load_adult
    from anonratio.solvers.kanonymity.flash import flash
    from anonratio.solvers.kanonymity.incognito import incognito

    table = load_adult(qi=[*ADULT_QI, "salary-class"], sensitive=None, directory=_adult_folder())
    inst = KAnonymityInstance(table, 5, "generalization", row_deletion=True)
    search = {"flash": flash, "incognito": incognito}[algorithm]
    sol = search(inst, max_suppression=0.04)
    rec = sol.info["recoding"]
    assert sol.info["levels"] == {
        "sex": 1,
        "age": 0,
        "race": 1,
        "marital-status": 1,
        "education": 3,
        "native-country": 2,
        "workclass": 2,
        "occupation": 0,
        "salary-class": 1,
    }
    assert rec.n_suppressed == 906
    assert M.non_uniform_entropy(rec, suppressed="generalized") == pytest.approx(
        255_559.85, abs=0.005
    )
    assert M.non_uniform_entropy(rec) == pytest.approx(267_793.35, abs=0.005)
    assert sol.info["metric_value"] == pytest.approx(M.non_uniform_entropy(rec), rel=1e-12)
