"""GPS points: partition of the bounding box into axis-aligned rectangles.

Du, Eppstein, Goodrich and Lueker (WADS 2009, §3) generalize a single quasi-identifier that is a
point of the plane by *rectangles*: the bounding box of the points is partitioned into
axis-aligned rectangles, every record is published as the rectangle holding its point, and every
rectangle must hold weight (records) at least ``k``. The objective is the weight of the heaviest
rectangle (minimized).

Conventions of this module (the verifier enforces them):

- **Duplicates are merged.** Records at the same coordinates always share a rectangle, so the
  instance merges duplicate points and sums their weights (the paper's "points of multiplicity
  k"). ``instance.points`` holds the distinct points in order of first occurrence and
  ``instance.source_index[i]`` says which of them input row ``i`` became (provenance only: it is
  not part of the content hash or of :meth:`to_dict`).
- **The box** is the bounding box ``[min x, max x] x [min y, max y]`` of the points; it may be
  degenerate (all points on one vertical or horizontal line, or a single point).
- **Rectangles are closed** and given as ``(x0, y0, x1, y1)``. They must tile the box (inside it,
  positive extent in every non-degenerate dimension, pairwise disjoint interiors, areas summing to
  the box's) and every point must lie in the rectangle of its label and in **no other closed
  rectangle**. So an edge between two rectangles never passes through a point: ownership of a
  point is never decided by a tie. (Letting labels break ties on shared edges would change the
  problem: a point of multiplicity ``k`` with ``k - 1`` points at N, S, E, W would drop from
  optimum ``5k - 4`` to ``2k - 2`` by cutting through the points.)
- **Canonical coordinates.** With distinct x-coordinates ``xs[0] < ... < xs[nx-1]`` every
  tiling can be moved, without changing which points each rectangle holds, onto the *compressed
  grid*: internal edges at the midpoints between consecutive distinct coordinates
  (``x_edges``), cells ``[x_edges[i], x_edges[i+1]] x [y_edges[j], y_edges[j+1]]`` holding at most
  one point each. The solvers work with rectangles as inclusive cell ranges
  ``(i0, j0, i1, j1)`` and convert with :func:`cells_to_rectangles`.

Lower bound: every rectangle weighs at least ``k`` and the heaviest point lies in one, so the
optimum is at least ``max(k, max_p w_p)``; at most ``floor(W / k)`` rectangles exist, so the
heaviest weighs at least ``ceil(W / floor(W / k))``.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from numbers import Real
from typing import TYPE_CHECKING, Any, ClassVar, Self

import numpy as np
from numpy.typing import ArrayLike

from anonratio.instances.base import (
    Verification,
    _labels_of,
    finish_verification,
    instance_fields,
    lower_bound,
    register_problem,
    verify,
)
from anonratio.instances.errors import InfeasibleInstanceError, InstanceFormatError
from anonratio.instances.gps_rectangles.grid import rectangle_weights
from anonratio.instances.solution import Solution
from anonratio.instances.validation import as_array, check_counts, check_int

__all__ = [
    "GpsRectanglesInstance",
    "RectanglePartitionInstance",
    "verify_rectangles",
    "gps_lower_bound",
]

#: rectangle pairs compared per vectorized block of the overlap check
_PAIR_BLOCK = 2_000_000


def _gps_iv(points: Any, weights: Any, k: Any) -> tuple[np.ndarray, np.ndarray, int]:
    k = check_int("k", k, low=1)
    raw = as_array("points", points, error=InstanceFormatError)
    if raw.dtype == bool:
        raise InstanceFormatError("`points` must be numeric (x, y) pairs, got booleans")
    if raw.dtype.kind not in "iuf" or not isinstance(points, np.ndarray):
        _check_coordinates(raw if isinstance(points, np.ndarray) else points)
    try:
        pts = np.asarray(raw, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise InstanceFormatError(
            "`points` must be a non-empty array of (x, y) pairs, shape (n, 2), got rows of "
            "different lengths"
        ) from None
    if pts.ndim != 2 or pts.shape[1] != 2 or pts.shape[0] == 0:
        raise InstanceFormatError(
            f"`points` must be a non-empty array of (x, y) pairs, shape (n, 2), got {pts.shape}"
        )
    bad = np.flatnonzero(~np.isfinite(pts).all(axis=1))
    if bad.size:
        i = int(bad[0])
        raise InstanceFormatError(
            f"`points` must have finite coordinates, got {tuple(pts[i].tolist())} at index {i}"
        )
    w = _gps_weights(weights, pts.shape[0])
    total = int(w.sum())
    if total < k:
        raise InfeasibleInstanceError(
            f"the points weigh {total} in total, less than k={k}: no rectangle can reach k"
        )
    return pts + 0.0, w, k  # + 0.0 turns -0.0 into 0.0


def _check_coordinates(points: Any) -> None:
    """Name the first row that is not a pair of numbers (strings, booleans, ``None``, ...)."""
    rows = points if isinstance(points, list | tuple | np.ndarray) else []
    for i, row in enumerate(rows):
        pair = list(row) if isinstance(row, list | tuple | np.ndarray) else [row]
        if not all(isinstance(x, Real) and not isinstance(x, bool | np.bool_) for x in pair):
            raise InstanceFormatError(
                f"`points` must be numeric (x, y) pairs, got {row!r:.80} at index {i}"
            )


def _gps_weights(weights: Any, n: int) -> np.ndarray:
    """The validated int64 weights of ``n`` points (``None``: 1 each)."""
    if weights is None:
        return np.ones(n, dtype=np.int64)
    raw = as_array("weights", weights, error=InstanceFormatError)
    if raw.shape != (n,):
        raise InstanceFormatError(
            f"`weights` must have one entry per point ({n}), got shape {raw.shape}"
        )
    return check_counts("weights", weights, error=InstanceFormatError)


def _merge_duplicates(pts: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct points in order of first occurrence, summed weights, input -> point index."""
    uniq, first, inverse = np.unique(pts, axis=0, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    source = rank[inverse.reshape(-1)]
    merged = np.zeros(uniq.shape[0], dtype=np.int64)
    np.add.at(merged, source, w)
    return uniq[order], merged, source


def _edges(values: np.ndarray, name: str) -> np.ndarray:
    """Box ends and the midpoints strictly between consecutive distinct ``values``."""
    if values.size == 1:
        return np.array([values[0], values[0]])
    a, b = values[:-1], values[1:]
    mid = a / 2 + b / 2
    step = np.nextafter(a, np.inf)
    if np.any(step >= b):
        i = int(np.flatnonzero(step >= b)[0])
        raise InstanceFormatError(
            f"the distinct {name}-coordinates {float(a[i])!r} and {float(b[i])!r} are adjacent "
            "float64 values: no rectangle edge fits strictly between them (rescale the coordinates)"
        )
    mid = np.where((a < mid) & (mid < b), mid, step)
    return np.concatenate([[values[0]], mid, [values[-1]]])


@register_problem("gps-rectangles")
@dataclass(frozen=True, eq=False)
class GpsRectanglesInstance:
    """Partition the points' bounding box into rectangles of weight ``>= k`` (Du et al. §3).

    Parameters
    ----------
    points : array of float, shape (n, 2)
        Finite (x, y) coordinates. Duplicates are merged (weights summed), see the module notes.
    weights : array of int, shape (n,), or None
        Non-negative integer weight (records) per point; ``None`` means 1 each.
    k : int
        Every rectangle must weigh at least ``k >= 1``; needs total weight ``>= k``.

    Raises
    ------
    InstanceFormatError
        Bad shape, non-finite coordinates, negative or non-integer weights, or two distinct
        coordinates with no float64 strictly between them.
    InfeasibleInstanceError
        Total weight below ``k``.
    ValueError
        ``k`` not an integer ``>= 1``.

    Examples
    --------
    >>> inst = GpsRectanglesInstance([[0, 0], [1, 2], [1, 2], [3, 1]], [1, 1, 2, 1], k=2)
    >>> inst.n, inst.weights.tolist(), inst.source_index.tolist()
    (3, [1, 3, 1], [0, 1, 1, 2])
    """

    #: the registered problem name (set by :func:`~anonratio.instances.base.register_problem`)
    problem: ClassVar[str]

    points: np.ndarray
    weights: np.ndarray
    k: int
    #: which distinct point each input row became (provenance only, not serialized)
    source_index: np.ndarray = field(init=False, repr=False)

    if TYPE_CHECKING:  # what the constructor accepts; __post_init__ normalizes it

        def __init__(self, points: ArrayLike, weights: ArrayLike | None, k: int) -> None: ...

    def __post_init__(self) -> None:
        pts, w, k = _gps_iv(self.points, self.weights, self.k)
        pts, w, source = _merge_duplicates(pts, w)
        for a in (pts, w, source):
            a.setflags(write=False)
        object.__setattr__(self, "points", pts)
        object.__setattr__(self, "weights", w)
        object.__setattr__(self, "k", k)
        object.__setattr__(self, "source_index", source)
        _ = self.x_edges, self.y_edges  # validate that every gap holds a midpoint

    @property
    def n(self) -> int:
        """Number of distinct points."""
        return int(self.weights.size)

    @property
    def params(self) -> dict[str, Any]:
        """The problem parameters of a run: ``{"k": k}``."""
        return {"k": self.k}

    @cached_property
    def total_weight(self) -> int:
        """The sum of the point weights."""
        return int(self.weights.sum())

    @cached_property
    def max_weight(self) -> int:
        """The heaviest point's weight."""
        return int(self.weights.max())

    @cached_property
    def _ranks(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        xs, ix = np.unique(self.points[:, 0], return_inverse=True)
        ys, iy = np.unique(self.points[:, 1], return_inverse=True)
        out = (xs, ys, ix.reshape(-1).astype(np.int64), iy.reshape(-1).astype(np.int64))
        for a in out:
            a.setflags(write=False)
        return out

    @property
    def xs(self) -> np.ndarray:
        """Distinct x-coordinates, increasing (``nx`` of them)."""
        return self._ranks[0]

    @property
    def ys(self) -> np.ndarray:
        """Distinct y-coordinates, increasing (``ny`` of them)."""
        return self._ranks[1]

    @property
    def ix(self) -> np.ndarray:
        """Rank of each point's x among :attr:`xs` (its grid column)."""
        return self._ranks[2]

    @property
    def iy(self) -> np.ndarray:
        """Rank of each point's y among :attr:`ys` (its grid row)."""
        return self._ranks[3]

    @property
    def grid_shape(self) -> tuple[int, int]:
        """``(nx, ny)``: distinct x- and y-coordinates."""
        return int(self.xs.size), int(self.ys.size)

    @cached_property
    def x_edges(self) -> np.ndarray:
        """``nx + 1`` cell edges: ``xs[0]``, the midpoints, ``xs[-1]``."""
        e = _edges(self.xs, "x")
        e.setflags(write=False)
        return e

    @cached_property
    def y_edges(self) -> np.ndarray:
        """``ny + 1`` cell edges: ``ys[0]``, the midpoints, ``ys[-1]``."""
        e = _edges(self.ys, "y")
        e.setflags(write=False)
        return e

    @property
    def box(self) -> tuple[float, float, float, float]:
        """The bounding box ``(x0, y0, x1, y1)``."""
        return (float(self.xs[0]), float(self.ys[0]), float(self.xs[-1]), float(self.ys[-1]))

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: the distinct points, their weights and ``k``."""
        return {"points": self.points.tolist(), "weights": self.weights.tolist(), "k": self.k}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Self:
        """The instance of :meth:`to_dict`'s output, validated as the constructor validates."""
        d = instance_fields(d, cls.problem, required=("points", "weights", "k"))
        return cls(d["points"], d["weights"], d["k"])


# ---------------------------------------------------------------------------------------------
# verification
# ---------------------------------------------------------------------------------------------
def _tiling_violations(instance: GpsRectanglesInstance, rects: np.ndarray) -> list[str]:
    """Violations of "``rects`` tile the bounding box" (empty list when they do)."""
    out: list[str] = []
    bx0, by0, bx1, by1 = instance.box
    x0, y0, x1, y1 = rects.T
    outside = np.flatnonzero((x0 < bx0) | (y0 < by0) | (x1 > bx1) | (y1 > by1))
    for r in outside[:3]:
        out.append(f"rectangle {int(r)} {tuple(rects[r].tolist())} leaves the box {instance.box}")
    ranks: list[tuple[np.ndarray, np.ndarray, int, np.ndarray | None]] = []
    for lo, hi, b0, b1, axis in ((x0, x1, bx0, bx1, "x"), (y0, y1, by0, by1, "y")):
        if b0 == b1:  # degenerate box: every rectangle is the whole (zero) extent
            bad = np.flatnonzero((lo != b0) | (hi != b0))
            if bad.size:
                out.append(
                    f"the box has zero {axis}-extent, but rectangle {int(bad[0])} spans "
                    f"{axis} in [{float(lo[bad[0]])!r}, {float(hi[bad[0]])!r}]"
                )
            ranks.append((np.zeros(len(lo), np.int64), np.ones(len(lo), np.int64), 1, None))
            continue
        flat = np.flatnonzero(lo >= hi)
        if flat.size:
            out.append(
                f"rectangle {int(flat[0])} has empty {axis}-extent [{float(lo[flat[0]])!r}, "
                f"{float(hi[flat[0]])!r}] (every rectangle needs positive width and height)"
            )
        u = np.unique(np.concatenate([lo, hi, [b0, b1]]))
        ranks.append((np.searchsorted(u, lo), np.searchsorted(u, hi), len(u) - 1, u))
    if out:
        return out
    (rx0, rx1, ax, ux), (ry0, ry1, ay, uy) = ranks
    # Tiling is invariant under monotone maps of each axis: check it exactly on integer ranks.
    # Sweep the vertical lines: crossing line c at height y, the number of rectangles covering
    # (x, y) grows by the left edges at c covering y and drops by the right edges. The box's left
    # side counts as a right edge and its right side as a left edge, so every rectangle set that
    # covers each point of the box exactly once (a tiling) has net change 0 everywhere, and
    # conversely net change 0 everywhere makes the coverage 1 almost everywhere.
    m = len(rx0)
    c = np.concatenate([rx0, rx0, rx1, rx1, [0, 0, ax, ax]])
    y = np.concatenate([ry0, ry1, ry0, ry1, [0, ay, 0, ay]])
    delta = np.concatenate([np.ones(m), -np.ones(m), -np.ones(m), np.ones(m), [-1, 1, 1, -1]])
    keys, inv = np.unique(c * (ay + 1) + y, return_inverse=True)
    net = np.rint(np.bincount(inv.reshape(-1), weights=delta)).astype(np.int64)
    line = keys // (ay + 1)
    running = np.cumsum(net)
    start = np.flatnonzero(np.r_[True, line[1:] != line[:-1]])
    running -= np.repeat(np.r_[0, running[start[1:] - 1]], np.diff(np.r_[start, len(keys)]))
    bad = np.flatnonzero(running != 0)
    if bad.size:
        t = int(bad[0])
        xc = float(ux[line[t]]) if ux is not None else (bx0 if line[t] == 0 else bx1)
        ya = float(uy[keys[t] % (ay + 1)]) if uy is not None else by0
        yb = float(uy[keys[t + 1] % (ay + 1)]) if uy is not None else by1
        how = "overlap" if running[t] > 0 else "leave a gap"
        out.append(
            f"the rectangles do not tile the box: they {how} just right of x = {xc!r}, "
            f"for y in [{ya!r}, {yb!r}]"
        )
    return out


def verify_rectangles(
    instance: GpsRectanglesInstance, labels: ArrayLike, rectangles: Any, *, strict: bool = True
) -> Verification:
    """Verify a labelled rectangle partition (the core of :func:`verify` for this problem).

    Checks that ``rectangles`` (``(x0, y0, x1, y1)`` per label id) tile the bounding box, that
    every point lies in its labelled rectangle and in no other (closed) rectangle, and that every
    rectangle weighs at least ``k``. The cost is the heaviest rectangle's weight.

    Notes
    -----
    The tiling is checked exactly on integer ranks of the edge coordinates: every rectangle
    inside the box with positive extents, then a vectorized sweep over the vertical edge lines
    (sorted events, group-wise prefix sums) showing that crossing any line leaves the number of
    rectangles covering every height unchanged, the box's own sides included. This holds iff the
    rectangles cover the box once almost everywhere, i.e. iff their interiors are pairwise
    disjoint and their areas sum to the box's; O(R log R) for R rectangles. Given a tiling, a
    point lies in no other closed rectangle iff in each dimension it is strictly inside its
    rectangle or on a side that is part of the box's boundary: O(n).
    """
    checked = _rectangle_input(instance, labels, rectangles)
    if isinstance(checked, str):
        return finish_verification([checked], None, strict)
    lab, rects = checked
    tiling = _tiling_violations(instance, rects)
    violations = list(tiling)
    own = rects[lab]
    px, py = instance.points[:, 0], instance.points[:, 1]
    outside = np.flatnonzero(
        (px < own[:, 0]) | (px > own[:, 2]) | (py < own[:, 1]) | (py > own[:, 3])
    )
    for p in outside[:3]:
        violations.append(
            f"point {int(p)} {tuple(instance.points[p].tolist())} is not in its rectangle "
            f"{int(lab[p])} {tuple(own[p].tolist())}"
        )
    if len(outside) > 3:
        violations.append(f"... {len(outside) - 3} more points lie outside their rectangles")
    if not tiling and not len(outside):
        violations += _shared_edge_violations(instance, lab, own)
    weight = rectangle_weights(instance, lab, rects.shape[0])
    light = np.flatnonzero(weight < instance.k)
    for r in light[:5]:
        violations.append(f"rectangle {int(r)} weighs {int(weight[r])}, less than k={instance.k}")
    if len(light) > 5:
        violations.append(f"... {len(light) - 5} more rectangles weigh less than k")
    return finish_verification(violations, weight.max(), strict)


def _rectangle_input(
    instance: GpsRectanglesInstance, labels: ArrayLike, rectangles: Any
) -> tuple[np.ndarray, np.ndarray] | str:
    """``(labels, rectangles)`` as int64 and float64 arrays, or what is wrong with them."""
    lab = np.asarray(labels)
    if lab.shape != (instance.n,) or not np.issubdtype(lab.dtype, np.integer):
        return (
            f"labels must be integers, one per point ({instance.n}), got shape {lab.shape} "
            f"and dtype {lab.dtype}"
        )
    try:
        rects = np.asarray(rectangles, dtype=np.float64)
    except (TypeError, ValueError):
        rects = np.empty((0,))
    if rects.ndim != 2 or rects.shape[1] != 4 or rects.shape[0] == 0:
        return f"rectangles must be a non-empty list of (x0, y0, x1, y1), got shape {rects.shape}"
    if not np.isfinite(rects).all():
        return "rectangle coordinates must be finite"
    lab = lab.astype(np.int64)
    bad = np.flatnonzero((lab < 0) | (lab >= rects.shape[0]))
    if bad.size:
        return (
            f"point {int(bad[0])} has label {int(lab[bad[0]])}, not a rectangle id in "
            f"[0, {rects.shape[0]})"
        )
    return lab, rects


def _shared_edge_violations(
    instance: GpsRectanglesInstance, labels: np.ndarray, own: np.ndarray
) -> list[str]:
    """Points on an edge their rectangle shares with another one (given a tiling that holds
    every point in its own rectangle): in each dimension a point must be strictly inside its
    rectangle or on a side that is part of the box's boundary."""
    bx0, by0, bx1, by1 = instance.box
    px, py = instance.points[:, 0], instance.points[:, 1]

    def clear(v: np.ndarray, lo: np.ndarray, hi: np.ndarray, b0: float, b1: float) -> np.ndarray:
        return ((lo < v) & (v < hi)) | ((v == lo) & (lo == b0)) | ((v == hi) & (hi == b1))

    shared = np.flatnonzero(
        ~clear(px, own[:, 0], own[:, 2], bx0, bx1) | ~clear(py, own[:, 1], own[:, 3], by0, by1)
    )
    out = [
        f"point {int(p)} {tuple(instance.points[p].tolist())} lies on an edge its "
        f"rectangle {int(labels[p])} shares with another rectangle (edges between "
        "rectangles must pass between points)"
        for p in shared[:3]
    ]
    if len(shared) > 3:
        out.append(f"... {len(shared) - 3} more points lie on shared edges")
    return out


@verify.register
def _verify_gps(
    instance: GpsRectanglesInstance, solution: Any, *, strict: bool = True
) -> Verification:
    """Check a :class:`Solution` whose ``info["rectangles"]`` lists ``(x0, y0, x1, y1)`` per
    label id; see :func:`verify_rectangles`. Labels alone cannot be checked (no geometry)."""
    labels, violations = _labels_of(solution, instance.n)
    if labels is None:
        return finish_verification(violations, None, strict)
    rects = solution.info.get("rectangles") if isinstance(solution, Solution) else None
    if rects is None:
        violations.append(
            "a gps-rectangles solution must carry its rectangles in Solution.info['rectangles'] "
            "((x0, y0, x1, y1) per label id); labels alone cannot be verified"
        )
        return finish_verification(violations, None, strict)
    return verify_rectangles(instance, labels, rects, strict=strict)


# ---------------------------------------------------------------------------------------------
# lower bound
# ---------------------------------------------------------------------------------------------
def gps_lower_bound(instance: GpsRectanglesInstance) -> tuple[int, str]:
    """``(value, source)``: ``max(k, max_p w_p, ceil(W / floor(W / k)))`` and its best term."""
    k, total = instance.k, instance.total_weight
    terms = {"k": k, "max-weight": instance.max_weight, "part-count": -(-total // (total // k))}
    source = max(terms, key=lambda name: terms[name])
    return int(terms[source]), source


@lower_bound.register
def _lower_bound_gps(instance: GpsRectanglesInstance) -> tuple[float, str]:
    value, source = gps_lower_bound(instance)
    return float(value), source


#: former name, kept so that existing code keeps working
RectanglePartitionInstance = GpsRectanglesInstance
