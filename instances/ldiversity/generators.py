"""Random tables for l-diversity: uniform/skewed, SAL-like (the paper's census domains), planted.

Every generator takes ``seed`` (an int ``>= 0``, a :class:`numpy.random.Generator` or ``None``),
converts it once with :func:`~anonratio.instances.validation.check_random_state` and touches no
global random state, so the same seed gives the same instance. Each returns
``(LDiversityInstance, meta)``; ``meta`` is a JSON-serializable dict of the generator's
parameters (and the known optimum where there is one), ready for
:func:`~anonratio.instances.io.save_instance`.
"""

from itertools import combinations
from math import comb
from typing import Any

import numpy as np

from anonratio.instances.errors import InfeasibleInstanceError
from anonratio.instances.ldiversity.instance import OBJECTIVES, LDiversityInstance
from anonratio.instances.table import Table
from anonratio.instances.validation import (
    SeedLike,
    check_choice,
    check_int,
    check_number,
    check_random_state,
)

__all__ = [
    "SAL_ATTRIBUTES",
    "SAL_DOMAINS",
    "SAL_SENSITIVE",
    "random_instance",
    "sal_like",
    "sal_projection",
    "planted_instance",
]

#: the QI attributes of SAL and their domain sizes (Xiao, Yi and Tao 2010, §6, Table 6)
SAL_ATTRIBUTES = (
    "Age",
    "Gender",
    "Race",
    "Marital Status",
    "Birth Place",
    "Education",
    "Work Class",
)
SAL_DOMAINS = (79, 2, 9, 6, 56, 17, 9)
#: SAL's sensitive attribute and its domain size (Table 6)
SAL_SENSITIVE = ("Income", 50)


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------
def _zipf(c: int, skew: float, rng: np.random.Generator | None = None) -> np.ndarray:
    """Frequencies ``p(v) ∝ rank(v) ** -skew`` (ranks a random permutation when ``rng``)."""
    ranks = np.arange(1, c + 1, dtype=float) if rng is None else rng.permutation(c) + 1.0
    p = ranks**-skew
    return p / p.sum()


def _cardinalities(cardinality: Any, d: int) -> tuple[int, ...]:
    if np.ndim(cardinality) == 0:
        return (check_int("cardinality", cardinality, low=1),) * d
    values = tuple(cardinality)
    if len(values) != d:
        raise ValueError(
            f"`cardinality` must be an integer or one integer per attribute (d = {d}), got "
            f"{len(values)} values"
        )
    return tuple(check_int("cardinality", c, low=1) for c in values)


def _repair(s: np.ndarray, m: int, l: int, rng: np.random.Generator) -> np.ndarray:
    """Recode records of over-represented sensitive values (more than ``n / l``) to the rarest
    values until the table is l-eligible; O(n + m log m) per pass, at most ``m`` passes."""
    n = s.size
    cap = n // l
    if m * cap < n:
        raise InfeasibleInstanceError(
            f"no table of n = {n} records over m = {m} sensitive values is {l}-eligible: each "
            f"value may occur at most floor(n / l) = {cap} times; raise `n` or `m`"
        )
    counts = np.bincount(s, minlength=m)
    for v in np.argsort(-counts, kind="stable"):
        excess = int(counts[v]) - cap
        if excess <= 0:
            break
        movers = rng.choice(np.flatnonzero(s == v), size=excess, replace=False)
        # fill the values below the cap, least frequent first
        order = np.argsort(counts, kind="stable")
        room = np.maximum(cap - counts[order], 0)
        room[order == v] = 0
        targets = np.repeat(order, room)[:excess]
        s[movers] = targets
        counts = np.bincount(s, minlength=m)
    return s


def _sensitive(n: int, m: int, l: int, skew: float, rng: np.random.Generator) -> np.ndarray:
    if m < l:
        raise InfeasibleInstanceError(
            f"no table with m = {m} sensitive values is {l}-eligible: some value occurs at "
            f"least n / m > n / l times; take `m` >= `l` = {l}"
        )
    if n < l:
        raise InfeasibleInstanceError(
            f"a table of n = {n} records is never {l}-eligible (a value occurs at least once, "
            f"more than n / l); take `n` >= `l` = {l}"
        )
    s = rng.choice(m, size=n, p=_zipf(m, skew, rng)).astype(np.int64)
    return _repair(s, m, l, rng)


def _table(
    codes: np.ndarray,
    names: tuple[str, ...],
    cards: tuple[int, ...],
    s: np.ndarray,
    m: int,
    sensitive_name: str = "sensitive",
) -> Table:
    return Table(
        codes,
        names,
        tuple(tuple(str(v) for v in range(c)) for c in cards),
        sensitive=s,
        sensitive_name=sensitive_name,
        sensitive_values=tuple(str(v) for v in range(m)),
    )


