"""Tables of quasi-identifiers and their generalization hierarchies (docs/architecture.md).

A :class:`Table` holds ``n`` records by ``m`` quasi-identifier (QI) attributes as integer codes,
with the attribute names, the value labels, an optional :class:`Hierarchy` per attribute, attribute
weights and an optional sensitive attribute. Tables are frozen: their arrays are read-only, and
their :attr:`Table.content_hash` identifies them.
"""

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Self

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, DTypeLike

from anonratio.instances.errors import InstanceFormatError
from anonratio.instances.frame_columns import (
    check_names_are_text,
    check_present,
    name_hint,
    stripped_labels,
)
from anonratio.instances.hierarchy_rows import hierarchy_levels
from anonratio.instances.validation import check_instance

__all__ = ["Hierarchy", "Table"]

SUPPRESSED = "*"


def _readonly(a: ArrayLike, dtype: DTypeLike) -> np.ndarray:
    a = np.array(a, dtype=dtype, copy=True)
    a.setflags(write=False)
    return a


def _check_integer_codes(codes: ArrayLike) -> None:
    """Value codes are integers: refuse fractions, booleans and text instead of truncating them."""
    raw = np.asarray(codes)
    if raw.size == 0 or raw.dtype.kind in "iu":
        return
    flat = raw.reshape(-1)
    if raw.dtype.kind == "f":
        bad = np.flatnonzero(~np.isfinite(flat) | (flat != np.round(flat)))
        if not bad.size:
            return
        cell = np.unravel_index(int(bad[0]), raw.shape)
        raise InstanceFormatError(
            f"`codes` must be integers, got {float(flat[bad[0]])!r} at cell {tuple(map(int, cell))}"
        )
    raise InstanceFormatError(f"`codes` must be integers, got dtype {raw.dtype}")


