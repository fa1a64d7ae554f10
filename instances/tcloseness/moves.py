"""The worst-case hunter's moves on t-closeness instances: a QI cell or a sensitive value
replaced, a record duplicated or deleted (:mod:`anonratio.instances.table_moves`); a move that
leaves fewer than ``k`` records is refused by the instance's own check."""

from __future__ import annotations

from anonratio.instances.table_moves import (
    delete_record,
    duplicate_record,
    on_table,
    replace_cell,
    replace_sensitive,
)

__all__ = ["MOVES"]

#: (name, move) pairs; each ``move(instance, rng) -> instance`` or ``ValueError``
MOVES = tuple(
    on_table(m) for m in (replace_cell, replace_sensitive, duplicate_record, delete_record)
)
