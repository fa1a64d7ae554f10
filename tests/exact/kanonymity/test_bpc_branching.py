"""The Ryan–Foster decisions of kanon-bpc: which groups respect them, the classes they bind,
and a node's inheritance of its parent's."""

import numpy as np

from anonratio.exact.kanonymity.bpc_branching import (
    Decisions,
    classes,
    compatible,
    violates_class,
)

GROUPS = np.array(
    [
        [0, 1, 2, -1],  # 0 and 1 together
        [0, 3, -1, -1],  # 0 without 1
        [1, 3, 4, -1],  # 1 without 0
        [2, 3, 4, 4],  # neither (4 twice: two copies)
    ]
)


def test_same_keeps_both_or_neither():
    assert compatible(GROUPS, [(0, 1, True)]).tolist() == [True, False, False, True]


def test_differ_drops_the_groups_holding_both():
    assert compatible(GROUPS, [(0, 1, False)]).tolist() == [False, True, True, True]


def test_decisions_combine():
    assert compatible(GROUPS, [(0, 1, False), (3, 4, True)]).tolist() == [False, False, True, True]


def test_classes_join_chains_of_same():
    decided = [(0, 1, True), (1, 5, True), (2, 3, False), (6, 7, True)]
    assert classes(decided) == [(0, 1, 5), (6, 7)]


def test_artificial_columns_of_a_class():
    decided = [(0, 1, True), (2, 3, False)]
    assert violates_class((0,), decided)  # 0 alone, apart from 1
    assert not violates_class((0, 1), decided)
    assert violates_class((2, 3), decided)
    assert not violates_class((4,), decided)


class _Node:
    def __init__(self, number, parent=None):
        self.number, self.parent = number, parent

    def getNumber(self):
        return self.number

    def getParent(self):
        return self.parent


def test_a_node_without_decisions_of_its_own_inherits_its_parents():
    root = _Node(1)
    child = _Node(2, root)
    grandchild = _Node(5, child)  # made by a branching on a column's bound
    decisions = Decisions()
    decisions.set(child, ((0, 1, True),))
    assert decisions.at(root) == ()
    assert decisions.at(grandchild) == ((0, 1, True),)
