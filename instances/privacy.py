"""Privacy models checked on any published table: k-anonymity and its attribute-disclosure kin.

A release is described by an *equivalence class* per record (``classes``: records with equal
published quasi-identifiers share an id; ``-1`` marks a withheld, i.e. suppressed, tuple that
every model ignores) and, for the models that protect a sensitive attribute, its codes
(``sensitive``, ``0 .. S-1``). Each model reduces a class to its size and the histogram of its
sensitive values, so :meth:`PrivacyModel.passes` tests ``C`` classes at once with no Python loop
over classes, for the lattice searches that call it thousands of times.

Models (survey: Ciriani, De Capitani di Vimercati, Foresti and Samarati, *Theory of Privacy and
Anonymity*, Algorithms and Theory of Computation Handbook, 2009, §5):

* :class:`KAnonymity` (Samarati 2001; Sweeney 2002): every class has ``>= k`` records;
* :class:`DistinctLDiversity`, :class:`EntropyLDiversity`, :class:`RecursiveCLDiversity`
  (Machanavajjhala, Kifer, Gehrke and Venkitasubramaniam, TKDD 2007, Defs. 4.1-4.3);
* :class:`AlphaKAnonymity` (Wong, Li, Fu and Wang, KDD 2006);
* :class:`TCloseness` (Li, Li and Venkatasubramanian, ICDE 2007; EMD with the equal and the
  ordered ground distance, their §4.1);
* :class:`PSensitiveKAnonymity` (Truta and Vinay, ICDE Workshops 2006).

``monotone`` is the generalization property: merging two passing classes gives a passing class
(Machanavajjhala et al. 2007, §4; Wong et al. 2006; Li et al. 2007, §4.2; for entropy, recursive
and t-closeness it follows from concavity of the entropy, resp. convexity of the EMD, in the class
distribution). ``monotone_with_suppression`` is the stronger property that a passing class still
passes after being merged with *any* class, which a lattice search with a suppression budget
needs: the records in failing classes can then only fall as classes merge.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields
from typing import Any, ClassVar

import numpy as np

from anonratio.instances.equivalence import _codes, class_statistics
from anonratio.instances.validation import (
    check_choice,
    check_int,
    check_number,
)

__all__ = [
    "class_statistics",
    "PrivacyModel",
    "PrivacyCheck",
    "KAnonymity",
    "DistinctLDiversity",
    "EntropyLDiversity",
    "RecursiveCLDiversity",
    "AlphaKAnonymity",
    "TCloseness",
    "PSensitiveKAnonymity",
]

#: relative tolerance of the entropy test ``H >= log(l)``, absolute one of ``EMD <= t``
ENTROPY_RTOL = 1e-12
EMD_ATOL = 1e-12


@dataclass(frozen=True)
class PrivacyCheck:
    """The outcome of :meth:`PrivacyModel.check` on one release.

    ``model`` is the model as printed (``"5-anonymity"``); ``satisfied`` that every class passes
    (true without classes); ``failing_classes`` the failing class ids, increasing, holding
    ``records_failing`` records; ``worst`` the model's measure (:attr:`PrivacyModel.measure_name`)
    on its worst class, NaN without classes; ``message`` one line saying all this.
    """

    model: str
    satisfied: bool
    n_classes: int
    failing_classes: np.ndarray
    records_failing: int
    worst: float
    message: str


def _fmt(x: Any) -> str:
    """A parameter as written in specs and names: ``2`` for 2.0, ``0.5``, ``ordered``."""
    if isinstance(x, float) and x.is_integer():
        return str(int(x))
    return repr(x) if isinstance(x, float) else str(x)


@dataclass(frozen=True)
class PrivacyModel:
    """A privacy requirement on every equivalence class of a release (abstract base).

    Subclasses set the class variables and implement :meth:`measure` (a per-class number, the
    one reported as ``worst``) and :meth:`passes`.
    """

    name: ClassVar[str]
    key: ClassVar[str]  # the name in specs: "k-anonymity:k=5"
    needs_sensitive: ClassVar[bool] = True
    monotone: ClassVar[bool] = True
    monotone_with_suppression: ClassVar[bool] = False
    measure_name: ClassVar[str]
    worst_is_max: ClassVar[bool] = False

    def measure(self, sizes: np.ndarray, hist: np.ndarray, prior: np.ndarray | None) -> np.ndarray:
        """The model's measure of each class, shape (C,)."""
        raise NotImplementedError

    def passes(self, sizes: np.ndarray, hist: np.ndarray, prior: np.ndarray | None) -> np.ndarray:
        """Whether each class passes, bool array of shape (C,).

        The fast path of the lattice searches: no validation; ``sizes`` int[C] >= 1,
        ``hist`` int[C, S] with rows summing to ``sizes`` (``S = 0`` allowed when the model
        does not need the sensitive attribute), ``prior`` float[S] (t-closeness only).
        """
        raise NotImplementedError

    def _min_values(self) -> int:
        """The least number of sensitive values :meth:`check` must allow (alpha's ``value``)."""
        return 0

    @property
    def spec(self) -> str:
        """The string :func:`parse_privacy` turns back into this model."""
        parts = [
            f"{f.name}={_fmt(getattr(self, f.name))}"
            for f in fields(self)
            if f.default is MISSING or getattr(self, f.name) != f.default
        ]
        return f"{self.key}:{','.join(parts)}"

    def check(
        self, classes: Any, sensitive: Any = None, *, n_values: int | None = None
    ) -> PrivacyCheck:
        """Check a release given as class ids (and sensitive codes) per record.

        Parameters
        ----------
        classes : array of int, shape (n,)
            Class id per record, ``-1`` for a withheld record (ignored by the model).
        sensitive : array of int, shape (n,), optional
            Sensitive codes ``0 .. S-1``; required unless :attr:`needs_sensitive` is false.
        n_values : int, optional
            ``S`` (default ``max(sensitive) + 1``); it matters for the ordered EMD, whose
            normalization is ``1 / (S - 1)``.

        Returns
        -------
        PrivacyCheck
            O(n log n + C · S) time (:func:`class_statistics`, then one :meth:`passes` call).
        """
        if self.needs_sensitive and sensitive is None:
            raise ValueError(f"`sensitive` is required by {self.name}, got None")
        if sensitive is not None and n_values is None and self._min_values():
            top = int(np.max(_codes("sensitive", sensitive, 0), initial=-1)) + 1
            n_values = max(top, self._min_values())
        ids, sizes, hist, prior = class_statistics(classes, sensitive, n_values=n_values)
        ok = self.passes(sizes, hist, prior)
        failing = ids[~ok]
        records = int(sizes[~ok].sum())
        if ids.size:
            m = self.measure(sizes, hist, prior)
            worst = float(m.max() if self.worst_is_max else m.min())
        else:
            worst = float("nan")
        head = f"{self}: "
        if failing.size:
            head += f"{failing.size} of {ids.size} classes fail ({records} records)"
        else:
            head += f"all {ids.size} classes pass"
        message = f"{head}; {self.measure_name} {worst:.6g}"
        return PrivacyCheck(
            str(self), not failing.size, int(ids.size), failing, records, worst, message
        )


