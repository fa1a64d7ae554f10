"""The worst-case hunter's moves on k-anonymity instances: a cell replaced, a record duplicated
or deleted (:mod:`anonratio.instances.table_moves`); ``k``, the model and row deletion stay, and
the instance refuses a table of fewer than ``k`` records."""

from __future__ import annotations

from anonratio.instances.table_moves import (
    delete_record,
    duplicate_record,
    on_table,
    replace_cell,
)

__all__ = ["MOVES"]

#: (name, move) pairs; each ``move(instance, rng) -> instance`` or ``ValueError``
MOVES = tuple(on_table(m) for m in (replace_cell, duplicate_record, delete_record))
