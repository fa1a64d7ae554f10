"""Zip codes, GPS rectangles and ordered labels in the bench layer (Du et al. 2009, §2-§4):
registry entries and guarantees, families, one verified row per algorithm, finalize (ratios only
against proven optima; a guillotine result is an upper bound only) and the CLI."""

import json
import math

import numpy as np
import pytest

from anonratio.bench.cli.parser import main
from anonratio.bench.engine.runner import Task, finalize, run_instance, sweep
from anonratio.bench.registry import FAMILIES, REGISTRY, algorithms_for, generate, get_algorithm
from anonratio.instances import BinCoveringInstance, instance_id
from anonratio.solvers.gps_rectangles.kdtree_split import kdtree_split_bound, kdtree_split_guarantee

NAMES = {
    "zip-codes": {"spanning-tree-split": "approximation", "zip-cpsat": "exact"},
    "gps-rectangles": {
        "kdtree-split": "approximation",
        "gps-cpsat": "exact",
        "gps-highs": "exact",
        "gps-guillotine": "heuristic",
    },
    "ordered-labels": {"ordered-greedy": "exact"},
}

#: a small instance per problem, exact models prove optimality in well under a second
SMALL = {
    "zip-codes": ("zip-delaunay", {"n": 12, "k": 12}),
    "gps-rectangles": ("gps-uniform", {"n": 8, "k": 4, "weight_max": 3}),
    "ordered-labels": ("ordered-random", {"n": 20, "k": 8}),
}

FAMILY_PROBLEMS = {
    "zip-delaunay": "zip-codes",
    "zip-grid": "zip-codes",
    "zip-planted": "zip-codes",
    "gps-uniform": "gps-rectangles",
    "gps-clustered": "gps-rectangles",
    "gps-cross": "gps-rectangles",
    "gps-pinwheel": "gps-rectangles",
    "ordered-random": "ordered-labels",
}


def _small(problem, seed=0):
    family, params = SMALL[problem]
    return generate(family, seed=seed, **params)


# ---------------------------------------------------------------------------------------------
# registry
# ---------------------------------------------------------------------------------------------
def test_registry_entries():
    for problem, names in NAMES.items():
        assert [a.name for a in algorithms_for(problem)] == list(names)
        for name, kind in names.items():
            alg = get_algorithm(name)
            assert alg.problem == problem and alg.kind == kind
            assert alg.guarantee_text and alg.complexity
            assert callable(alg.run) and callable(alg.supports)
    for name in ("spanning-tree-split", "kdtree-split", "ordered-greedy"):
        assert "Du et al. 2009, §" in REGISTRY[name].source
    assert "§2" in REGISTRY["spanning-tree-split"].source
    assert "Theorem 4" in REGISTRY["kdtree-split"].source
    assert "§4" in REGISTRY["ordered-greedy"].source


def test_registry_guarantees():
    zips, _ = _small("zip-codes")
    gps, _ = _small("gps-rectangles")
    ordered, _ = _small("ordered-labels")
    # the spanning-tree split's ratio depends on the tree found: no static value
    assert REGISTRY["spanning-tree-split"].guarantee(zips) is None
    for name in ("kdtree-split", "gps-guillotine"):  # the best guillotine <= the kd-tree cost
        g = REGISTRY[name].guarantee(gps)
        assert g == pytest.approx(kdtree_split_guarantee(gps)) and 1 <= g < 5
    cross, meta = generate("gps-cross", k=4)
    assert REGISTRY["kdtree-split"].guarantee(cross) == pytest.approx((5 * 4 - 4) / 4)
    for name, inst in [("zip-cpsat", zips), ("gps-cpsat", gps), ("gps-highs", gps)]:
        assert REGISTRY[name].guarantee(inst) == 1.0
    assert REGISTRY["ordered-greedy"].guarantee(ordered) == 1.0


def test_supports_checks_the_problem():
    zips, _ = _small("zip-codes")
    bc = BinCoveringInstance(np.array([3, 4, 5]), 5)
    assert REGISTRY["spanning-tree-split"].supports(zips) is None
    assert REGISTRY["kdtree-split"].supports(zips) == (
        "needs a gps-rectangles instance, got zip-codes"
    )
    assert REGISTRY["ordered-greedy"].supports(bc) == (
        "needs a ordered-labels instance, got bin-covering"
    )
    row = run_instance(zips, "gps-cpsat")
    assert row["status"] == "error"
    assert row["error"] == "unsupported: needs a gps-rectangles instance, got zip-codes"


