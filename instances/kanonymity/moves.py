"""The worst-case hunter's moves on k-anonymity instances: a cell replaced, a record duplicated
or deleted (:mod:`anonratio.instances.table_moves`); ``k``, the model and row deletion stay."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np
from anonratio.instances import table_moves
from anonratio.instances.kanonymity.instance import KAnonymityInstance

__all__ = ["MOVES"]


def _on_table(move: Callable) -> Callable:
    def moved(instance: KAnonymityInstance, rng: np.random.Generator) -> KAnonymityInstance:
        table = move(instance.table, rng)
        if table.n_records < instance.k:
            raise ValueError(f"fewer than k={instance.k} records")
        return dataclasses.replace(instance, table=table)

    moved.__name__ = move.__name__
    return moved


#: (name, move) pairs; each ``move(instance, rng) -> instance`` or ``ValueError``
MOVES = tuple(
    (m.__name__, _on_table(m))
    for m in (table_moves.replace_cell, table_moves.duplicate_record, table_moves.delete_record)
)
