"""Small random changes of a :class:`~anonratio.instances.table.Table`: the moves the worst-case
hunter (:mod:`anonratio.bench.tracking.hunt`) makes on k-anonymity and l-diversity instances.

Each move takes a table and a ``numpy.random.Generator`` and returns a new table (the input is
never modified); it raises ``ValueError`` when it does not apply (a table of one record cannot
lose one).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

from anonratio.instances.table import Table

__all__ = ["replace_cell", "duplicate_record", "delete_record", "replace_sensitive", "on_table"]


def replace_cell(table: Table, rng: np.random.Generator) -> Table:
    """One QI cell set to another value of its attribute (uniform)."""
    i, j = int(rng.integers(table.n_records)), int(rng.integers(table.n_attributes))
    n_values = len(table.values[j])
    if n_values < 2:
        raise ValueError(f"attribute {table.attributes[j]!r} has one value")
    codes = np.array(table.codes)
    codes[i, j] = (codes[i, j] + 1 + rng.integers(n_values - 1)) % n_values
    return dataclasses.replace(table, codes=codes)


def _rows(table: Table, keep: np.ndarray) -> Table:
    sensitive = None if table.sensitive is None else np.asarray(table.sensitive)[keep]
    return dataclasses.replace(table, codes=np.asarray(table.codes)[keep], sensitive=sensitive)


def duplicate_record(table: Table, rng: np.random.Generator) -> Table:
    """One record repeated at the end."""
    i = int(rng.integers(table.n_records))
    return _rows(table, np.r_[np.arange(table.n_records), i])


def delete_record(table: Table, rng: np.random.Generator) -> Table:
    """One record removed (the table keeps at least two)."""
    if table.n_records <= 2:
        raise ValueError("a table keeps at least two records")
    i = int(rng.integers(table.n_records))
    return _rows(table, np.delete(np.arange(table.n_records), i))


def replace_sensitive(table: Table, rng: np.random.Generator) -> Table:
    """One record's sensitive value set to another value (uniform)."""
    values = table.sensitive_values or ()
    if table.sensitive is None or len(values) < 2:
        raise ValueError("the table has no sensitive attribute with two values")
    n_values = len(values)
    sensitive = np.array(table.sensitive)
    i = int(rng.integers(table.n_records))
    sensitive[i] = (sensitive[i] + 1 + rng.integers(n_values - 1)) % n_values
    return dataclasses.replace(table, sensitive=sensitive)


def on_table(move: Callable[[Table, np.random.Generator], Table]) -> tuple[str, Callable]:
    """``(name, instance move)`` of a table move, for any instance holding its table in
    ``table``; the instance's own checks refuse what its problem does not allow (a table of
    fewer than ``k`` records, one with no l-diverse publication)."""

    def moved(instance: Any, rng: np.random.Generator) -> Any:
        return dataclasses.replace(instance, table=move(instance.table, rng))

    moved.__name__ = move.__name__
    return move.__name__, moved
