"""The 3-dimensional-matching (3DM) gadget of the NP-hardness proof (Xiao, Yi and Tao 2010, §4).

Reconstruction of the construction (the paper text lost its symbols; this follows the proofs of
Properties 1–4 and Lemma 4.5, which pin it down):

* A 3DM instance has three disjoint domains ``X``, ``Y``, ``Z`` of ``q`` values each and ``t``
  distinct points ``p_1 .. p_t`` of ``X x Y x Z``; it asks for ``q`` points sharing no
  coordinate (a *perfect matching*).
* The table ``T`` has ``3q`` rows, one per value ``u_i`` of ``X ∪ Y ∪ Z`` (the ``x``'s, then the
  ``y``'s, then the ``z``'s), ``t`` QI attributes ``A_1 .. A_t`` (one per point) and ``l = 3``.
* Row ``i`` gets a positive code ``c_i``: its sensitive value is ``c_i`` and, on ``A_j``, its QI
  value is ``0`` if ``u_i`` is a coordinate of ``p_j`` and ``c_i`` otherwise. Rows of different
  domains get different codes; with ``m = 3`` sensitive values, ``c_i`` is the domain (1 for
  ``X``, 2 for ``Y``, 3 for ``Z``). For ``m > 3`` the paper spreads ``1 .. m`` over the three
  domains, disjointly; here value ``v`` belongs to domain ``(v - 1) mod 3`` and each domain's
  rows cycle through its values.

Then (Property 1) exactly 3 rows hold 0 on ``A_j``; a group constant on ``A_j`` with a non-zero
value has a single sensitive value, so (Property 2) the only non-star values of a 3-eligible
group are zeros, and (Property 3) a group with a non-star column is exactly the three
coordinate rows of one point, with ``3(t - 1)`` stars. Every other group is all stars. Hence
every 3-diverse generalization has at least ``3q(t - 1)`` stars (Property 4), with equality iff
a perfect matching exists (Lemma 4.5). More precisely, with ``nu`` the size of a maximum
matching (the disjoint points used as 3-row groups; the leftover rows are balanced across the
domains, hence 3-eligible as one all-star group), the optimum is exactly
``3 q t - 3 nu`` stars.
"""

from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import csr_array

from anonratio.instances.base import verify
from anonratio.instances.ldiversity.instance import LDiversityInstance
from anonratio.instances.table import Table
from anonratio.instances.validation import SeedLike, check_int, check_random_state

__all__ = ["maximum_3dm", "random_3dm", "three_dm_gadget", "random_3dm_gadget"]


def _check_points(points: Any, q: int) -> np.ndarray:
    pts = np.asarray(points)
    if pts.ndim != 2 or pts.shape[1] != 3 or pts.shape[0] < 1:
        raise ValueError(
            f"`points` must be a non-empty (t, 3) array of (x, y, z) indices, got shape {pts.shape}"
        )
    if not np.issubdtype(pts.dtype, np.integer):
        raise ValueError(f"`points` must hold integers, got dtype {pts.dtype}")
    if pts.min() < 0 or pts.max() >= q:
        raise ValueError(f"`points` coordinates must lie in 0 .. q - 1 = {q - 1}")
    if np.unique(pts, axis=0).shape[0] != pts.shape[0]:
        raise ValueError("`points` must be distinct (3DM takes a set of points)")
    return pts.astype(np.int64)


def maximum_3dm(points: Sequence[Sequence[int]] | np.ndarray, q: int) -> list[int]:
    """Indices of a maximum set of points sharing no coordinate (exact, by a 0/1 ILP).

    Parameters
    ----------
    points : (t, 3) array of int
        Point ``j`` is ``(x_j, y_j, z_j)``, each coordinate in ``0 .. q - 1``.
    q : int
        Domain size of each dimension (>= 1).

    Returns
    -------
    list of int
        Sorted point indices; a perfect matching iff its length is ``q``.

    Notes
    -----
    3DM is NP-hard; HiGHS (through :func:`scipy.optimize.milp`) solves the small instances of
    the tests and benchmarks in milliseconds.

    Examples
    --------
    >>> maximum_3dm([[0, 0, 0], [1, 1, 1], [0, 1, 1]], 2)
    [0, 1]
    """
    q = check_int("q", q, low=1)
    pts = _check_points(points, q)
    t = pts.shape[0]
    rows = (pts + np.array([0, q, 2 * q])).ravel()  # element of X ∪ Y ∪ Z
    cols = np.repeat(np.arange(t), 3)
    a = csr_array((np.ones(3 * t), (rows, cols)), shape=(3 * q, t))
    res = milp(
        -np.ones(t),
        constraints=LinearConstraint(a, -np.inf, 1),
        integrality=np.ones(t),
        bounds=Bounds(0, 1),
    )
    if not res.success:  # pragma: no cover - a bounded feasible 0/1 program
        raise RuntimeError(f"maximum 3DM failed: {res.message}")
    return sorted(int(j) for j in np.flatnonzero(res.x > 0.5))


