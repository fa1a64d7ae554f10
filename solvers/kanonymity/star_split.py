"""Splitting a star of small branches around a real centre (Aggarwal et al. 2005, §4.2).

DECOMPOSE-COMPONENT's cases C and D, and the *peel* that replaces them where the literal step
would leave a part around a Steiner centre that no split repairs (see
:mod:`anonratio.solvers.kanonymity.decompose_component`, whose driver calls :func:`split_star`
on every star it meets).
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["max_component_size", "split_star"]


def max_component_size(k: int) -> int:
    """``L = max(2k − 1, 3k − 5)``: the largest part DECOMPOSE-COMPONENT leaves."""
    return max(2 * k - 1, 3 * k - 5)


def split_star(units: int, sizes: Sequence[int], k: int) -> list[tuple[list[int], int, str | None]]:
    """Split a star into parts of ``k .. L`` real vertices, ``L = max(2k − 1, 3k − 5)``.

    The star is a centre carrying ``units >= 1`` copies and branches of ``sizes[i]`` real vertices
    (each ``1 .. k − 1``). Every part gets a set of whole branches and some of the centre's
    copies; a part with branches and no copy uses the centre as a Steiner vertex.

    Returns
    -------
    list of (branch indices, units, case)
        ``case`` is the DECOMPOSE-COMPONENT case that cut the part off (``"C"``, ``"D"``,
        ``"peel"``) or ``None`` for the part left at the end.
    """
    big = max_component_size(k)
    order = sorted(range(len(sizes)), key=lambda i: (-sizes[i], i))
    pos, total = 0, units + sum(sizes)
    pieces: list[tuple[list[int], int, str | None]] = []

    def prefix(target, spare):
        """Greedy prefix (branches by decreasing size, then spare copies) reaching ``target``."""
        j, acc = pos, 0
        while acc < target and j < len(order):
            acc += sizes[order[j]]
            j += 1
        extra = min(spare, max(0, target - acc))
        return j, acc + extra, extra

    while total > big:
        spare = units - 1  # copies beyond the one that keeps the centre real
        phi = sizes[order[pos]] if pos < len(order) else (1 if spare else 0)
        if phi == k - 1:  # case C: the largest branch plus u
            if pos < len(order) and sizes[order[pos]] == k - 1:
                members, used = [order[pos]], 1
            else:  # k = 2 and the largest "branch" is a spare copy of u
                members, used = [], 2
            if units - used >= 1 or total - k <= big:
                pieces.append((members, used, "C"))
                pos += len(members)
                units -= used
                total -= k
                if units == 0:  # the rest is final, around a Steiner centre
                    pieces.append((order[pos:], 0, None))
                    return pieces
                continue
        elif phi <= k - 2:  # case D
            j, f, extra = prefix(k - 1, spare)
            rest = total - 1 - f
            if f == k - 1 or rest != k - 1:  # u joins the first part
                rest_units = units - 1 - extra
                if rest_units >= 1 or rest <= big:
                    pieces.append((order[pos:j], extra + 1, "D"))
                    pos, units, total = j, rest_units, rest
                    if units == 0:
                        pieces.append((order[pos:], 0, None))
                        return pieces
                    continue
            else:  # u joins the rest, which then holds exactly k: both parts are final
                pieces.append((order[pos:j], extra, "D"))
                pieces.append((order[j:], units - extra, None))
                return pieces
        # peel: branches (and spare copies) of k .. 2k - 2 real vertices; u stays real. Only
        # reached when total > L + k, so the rest keeps at least k.
        j, p, extra = prefix(k, spare)
        if not k <= p <= total - k:  # pragma: no cover - excluded by the module notes
            raise RuntimeError("no admissible split of a star; please report this instance")
        pieces.append((order[pos:j], extra, "peel"))
        pos, units, total = j, units - extra, total - p
    pieces.append((order[pos:], units, None))
    return pieces