def _distinct(hist: np.ndarray) -> np.ndarray:
    return np.count_nonzero(hist, axis=1)


@dataclass(frozen=True)
class KAnonymity(PrivacyModel):
    """k-anonymity: every class has at least ``k`` records (Samarati 2001; Sweeney 2002).

    Monotone, also with suppression (merging only adds records). Measure: the class size.
    """

    k: int
    name: ClassVar[str] = "k-anonymity"
    key: ClassVar[str] = "k-anonymity"
    needs_sensitive: ClassVar[bool] = False
    monotone_with_suppression: ClassVar[bool] = True
    measure_name: ClassVar[str] = "smallest class size"

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", check_int("k", self.k, low=1))

    def measure(self, sizes, hist, prior):
        return sizes.astype(float)

    def passes(self, sizes, hist, prior):
        return sizes >= self.k

    def __str__(self) -> str:
        return f"{self.k}-anonymity"


@dataclass(frozen=True)
class DistinctLDiversity(PrivacyModel):
    """Distinct l-diversity: at least ``l`` distinct sensitive values per class.

    Ciriani et al. 2009, Def. 5.1 (after Machanavajjhala et al. 2007). Monotone, also with
    suppression (merging only adds values). Measure: the number of distinct values.
    """

    l: int
    name: ClassVar[str] = "distinct-l-diversity"
    key: ClassVar[str] = "l-diversity"
    monotone_with_suppression: ClassVar[bool] = True
    measure_name: ClassVar[str] = "fewest distinct sensitive values"

    def __post_init__(self) -> None:
        object.__setattr__(self, "l", check_int("l", self.l, low=1))

    def measure(self, sizes, hist, prior):
        return _distinct(hist).astype(float)

    def passes(self, sizes, hist, prior):
        return _distinct(hist) >= self.l

    def __str__(self) -> str:
        return f"distinct {self.l}-diversity"


