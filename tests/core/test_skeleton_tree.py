"""core.skeleton's tree helpers on parent indices: parents first, children, descendants."""

import pytest

from mocap_io.core.skeleton import CyclicHierarchy, child_lists, descendants, parents_first


def test_parents_first_keeps_the_given_order_where_it_can():
    # 0 <- 2 <- 1, 3 a root: 1 must wait for 2; among the ready joints the first listed comes first
    assert parents_first([-1, 2, 0, -1], "abcd") == [0, 2, 1, 3]


def test_a_cycle_is_named_from_its_first_joint_left_out_and_cut_short():
    with pytest.raises(CyclicHierarchy, match=r"cyclic hierarchy: b -> c -> b \(each is the parent") as info:
        parents_first([-1, 2, 1, 1], "abcd")
    assert info.value.loop == [1, 2]
    names = [f"{'x' * 50}{j}" for j in range(100)]
    with pytest.raises(CyclicHierarchy) as info:
        parents_first([99, *range(99)], names)
    assert f"{'x' * 40} -> " in str(info.value) and len(str(info.value)) < 260


def test_children_and_descendants():
    children = child_lists([-1, 0, 1, 0, 3, -1])
    assert children == [[1, 3], [2], [], [4], [], []]
    assert sorted(descendants(children, 0)) == [0, 1, 2, 3, 4]
    assert descendants(children, 5) == [5]
