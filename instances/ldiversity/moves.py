"""The worst-case hunter's moves on l-diversity instances: a QI cell or a sensitive value
replaced, a record duplicated or deleted (:mod:`anonratio.instances.table_moves`); a move that
leaves no l-diverse publication is refused by the instance's own check."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np
from anonratio.instances import table_moves
from anonratio.instances.ldiversity.instance import LDiversityInstance

__all__ = ["MOVES"]


def _on_table(move: Callable) -> Callable:
    def moved(instance: LDiversityInstance, rng: np.random.Generator) -> LDiversityInstance:
        return dataclasses.replace(instance, table=move(instance.table, rng))

    moved.__name__ = move.__name__
    return moved


#: (name, move) pairs; each ``move(instance, rng) -> instance`` or ``ValueError``
MOVES = tuple(
    (m.__name__, _on_table(m))
    for m in (
        table_moves.replace_cell,
        table_moves.replace_sensitive,
        table_moves.duplicate_record,
        table_moves.delete_record,
    )
)