# ---------------------------------------------------------------------------------------------
# families
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(FAMILY_PROBLEMS))
def test_families(name):
    fam = FAMILIES[name]
    assert fam.problem == FAMILY_PROBLEMS[name] and "Du et al. 2009" in fam.description
    inst, meta = generate(name, seed=2)
    assert inst.problem == fam.problem
    assert meta["family"] == name and meta["seed"] == 2 and set(meta["params"]) == set(fam.defaults)
    assert instance_id(generate(name, seed=2)[0]) == instance_id(inst)
    json.dumps(meta)  # meta goes into instance files as JSON


def test_family_parameters_and_optima():
    inst, meta = generate("zip-planted", seed=1, n="14", n_parts="3", k="5")
    assert (inst.n, inst.k, meta["optimum"]) == (14, 5, 5.0)
    assert np.bincount(meta["planted"], weights=inst.weights).tolist() == [5.0, 5.0, 5.0]
    inst, meta = generate("zip-grid", seed=0, rows="3", cols=4, weights="unit", k=3)
    assert inst.n == 12 and inst.total_weight == 12
    inst, meta = generate("gps-cross", k="3")
    assert meta["optimum"] == 11.0 and meta["lower_bound"] == 3 and inst.n == 5
    inst, meta = generate("gps-pinwheel", k=5)
    assert meta["optimum"] == 5.0 and meta["kdtree_cost"] == 9
    inst, meta = generate("gps-uniform", seed=0, n=20, grid="3", k=2)
    assert inst.n <= 9  # duplicates on the 3 x 3 lattice are merged
    inst, meta = generate("ordered-random", seed=3, n=50, k=20, low="2", high="4")
    assert inst.n == 50 and inst.sizes.min() >= 2 and inst.sizes.max() <= 4
    with pytest.raises(ValueError, match=r"`weights` must be one of"):
        generate("zip-delaunay", seed=0, weights="heavy")
    with pytest.raises(ValueError, match=r"`low`, `high` must satisfy 0 <= low <= high"):
        generate("ordered-random", seed=0, low=5, high=2)
    with pytest.raises(ValueError, match=r"unknown parameter 'm' for family 'gps-cross'"):
        generate("gps-cross", m=3)


# ---------------------------------------------------------------------------------------------
# one verified row per algorithm
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("problem", "name"), [(p, n) for p, names in NAMES.items() for n in names])
def test_run_instance_row(problem, name):
    inst, meta = _small(problem, seed=1)
    row = run_instance(inst, name, seed=5, time_limit=20, meta=meta)
    assert row["verified"] is True, row["error"]
    assert row["error"] is None
    assert row["problem"] == problem and row["kind"] == NAMES[problem][name]
    assert row["cost"] >= row["run_lower_bound"] - 1e-9
    info = json.loads(row["info"])
    if row["kind"] == "exact":
        assert row["status"] == "optimal" and row["guarantee"] == 1.0
        assert row["bound"] == pytest.approx(row["cost"])
    if name == "spanning-tree-split":
        # the row carries the run's own guarantee (kappa + d (k - 1)) / kappa
        d, kappa = info["tree_max_degree"], info["kappa"]
        assert row["guarantee"] == pytest.approx((kappa + d * (inst.k - 1)) / kappa)
        assert row["guarantee"] == pytest.approx(info["guarantee"])
        assert row["cost"] <= info["bound"]
    if name in ("kdtree-split", "gps-guillotine"):
        assert row["guarantee"] == pytest.approx(kdtree_split_guarantee(inst))
        assert row["cost"] <= kdtree_split_bound(inst)


def test_guillotine_bound_only_when_proven_optimal():
    pin, meta = generate("gps-pinwheel", k=4)
    row = run_instance(pin, "gps-guillotine", meta=meta)
    assert row["status"] == "feasible" and row["cost"] == 7.0  # 2k - 1: not optimal
    assert row["run_lower_bound"] == 4.0  # its cost is no bound
    inst, meta = _small("gps-rectangles", seed=1)
    row = run_instance(inst, "gps-guillotine", meta=meta)
    exact = run_instance(inst, "gps-cpsat", meta=meta)
    assert row["status"] == "optimal"  # meets the lower bound (or W < 5k)
    assert row["run_lower_bound"] == row["cost"] == exact["cost"]


# ---------------------------------------------------------------------------------------------
# tiny sweep + finalize
# ---------------------------------------------------------------------------------------------
_SWEEP = [
    ("zip-planted", {"n": 12, "n_parts": 3, "k": 5}, 0),
    ("zip-grid", {"rows": 3, "cols": 4, "k": 12}, 0),
    ("gps-pinwheel", {"k": 3}, 0),
    ("gps-clustered", {"n": 8, "k": 4}, 1),
    ("ordered-random", {"n": 20, "k": 8}, 0),
]


