"""core.skeleton's tree helpers on parent indices (parents first, children, descendants, the
topmost of a set) and the Euler order a joint's channels give."""

import numpy as np
import pytest

from mocap_io.core.skeleton import (
    CyclicHierarchy,
    Skeleton,
    child_lists,
    descendants,
    euler_order,
    parents_first,
    renumbered,
    topmost,
)


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
    assert child_lists([2, 0, 2], 4) == [[1], [], [0, 2], []]  # End Sites of 4 joints: none on 1 and 3


def test_topmost_joints_of_a_set_have_no_ancestor_in_it():
    # 0 <- 1 <- 2 <- 3, 1 <- 4; 5 a second root
    parents = [-1, 0, 1, 2, 1, -1]
    assert topmost(parents, {2, 3, 4, 5}) == [2, 4, 5]  # 3 hangs below 2; 4 and 5 have none above them
    assert topmost(parents, {0, 3}) == [0] and topmost(parents, set()) == []


def test_renumbered_gives_the_parents_as_positions_in_the_parents_first_order():
    parents = [-1, 2, 0, -1]
    order = parents_first(parents, "abcd")
    assert order == [0, 2, 1, 3] and renumbered(parents, order) == [-1, 0, 1, -1]


def test_the_euler_order_of_channel_names_lists_the_product_left_to_right():
    assert euler_order(("Xposition", "Yposition", "Zposition", "Zrotation", "Xrotation", "Yrotation")) == "ZXY"
    assert euler_order(("Yrotation",)) == "YXZ"  # axes without a channel after it, in XYZ order
    assert euler_order(("Xrotation", "Zrotation", "Xposition")) == "XZY"
    assert euler_order(()) == "XYZ" and euler_order(("Xposition",), default="ZXY") == "ZXY"


def test_an_asf_dof_list_names_the_rotations_as_they_apply_so_the_product_in_reverse():
    assert euler_order(("rx", "ry", "rz")) == "ZYX"  # rx applied first: R = Rz @ Ry @ Rx
    assert euler_order(("TX", "TY", "TZ", "RZ", "RY", "RX")) == "XYZ"  # the root's order, upper case
    assert euler_order(("ry", "l", "tx")) == "YXZ" and euler_order(("tx", "l")) == "XYZ"


def test_a_skeleton_gives_every_joint_its_order_from_its_channels():
    skeleton = Skeleton(
        "abc", [-1, 0, 1], np.zeros((3, 3)), channels=[("Xposition", "Zrotation", "Yrotation"), ("rx", "rz"), ()]
    )
    assert skeleton.euler_orders() == ["ZYX", "ZXY", "XYZ"]
    assert skeleton.euler_orders(default="ZXY")[2] == "ZXY"
