"""Publishing l-diversity by suppression (Xiao, Yi and Tao 2010): every published class is
l-eligible (:class:`LEligibility`), its QI cells suppressed where the class differs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from anonratio.bench.declarations import Algorithm
from anonratio.bench.publish.publisher import Publisher
from anonratio.bench.publish.release import Release, check_release, class_summary, sensitive_of
from anonratio.bench.publish.request import Request, Source
from anonratio.instances.errors import InfeasibleInstanceError
from anonratio.instances.privacy import PrivacyModel
from anonratio.instances.validation import check_int

__all__ = ["LEligibility", "LDiversityPublisher", "PUBLISHER"]


@dataclass(frozen=True)
class LEligibility(PrivacyModel):
    """l-diversity as Xiao, Yi and Tao (2010) define it: a class is *l-eligible* when no
    sensitive value occurs in more than a fraction 1/l of its records (``l · max <= size``).

    Monotone (merging two eligible classes keeps every value's share at most 1/l). Measure: the
    largest l the class is eligible for, ``size // max``.
    """

    l: int
    name: ClassVar[str] = "l-eligibility"
    key: ClassVar[str] = "l-eligibility"
    measure_name: ClassVar[str] = "largest l every class is eligible for"

    def __post_init__(self) -> None:
        object.__setattr__(self, "l", check_int("l", self.l, low=1))

    def measure(self, sizes, hist, prior):
        return (sizes // np.maximum(hist.max(axis=1, initial=0), 1)).astype(float)

    def passes(self, sizes, hist, prior):
        return self.l * hist.max(axis=1, initial=0) <= sizes

    def __str__(self) -> str:
        return f"{self.l}-diversity (l-eligible)"


def _utility(instance: Any, labels: Any, names: tuple[str, ...]) -> dict[str, float]:
    """The utility metrics ``names`` of an l-diverse release: a local recoding by suppression
    (the average class size relative to k does not apply)."""
    from anonratio.instances.kanonymity.metrics import utility
    from anonratio.solvers.ldiversity.metrics import suppression_recoding

    wanted = [name for name in names if name != "c-avg"]
    return utility(suppression_recoding(instance, labels), metrics=wanted)


class LDiversityPublisher(Publisher):
    """l-diversity by suppression: the sensitive column's values diverse in every class."""

    parameter = "l"
    size_name = "l"
    parameter_text = "l-diversity"
    default_algorithm = "tp-plus"
    recoding_model = "suppression"
    cost_name = "stars"

    def check_size(self, value: Any, *, sensitive: str | None, names: Mapping[str, str]) -> int:
        l = check_int(names.get("l", "l"), value, low=2)
        if sensitive is None:
            quoted = {o: f"`{names.get(o, o)}`" for o in ("l", "sensitive")}
            raise ValueError(
                f"{quoted['l']} needs {quoted['sensitive']}, the column whose values must be "
                "diverse"
            )
        return l

    def why_not(self, algorithm: Algorithm) -> str:
        return "l-diversity publishes by suppression"

    def utility(self, value: Any, name: str) -> tuple[str, ...]:
        from anonratio.instances.kanonymity.metrics import check_metrics

        return check_metrics(value, name)

    def instance(self, request: Request, source: Source) -> Any:
        from anonratio.instances.ldiversity import LDiversityInstance

        table = source.table(qi=list(request.qi), sensitive=request.sensitive)
        distinct = int(np.unique(table.sensitive).size)
        assert request.l is not None  # the publisher's parameter, checked
        if request.l > distinct:
            constant = " (the column is constant)" if distinct == 1 else ""
            raise InfeasibleInstanceError(
                f"{request.name('l')} must be at most the number of distinct values of the "
                f"sensitive column {request.sensitive!r}, {distinct}{constant}: an l-diverse "
                f"class holds l distinct values; got {request.l}"
            )
        return LDiversityInstance(table, request.l)

    def release(self, request: Request, source: Source, instance: Any, solution: Any) -> Release:
        from anonratio.instances import verify
        from anonratio.instances.ldiversity.publish import publish

        published = publish(instance, solution.labels, frame=source.frame)
        cost = verify(instance, solution).cost
        assert cost is not None  # the runner verified the solution
        withheld = np.zeros(instance.n, dtype=bool)
        checks, sizes = check_release(
            request,
            source,
            published,
            withheld,
            LEligibility(instance.l),
            sensitive_of(instance.table),
        )
        n_classes, smallest = class_summary(sizes)
        return Release(
            published=published,
            checks=checks,
            withheld=withheld,
            published_cost=float(cost),
            recoding="local recoding (suppression)",
            n_classes=n_classes,
            smallest_class=smallest,
            metrics=_utility(instance, solution.labels, request.utility),
            details={
                "published_diversity": int(checks[0].worst),
                "phase": (solution.info or {}).get("phase"),
            },
        )

    def describe(self, request: Request) -> str:
        return f"l-diversity by suppression, l={request.l}, sensitive {request.sensitive}"


#: the publisher of l-diversity's algorithms
PUBLISHER = LDiversityPublisher()
