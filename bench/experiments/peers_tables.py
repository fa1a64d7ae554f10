"""The tables of the ``peers`` suite: a generated mixed table and UCI Adult, as :class:`PeerCase`.

Every tool of :mod:`anonratio.bench.experiments.peers` reads the same :class:`PeerCase`: one
DataFrame whose numeric quasi-identifiers hold integers and whose categorical ones hold strings, the
sensitive column, and an ARX-style :class:`~anonratio.instances.table.Hierarchy` per
quasi-identifier (anonratio's Datafly and FOREST and anjana's Datafly generalize along them; both
Mondrians cut the numeric attributes as numbers). :func:`anjana_hierarchies` converts the
hierarchies to anjana's ``{level: labels per value}`` form.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from anonratio.instances.kanonymity.generators import random_hierarchy
from anonratio.instances.table import SUPPRESSED, Hierarchy
from anonratio.instances.validation import check_int, check_random_state

__all__ = [
    "PeerCase",
    "interval_hierarchy",
    "generated_case",
    "adult_case",
    "adult_available",
    "anjana_hierarchies",
]

#: numeric attributes of the generated table: name -> (lowest, highest value)
GENERATED_NUMERIC = {"age": (17, 90), "hours": (1, 99)}
#: categorical attributes of the generated table: name -> (number of values, hierarchy height)
GENERATED_CATEGORICAL = {"job": (24, 3), "region": (40, 4), "edu": (16, 3)}
#: interval widths of the numeric hierarchies, level by level (then ``*``)
INTERVAL_WIDTHS = (5, 10, 20)
#: the sensitive attribute of the generated table and its values
GENERATED_SENSITIVE = ("disease", ("flu", "cold", "asthma", "diabetes", "none"))


@dataclass(frozen=True, eq=False)
class PeerCase:
    """One table of the suite, as every tool receives it.

    Attributes
    ----------
    name : str
        ``"generated"`` or ``"adult"``.
    df : pandas.DataFrame
        The records: numeric QIs as ``int64``, categorical QIs and the sensitive column as ``str``.
    qi : tuple of str
    numeric : tuple of str
        The QIs cut as numbers by the Mondrians (and measured as intervals by the metrics).
    sensitive : str
    hierarchies : dict of str -> Hierarchy
        One per QI; level-0 labels are ``str`` of the column's values.
    """

    name: str
    df: pd.DataFrame
    qi: tuple[str, ...]
    numeric: tuple[str, ...]
    sensitive: str
    hierarchies: dict[str, Hierarchy]

    @property
    def n(self) -> int:
        """Number of records."""
        return int(self.df.shape[0])


def interval_hierarchy(low: int, high: int, widths: tuple[int, ...] = INTERVAL_WIDTHS) -> Hierarchy:
    """The ARX interval hierarchy of the integers ``low..high``.

    Level ``t`` (1-based) groups the values into intervals of ``widths[t - 1]`` aligned at
    ``low``, labelled ``"a-b"`` (inclusive ends); the top level is ``*``. The widths must each
    divide the next, so that every level refines the next. O(values · levels).

    Raises
    ------
    ValueError
        ``high < low``, or a width that is not positive or does not divide the next.
    """
    low = check_int("low", low)
    high = check_int("high", high, low=low)
    for a, b in zip(widths, widths[1:], strict=False):
        if a < 1 or b % a:
            raise ValueError(f"`widths` must be positive, each dividing the next, got {widths}")
    values = np.arange(low, high + 1)
    columns, labels = [np.arange(values.size)], [tuple(str(v) for v in values)]
    for w in widths:
        group = (values - low) // w
        starts = low + np.arange(int(group.max()) + 1) * w
        columns.append(group)
        labels.append(tuple(f"{s}-{s + w - 1}" for s in starts))
    columns.append(np.zeros(values.size, dtype=int))
    labels.append((SUPPRESSED,))
    return Hierarchy(np.column_stack(columns), tuple(labels))


def _prefixed(h: Hierarchy, prefix: str) -> Hierarchy:
    """``h`` with its values renamed ``<prefix><i>``, so they are not parsed as numbers."""
    values = tuple(f"{prefix}{v}" for v in h.labels[0])
    return Hierarchy(h.groups, (values, *h.labels[1:]))


def generated_case(n: int, *, seed: int = 0) -> PeerCase:
    """An Adult-like mixed table of ``n`` records: 2 numeric and 3 categorical QIs.

    ``age`` (17..90) and ``hours`` (1..99) are drawn from rounded normal distributions clipped to
    their range (means 40 and 42, deviations 13 and 12, as Adult's age and hours-per-week), with
    :func:`interval_hierarchy` hierarchies; ``job``, ``region`` and ``edu`` draw Zipf-skewed
    values (``p(v) ∝ rank**-1``) with :func:`~anonratio.instances.kanonymity.random_hierarchy`
    hierarchies; ``disease`` is uniform over 5 values. O(n · m) time.

    Raises
    ------
    ValueError
        ``n < 1``.
    """
    n = check_int("n", n, low=1)
    rng = check_random_state(seed)
    data: dict[str, np.ndarray] = {}
    hier: dict[str, Hierarchy] = {}
    for (name, (lo, hi)), (mean, sd) in zip(
        GENERATED_NUMERIC.items(), ((40, 13), (42, 12)), strict=True
    ):
        data[name] = np.clip(np.rint(rng.normal(mean, sd, n)), lo, hi).astype(np.int64)
        hier[name] = interval_hierarchy(lo, hi)
    for name, (c, height) in GENERATED_CATEGORICAL.items():
        h = _prefixed(random_hierarchy(c, height, seed=rng), name)
        p = 1.0 / np.arange(1, c + 1)
        codes = rng.choice(rng.permutation(c), size=n, p=p / p.sum())
        data[name] = np.asarray(h.labels[0], dtype=object)[codes]
        hier[name] = h
    s_name, s_values = GENERATED_SENSITIVE
    data[s_name] = np.asarray(s_values, dtype=object)[rng.integers(0, len(s_values), n)]
    df = pd.DataFrame(data)
    qi = tuple(GENERATED_NUMERIC) + tuple(GENERATED_CATEGORICAL)
    return PeerCase("generated", df, qi, tuple(GENERATED_NUMERIC), s_name, hier)


def adult_available() -> bool:
    """Whether ``$ANONRATIO_DATASETS/adult/adult.csv`` exists."""
    from anonratio.instances.loaders import datasets_dir

    try:
        return (datasets_dir("adult") / "adult.csv").is_file()
    except FileNotFoundError:
        return False


def adult_case(directory: str | Path | None = None) -> PeerCase:
    """UCI Adult (30,162 records, 8 QIs, sensitive ``salary-class``) with its ARX hierarchies.

    ``age`` is the numeric QI (as ``int64``); the others are categorical. Read with
    :func:`~anonratio.instances.loaders.load_adult` (Kohavi & Becker 1994, as distributed with
    ARX). Raises ``FileNotFoundError`` when the data set is missing.
    """
    from anonratio.instances.loaders import load_adult

    table = load_adult(directory=directory)
    df = table.to_dataframe().astype({"age": np.int64})
    hier = {a: h for a, h in zip(table.attributes, table.hierarchies, strict=True) if h}
    return PeerCase("adult", df, table.attributes, ("age",), "salary-class", hier)


def anjana_hierarchies(case: PeerCase) -> dict[str, dict[int, np.ndarray]]:
    """The hierarchies in anjana's form: per QI ``{level: labels}``, one label per value.

    ``labels[t][i]`` is the level-``t`` label of the ``i``-th value (level 0: the value itself),
    i.e. the columns of the ARX hierarchy file. O(values · levels) per attribute.
    """
    return {
        a: {t: np.asarray(h.labels[t], dtype=object)[h.groups[:, t]] for t in range(h.height + 1)}
        for a, h in case.hierarchies.items()
    }