# ---------------------------------------------------------------------------------------------
# generators
# ---------------------------------------------------------------------------------------------
def random_instance(
    n: int,
    *,
    d: int,
    cardinality: int | tuple[int, ...],
    m: int,
    l: int,
    skew: float = 0.0,
    objective: str = "stars",
    seed: SeedLike = None,
) -> tuple[LDiversityInstance, dict[str, Any]]:
    """A random table: uniform QI codes, Zipf-skewed sensitive values, repaired to l-eligible.

    Each record draws its ``d`` QI codes independently and uniformly (``cardinality`` values per
    attribute, named ``"a<j>"``) and its sensitive value from ``m`` values with frequencies
    ``p(v) ∝ rank(v) ** -skew`` over a random ranking (``skew = 0``: uniform). Records of a value
    occurring more than ``floor(n / l)`` times are then recoded to the rarest values until the
    whole table is l-eligible (Lemma 1 of the paper: a solution exists iff it is).

    Parameters
    ----------
    n : int
        Records (``>= l``).
    d : int
        QI attributes (>= 1).
    cardinality : int or tuple of int
        Values per QI attribute (>= 1), one for all or one per attribute.
    m : int
        Sensitive values (``>= l``; values may end up absent when ``n`` is small).
    l : int
        Diversity parameter (>= 2).
    skew : float
        Zipf exponent of the sensitive values (>= 0).
    objective : {"stars", "tuples"}
    seed : int, numpy.random.Generator or None

    Returns
    -------
    (LDiversityInstance, dict)
        The instance and ``meta`` (the parameters).

    Raises
    ------
    InfeasibleInstanceError
        If ``m < l`` or ``n < l``: no table is then l-eligible.

    Notes
    -----
    O(n · d + n · m) time.

    References
    ----------
    Xiao, Yi and Tao, "The Hardness and Approximation Algorithms for L-Diversity", EDBT 2010,
    §3 (the problem, Lemma 1).

    Examples
    --------
    >>> inst, meta = random_instance(40, d=3, cardinality=4, m=5, l=3, skew=1.0, seed=0)
    >>> inst.n, inst.d, inst.l, int(np.bincount(inst.sensitive).max()) * 3 <= 40
    (40, 3, 3, True)
    """
    n = check_int("n", n, low=1)
    d = check_int("d", d, low=1)
    cards = _cardinalities(cardinality, d)
    m = check_int("m", m, low=1)
    l = check_int("l", l, low=2)
    skew = check_number("skew", skew, low=0)
    objective = check_choice("objective", objective, OBJECTIVES)
    rng = check_random_state(seed)
    codes = np.column_stack([rng.integers(0, c, size=n) for c in cards]).astype(np.int32)
    s = _sensitive(n, m, l, skew, rng)
    table = _table(codes, tuple(f"a{j}" for j in range(d)), cards, s, m)
    meta = {
        "generator": "random_instance",
        "n": n,
        "d": d,
        "cardinality": list(cards),
        "m": m,
        "l": l,
        "skew": skew,
        "objective": objective,
    }
    return LDiversityInstance(table, l, objective), meta


def sal_projection(d: int, projection: int = 0) -> tuple[int, ...]:
    """The QI attributes (indices into :data:`SAL_ATTRIBUTES`) of SAL-``d`` projection number
    ``projection``: the ``C(7, d)`` subsets of ``d`` attributes in lexicographic order, ``0``
    being the first ``d`` attributes.

    Examples
    --------
    >>> sal_projection(2, 0), sal_projection(2, 1), sal_projection(2, 20)
    ((0, 1), (0, 2), (5, 6))
    """
    k = len(SAL_ATTRIBUTES)
    d = check_int("d", d, low=1, high=k)
    projection = check_int("projection", projection, low=0, high=comb(k, d) - 1)
    for i, subset in enumerate(combinations(range(k), d)):
        if i == projection:
            return subset
    raise AssertionError("unreachable: projection was checked against C(7, d)")


