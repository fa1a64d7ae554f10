"""k-Optimize (Bayardo and Agrawal 2005): its objective against every interval recoding of small
tables, its releases against the verifier and the exact optimum, its anytime mode, its errors and
its path through ``anonratio anonymize``."""

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import anonratio
from anonratio.bench.registry import REGISTRY
from anonratio.instances import KAnonymityInstance, Table, verify
from anonratio.instances.kanonymity import random_table
from anonratio.instances.kanonymity.recoding import hierarchy_domain, numeric_values
from anonratio.instances.privacy_specs import check_published
from anonratio.solvers.kanonymity import k_anonymize
from anonratio.solvers.kanonymity.k_optimize import discernibility, k_optimize


def _ranks(instance):
    """Rank of every record's value per attribute: numeric order, else the hierarchy's
    depth-first order (the orders k-Optimize documents)."""
    t = instance.table
    out = np.empty(t.codes.shape, dtype=np.int64)
    for j, h in enumerate(instance.hierarchies):
        values = numeric_values(t.values[j])
        if values is None:
            order = hierarchy_domain(h)[0].order
        else:
            order = np.empty(len(values), dtype=np.int64)
            order[np.lexsort((np.arange(len(values)), values))] = np.arange(len(values))
        out[:, j] = order[t.codes[:, j]]
    return out


def brute_force(instance, max_sup):
    """The least objective over every set of interval starts (every rank of every attribute's
    whole domain, not only the held ones): ``|E|^2`` per class of ``k`` or more records, ``n``
    per tuple of a smaller class, at most ``max_sup`` such tuples."""
    ranks, n, k = _ranks(instance), instance.n, instance.k
    cands = [(j, r) for j in range(ranks.shape[1]) for r in range(1, len(instance.table.values[j]))]
    best = np.inf
    for chosen in itertools.product((False, True), repeat=len(cands)):
        cols = []
        for j in range(ranks.shape[1]):
            cuts = np.array(
                sorted(r for (a, r), c in zip(cands, chosen, strict=True) if c and a == j), int
            )
            cols.append(np.searchsorted(cuts, ranks[:, j], side="right"))
        _, inv, cnt = np.unique(np.stack(cols, 1), axis=0, return_inverse=True, return_counts=True)
        size = cnt[inv.reshape(-1)]
        small = int((size < k).sum())
        if small <= max_sup:
            best = min(best, float(size[size >= k].sum()) + small * n)
    return best


def _own_objective(solution, instance):
    """The objective recomputed from the labels alone."""
    labels = solution.labels
    kept = labels[labels >= 0]
    sizes = np.bincount(kept)[np.unique(kept)] if kept.size else np.zeros(0, int)
    assert (sizes >= instance.k).all()
    return discernibility(sizes, instance.k, instance.n) + instance.n * int((labels < 0).sum())


CASES = [(seed, deletion) for seed in range(14) for deletion in (False, True)]


@pytest.mark.parametrize(("seed", "deletion"), CASES)
def test_objective_is_the_brute_force_optimum_over_interval_recodings(seed, deletion):
    rng = np.random.default_rng(seed)
    n, m, k = int(rng.integers(6, 13)), int(rng.integers(1, 4)), int(rng.integers(2, 4))
    table = random_table(n, m, cardinality=(2, 4), levels=(1, 2), seed=seed)
    instance = KAnonymityInstance(table, k, "generalization", deletion)
    solution = k_optimize(instance, seed=seed)
    assert solution.status == "feasible" and solution.info["complete"]
    assert solution.info["discernibility"] == brute_force(instance, n if deletion else 0)
    assert solution.info["discernibility"] == _own_objective(solution, instance)
    assert verify(instance, solution).feasible
    assert np.array_equal(solution.labels, solution.info["recoding"].classes)
    if not deletion:
        assert solution.info["suppressed"] == 0 and (solution.labels >= 0).all()