@pytest.fixture(scope="module")
def swept():
    tasks = []
    for family, params, seed in _SWEEP:
        names = NAMES[FAMILY_PROBLEMS[family]]
        tasks += [Task(family, params, seed, name, 20.0) for name in names]
    df = sweep(tasks, n_jobs=2, progress=False)
    return tasks, finalize(df, reference={})


def test_sweep_finalize_ratios_against_proven_optima(swept):
    tasks, out = swept
    assert len(out) == len(tasks) and out["verified"].all(), out["error"].tolist()
    assert set(out["status"]) <= {"optimal", "feasible"}
    # ratio only with a proven optimum; here every instance has one
    assert (out["optimum_status"] == "opt").all()
    assert out["ratio"].notna().all()
    assert (out["ratio"] >= 1 - 1e-9).all()
    assert (out.loc[out["kind"] == "exact", "ratio"] == 1.0).all()
    for (family, _, _), (_, g) in zip(_SWEEP, out.groupby("family", sort=False), strict=True):
        assert g["family"].iloc[0] == family
        exact = g[g["kind"] == "exact"]
        assert (g["optimum"] == exact["cost"].min()).all()
        known = g["known_optimum"].dropna()
        if len(known):
            assert (g["optimum"] == known.iloc[0]).all()
    approx = out[out["kind"] != "exact"]
    assert (approx["ratio"] <= approx["guarantee"] + 1e-9).all()
    stsplit = out[out["algorithm"] == "spanning-tree-split"]
    assert stsplit["guarantee"].notna().all()  # recorded from the run
    pin = out[(out["family"] == "gps-pinwheel")].set_index("algorithm")
    assert pin.loc["gps-guillotine", "ratio"] == pytest.approx(5 / 3)
    assert pin.loc["gps-guillotine", "status"] == "feasible"


def test_finalize_never_takes_a_feasible_guillotine_as_optimum(swept):
    _, out = swept
    pin = out[out["family"] == "gps-pinwheel"]
    # without the exact rows and the gadget's known optimum the guillotine cost 2k - 1 is only
    # an upper bound: no optimum, no ratio
    rest = pin[pin["kind"] != "exact"].assign(known_optimum=math.nan)
    again = finalize(rest, reference={})
    assert (again["optimum_status"] == "best").all()
    assert again["ratio"].isna().all()
    assert (again["lower_bound"] == 3).all()
    assert again["certified_ratio"].tolist() == pytest.approx([5 / 3, 5 / 3])
    # a guillotine row with status optimal proves the optimum through its bound
    gps = out[out["family"] == "gps-clustered"]
    row = gps[gps["algorithm"] == "gps-guillotine"]
    assert row["status"].iloc[0] == "optimal"
    alone = finalize(gps[gps["kind"] != "exact"], reference={})
    assert (alone["optimum_status"] == "opt").all()
    assert (alone["optimum"] == row["cost"].iloc[0]).all()
    # ... but the same row marked feasible (bound left at the instance's) proves nothing
    demoted = gps[gps["kind"] != "exact"].copy()
    g = demoted["algorithm"] == "gps-guillotine"
    demoted.loc[g, "status"] = "feasible"
    demoted["run_lower_bound"] = 0.0
    result = finalize(demoted, reference={})
    assert (result["optimum_status"] == "best").all() and result["ratio"].isna().all()


# ---------------------------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("family", "params", "algorithms"),
    [
        ("zip-delaunay", ["n=15"], ["spanning-tree-split", "zip-cpsat"]),
        ("gps-cross", ["k=3"], ["kdtree-split", "gps-cpsat", "gps-guillotine"]),
        ("ordered-random", [], ["ordered-greedy"]),
    ],
)
def test_cli_generate_and_solve(tmp_path, capsys, family, params, algorithms):
    path = tmp_path / f"{family}.json"
    extra = [x for p in params for x in ("--param", p)]
    assert main(["generate", family, "--seed", "1", "--out", str(path), *extra]) == 0
    capsys.readouterr()
    costs = {}
    for name in algorithms:
        assert main(["solve", str(path), "--algorithm", name, "--json"]) == 0
        row = json.loads(capsys.readouterr().out)
        assert row["verified"] is True and row["algorithm"] == name
        assert row["problem"] == FAMILY_PROBLEMS[family] and row["family"] == family
        assert row["guarantee_text"] == REGISTRY[name].guarantee_text
        costs[name] = row["cost"]
        if REGISTRY[name].kind == "exact":
            assert row["optimum_status"] == "opt" and row["ratio"] == 1.0
    exact = [c for n, c in costs.items() if REGISTRY[n].kind == "exact"]
    assert all(c >= min(exact) for c in costs.values())
    if family == "gps-cross":
        assert set(costs.values()) == {11.0}  # optimum 5k - 4 for everyone