def sal_like(
    n: int,
    *,
    d: int = 7,
    l: int = 6,
    objective: str = "stars",
    seed: SeedLike = None,
    projection: int = 0,
) -> tuple[LDiversityInstance, dict[str, Any]]:
    """A synthetic SAL-like table: the paper's census domains, skewed and correlated marginals.

    SAL (American Community Survey extract, 600k records) has the QI attributes Age (79 values),
    Gender (2), Race (9), Marital Status (6), Birth Place (56), Education (17), Work Class (9)
    and the sensitive Income (50 values) (§6, Table 6). The real data are not redistributable;
    this generator keeps the domain sizes and mimics their shape:

    * a latent "profile" ``z ~ N(0, 1)`` per record drives Age, Marital Status, Education, Work
      Class and Income (older, more educated records earn more), so the attributes are
      correlated and real QI-groups form;
    * Age is a clipped normal around 38 years; Gender is about 50/50; Race, Birth Place and the
      rest are Zipf-skewed (exponents 1.1 to 2), Birth Place strongly (a few places dominate);
    * Income is a Zipf-ish function of the profile over 50 brackets, then repaired (the most
      frequent brackets recoded to the rarest) so the table is l-eligible.

    The table is projected onto ``d`` of the QI attributes: the paper's SAL-d is every one of
    the ``C(7, d)`` projections of SAL on Income and ``d`` of its QIs, its results averaged;
    ``projection`` picks one (:func:`sal_projection`; ``0``, the default, keeps the first
    ``d``). All seven attributes are drawn whatever ``d``, so the projections of one seed are
    projections of the same table.

    Parameters
    ----------
    n : int
        Records (``>= l``; the paper uses 600,000, built in well under a second).
    d : int
        QI attributes kept, in ``1 .. 7``.
    l : int
        Diversity parameter, in ``2 .. 50`` (the paper uses 2 to 10, default 6).
    objective : {"stars", "tuples"}
    seed : int, numpy.random.Generator or None
    projection : int
        Which ``d`` attributes, in ``0 .. C(7, d) - 1``: the index of the subset among the
        ``d``-subsets of :data:`SAL_ATTRIBUTES` in lexicographic order (:func:`sal_projection`).

    Returns
    -------
    (LDiversityInstance, dict)
        The instance (attribute names as in the paper, code ``c`` labelled ``str(c)``) and
        ``meta`` (the parameters, the attributes kept and their domain sizes).

    Notes
    -----
    O(n · d) time, vectorized.

    References
    ----------
    Xiao, Yi and Tao, "The Hardness and Approximation Algorithms for L-Diversity", EDBT 2010,
    §6, Table 6; Ruggles et al., IPUMS (2004) for the source data.

    Examples
    --------
    >>> inst, _ = sal_like(1000, d=3, seed=0)
    >>> inst.table.attributes, inst.l
    (('Age', 'Gender', 'Race'), 6)
    >>> sal_like(1000, d=3, projection=34, seed=0)[0].table.attributes
    ('Birth Place', 'Education', 'Work Class')
    """
    n = check_int("n", n, low=1)
    d = check_int("d", d, low=1, high=len(SAL_ATTRIBUTES))
    keep = sal_projection(d, projection)
    l = check_int("l", l, low=2, high=SAL_SENSITIVE[1])
    objective = check_choice("objective", objective, OBJECTIVES)
    rng = check_random_state(seed)
    if n < l:
        raise InfeasibleInstanceError(
            f"a table of n = {n} records is never {l}-eligible; take `n` >= `l` = {l}"
        )
    z = rng.standard_normal(n)
    cols = []
    # Age 0..78 (17 + code years): clipped normal, shifted by the profile
    age = np.rint(21 + 0.6 * 14 * z + 0.8 * 14 * rng.standard_normal(n))
    cols.append(np.clip(age, 0, SAL_DOMAINS[0] - 1))
    cols.append(rng.random(n) < 0.48)  # Gender
    cols.append(rng.choice(9, size=n, p=_zipf(9, 2.0)))  # Race: one dominant value
    # Marital status: the profile (age) shifts the category up
    marital = rng.choice(6, size=n, p=_zipf(6, 1.2)) + (z > 1.0)
    cols.append(np.minimum(marital, SAL_DOMAINS[3] - 1))
    cols.append(rng.choice(56, size=n, p=_zipf(56, 1.6)))  # Birth place: a few dominate
    edu = np.rint(9 + 2.5 * z + 1.5 * rng.standard_normal(n))
    cols.append(np.clip(edu, 0, SAL_DOMAINS[5] - 1))  # Education, correlated with the profile
    work = rng.choice(9, size=n, p=_zipf(9, 1.4)) + (z > 1.5) * 2
    cols.append(np.minimum(work, SAL_DOMAINS[6] - 1))
    codes = np.column_stack([cols[j] for j in keep]).astype(np.int32)
    # Income: 50 brackets, a skewed draw shifted up by the profile
    m = SAL_SENSITIVE[1]
    base = rng.choice(m, size=n, p=_zipf(m, 1.1))
    income = np.clip(base + np.rint(4 * np.maximum(z, 0)).astype(np.int64), 0, m - 1)
    s = _repair(income.astype(np.int64), m, l, rng)
    names = tuple(SAL_ATTRIBUTES[j] for j in keep)
    domains = tuple(SAL_DOMAINS[j] for j in keep)
    table = _table(codes, names, domains, s, m, SAL_SENSITIVE[0])
    meta = {
        "generator": "sal_like",
        "n": n,
        "d": d,
        "l": l,
        "objective": objective,
        "projection": int(projection),
        "attributes": list(names),
        "domains": list(domains),
        "sensitive_domain": m,
    }
    return LDiversityInstance(table, l, objective), meta