@pytest.mark.parametrize("seed", range(6))
def test_a_suppression_limit_is_the_brute_force_optimum_within_it(seed):
    table = random_table(12, 2, cardinality=(3, 5), levels=(1, 2), seed=seed)
    instance = KAnonymityInstance(table, 3, "generalization", True)
    solution = k_optimize(instance, max_suppression=0.2)
    assert solution.info["max_suppressed"] == 2 and solution.info["suppressed"] <= 2
    assert solution.info["discernibility"] == brute_force(instance, 2)
    assert verify(instance, solution).feasible


def test_suppression_pays_where_it_costs_less_than_a_larger_class():
    table = random_table(7, 1, cardinality=(2, 5), levels=(1, 2), seed=11)
    for deletion, suppressed, objective in ((True, 3, 37.0), (False, 0, 49.0)):
        instance = KAnonymityInstance(table, 4, "generalization", deletion)
        solution = k_optimize(instance)
        assert solution.info["suppressed"] == int((solution.labels < 0).sum()) == suppressed
        assert solution.info["discernibility"] == objective == brute_force(instance, 7 * deletion)
        assert verify(instance, solution).feasible


def test_categorical_values_follow_the_hierarchy_and_intervals_are_named():
    # in code (alphabetical) order the groups interleave; in the hierarchy's order they do not
    jobs = {"a-nurse": "medical", "b-clerk": "service", "c-doctor": "medical", "d-cook": "service"}
    df = pd.DataFrame({"job": list(jobs) * 3})
    rows = [[job, group, "*"] for job, group in jobs.items()]
    table = Table.from_dataframe(df, qi=["job"], hierarchies={"job": rows})
    instance = KAnonymityInstance(table, 6, "generalization")
    solution = k_optimize(instance)
    assert solution.status == "feasible" and solution.info["numeric"] == ()
    assert sorted(solution.info["intervals"]["job"]) == ["medical", "service"]
    assert solution.info["discernibility"] == 72.0  # two classes of 6
    assert verify(instance, solution).cost == 6.0  # 12 records at level 1 of 2


def test_numeric_attribute_intervals_are_ranges():
    ages = ("1", "2", "3", "10", "11", "12")
    table = Table(np.array([[0], [1], [2], [3], [4], [5]] * 2), ("age",), (ages,))
    solution = k_optimize(KAnonymityInstance(table, 6))
    assert solution.info["intervals"] == {"age": ["1-3", "10-12"]}
    assert solution.info["discernibility"] == 72.0 and solution.info["numeric"] == ("age",)


@settings(max_examples=15, deadline=None, derandomize=True)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(4, 9),
    m=st.integers(1, 3),
    k=st.integers(2, 3),
    deletion=st.booleans(),
)
def test_cost_is_feasible_and_at_least_the_exact_optimum(seed, n, m, k, deletion):
    table = random_table(n, m, cardinality=(2, 4), levels=(1, 3), seed=seed)
    instance = KAnonymityInstance(table, min(k, n), "generalization", deletion)
    solution = k_optimize(instance, seed=seed)
    cost = verify(instance, solution).cost
    exact = REGISTRY["kanon-highs"].run(instance, seed=0, time_limit=60.0)
    assert exact.status == "optimal"
    assert cost >= verify(instance, exact).cost - 1e-9


def test_anytime_returns_the_best_found_marked_as_stopped():
    table = random_table(200, 6, cardinality=(10, 40), levels=(3, 5), seed=0)
    instance = KAnonymityInstance(table, 3, "generalization")
    solution = k_optimize(instance, time_limit=1e-3)
    assert solution.status == "time_limit" and not solution.info["complete"]
    assert verify(instance, solution).feasible  # k-anonymous all the same
    assert solution.info["discernibility"] <= 200.0**2  # never worse than one class
    assert solution.info["discernibility"] == _own_objective(solution, instance)


