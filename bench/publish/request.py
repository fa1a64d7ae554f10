"""A publishing request, validated before any data is read (:func:`check_request`), and the
data it publishes (:class:`Source`).

:func:`check_request` checks the options alone: the algorithm and its problem, which must declare
a :class:`~anonratio.bench.publish.publisher.Publisher` (k-anonymity, l-diversity by suppression,
or the clustering problems r-gather and r-cellular); the size parameter that publisher reads
(``k``, the cluster size ``r`` given as ``k``, or ``l``), checked by it; the recoding options it
takes (the others are refused, saying why); the privacy models, the suppression limit (a
fraction in [0, 1)) and the metric. An option the algorithm does not take (its declared
signature) is refused, naming the option, the algorithm and the algorithms of its problem that
take it. Messages name each option as the caller spells it (``names``: ``max_suppression`` in
Python, ``--max-suppression`` on the command line).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from anonratio.bench.declarations import Algorithm
from anonratio.bench.engine.bounds import check_bound
from anonratio.bench.publish.publisher import (
    Publisher,
    default_algorithm,
    publisher_of,
    publishers,
    size_parameters,
)
from anonratio.instances.privacy import PrivacyModel
from anonratio.instances.validation import (
    check_choice,
    check_instance,
    check_int,
    check_number,
    check_time_limit,
)

__all__ = [
    "Publisher",
    "Request",
    "Source",
    "check_request",
    "check_qi",
    "OPTION_WHAT",
]

#: what each algorithm option asks of an algorithm, for the message refusing it
OPTION_WHAT = {
    "privacy": "privacy models to enforce besides its own (k, r or l)",
    "max_suppression": "tuple suppression",
    "metric": "a utility metric to optimize",
}

#: the option names of the Python API (the command line passes its own, ``--max-suppression``)
API_NAMES: Mapping[str, str] = {}

#: the size parameter the Python API fills in (``k`` = 5) when the caller gives none
DEFAULT_PARAMETER = "k"


@dataclass(frozen=True)
class Request:
    """A validated publishing request (:func:`check_request`); ``names`` spell the options and
    ``publisher`` is that of the algorithm's problem."""

    problem: str
    algorithm: Algorithm
    qi: tuple[str, ...]
    k: int | None
    l: int | None
    sensitive: str | None
    models: tuple[PrivacyModel, ...]
    options: Mapping[str, Any]
    max_suppression: float
    keep_suppressed: bool
    hierarchies: Any
    model: str
    weights: Any
    scaling: str
    seed: int | None
    time_limit: float
    publisher: Publisher = field(repr=False)
    names: Mapping[str, str] = field(default_factory=dict, repr=False)
    bound: str = "fast"
    utility: tuple[str, ...] = ()

    def name(self, option: str) -> str:
        """The option as the caller spells it, quoted: ```--max-suppression```."""
        return f"`{self.names.get(option, option)}`"


@dataclass(frozen=True)
class Source:
    """The data to publish: ``frame`` (never modified; the published table keeps its columns and
    the order of its rows), ``name`` and ``lines`` for messages (a file and the line of each row),
    and ``table``, which builds the :class:`~anonratio.instances.Table` of the QI and sensitive
    columns (``table(qi=, sensitive=, hierarchies=, weights=)``)."""

    frame: pd.DataFrame
    table: Callable[..., Any]
    name: str = "df"
    lines: Sequence[int] | None = None


# ---------------------------------------------------------------------------------------------
# validation: the options alone
# ---------------------------------------------------------------------------------------------
def check_qi(qi: Any, name: str = "qi") -> list[str]:
    """``qi`` as a list of column names: one name, or a list or tuple of them, at least one."""
    if isinstance(qi, str):
        qi = [qi]
    if not isinstance(qi, list | tuple):
        raise TypeError(
            f"`{name}` must be a column name or a list of column names, got "
            f"{type(qi).__name__} {qi!r}"
        )
    if not qi:
        raise ValueError(f"`{name}` must name at least one column")
    return list(qi)


