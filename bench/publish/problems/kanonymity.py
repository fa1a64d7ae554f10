"""Publishing k-anonymity: a recoding of the table (local, per class, or global, full-domain),
with hierarchies or by suppression, optionally with more privacy models and a suppression limit
(the records withheld are listed by ``--withheld-rows`` or kept as rows of ``*``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from anonratio.bench.publish.publisher import RECODING_OPTIONS, Publisher
from anonratio.bench.publish.release import (
    Release,
    check_k,
    check_release,
    check_satisfiable,
    class_summary,
    sensitive_of,
)
from anonratio.bench.publish.request import Request, Source
from anonratio.instances.privacy import KAnonymity
from anonratio.instances.validation import check_int

__all__ = ["KAnonymityPublisher", "PUBLISHER"]


class KAnonymityPublisher(Publisher):
    """k-anonymity: the generalized or suppressed cells of a recoding of the table."""

    parameter = "k"
    size_name = "k"
    parameter_text = "k-anonymity"
    default_algorithm = "forest"
    options = frozenset(RECODING_OPTIONS)
    withheld_rows = True

    def check_size(self, value: Any, *, sensitive: str | None, names: Mapping[str, str]) -> int:
        return check_int(names.get("k", "k"), value)

    def metrics(self) -> tuple[str, ...]:
        from anonratio.solvers.kanonymity.full_domain import NODE_METRICS

        return tuple(NODE_METRICS)

    def utility(self, value: Any, name: str) -> tuple[str, ...]:
        from anonratio.instances.kanonymity.metrics import check_metrics

        return check_metrics(value, name)

    def instance(self, request: Request, source: Source) -> Any:
        from anonratio.instances import KAnonymityInstance

        table = source.table(
            qi=list(request.qi),
            sensitive=request.sensitive,
            hierarchies=request.hierarchies or None,
            weights=request.weights,
        )
        check_k(request, table.n_records)
        check_satisfiable(request, table)
        assert request.k is not None  # the size this publisher reads, checked
        return KAnonymityInstance(
            table, request.k, request.model, row_deletion=request.max_suppression > 0
        )

    def release(self, request: Request, source: Source, instance: Any, solution: Any) -> Release:
        from anonratio.instances.kanonymity.metrics import utility
        from anonratio.instances.kanonymity.recoding import Recoding

        recoded = solution.info.get("recoding")
        if recoded is None:
            recoded = Recoding.from_partition(instance, solution.labels, method=solution.algorithm)
        rows = "star" if request.keep_suppressed else "withhold"
        published = recoded.to_dataframe(frame=source.frame, suppressed_rows=rows)
        withheld = np.zeros(instance.n, dtype=bool)
        if recoded.suppressed is not None:
            withheld = np.asarray(recoded.suppressed, dtype=bool)
        checks, sizes = check_release(
            request,
            source,
            published,
            withheld,
            KAnonymity(instance.k),
            sensitive_of(instance.table),
        )
        # the requested metrics, and always the cost the certified ratio is of
        metrics = utility(recoded, k=instance.k, metrics=("generalization-cost", *request.utility))
        n_classes, smallest = class_summary(sizes)
        labels = np.asarray(solution.labels)
        levels = solution.info.get("levels")
        return Release(
            published=published,
            checks=checks,
            withheld=withheld,
            published_cost=float(metrics["generalization-cost"]),
            recoding=f"{recoded.scheme} recoding",
            n_classes=n_classes,
            smallest_class=smallest,
            metrics=metrics,
            levels=dict(levels) if levels else None,
            details={"groups": int(np.unique(labels[labels >= 0]).size)},
            recoded=recoded,
        )

    def describe(self, request: Request) -> str:
        return f"k-anonymity, k={request.k} ({request.model})"


#: the publisher of k-anonymity's algorithms
PUBLISHER = KAnonymityPublisher()