def planted_instance(
    n_groups: int,
    *,
    d: int,
    cardinality: int,
    m: int,
    l: int,
    group_size: int | None = None,
    objective: str = "stars",
    seed: SeedLike = None,
) -> tuple[LDiversityInstance, dict[str, Any]]:
    """A table that is already l-diverse per QI-group: the optimum is 0 for both objectives.

    ``n_groups`` distinct random QI vectors (``d`` attributes, ``cardinality`` values each) get
    ``group_size`` records each (default ``l``); the records of a group take sensitive values
    cycling through a random selection of ``k = min(m, group_size)`` of the ``m`` values, so
    every QI-group is l-eligible (``l * ceil(group_size / k) <= group_size`` is required) and
    publishing the QI-groups as they are costs no star. The records are shuffled.
    A solver must find this zero-cost partition; a lower bound must report 0.

    Parameters
    ----------
    n_groups : int
        QI-groups (>= 1, at most ``cardinality ** d``).
    d : int
        QI attributes (>= 1).
    cardinality : int
        Values per QI attribute (>= 1).
    m : int
        Sensitive values (``>= l``).
    l : int
        Diversity parameter (>= 2).
    group_size : int, optional
        Records per QI-group (``>= l``, default ``l``) such that cycling through
        ``min(m, group_size)`` values is l-eligible (e.g. any multiple of ``l``).
    objective : {"stars", "tuples"}
    seed : int, numpy.random.Generator or None

    Returns
    -------
    (LDiversityInstance, dict)
        ``meta`` holds the parameters, ``optimum = 0`` and ``witness``, the QI-group per record.

    Notes
    -----
    O(n_groups · (d + group_size)) time.

    References
    ----------
    Xiao, Yi and Tao, EDBT 2010, §5 (phase 1 of TP removes nothing from an l-eligible QI-group);
    planted instances are this suite's own family.

    Examples
    --------
    >>> inst, meta = planted_instance(4, d=2, cardinality=3, m=4, l=2, seed=0)
    >>> inst.n, meta["optimum"]
    (8, 0)
    """
    n_groups = check_int("n_groups", n_groups, low=1)
    d = check_int("d", d, low=1)
    cardinality = check_int("cardinality", cardinality, low=1)
    l = check_int("l", l, low=2)
    m = check_int("m", m, low=l)
    size = l if group_size is None else check_int("group_size", group_size, low=l)
    objective = check_choice("objective", objective, OBJECTIVES)
    if n_groups > cardinality**d:
        raise ValueError(
            f"`n_groups` must be at most cardinality ** d = {cardinality**d} (distinct QI "
            f"vectors), got {n_groups}"
        )
    k = min(m, size)
    if l * -(-size // k) > size:
        raise ValueError(
            f"`group_size` = {size} cannot be {l}-eligible with m = {m} values cycled (a value "
            f"occurs {-(-size // k)} times); take a multiple of `l` = {l} or a larger `m`"
        )
    rng = check_random_state(seed)
    flat = rng.choice(cardinality**d, size=n_groups, replace=False)
    proto = np.stack(np.unravel_index(flat, (cardinality,) * d), axis=1)
    groups = np.repeat(np.arange(n_groups), size)
    picks = np.argsort(rng.random((n_groups, m)), axis=1)[:, :k]  # k distinct values per group
    s = picks[groups, np.tile(np.arange(size) % k, n_groups)]
    order = rng.permutation(groups.size)
    groups, s = groups[order], s[order]
    table = _table(proto[groups], tuple(f"a{j}" for j in range(d)), (cardinality,) * d, s, m)
    meta = {
        "generator": "planted_instance",
        "n_groups": n_groups,
        "d": d,
        "cardinality": cardinality,
        "m": m,
        "l": l,
        "group_size": size,
        "objective": objective,
        "optimum": 0,
        "witness": groups.tolist(),
    }
    return LDiversityInstance(table, l, objective), meta