@dataclass(frozen=True)
class EntropyLDiversity(PrivacyModel):
    """Entropy l-diversity: ``H = -sum_s p_s log p_s >= log(l)`` (natural log) in every class.

    Machanavajjhala et al. 2007, Def. 4.2, with ``p_s`` the class's relative frequency of ``s``.
    The test is ``H >= log(l) (1 - 1e-12)`` so that exact cases (``l`` equally frequent values,
    whose computed ``H`` may fall an ulp short of ``log l``) pass. Measure: ``exp(H)``, the
    largest ``l`` the class satisfies. Monotone (``H`` is concave), not with suppression: for
    ``l = 2``, class ``{a, b}`` passes (``H = log 2``) but merged with ``{a, a, a}`` it has
    ``p = (4/5, 1/5)``, ``H = 0.500 < log 2 = 0.693``.
    """

    l: float
    name: ClassVar[str] = "entropy-l-diversity"
    key: ClassVar[str] = "entropy-l-diversity"
    measure_name: ClassVar[str] = "smallest exp(entropy)"

    def __post_init__(self) -> None:
        object.__setattr__(self, "l", check_number("l", self.l, low=1))

    def _entropy(self, sizes: np.ndarray, hist: np.ndarray) -> np.ndarray:
        from scipy.special import entr  # scipy loads only for this model

        return entr(hist / sizes[:, None]).sum(axis=1)

    def measure(self, sizes, hist, prior):
        return np.exp(self._entropy(sizes, hist))

    def passes(self, sizes, hist, prior):
        return self._entropy(sizes, hist) >= np.log(self.l) * (1 - ENTROPY_RTOL)

    def __str__(self) -> str:
        return f"entropy {_fmt(self.l)}-diversity"