def random_3dm(
    q: int, t: int, *, perfect: bool | None = None, seed: SeedLike = None, max_tries: int = 1000
) -> np.ndarray:
    """A random 3DM instance: ``t`` distinct points over three domains of ``q`` values.

    ``perfect=True`` plants a perfect matching (``q`` points from three random permutations)
    and adds ``t - q`` other random points; ``perfect=False`` draws random point sets covering
    every value until one has no perfect matching (so the answer is not given away by an
    uncovered value); ``None`` draws ``t`` random points.

    Parameters
    ----------
    q : int
        Domain size (>= 1).
    t : int
        Points, in ``1 .. q ** 3`` (``>= q`` if ``perfect``; ``> q`` and ``< q ** 3`` if
        ``perfect is False``).
    perfect : bool or None
    seed : int, numpy.random.Generator or None
    max_tries : int
        Draws before giving up on ``perfect=False`` (>= 1).

    Returns
    -------
    ndarray of int64, shape (t, 3)
        In random order.

    Examples
    --------
    >>> p = random_3dm(3, 5, perfect=True, seed=0)
    >>> p.shape, len(maximum_3dm(p, 3))
    ((5, 3), 3)
    """
    q = check_int("q", q, low=1)
    t = check_int("t", t, low=1, high=q**3)
    max_tries = check_int("max_tries", max_tries, low=1)
    if perfect is not None and not isinstance(perfect, bool | np.bool_):
        raise ValueError(f"`perfect` must be True, False or None, got {perfect!r}")
    if perfect is not None and t < q:
        raise ValueError(f"`t` must be at least q = {q} to plant or refute a cover, got {t}")
    if perfect is False and (t == q or t == q**3):
        # q points covering all 3q values are disjoint; all q^3 points hold a matching
        raise ValueError(
            f"no {t} points over q = {q} values cover every value without a perfect matching; "
            f"`t` must lie strictly between q = {q} and q ** 3 = {q**3}"
        )
    rng = check_random_state(seed)
    for _ in range(max_tries):
        if perfect:
            planted = np.stack([np.arange(q), rng.permutation(q), rng.permutation(q)], axis=1)
            planted_flat = np.ravel_multi_index(planted.T, (q, q, q))
            rest = np.setdiff1d(np.arange(q**3), planted_flat)
            flat = np.concatenate([planted_flat, rng.choice(rest, t - q, replace=False)])
        else:
            flat = rng.choice(q**3, t, replace=False)
        pts = np.stack(np.unravel_index(rng.permutation(flat), (q, q, q)), axis=1)
        if perfect is not False:
            return pts.astype(np.int64)
        covered = all(np.unique(pts[:, k]).size == q for k in range(3))
        if covered and len(maximum_3dm(pts, q)) < q:
            return pts.astype(np.int64)
    raise ValueError(
        f"found no cover of all {3 * q} values by {t} points without a perfect matching in "
        f"{max_tries} draws; lower `t` or raise `max_tries`"
    )