@dataclass(frozen=True, eq=False)
class Hierarchy:
    """A value generalization hierarchy of one attribute.

    Parameters
    ----------
    groups : ndarray of int, shape (n_values, height + 1)
        ``groups[v, t]`` is the id of the group value ``v`` belongs to at level ``t``. Column 0 is
        the value itself (``arange(n_values)``), the last column is all zeros (one group, printed
        ``*``), and every level refines the next one.
    labels : tuple of tuple of str
        ``labels[t][g]`` is the printed label of group ``g`` at level ``t``; ``labels[0]`` are the
        value labels.
    """

    groups: np.ndarray
    labels: tuple[tuple[str, ...], ...]

    if TYPE_CHECKING:  # what the constructor accepts; __post_init__ normalizes it

        def __init__(self, groups: ArrayLike, labels: Sequence[Sequence[str]]) -> None: ...

    def __post_init__(self) -> None:
        groups = _readonly(self.groups, np.int32)
        object.__setattr__(self, "groups", groups)
        object.__setattr__(self, "labels", tuple(tuple(str(s) for s in lv) for lv in self.labels))
        if groups.ndim != 2 or groups.shape[1] < 2 or groups.shape[0] < 1:
            raise InstanceFormatError("a hierarchy needs at least one value and two levels")
        if not np.array_equal(groups[:, 0], np.arange(groups.shape[0])):
            raise InstanceFormatError("hierarchy level 0 must be the values themselves")
        if np.any(groups[:, -1] != 0):
            raise InstanceFormatError("the top hierarchy level must be a single group")
        if len(self.labels) != groups.shape[1]:
            raise InstanceFormatError("a hierarchy needs one label list per level")
        for t in range(groups.shape[1] - 1):
            # Refinement: each group at level t lies inside exactly one group at level t + 1.
            pairs = np.unique(groups[:, t : t + 2], axis=0)
            if len(np.unique(pairs[:, 0])) != len(pairs):
                raise InstanceFormatError(
                    f"hierarchy level {t} does not refine level {t + 1}: a group is split"
                )

    @property
    def n_values(self) -> int:
        """Number of values (rows of :attr:`groups`)."""
        return int(self.groups.shape[0])

    @property
    def height(self) -> int:
        """Number of generalization steps ``l_j`` (1 for suppression)."""
        return int(self.groups.shape[1] - 1)

    @classmethod
    def suppression(cls, values: Sequence[str]) -> Self:
        """The one-level hierarchy: each value, or ``*``."""
        n = len(values)
        groups = np.column_stack([np.arange(n), np.zeros(n, dtype=int)])
        return cls(groups, (tuple(values), (SUPPRESSED,)))

    @classmethod
    def from_rows(
        cls,
        rows: Sequence[Sequence[Any]],
        *,
        attribute: str = "?",
        source: str | None = None,
        lines: Sequence[int] | None = None,
    ) -> Self:
        """Build a hierarchy from ARX-style rows: ``[value, level1, ..., *]`` per value.

        A top level with more than one group gets a ``*`` level appended. A value listed twice
        with identical rows is kept once with a
        :class:`~anonratio.instances.hierarchy_rows.HierarchyWarning`. Raises
        :class:`InstanceFormatError` naming ``attribute`` (and ``source`` with the ``lines`` of
        the rows, when given) for no rows, ragged rows, a value listed twice with different rows,
        or a level that does not refine the next (naming the first value whose group splits).
        See :func:`~anonratio.instances.hierarchy_rows.hierarchy_levels`; O(values · levels).
        """

        groups, labels = hierarchy_levels(rows, attribute=attribute, source=source, lines=lines)
        try:
            return cls(groups, tuple(labels))
        except InstanceFormatError as exc:
            where = "" if source is None else f"{source}: "
            raise InstanceFormatError(
                f"{where}hierarchy of attribute {attribute!r}: {exc}"
            ) from None

    def common_levels(self) -> np.ndarray:
        """``H[u, v]``: the lowest level at which values ``u`` and ``v`` share a group.

        Since levels refine each other this is the number of levels at which they differ.
        """
        g = self.groups[:, :-1]
        return (g[:, None, :] != g[None, :, :]).sum(axis=2).astype(np.int32)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: ``{"groups": [[...]], "labels": [[...]]}``."""
        return {"groups": self.groups.tolist(), "labels": [list(lv) for lv in self.labels]}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Self:
        """The hierarchy of :meth:`to_dict`'s output."""
        return cls(np.asarray(d["groups"]), tuple(tuple(x) for x in d["labels"]))