def test_registry_and_dispatch_run_it():
    table = random_table(10, 3, cardinality=(4, 6), levels=(2, 3), seed=1)
    instance = KAnonymityInstance(table, 2, "generalization")
    direct = k_optimize(instance)
    via = k_anonymize(instance, method="k-optimize")
    run = REGISTRY["k-optimize"].run(instance, seed=0, time_limit=30.0)
    assert np.array_equal(direct.labels, via.labels) and np.array_equal(direct.labels, run.labels)
    assert REGISTRY["k-optimize"].kind == "heuristic"
    # a heuristic for the suite's cost: "feasible", never "optimal", even when its search ends
    assert run.status == "feasible" and run.info["complete"]
    assert run.objective is None  # the verifier prices the partition


def test_bad_input_names_the_parameter():
    table = random_table(8, 2, cardinality=(2, 3), levels=(1, 2), seed=0)
    plain = KAnonymityInstance(table, 2, "generalization")
    deletable = KAnonymityInstance(table, 2, "generalization", True)
    with pytest.raises(TypeError, match="instance"):
        k_optimize(table)
    with pytest.raises(ValueError, match=r"`max_suppression` must be in \[0, 1\)"):
        k_optimize(deletable, max_suppression=1.5)
    with pytest.raises(ValueError, match="`max_suppression`=0.1 .* row_deletion=True"):
        k_optimize(plain, max_suppression=0.1)
    for bad in (0, -1.0, float("nan"), "10"):
        with pytest.raises(ValueError, match="`time_limit` must be a positive finite number"):
            k_optimize(plain, time_limit=bad)
    with pytest.raises(ValueError, match="`numeric` names unknown attribute 'nope'"):
        k_optimize(plain, numeric=["nope"])
    with pytest.raises(ValueError, match="`numeric` must be 'auto'"):
        k_optimize(plain, numeric="all")
    with pytest.raises(ValueError, match="`seed`"):
        k_optimize(plain, seed=-1)


def _frame(seed=0, n=60):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.integers(20, 70, n),
            "zip": rng.choice(["13053", "13068", "14850", "14853"], n),
            "sex": rng.choice(["F", "M"], n),
            "disease": rng.choice(["flu", "cancer", "heart", "none"], n),
            "id": np.arange(n),
        }
    )


HIER = {
    "age": {a: [f"{a // 10 * 10}s", "<40" if a < 40 else ">=40"] for a in range(20, 70)},
    "zip": {z: [z[:4] + "*", z[:3] + "**"] for z in ["13053", "13068", "14850", "14853"]},
    "sex": {"F": ["person"], "M": ["person"]},
}


@pytest.mark.parametrize("max_suppression", [0.0, 0.1])
def test_anonymize_publishes_a_k_anonymous_table_in_the_input_shape(max_suppression):
    df = _frame()
    before = df.copy()
    qi = ["age", "zip", "sex"]
    published, result = anonratio.anonymize(
        df,
        qi=qi,
        k=4,
        hierarchies=HIER,
        algorithm="k-optimize",
        sensitive="disease",
        max_suppression=max_suppression,
        time_limit=20.0,
    )
    pd.testing.assert_frame_equal(df, before)  # the input is never modified
    assert list(published.columns) == list(df.columns)
    assert len(published) == len(df) - result.n_suppressed
    assert result.n_suppressed <= int(max_suppression * len(df))
    ids = published["id"].tolist()
    assert ids == sorted(ids)  # the kept rows in their order
    kept = df.set_index("id").loc[ids]
    assert (published["disease"].to_numpy() == kept["disease"].to_numpy()).all()
    (check,) = check_published(published, qi, None, ["k-anonymity:k=4"])
    assert check.satisfied
    assert result.recoding == "global recoding"


def test_anonymize_withholds_the_tuples_it_suppresses():
    df = pd.DataFrame({"age": [30, 30, 50, 30, 60, 30, 70], "id": range(7)})
    published, result = anonratio.anonymize(
        df, qi=["age"], k=4, algorithm="k-optimize", max_suppression=0.5
    )
    # one class of 7 costs 49; four 30s and three suppressed tuples cost 16 + 3 * 7 = 37
    assert result.n_suppressed == 3 and list(published.columns) == ["age", "id"]
    assert published["id"].tolist() == [0, 1, 3, 5] and set(published["age"]) == {"30"}