def _quoted(names: Mapping[str, str]) -> Callable[[str], str]:
    """``option -> `spelling``` for messages (the option itself when ``names`` lacks it)."""
    return lambda option: f"`{names.get(option, option)}`"


def _models(privacy: Any, request_name: Callable[[str], str]) -> list[PrivacyModel]:
    from anonratio.instances.privacy_specs import parse_privacy

    if privacy is None:
        return []
    items = [privacy] if isinstance(privacy, str | PrivacyModel) else list(privacy)
    models = []
    for p in items:
        if isinstance(p, str):
            try:
                models.append(parse_privacy(p))
            except ValueError as exc:
                raise ValueError(f"{request_name('privacy')} {p!r}: {exc}") from None
        else:
            models.append(check_instance(p, PrivacyModel, "privacy"))
    return models


def _refuse_unsupported(algo: Algorithm, options: Mapping[str, Any], name: Callable) -> None:
    """Refuse an option the algorithm does not take (its declared signature), naming the option,
    the algorithm and those of its problem that take it."""
    from anonratio.bench.registry import REGISTRY

    for option in options:
        if option in algo._accepts:
            continue
        takers = [
            a.name for a in REGISTRY.values() if a.problem == algo.problem and option in a._accepts
        ]
        hint = (
            f"algorithms that take it: {', '.join(takers)}"
            if takers
            else f"no {algo.problem} algorithm takes it"
        )
        raise ValueError(
            f"{name(option)} is not supported by algorithm {algo.name!r}, which does not take "
            f"{OPTION_WHAT[option]}; {hint}"
        )


def _algorithm(
    k: Any, l: Any, algorithm: Any, names: Mapping[str, str]
) -> tuple[Algorithm, Publisher]:
    """The registered algorithm (by default that of the size parameter given) and its problem's
    publisher, if the problem is published and its publisher reads the parameter given."""
    from anonratio.bench.registry import get_algorithm

    name = _quoted(names)
    if (k is None) == (l is None):
        wanted = [f"{name(p)} ({what})" for p, what in size_parameters().items()]
        raise ValueError(f"give one of {' and '.join(wanted)}")
    given = "k" if k is not None else "l"
    if algorithm is None:
        algorithm = default_algorithm(given)
    algo = get_algorithm(check_instance(algorithm, str, names.get("algorithm", "algorithm")))
    publisher = publisher_of(algo)
    if publisher.parameter != given:
        if given == DEFAULT_PARAMETER:
            raise ValueError(
                f"algorithm {algo.name!r} solves {algo.problem}: give {name(publisher.parameter)}"
            )
        raise ValueError(
            f"algorithm {algo.name!r} solves {algo.problem}, not {size_parameters()[given]}"
        )
    return algo, publisher


def _refuse_recoding_options(
    algo: Algorithm, publisher: Publisher, name: Callable[[str], str], **given: bool
) -> None:
    """Refuse the recoding options (``given``: whether each was asked for) the publisher does not
    take, naming the problems whose publishers take them and why this one does not."""
    refused = [
        option for option, asked in given.items() if asked and option not in publisher.options
    ]
    if not refused:
        return
    takers = [p for p, other in publishers().items() if set(refused) <= other.options]
    options = " and ".join(name(o) for o in refused)
    raise ValueError(
        f"{options} {'are' if len(refused) > 1 else 'is'} for {' and '.join(takers)}: "
        f"{publisher.why_not(algo)}"
    )


def _metrics() -> tuple[str, ...]:
    """Every value the ``metric`` option may take, for some publisher's algorithms."""
    return tuple(dict.fromkeys(m for p in publishers().values() for m in p.metrics()))


