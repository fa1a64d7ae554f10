"""Privacy models by name: the spec strings of the command line and the Python API
(``"k-anonymity:k=5"``, ``"t-closeness:t=0.2,ground=ordered"``), and the check of a published
DataFrame against them."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import MISSING, fields
from typing import Any

import pandas as pd

from anonratio.instances.equivalence import _sensitive_codes, classes_of
from anonratio.instances.privacy import (
    AlphaKAnonymity,
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    PrivacyCheck,
    PrivacyModel,
    PSensitiveKAnonymity,
    RecursiveCLDiversity,
    TCloseness,
)
from anonratio.instances.validation import check_choice, check_instance

__all__ = ["MODELS", "parse_privacy", "check_published"]


#: the models by their name in specs (``"l-diversity"`` is distinct l-diversity)
MODELS: dict[str, type[PrivacyModel]] = {
    cls.key: cls
    for cls in (
        KAnonymity,
        DistinctLDiversity,
        EntropyLDiversity,
        RecursiveCLDiversity,
        AlphaKAnonymity,
        TCloseness,
        PSensitiveKAnonymity,
    )
}


def _parse_value(text: str) -> Any:
    if re.fullmatch(r"[+-]?\d+", text):
        return int(text)
    try:
        return float(text)
    except ValueError:
        return text


def parse_privacy(spec: str) -> PrivacyModel:
    """The model of a spec ``"<name>:<param>=<value>,..."``, e.g. ``"t-closeness:t=0.2"``.

    Names are the keys of :data:`MODELS`; parameters those of the model's class. Values are read
    as integers, else numbers, else words (``ground=ordered``). Round trip: ``m.spec``.

    Examples
    --------
    >>> str(parse_privacy("recursive-l-diversity:c=2,l=3"))
    'recursive (2, 3)-diversity'
    >>> parse_privacy("alpha-k-anonymity:alpha=0.5,k=5,value=1").spec
    'alpha-k-anonymity:alpha=0.5,k=5,value=1'
    """
    check_instance(spec, str, "spec")
    head, _, body = spec.partition(":")
    cls = MODELS[check_choice("model", head.strip(), MODELS)]
    names = [f.name for f in fields(cls)]
    kwargs: dict[str, Any] = {}
    for item in filter(None, (s.strip() for s in body.split(","))):
        key, eq, text = (s.strip() for s in item.partition("="))
        if not eq or not text:
            raise ValueError(f"`spec` parameter {item!r} must read name=value, in {spec!r}")
        check_choice(f"parameter of {cls.key}", key, names)
        if key in kwargs:
            raise ValueError(f"`spec` gives parameter {key!r} twice, in {spec!r}")
        kwargs[key] = _parse_value(text)
    missing = [f.name for f in fields(cls) if f.default is MISSING and f.name not in kwargs]
    if missing:
        raise ValueError(f"`spec` {spec!r} lacks parameter(s) {missing} of {cls.key}")
    return cls(**kwargs)


def check_published(
    frame: pd.DataFrame,
    qi: Sequence[str],
    sensitive: str | None,
    models: PrivacyModel | str | Sequence[PrivacyModel | str],
    *,
    suppressed: Any = None,
) -> list[PrivacyCheck]:
    """Check a published DataFrame against models (objects or :func:`parse_privacy` specs).

    Classes come from :func:`classes_of`: every row is in a class, unless ``suppressed`` (e.g.
    ``"*"``) marks the rows whose every QI cell holds it as withheld tuples. Sensitive codes come
    from ``pd.factorize(sort=True)`` on the column over all rows, in numeric order when every
    value parses as a number (so the ordered EMD follows the values), else in string order.

    Examples
    --------
    >>> df = pd.DataFrame({"zip": ["1*", "1*", "2*", "2*"], "disease": ["a", "b", "a", "a"]})
    >>> [c.satisfied for c in check_published(df, ["zip"], "disease", ["k-anonymity:k=2",
    ...                                                                "l-diversity:l=2"])]
    [True, False]
    """
    classes = classes_of(frame, qi, suppressed=suppressed)
    codes, n_values = None, None
    if sensitive is not None:
        if sensitive not in frame.columns:
            raise ValueError(f"`sensitive` must name a column of `frame`, got {sensitive!r}")
        codes, n_values = _sensitive_codes(frame[sensitive])
    out = []
    for m in [models] if isinstance(models, PrivacyModel | str) else list(models):
        model = (
            parse_privacy(m) if isinstance(m, str) else check_instance(m, PrivacyModel, "models")
        )
        out.append(model.check(classes, codes, n_values=n_values))
    return out
