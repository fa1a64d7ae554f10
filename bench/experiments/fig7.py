"""Figure 7 of Du, Eppstein, Goodrich and Lueker (WADS 2009, §5): overfull ratios on Census names.

The paper runs Fold (Theorem 7) and a simplified Spread (Theorem 10 with a greedy/round-robin
left-over phase, §5) on the 1990 Census first- and last-name frequency lists, items in random and
in sorted order, "for all values of k ranging from the frequency of the most common name to the
value of k that results in there being only two equivalence classes", and plots the *overfull
ratio* (largest class / k) with the maximum per subrange of k. Its "Spread" is the simplified
one: the four curves are ``fold-random``, ``fold-sorted``, ``simplified-spread-random`` and
``simplified-spread-sorted``; the suite adds Theorem 10's full Spread (``spread-random``,
``spread-sorted``) as an extension.

* :func:`k_grid` / :func:`fig7_tasks`: the ``paper-fig7`` suite (a few hundred k per file,
  denser at the thresholds ``S/c`` where the most classes possible, ``floor(S/k)``, drops);
* :func:`fig7_frame`: the tidy per-run table (k, overfull ratio, lower bound, certified ratio);
* :func:`check_observations`: the paper's four observations tested on the data;
* :func:`plot_fig7`: the figures and ``observations.json`` (plotting lives in
  :mod:`anonratio.bench.experiments.fig7_plot`).

References
----------
W. Du, D. Eppstein, M. T. Goodrich, G. S. Lueker, "On the Approximability of Geometric and
Geographic Generalization and the Min-Max Bin Covering Problem", WADS 2009, §4-§5, Figure 7.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "proven_bound",
    "DATASETS",
    "PAPER_CURVES",
    "FIG7_ALGORITHMS",
    "WORST_CASE",
    "k_grid",
    "fig7_tasks",
    "fig7_frame",
    "subrange_max",
    "check_observations",
]

DATASETS = ("FEMALE-1990", "MALE-1990", "LAST-1990")

#: registry name -> the paper's curve label (its "Spread" is the simplified one of §5)
PAPER_CURVES = {
    "fold-random": "Random Fold",
    "fold-sorted": "Sorted Fold",
    "simplified-spread-random": "Random Spread",
    "simplified-spread-sorted": "Sorted Spread",
}

#: the curves of the suite: the paper's four plus Theorem 10's full Spread
FIG7_ALGORITHMS = (*PAPER_CURVES, "spread-random", "spread-sorted")

#: proven worst-case overfull ratios: Fold (Theorem 7) < 3, Spread (Theorem 10) 5/2
WORST_CASE = {"fold": 3.0, "spread": 2.5}


def _census(dataset, min_frequency=0.001):
    from anonratio.instances.bin_covering.generators import census_names

    return census_names(dataset, min_frequency=min_frequency)[1]


# ---------------------------------------------------------------------------------------------
# the suite
# ---------------------------------------------------------------------------------------------
def k_grid(
    dataset: str,
    *,
    n_geometric: int = 120,
    offsets: tuple[int, ...] = (-1, 0, 1, 2),
    min_frequency: float = 0.001,
) -> np.ndarray:
    """The k values of Figure 7 for one Census list: ``max x <= k <= floor(S/2)``.

    A geometric grid of ``n_geometric`` points, plus ``floor(S/c) + o`` for every offset ``o``
    and every class count ``c >= 3`` in range: ``floor(S/c)`` is the last k that still allows
    ``c`` classes (``floor(S/k) = c``) and ``floor(S/c) + 1`` the first that allows only
    ``c - 1``, so the threshold jumps are sampled on both sides.

    Returns
    -------
    ndarray of int64, sorted, unique.

    Examples
    --------
    >>> ks = k_grid("MALE-1990", n_geometric=10)
    >>> int(ks[0]), int(ks[-1])
    (3318, 45026)
    """
    sizes = _census(dataset, min_frequency)
    total, top = int(sizes.sum()), int(sizes.max())
    k_max = total // 2  # floor(S/k) = 2 up to here: the paper's last k
    geo = np.geomspace(top, k_max, num=max(2, int(n_geometric)))
    parts = [np.rint(geo).astype(np.int64)]
    for c in range(3, total // top + 1):
        parts.append(total // c + np.asarray(offsets, dtype=np.int64))
    ks = np.unique(np.concatenate(parts))
    return ks[(ks >= top) & (ks <= k_max)]


def fig7_tasks(
    datasets: tuple[str, ...] = DATASETS,
    *,
    algorithms: tuple[str, ...] = FIG7_ALGORITHMS,
    n_geometric: int = 120,
    offsets: tuple[int, ...] = (-1, 0, 1, 2),
    k_values: Sequence[int] | None = None,
    k_per_batch: int = 12,
    time_limit: float = 10.0,
) -> list:
    """The ``paper-fig7`` suite: every algorithm on every Census list for every k of the grid.

    Parameters
    ----------
    datasets : sequence of str
    algorithms : sequence of str
        Registry names (default: the paper's four curves and Theorem 10's Spread).
    n_geometric, offsets
        The grid of :func:`k_grid`.
    k_values : sequence of int, optional
        Use these k for every list instead of the grid (tests).
    k_per_batch : int
        Runs of this many consecutive k (times the algorithms) share one worker process
        (``Task.batch``): each run takes milliseconds, a process per run would cost more.
    time_limit : float
        Seconds per run (only the sweep's hard timeout uses it).

    Returns
    -------
    list of Task
        Seed 0 for all: the census lists are deterministic, and the algorithm seed derived from
        it gives each ``*-random`` algorithm one fixed random item order for every k.
    """
    from anonratio.bench.engine.runner import Task
    from anonratio.bench.registry import get_algorithm

    for name in algorithms:
        get_algorithm(name)
    tasks = []
    for dataset in datasets:
        ks = k_grid(dataset, n_geometric=n_geometric, offsets=offsets)
        if k_values is not None:
            ks = np.asarray(list(k_values), dtype=np.int64)
        for j, k in enumerate(ks.tolist()):
            batch = f"paper-fig7:{dataset}:{j // max(1, int(k_per_batch))}"
            params = {"dataset": dataset, "k": int(k)}
            for name in algorithms:
                tasks.append(Task("bc-census", dict(params), 0, name, float(time_limit), batch))
    return tasks


# ---------------------------------------------------------------------------------------------
# the data
# ---------------------------------------------------------------------------------------------
def _params(cell):
    if isinstance(cell, dict):
        return cell
    try:
        return json.loads(cell)
    except (TypeError, ValueError):
        return {}


def _info_bins(cell):
    value = _params(cell).get("n_bins")
    return np.nan if value is None else float(value)


def fig7_frame(df: pd.DataFrame) -> pd.DataFrame:
    """The Figure 7 runs of a results frame, one tidy row per (dataset, algorithm, k).

    Keeps the verified ``bc-census`` rows. Columns: ``dataset``, ``k``, ``algorithm``,
    ``method`` (``fold``, ``simplified-spread``, ``spread``), ``order``, ``curve`` (the paper's
    label, or the registry name), ``cost``, ``lower_bound`` (``max(k, max x,
    ceil(S / floor(S/k)))``, or better), ``overfull_ratio`` (cost / k), ``certified_ratio``
    (cost / lower bound), ``lb_ratio`` (lower bound / k: the overfull ratio every solution
    has), ``total`` (S), ``max_classes`` (``floor(S/k)``), ``n_bins`` (the run's class count),
    ``time_s``. Sorted by dataset, algorithm, k.
    """
    if df is None or len(df) == 0 or "family" not in df:
        return pd.DataFrame()
    d = df[df["family"].astype(str) == "bc-census"].copy()
    if "verified" in d:
        d = d[d["verified"].astype("boolean").fillna(False).astype(bool)]
    if d.empty:
        return pd.DataFrame()
    params = d["family_params"].map(_params)
    d["dataset"] = params.map(lambda p: p.get("dataset"))
    mf = params.map(lambda p: float(p.get("min_frequency", 0.001)))
    d["k"] = params.map(lambda p: p.get("k")).astype("int64")
    d["cost"] = pd.to_numeric(d["cost"], errors="coerce")
    totals = {
        (ds, f): int(_census(ds, f).sum()) for ds, f in set(zip(d["dataset"], mf, strict=True))
    }
    d["total"] = [totals[(ds, f)] for ds, f in zip(d["dataset"], mf, strict=True)]
    d["max_classes"] = d["total"] // d["k"]
    lb = pd.to_numeric(d.get("lower_bound", pd.Series(np.nan, d.index)), errors="coerce")
    own = np.maximum(d["k"], -(-d["total"] // d["max_classes"]))
    sizes_max = {ds: int(_census(ds).max()) for ds in d["dataset"].unique()}
    own = np.maximum(own, d["dataset"].map(sizes_max))
    d["lower_bound"] = np.fmax(lb.to_numpy(dtype=float), own.to_numpy(dtype=float))
    d["overfull_ratio"] = d["cost"] / d["k"]
    d["certified_ratio"] = d["cost"] / d["lower_bound"]
    d["lb_ratio"] = d["lower_bound"] / d["k"]
    if "n_bins" in d and d["n_bins"].notna().any():
        d["n_bins"] = pd.to_numeric(d["n_bins"], errors="coerce")
    else:
        d["n_bins"] = d["info"].map(_info_bins) if "info" in d else np.nan
    algo = d["algorithm"].astype(str)
    d["order"] = algo.str.rsplit("-", n=1).str[-1]
    d["method"] = algo.str.rsplit("-", n=1).str[0]
    d["curve"] = algo.map(lambda a: PAPER_CURVES.get(a, a))
    d["algorithm"] = algo
    time_s = d["time_s"] if "time_s" in d else pd.Series(np.nan, index=d.index)
    d["time_s"] = pd.to_numeric(time_s, errors="coerce")
    cols = [
        "dataset",
        "k",
        "algorithm",
        "method",
        "order",
        "curve",
        "cost",
        "lower_bound",
        "overfull_ratio",
        "certified_ratio",
        "lb_ratio",
        "total",
        "max_classes",
        "n_bins",
        "time_s",
    ]
    d = d[cols].sort_values(["dataset", "algorithm", "k"], kind="stable")
    return d.drop_duplicates(["dataset", "algorithm", "k"]).reset_index(drop=True)


def subrange_max(
    frame: pd.DataFrame, column: str = "overfull_ratio", *, n_subranges: int = 24
) -> pd.DataFrame:
    """The maximum of ``column`` per (dataset, algorithm, subrange of k), as in Figure 7.

    Subranges split ``[min k, max k]`` of each dataset into ``n_subranges`` equal parts on a log
    scale. Returns a frame with ``dataset``, ``algorithm``, ``k_lo``, ``k_hi``, ``k_mid``
    (geometric middle) and ``max``.
    """
    out = []
    for ds, g in frame.groupby("dataset", sort=False):
        lo, hi = float(g["k"].min()), float(g["k"].max())
        edges = np.geomspace(lo, hi * (1 + 1e-9), n_subranges + 1) if hi > lo else [lo, hi + 1]
        bins = np.clip(np.searchsorted(edges, g["k"], side="right") - 1, 0, len(edges) - 2)
        stats = g.assign(_bin=bins).groupby(["algorithm", "_bin"])[column].max().reset_index()
        stats["dataset"] = ds
        stats["k_lo"] = [edges[b] for b in stats["_bin"]]
        stats["k_hi"] = [edges[b + 1] for b in stats["_bin"]]
        out.append(stats.rename(columns={column: "max"}).drop(columns="_bin"))
    if not out:
        return pd.DataFrame(columns=["dataset", "algorithm", "k_lo", "k_hi", "k_mid", "max"])
    res = pd.concat(out, ignore_index=True)
    res["k_mid"] = np.sqrt(res["k_lo"] * res["k_hi"])
    return res[["dataset", "algorithm", "k_lo", "k_hi", "k_mid", "max"]]


# ---------------------------------------------------------------------------------------------
# the paper's observations
# ---------------------------------------------------------------------------------------------
def _r(x: Any, nd: int = 4) -> float | None:
    return None if x is None or not np.isfinite(x) else round(float(x), nd)


def _paired(frame, a, b, column="overfull_ratio"):
    """Per (dataset, k) values of algorithms ``a`` and ``b`` where both ran."""
    wide = frame.pivot_table(index=["dataset", "k"], columns="algorithm", values=column)
    if a not in wide or b not in wide:
        return pd.DataFrame(columns=[a, b])
    return wide[[a, b]].dropna()


def _obs_spread_vs_fold(frame, spread="simplified-spread"):
    numbers, holds, seen = {}, True, False
    for order in ("random", "sorted"):
        f, s = f"fold-{order}", f"{spread}-{order}"
        pair = _paired(frame, f, s)
        if pair.empty:
            continue
        seen = True
        per_ds = {}
        for ds, p in pair.groupby(level="dataset"):
            ok = p[s].median() < p[f].median() and p[s].max() <= p[f].max()
            holds &= bool(ok)
            per_ds[ds] = {
                "median_fold": _r(p[f].median()),
                "median_spread": _r(p[s].median()),
                "max_fold": _r(p[f].max()),
                "max_spread": _r(p[s].max()),
                "frac_k_spread_better": _r((p[s] < p[f]).mean(), 3),
                "frac_k_spread_worse": _r((p[s] > p[f]).mean(), 3),
            }
        numbers[order] = per_ds
    return {
        "holds": bool(holds and seen),
        "criterion": f"per dataset and order, {spread}'s median overfull ratio is below "
        "Fold's and its maximum is at most Fold's",
        "numbers": numbers,
    }


def _obs_random_vs_sorted(frame):
    numbers, fractions = {}, []
    for method in ("fold", "simplified-spread", "spread"):
        pair = _paired(frame, f"{method}-random", f"{method}-sorted")
        if pair.empty:
            continue
        r, s = pair[f"{method}-random"], pair[f"{method}-sorted"]
        per_ds = {
            ds: _r((p[f"{method}-random"] < p[f"{method}-sorted"]).mean(), 3)
            for ds, p in pair.groupby(level="dataset")
        }
        numbers[method] = {
            "frac_k_random_better": _r((r < s).mean(), 3),
            "frac_k_tie": _r((r == s).mean(), 3),
            "frac_k_sorted_better": _r((r > s).mean(), 3),
            "median_random": _r(r.median()),
            "median_sorted": _r(s.median()),
            "per_dataset_frac_random_better": per_ds,
            "holds": bool((r < s).mean() >= 0.5),
        }
        if method in ("fold", "simplified-spread"):
            fractions.append((r < s).mean())
    return {
        "holds": bool(fractions) and bool(np.mean(fractions) >= 0.5),
        "criterion": "random order gives a strictly smaller overfull ratio than sorted order "
        "for at least half of the (dataset, k) points, averaged over the paper's two algorithms "
        "(Fold and simplified Spread); 'holds' per algorithm: the same for that algorithm alone",
        "numbers": numbers,
    }


def _jumps(g, classes):
    """Ratio changes between consecutive k, split by whether ``classes`` dropped."""
    g = g.sort_values("k")
    dr = np.diff(g["overfull_ratio"].to_numpy(dtype=float))
    dc = np.diff(g[classes].to_numpy(dtype=float))
    valid = np.isfinite(dr) & np.isfinite(dc)
    return dr[valid & (dc < 0)], dr[valid & (dc == 0)]


def _obs_thresholds(frame):
    numbers, holds, seen = {}, True, False
    jump_by_method: dict[str, list[float]] = {}
    for algo in PAPER_CURVES:
        g_all = frame[frame["algorithm"] == algo]
        if g_all.empty:
            continue
        seen = True
        entry: dict[str, dict[str, float | None]] = {}
        for classes in ("n_bins", "max_classes"):
            at_parts, rest_parts = [], []
            for _, g in g_all.groupby("dataset"):
                a, b = _jumps(g, classes)
                at_parts.append(a)
                rest_parts.append(b)
            at, rest = np.concatenate(at_parts), np.concatenate(rest_parts)
            entry[classes] = {
                "n_drops": int(at.size),
                "mean_change_at_drops": _r(at.mean()) if at.size else None,
                "mean_change_elsewhere": _r(rest.mean()) if rest.size else None,
                "mean_abs_change_elsewhere": _r(np.abs(rest).mean()) if rest.size else None,
                "frac_drops_with_increase": _r((at > 0).mean(), 3) if at.size else None,
            }
        main = entry["n_bins"]
        n_drops, at_drops = main["n_drops"], main["mean_change_at_drops"]
        elsewhere, abs_elsewhere = main["mean_change_elsewhere"], main["mean_abs_change_elsewhere"]
        ok = (
            n_drops is not None
            and n_drops > 0
            and at_drops is not None
            and elsewhere is not None
            and abs_elsewhere is not None  # None with `elsewhere`: no change off the drops
            and at_drops > 0 >= elsewhere
            and at_drops > abs_elsewhere
        )
        holds &= bool(ok)
        numbers[algo] = entry
        method = algo.rsplit("-", 1)[0]
        jump_by_method.setdefault(method, []).append(main["mean_change_at_drops"] or 0.0)
    fold_jump = float(np.mean(jump_by_method.get("fold", [np.nan])))
    spread_jump = float(np.mean(jump_by_method.get("simplified-spread", [np.nan])))
    return {
        "holds": bool(holds and seen),
        "fold_more_pronounced": bool(fold_jump > spread_jump),
        "criterion": "for each of the paper's four curves, between consecutive k of the grid "
        "where the run's own class count (n_bins) drops, the overfull ratio rises on average "
        "(mean change > 0), while between consecutive k with the same class count it does not "
        "(mean change <= 0), and the mean rise exceeds the mean absolute change elsewhere; "
        "'fold_more_pronounced': Fold's mean rise exceeds simplified Spread's. max_classes = "
        "floor(S/k) is reported too",
        "numbers": {
            **numbers,
            "mean_rise_fold": _r(fold_jump),
            "mean_rise_simplified_spread": _r(spread_jump),
        },
    }


def proven_bound(algo: str) -> float:
    """The proven worst-case overfull ratio of a Figure 7 curve: 5/2 for Theorem 10's Spread,
    3 for Fold (Theorem 7) and for simplified Spread (Fold's argument; the paper proves none)."""
    return WORST_CASE["spread"] if str(algo).startswith("spread-") else WORST_CASE["fold"]


def _obs_worst_case(frame):
    numbers, holds, seen = {}, True, False
    for algo in FIG7_ALGORITHMS:
        g = frame[frame["algorithm"] == algo]
        if g.empty:
            continue
        seen = True
        bound = proven_bound(algo)
        worst = float(g["overfull_ratio"].max())
        numbers[algo] = {
            "max_overfull_ratio": _r(worst),
            "median_overfull_ratio": _r(g["overfull_ratio"].median()),
            "max_certified_ratio": _r(g["certified_ratio"].max()),
            "median_certified_ratio": _r(g["certified_ratio"].median()),
            "worst_case": bound,
        }
        holds &= worst < WORST_CASE["spread"]
    return {
        "holds": bool(holds and seen),
        "criterion": "every curve's largest overfull ratio is below 5/2 (Spread's proven worst "
        "case, Theorem 10; Fold's is 3, Theorem 7)",
        "numbers": numbers,
    }


def check_observations(df: pd.DataFrame) -> dict:
    """Test the four observations of the paper's §5 on Figure 7 data.

    Parameters
    ----------
    df : DataFrame
        Result rows of the ``paper-fig7`` suite (or :func:`fig7_frame` output).

    Returns
    -------
    dict
        ``spread_beats_fold`` (a), ``random_beats_sorted`` (b), ``threshold_jumps`` (c),
        ``better_than_worst_case`` (d): each ``{"holds": bool, "criterion": str, "numbers":
        {...}}``; plus ``theorem10_spread_beats_fold`` (the same test as (a) for the full
        Spread of Theorem 10) and ``n_points`` (runs per algorithm).
    """
    frame = df if "overfull_ratio" in df and "max_classes" in df else fig7_frame(df)
    if frame.empty:
        raise ValueError("`df` holds no verified bc-census (Figure 7) runs")
    return {
        "spread_beats_fold": _obs_spread_vs_fold(frame),
        "random_beats_sorted": _obs_random_vs_sorted(frame),
        "threshold_jumps": _obs_thresholds(frame),
        "better_than_worst_case": _obs_worst_case(frame),
        "theorem10_spread_beats_fold": _obs_spread_vs_fold(frame, spread="spread"),
        "n_points": {a: int(n) for a, n in frame.groupby("algorithm").size().items()},
    }