def _algorithm_options(
    algo: Algorithm, models: list, max_suppression: Any, metric: Any, names: Mapping[str, str]
) -> tuple[dict[str, Any], float]:
    """The options the algorithm must enforce (privacy, max_suppression, metric), checked, and
    the suppression limit; an option it does not take is refused."""
    limit = check_number(
        names.get("max_suppression", "max_suppression"),
        0.0 if max_suppression is None else max_suppression,
        low=0,
        high=1,
        closed="left",
    )
    options: dict[str, Any] = {}
    if models:
        options["privacy"] = models
    if limit > 0:
        options["max_suppression"] = limit
    if metric is not None:
        options["metric"] = check_choice(names.get("metric", "metric"), metric, _metrics())
    _refuse_unsupported(algo, options, _quoted(names))
    return options, limit


def check_request(
    *,
    qi: Any,
    k: Any = None,
    l: Any = None,
    algorithm: str | None = None,
    sensitive: str | None = None,
    privacy: Any = None,
    max_suppression: Any = 0.0,
    metric: str | None = None,
    hierarchies: Any = None,
    model: str | None = None,
    weights: Any = None,
    scaling: str = "standard",
    keep_suppressed: bool = False,
    seed: Any = 0,
    time_limit: Any = 60.0,
    names: Mapping[str, str] | None = None,
    bound: Any = "fast",
    utility: Any = None,
) -> Request:
    """Validate a publishing request before any data is read (see the module docstring).

    ``algorithm`` defaults to that of the size parameter given (``k`` or ``l``, see
    :attr:`~anonratio.bench.publish.publisher.Publisher.default_algorithm`); ``names`` maps an
    option to its spelling in messages. Raises ``ValueError`` (``TypeError`` for an argument of
    the wrong kind) with one line naming the option, the value and the rule.
    """
    names = dict(names or API_NAMES)
    name = _quoted(names)

    qi = check_qi(qi, names.get("qi", "qi"))
    algo, publisher = _algorithm(k, l, algorithm, names)
    if sensitive is not None:
        sensitive = check_instance(sensitive, str, names.get("sensitive", "sensitive"))
    if sensitive is not None and sensitive in qi:
        raise ValueError(
            f"{name('sensitive')} column {sensitive!r} is also in {name('qi')}: a column is "
            "either a quasi-identifier or the sensitive attribute"
        )
    size = publisher.check_size(
        k if publisher.parameter == "k" else l, sensitive=sensitive, names=names
    )
    _refuse_recoding_options(
        algo,
        publisher,
        name,
        hierarchies=bool(hierarchies),
        model=model not in (None, publisher.recoding_model),
        weights=weights is not None,
        keep_suppressed=keep_suppressed is True,
    )
    models = _models(privacy, name)
    if models and sensitive is None:
        raise ValueError(f"{name('privacy')} {models[0].spec} needs {name('sensitive')}")
    options, limit = _algorithm_options(algo, models, max_suppression, metric, names)
    return Request(
        problem=algo.problem,
        algorithm=algo,
        qi=tuple(qi),
        k=size if publisher.parameter == "k" else None,
        l=size if publisher.parameter == "l" else None,
        sensitive=sensitive,
        models=tuple(models),
        options=options,
        max_suppression=limit,
        keep_suppressed=check_instance(keep_suppressed, bool, "keep_suppressed"),
        hierarchies=hierarchies,
        model=check_choice(
            names.get("model", "model"),
            model or ("generalization" if hierarchies else "suppression"),
            ("generalization", "suppression"),
        ),
        weights=weights,
        scaling=check_choice(
            names.get("scaling", "scaling"), scaling, ("standard", "range", "none")
        ),
        seed=check_int(names.get("seed", "seed"), seed, low=0, allow_none=True),
        time_limit=check_time_limit(time_limit, name=names.get("time_limit", "time_limit")),
        publisher=publisher,
        names=names,
        bound=check_bound(bound, names.get("bound", "bound")),
        utility=publisher.utility(utility, names.get("utility", "utility")),
    )