@dataclass(frozen=True)
class RecursiveCLDiversity(PrivacyModel):
    """Recursive (c, l)-diversity (Machanavajjhala et al. 2007, Def. 4.3).

    With a class's counts sorted decreasingly ``r_1 >= r_2 >= ... >= r_m``, the class passes
    iff it has at least ``l`` distinct values and ``r_1 < c (r_l + r_{l+1} + ... + r_m)``.
    O(C · S log S) (a sort along each row). Measure: ``r_1 / (r_l + ... + r_m)`` (inf with fewer
    than ``l`` values), the class passes iff it is below ``c``. Monotone (Machanavajjhala et al.
    2007, §4.3), not with suppression: for ``(c, l) = (2, 2)``, ``{a, b}`` passes (``1 < 2·1``)
    but merged with ``{a, a}`` has ``r = (3, 1)`` and ``3 >= 2·1``.
    """

    c: float
    l: int
    name: ClassVar[str] = "recursive-(c,l)-diversity"
    key: ClassVar[str] = "recursive-l-diversity"
    measure_name: ClassVar[str] = "largest r_1 / (r_l + ... + r_m)"
    worst_is_max: ClassVar[bool] = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "c", check_number("c", self.c, low=0, closed="neither"))
        object.__setattr__(self, "l", check_int("l", self.l, low=1))

    def _top_tail(self, hist: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        r = -np.sort(-hist, axis=1)
        top = r[:, 0] if r.shape[1] else np.zeros(r.shape[0], dtype=np.int64)
        return top, r[:, self.l - 1 :].sum(axis=1)

    def measure(self, sizes, hist, prior):
        top, tail = self._top_tail(hist)
        ok = (_distinct(hist) >= self.l) & (tail > 0)
        return np.divide(top, tail, out=np.full(top.shape, np.inf), where=ok)

    def passes(self, sizes, hist, prior):
        top, tail = self._top_tail(hist)
        return (_distinct(hist) >= self.l) & (top < self.c * tail)

    def __str__(self) -> str:
        return f"recursive ({_fmt(self.c)}, {self.l})-diversity"


@dataclass(frozen=True)
class AlphaKAnonymity(PrivacyModel):
    """(alpha, k)-anonymity: k-anonymity and a relative frequency ``<= alpha`` in every class.

    Wong et al. 2006 (Ciriani et al. 2009, Def. 5.2): the frequency of the sensitive code
    ``value``; ``value=None`` bounds the frequency of *every* value (the most frequent one), the
    generalization pycanon implements. Frequencies are compared as ``count / size <= alpha``
    (one correctly rounded division, so ``3/10 <= 0.3`` holds). Measure: the frequency.
    Monotone (the merged frequency is a weighted mean), not with suppression: for
    ``(0.5, 2)``, ``{a, b}`` passes but merged with ``{a, a, a}`` has frequency ``4/5``.
    """

    alpha: float
    k: int
    value: int | None = None
    name: ClassVar[str] = "(alpha,k)-anonymity"
    key: ClassVar[str] = "alpha-k-anonymity"
    measure_name: ClassVar[str] = "largest relative frequency"
    worst_is_max: ClassVar[bool] = True

    def __post_init__(self) -> None:
        alpha = check_number("alpha", self.alpha, low=0, high=1, closed="right")
        object.__setattr__(self, "alpha", alpha)
        object.__setattr__(self, "k", check_int("k", self.k, low=1))
        object.__setattr__(self, "value", check_int("value", self.value, low=0, allow_none=True))

    def _min_values(self) -> int:
        return 0 if self.value is None else self.value + 1

    def measure(self, sizes, hist, prior):
        if self.value is None:
            return hist.max(axis=1, initial=0) / sizes
        if self.value >= hist.shape[1]:
            raise ValueError(
                f"`value` must be a sensitive code < {hist.shape[1]}, got {self.value}"
            )
        return hist[:, self.value] / sizes

    def passes(self, sizes, hist, prior):
        return (sizes >= self.k) & (self.measure(sizes, hist, prior) <= self.alpha)

    def __str__(self) -> str:
        of = "" if self.value is None else f" of value {self.value}"
        return f"({_fmt(self.alpha)}, {self.k})-anonymity{of}"


@dataclass(frozen=True)
class TCloseness(PrivacyModel):
    """t-closeness: the EMD between a class's sensitive distribution and ``prior`` is ``<= t``.

    Li, Li and Venkatasubramanian 2007, Def. 2 and §4.1, with ``p`` the class distribution,
    ``q = prior`` (over all ``n`` records of the table) and ``S`` sensitive values:

    * ``ground="equal"`` (categorical): ``EMD = 1/2 sum_i |p_i - q_i|``;
    * ``ground="ordered"`` (numerical): ``EMD = 1/(S-1) sum_i |sum_{j<=i} (p_j - q_j)|``
      (0 when ``S = 1``), over the codes in increasing order: callers give an ordered attribute
      codes in value order (:func:`check_published` does).

    The test is ``EMD <= t + 1e-12`` (floating sums). O(C · S) (a cumsum along each row).
    Measure: the EMD. Monotone (the EMD is convex in ``p``), not with suppression: with prior
    ``(1/2, 1/2)`` and ``t = 0.2``, ``{a, b}`` passes (EMD 0) but merged with ``{a, a, a, a}``
    has ``p = (5/6, 1/6)``, EMD ``1/3`` for both grounds.
    """

    t: float
    ground: str = "equal"
    name: ClassVar[str] = "t-closeness"
    key: ClassVar[str] = "t-closeness"
    measure_name: ClassVar[str] = "largest EMD"
    worst_is_max: ClassVar[bool] = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "t", check_number("t", self.t, low=0, high=1))
        object.__setattr__(
            self, "ground", check_choice("ground", self.ground, ("equal", "ordered"))
        )

    def measure(self, sizes, hist, prior):
        if prior is None or np.shape(prior) != (hist.shape[1],):
            raise ValueError(f"`prior` must be {hist.shape[1]} probabilities, got {prior!r}")
        diff = hist / sizes[:, None] - np.asarray(prior, dtype=float)[None, :]
        s = hist.shape[1]
        if self.ground == "equal":
            return 0.5 * np.abs(diff).sum(axis=1)
        if s <= 1:
            return np.zeros(hist.shape[0])
        return np.abs(np.cumsum(diff, axis=1)).sum(axis=1) / (s - 1)

    def passes(self, sizes, hist, prior):
        return self.measure(sizes, hist, prior) <= self.t + EMD_ATOL

    def __str__(self) -> str:
        return f"{_fmt(self.t)}-closeness ({self.ground} EMD)"


@dataclass(frozen=True)
class PSensitiveKAnonymity(PrivacyModel):
    """p-sensitive k-anonymity: ``>= k`` records and ``>= p`` distinct sensitive values per class.

    Truta and Vinay 2006, Def. 2 (one sensitive attribute), ``1 <= p <= k``. Monotone, also with
    suppression. Measure: the number of distinct values.
    """

    p: int
    k: int
    name: ClassVar[str] = "p-sensitive-k-anonymity"
    key: ClassVar[str] = "p-sensitive"
    monotone_with_suppression: ClassVar[bool] = True
    measure_name: ClassVar[str] = "fewest distinct sensitive values"

    def __post_init__(self) -> None:
        k = check_int("k", self.k, low=1)
        object.__setattr__(self, "k", k)
        object.__setattr__(self, "p", check_int("p", self.p, low=1, high=k, high_name="k"))

    def measure(self, sizes, hist, prior):
        return _distinct(hist).astype(float)

    def passes(self, sizes, hist, prior):
        return (sizes >= self.k) & (_distinct(hist) >= self.p)

    def __str__(self) -> str:
        return f"{self.p}-sensitive {self.k}-anonymity"