def three_dm_gadget(
    points: Sequence[Sequence[int]] | np.ndarray, q: int, *, m: int = 3
) -> tuple[LDiversityInstance, dict[str, Any]]:
    """The 3-diversity table of the 3DM reduction (§4, Lemma 4.5) and its known optimum.

    See the module docstring for the construction. The instance has ``n = 3q`` records, ``t``
    QI attributes (``"A<j>"``, values ``"0" .. str(m)``), ``l = 3``, the star objective and
    ``m`` sensitive values.

    Parameters
    ----------
    points : (t, 3) array of int
        Distinct points ``(x, y, z)``, coordinates in ``0 .. q - 1``.
    q : int
        Domain size of each dimension (>= 1).
    m : int
        Sensitive values, in ``3 .. 3q`` (the theorem's ``m >= 3``; the brief's case is 3).

    Returns
    -------
    (LDiversityInstance, dict)
        ``meta`` holds ``q``, ``t``, ``m``, ``points``, ``threshold = 3q(t - 1)`` (the lower
        bound of Property 4, reached iff a perfect matching exists), ``max_matching`` (the
        point indices of a maximum matching, size ``nu``), ``has_matching`` (``nu == q``),
        ``optimum = 3qt - 3nu`` and ``witness`` (group per record, of that cost, checked).

    References
    ----------
    Xiao, Yi and Tao, "The Hardness and Approximation Algorithms for L-Diversity", EDBT 2010,
    §4, Properties 1–4, Lemma 4.5 and Theorem 4.7; Karp (1972) for 3DM.

    Examples
    --------
    >>> inst, meta = three_dm_gadget([[0, 0, 0], [1, 1, 1], [0, 1, 0]], 2)
    >>> inst.n, inst.d, meta["has_matching"], meta["optimum"], meta["threshold"]
    (6, 3, True, 12.0, 12.0)
    """
    q = check_int("q", q, low=1)
    pts = _check_points(points, q)
    m = check_int("m", m, low=3, high=3 * q)
    t = pts.shape[0]
    domain = np.repeat(np.arange(3), q)  # row i is u_i: x's, then y's, then z's
    value = np.arange(3 * q) % q
    # sensitive codes 1..m: value v belongs to domain (v - 1) % 3; rows cycle through them
    own = [np.arange(k + 1, m + 1, 3) for k in range(3)]
    c = np.concatenate([own[k][np.arange(q) % own[k].size] for k in range(3)])
    is_coord = pts[:, domain].T == value[:, None]  # (3q, t): u_i is a coordinate of p_j
    codes = np.where(is_coord, 0, c[:, None]).astype(np.int32)
    table = Table(
        codes,
        tuple(f"A{j + 1}" for j in range(t)),
        (tuple(str(v) for v in range(m + 1)),) * t,
        sensitive=c - 1,
        sensitive_name="S",
        sensitive_values=tuple(str(v) for v in range(1, m + 1)),
    )
    instance = LDiversityInstance(table, 3, "stars")
    matching = maximum_3dm(pts, q)
    nu = len(matching)
    witness = np.full(3 * q, nu, dtype=np.int64)  # leftover rows: one all-star group
    for g, j in enumerate(matching):
        witness[pts[j] + np.array([0, q, 2 * q])] = g
    optimum = 3.0 * q * t - 3.0 * nu
    got = verify(instance, witness).cost
    assert got == optimum, f"3DM witness costs {got}, expected {optimum}"  # noqa: S101
    meta = {
        "generator": "three_dm_gadget",
        "q": q,
        "t": t,
        "m": m,
        "points": pts.tolist(),
        "threshold": 3.0 * q * (t - 1),
        "max_matching": matching,
        "has_matching": nu == q,
        "optimum": optimum,
        "witness": witness.tolist(),
        "description": (
            f"3DM reduction (Xiao, Yi and Tao 2010, §4): q = {q}, t = {t} points; optimum "
            f"3qt - 3nu = {optimum:g} stars with nu = {nu} the maximum matching; it equals the "
            f"threshold 3q(t - 1) = {3 * q * (t - 1)} iff a perfect matching exists"
        ),
    }
    return instance, meta


def random_3dm_gadget(
    q: int, t: int, *, has_matching: bool | None = None, m: int = 3, seed: SeedLike = None
) -> tuple[LDiversityInstance, dict[str, Any]]:
    """:func:`three_dm_gadget` of :func:`random_3dm` (``perfect=has_matching``).

    Examples
    --------
    >>> inst, meta = random_3dm_gadget(3, 5, has_matching=False, seed=1)
    >>> meta["has_matching"], meta["optimum"] > meta["threshold"]
    (False, True)
    """
    points = random_3dm(q, t, perfect=has_matching, seed=seed)
    instance, meta = three_dm_gadget(points, q, m=m)
    meta["seed"] = seed if seed is None or isinstance(seed, int) else None
    return instance, meta