@dataclass(frozen=True, eq=False)
class Table:
    """``n`` records × ``m`` quasi-identifier attributes, as integer codes.

    Parameters
    ----------
    codes : ndarray of int, shape (n, m)
        ``codes[i, j]`` is the value code of record ``i`` on attribute ``j``.
    attributes : tuple of str
        Attribute names.
    values : tuple of tuple of str
        ``values[j][c]`` is the label of code ``c`` of attribute ``j``.
    hierarchies : tuple of (Hierarchy or None), optional
        A generalization hierarchy per attribute; ``None`` means suppression only.
    weights : ndarray of float, shape (m,), optional
        Attribute weights ``w_j`` (default 1).
    sensitive : ndarray of int, shape (n,), optional
        Codes of the sensitive attribute.
    sensitive_name : str, optional
    sensitive_values : tuple of str, optional
    """

    codes: np.ndarray
    attributes: tuple[str, ...]
    values: tuple[tuple[str, ...], ...]
    # ``None`` (the default) becomes no hierarchy per attribute and unit weights
    hierarchies: tuple[Hierarchy | None, ...] = None  # type: ignore[assignment]
    weights: np.ndarray = None  # type: ignore[assignment]
    sensitive: np.ndarray | None = None
    sensitive_name: str | None = None
    sensitive_values: tuple[str, ...] | None = None

    if TYPE_CHECKING:  # what the constructor accepts; __post_init__ normalizes it

        def __init__(
            self,
            codes: ArrayLike,
            attributes: Sequence[str],
            values: Sequence[Sequence[str]],
            hierarchies: Sequence[Hierarchy | None] | None = None,
            weights: ArrayLike | None = None,
            sensitive: ArrayLike | None = None,
            sensitive_name: str | None = None,
            sensitive_values: Sequence[str] | None = None,
        ) -> None: ...

    def __post_init__(self) -> None:
        _check_integer_codes(self.codes)
        codes = _readonly(self.codes, np.int32)
        if codes.ndim != 2:
            raise InstanceFormatError(f"`codes` must be a 2-d array, got shape {codes.shape}")
        n, m = codes.shape
        set_: Any = lambda k, v: object.__setattr__(self, k, v)  # noqa: E731
        set_("codes", codes)
        set_("attributes", tuple(str(a) for a in self.attributes))
        if len(self.attributes) != m or len(set(self.attributes)) != m:
            raise InstanceFormatError(f"`attributes` must be {m} distinct names")
        set_("values", tuple(tuple(str(v) for v in vals) for vals in self.values))
        if len(self.values) != m:
            raise InstanceFormatError(f"`values` must hold one label list per attribute ({m})")
        for j in range(m):
            if n and (codes[:, j].min() < 0 or codes[:, j].max() >= len(self.values[j])):
                raise InstanceFormatError(
                    f"codes of attribute {self.attributes[j]!r} fall outside its "
                    f"{len(self.values[j])} values"
                )
        hier = self.hierarchies if self.hierarchies is not None else (None,) * m
        if len(hier) != m:
            raise InstanceFormatError(f"`hierarchies` must hold one entry per attribute ({m})")
        for j, h in enumerate(hier):
            if h is not None and h.n_values != len(self.values[j]):
                raise InstanceFormatError(
                    f"hierarchy of attribute {self.attributes[j]!r} covers {h.n_values} values, "
                    f"the attribute has {len(self.values[j])}"
                )
        set_("hierarchies", tuple(hier))
        w = np.ones(m) if self.weights is None else np.asarray(self.weights, dtype=float)
        if w.shape != (m,) or not np.all(np.isfinite(w)) or np.any(w <= 0):
            raise ValueError(f"`weights` must be {m} positive finite numbers, got {w.tolist()}")
        set_("weights", _readonly(w, np.float64))
        if self.sensitive is not None:
            s = _readonly(self.sensitive, np.int32)
            if s.shape != (n,):
                raise InstanceFormatError(f"`sensitive` must have one code per record ({n})")
            set_("sensitive", s)
            sv = self.sensitive_values
            if sv is None:
                sv = tuple(str(i) for i in range(int(s.max()) + 1 if n else 0))
            set_("sensitive_values", tuple(str(x) for x in sv))
            if n and (s.min() < 0 or s.max() >= len(sv)):
                raise InstanceFormatError("sensitive codes fall outside `sensitive_values`")
            set_("sensitive_name", str(self.sensitive_name or "sensitive"))

    # -- shape ------------------------------------------------------------------------------
    @property
    def n_records(self) -> int:
        """Number of records ``n``."""
        return int(self.codes.shape[0])

    @property
    def n_attributes(self) -> int:
        """Number of quasi-identifier attributes ``m``."""
        return int(self.codes.shape[1])

    def hierarchy(self, j: int) -> Hierarchy:
        """The hierarchy of attribute ``j``, the suppression hierarchy when none was given."""
        h = self.hierarchies[j]
        return h if h is not None else Hierarchy.suppression(self.values[j])

    def sample(self, n: int, rng: np.random.Generator) -> "Table":
        """``n`` records drawn without replacement, in their original order (``n = 0``: all).

        Raises ``ValueError`` naming ``n`` unless ``0 <= n <= n_records``.
        """
        if not 0 <= n <= self.n_records:
            raise ValueError(f"parameter `n` must be in [0, {self.n_records}] (0 = all), got {n}")
        if n == 0:
            return self
        rows = np.sort(rng.choice(self.n_records, size=n, replace=False))
        return Table(
            self.codes[rows],
            self.attributes,
            self.values,
            self.hierarchies,
            self.weights,
            None if self.sensitive is None else self.sensitive[rows],
            self.sensitive_name,
            self.sensitive_values,
        )

    def unique_records(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Collapse identical QI rows.

        Returns
        -------
        unique : ndarray (u, m)
        inverse : ndarray (n,) — ``codes == unique[inverse]``
        counts : ndarray (u,)
        """
        key = _row_keys(self.codes)
        if key is not None:  # one integer per row, in the rows' lexicographic order
            _, first, inverse, counts = np.unique(
                key, return_index=True, return_inverse=True, return_counts=True
            )
            return self.codes[first], inverse.reshape(-1), counts
        uniq, inverse, counts = np.unique(
            self.codes, axis=0, return_inverse=True, return_counts=True
        )
        return uniq, inverse.reshape(-1), counts

    # -- construction -------------------------------------------------------------------------
    @classmethod
    def from_dataframe(
        cls,
        df: pd.DataFrame,
        *,
        qi: Sequence[str] | None = None,
        sensitive: str | None = None,
        hierarchies: Mapping[str, Hierarchy | Sequence[Sequence[Any]]] | None = None,
        weights: ArrayLike | None = None,
    ) -> Self:
        """Build a table from a DataFrame.

        Parameters
        ----------
        df : pandas.DataFrame
        qi : list of str, optional
            The quasi-identifier columns (default: every column but ``sensitive``).
        sensitive : str, optional
            The sensitive column.
        hierarchies : dict of str -> (Hierarchy or list of rows), optional
            Per-column hierarchies; a value of the column missing from its hierarchy raises
            :class:`InstanceFormatError` naming the attribute and the value.
        weights : sequence of float, optional

        Values are the cells as text, stripped (see :mod:`~anonratio.instances.frame_columns`:
        a date column keeps its own format). A missing cell (``NaN``, ``None``, ``pd.NA``,
        ``NaT``) in a QI or the sensitive column, and a QI or sensitive column whose name is not
        a string, raise :class:`InstanceFormatError` naming the column (and the row).
        """
        check_instance(df, pd.DataFrame, "df")
        if df.shape[0] == 0:
            raise InstanceFormatError("the table has no records")
        cols = list(df.columns)
        if sensitive is not None and sensitive not in cols:
            raise ValueError(
                f"`sensitive` column {sensitive!r} is not in the table {cols}"
                + name_hint([sensitive], cols, "`sensitive`", "the table")
            )
        dup_cols = sorted({str(c) for c in cols if cols.count(c) > 1})
        if dup_cols:
            raise InstanceFormatError(f"the table names column {dup_cols[0]!r} more than once")
        qi = [c for c in cols if c != sensitive] if qi is None else list(qi)
        unknown = [c for c in qi if c not in cols]
        if unknown:
            raise ValueError(
                f"`qi` names unknown columns {unknown}; the table has {cols}"
                + name_hint(unknown, cols, "`qi`", "the table")
            )
        if not qi:
            raise ValueError("`qi` must name at least one column")
        twice = [c for i, c in enumerate(qi) if c in qi[:i]]
        if twice:
            raise ValueError(f"`qi` names column {twice[0]!r} twice")
        if sensitive is not None and sensitive in qi:
            raise ValueError(
                f"`sensitive` column {sensitive!r} is also in `qi`: a column is either a "
                f"quasi-identifier or the sensitive attribute"
            )
        check_names_are_text(qi, "`qi`")
        check_names_are_text([] if sensitive is None else [sensitive], "`sensitive`")
        for c in qi:
            check_present(df, c, "quasi-identifier")
        if sensitive is not None:
            check_present(df, sensitive, "sensitive")
        given = dict(hierarchies or {})
        extra = set(given) - set(qi)
        if extra:
            raise ValueError(f"`hierarchies` names columns that are not QI: {sorted(extra)}")
        codes: list[np.ndarray] = []
        values: list[tuple[str, ...]] = []
        hier: list[Hierarchy | None] = []
        for c in qi:
            rows, labels = stripped_labels(df[c])
            h = given.get(c)
            if h is None:
                cat = pd.Categorical(labels)
                codes.append(cat.codes[rows])
                values.append(tuple(cat.categories))
                hier.append(None)
                continue
            if not isinstance(h, Hierarchy):
                h = Hierarchy.from_rows(h, attribute=c)
            code = pd.Index(h.labels[0]).get_indexer(labels)[rows]
            if np.any(code < 0):
                missing = labels[rows[np.argmax(code < 0)]]
                raise InstanceFormatError(
                    f"hierarchy of attribute {c!r} has no row for value {missing!r}"
                )
            codes.append(code)
            values.append(h.labels[0])
            hier.append(h)
        s_codes = s_values = None
        if sensitive is not None:
            rows, labels = stripped_labels(df[sensitive])
            cat = pd.Categorical(labels)
            s_codes, s_values = cat.codes[rows], tuple(cat.categories)
        return cls(
            np.column_stack(codes),
            tuple(qi),
            tuple(values),
            tuple(hier),
            np.ones(len(qi)) if weights is None else np.asarray(weights, dtype=float),
            s_codes,
            sensitive,
            s_values,
        )

    def to_dataframe(self, *, labels: bool = True) -> pd.DataFrame:
        """The table as a DataFrame of value labels (or codes with ``labels=False``)."""
        data = {}
        for j, a in enumerate(self.attributes):
            col = self.codes[:, j]
            data[a] = np.asarray(self.values[j], dtype=object)[col] if labels else col
        if self.sensitive is not None:
            s = self.sensitive
            data[str(self.sensitive_name)] = (
                np.asarray(self.sensitive_values, dtype=object)[s] if labels else s
            )
        return pd.DataFrame(data)

    # -- serialization ------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The JSON form (the sensitive fields only when there is a sensitive attribute)."""
        d: dict[str, Any] = {
            "codes": self.codes.tolist(),
            "attributes": list(self.attributes),
            "values": [list(v) for v in self.values],
            "hierarchies": [None if h is None else h.to_dict() for h in self.hierarchies],
            "weights": self.weights.tolist(),
        }
        if self.sensitive is not None:
            d["sensitive"] = self.sensitive.tolist()
            d["sensitive_name"] = self.sensitive_name
            d["sensitive_values"] = list(self.sensitive_values or ())
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Self:
        """The table of :meth:`to_dict`'s output; :class:`InstanceFormatError` when malformed."""
        try:
            hier = tuple(None if h is None else Hierarchy.from_dict(h) for h in d["hierarchies"])
            m = len(d["attributes"])
            codes = np.asarray(d["codes"], dtype=np.int32).reshape(-1, m)
            weights = d.get("weights")
            return cls(
                codes,
                tuple(d["attributes"]),
                tuple(tuple(v) for v in d["values"]),
                hier,
                np.ones(m) if weights is None else np.asarray(weights, dtype=float),
                d.get("sensitive"),
                d.get("sensitive_name"),
                None if d.get("sensitive_values") is None else tuple(d["sensitive_values"]),
            )
        except (KeyError, TypeError) as exc:
            raise InstanceFormatError(
                f"malformed table object: missing or bad field {exc}"
            ) from None

    @property
    def content_hash(self) -> str:
        """A SHA-256 (first 16 hex digits) of the table's canonical JSON form."""
        blob = json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":")).encode()
        return hashlib.sha256(blob).hexdigest()[:16]


def _row_keys(codes: np.ndarray) -> np.ndarray | None:
    """Each row of non-negative ``codes`` as one ``int64`` (mixed radix, the first column most
    significant), so that sorting the keys sorts the rows lexicographically as
    ``np.unique(codes, axis=0)`` does, an order of magnitude faster; ``None`` when the keys would
    not fit in 63 bits (or the array is empty or has a negative code)."""
    if codes.ndim != 2 or codes.size == 0 or codes.min() < 0:
        return None
    radix = [int(c) + 1 for c in codes.max(axis=0)]
    if math.prod(radix) >= 2**63:
        return None
    key = np.zeros(codes.shape[0], dtype=np.int64)
    for j, r in enumerate(radix):
        key = key * r + codes[:, j]
    return key
