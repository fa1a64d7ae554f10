"""The compact model (exact/kanonymity/compact_lp.py): its closed boxes are every closed box of at
least k copies, checked against a node-by-node brute force; its relaxation's value is the LP over
every group, and its prices are dual feasible and carry the whole value."""

from time import perf_counter

import numpy as np
import pytest
from bruteforce import kanonymity_dual_feasible, kanonymity_full_lp, small_kanonymity_instances
from hypothesis import given, settings

from anonratio.exact.kanonymity.box_pricing import BoxLattice
from anonratio.exact.kanonymity.compact_lp import closed_boxes, compact_lp

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True)

instances = small_kanonymity_instances(8, deletion=True)


def _brute_closed_boxes(lattice):
    """Every (node, member set) whose records share the node's values, hold k copies, and share
    no lower node's values (a lower node's box would hold the same records)."""
    unique, _, counts = lattice.instance.unique_records
    hs = lattice.instance.hierarchies
    found = set()
    for node in lattice.nodes:
        generalized = [tuple(hs[j].groups[r[j], node[j]] for j in range(len(hs))) for r in unique]
        for value in set(generalized):
            members = tuple(i for i, g in enumerate(generalized) if g == value)
            if counts[list(members)].sum() < lattice.k:
                continue
            lowers = [j for j, level in enumerate(node) if level > 0]
            if any(
                len({hs[j].groups[unique[i][j], node[j] - 1] for i in members}) == 1 for j in lowers
            ):
                continue
            found.add((tuple(node), members))
    return found


def _as_set(lattice, found):
    boxes = {}
    for record, box in zip(found.record, found.box, strict=True):
        boxes.setdefault(int(box), []).append(int(record))
    return {
        (tuple(lattice.nodes[found.node[b]]), tuple(sorted(members)))
        for b, members in boxes.items()
    }


@SETTINGS
@given(inst=instances)
def test_closed_boxes_are_every_closed_box_of_k_copies(inst):
    lattice = BoxLattice(inst)
    found = closed_boxes(lattice)
    assert found is not None
    assert _as_set(lattice, found) == _brute_closed_boxes(lattice)
    assert np.allclose(found.cost, lattice.node_cost[found.node])


@SETTINGS
@given(inst=instances)
def test_the_relaxation_is_the_lp_over_every_group_and_its_prices_carry_it(inst):
    lattice = BoxLattice(inst)
    cap = inst.deletion_cost if inst.row_deletion else None
    solved = compact_lp(lattice, closed_boxes(lattice), deadline=perf_counter() + 30, cap=cap)
    assert solved is not None
    value, prices = solved
    assert value == pytest.approx(kanonymity_full_lp(inst), abs=1e-6)
    assert float(prices @ lattice.counts) == pytest.approx(value, abs=1e-6)
    kanonymity_dual_feasible(inst, prices, tol=1e-6)


def test_a_model_over_max_pairs_or_past_its_deadline_is_not_built():
    from anonratio.bench.registry import generate

    inst, _ = generate("kanon-categorical", seed=2, n=40, k=3)
    lattice = BoxLattice(inst)
    full = closed_boxes(lattice)
    assert full is not None and len(full.record) > 10
    assert closed_boxes(lattice, max_pairs=10) is None
    assert closed_boxes(lattice, deadline=perf_counter() - 1) is None
    assert compact_lp(lattice, full, deadline=perf_counter() - 1) is None
