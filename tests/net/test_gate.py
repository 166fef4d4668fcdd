"""The budget of connections not yet through their handshake (net.gate): no IO, the clock is ours."""

from __future__ import annotations

import pytest

from quackbox.net.gate import Gate


def test_a_newcomer_is_never_refused_one_address_crowds_out_only_itself():
    gate = Gate(total=10, per_address=3)
    assert gate.arrived("friend", "127.0.0.1", 0.0) == ()
    for i in range(3):
        assert gate.arrived(("flood", i), "127.0.0.9", 1.0 + i) == ()
    # Past its own budget the flood's oldest makes way, never the friend's older connection.
    assert gate.arrived(("flood", 3), "127.0.0.9", 5.0) == (("flood", 0),)
    assert gate.arrived(("flood", 4), "127.0.0.9", 6.0) == (("flood", 1),)
    assert "friend" in gate and gate.from_address("127.0.0.9") == 3 and len(gate) == 4


def test_past_the_total_the_address_holding_the_most_makes_way():
    gate = Gate(total=4, per_address=3)
    gate.arrived("a1", "10.0.0.1", 0.0)
    gate.arrived("b1", "10.0.0.2", 1.0)
    gate.arrived("b2", "10.0.0.2", 2.0)
    gate.arrived("c1", "10.0.0.3", 3.0)
    # Full: the newcomer from a fourth address pushes out b's oldest, though a1 waited longer.
    assert gate.arrived("d1", "10.0.0.4", 4.0) == ("b1",)
    # Now every address holds one: the one whose connection waited longest goes.
    assert gate.arrived("e1", "10.0.0.5", 5.0) == ("a1",)
    assert list(gate) == ["b2", "c1", "d1", "e1"]


def test_a_connection_at_work_makes_way_after_the_silent_ones_of_its_crowd():
    gate = Gate(total=10, per_address=3)
    gate.arrived("friend", "127.0.0.1", 0.0)
    gate.progressed("friend")  # its client spoke: a whole request, a key exchange
    gate.arrived("silent1", "127.0.0.1", 1.0)
    gate.arrived("silent2", "127.0.0.1", 2.0)
    assert gate.arrived("silent3", "127.0.0.1", 3.0) == ("silent1",)
    assert gate.arrived("silent4", "127.0.0.1", 4.0) == ("silent2",)
    # Only when every other has progressed too does the oldest go, whatever it did.
    gate.progressed("silent3")
    gate.progressed("silent4")
    assert gate.arrived("late", "127.0.0.1", 5.0) == ("friend",)


def test_through_and_left_free_their_place():
    gate = Gate(total=2, per_address=2)
    gate.arrived("a", "127.0.0.1", 0.0)
    gate.arrived("b", "127.0.0.1", 1.0)
    gate.through("a")
    gate.left("b")
    gate.left("never-here")
    assert len(gate) == 0 and gate.from_address("127.0.0.1") == 0
    assert gate.arrived("c", "127.0.0.1", 2.0) == () and gate.arrived("d", "127.0.0.1", 3.0) == ()


def test_coming_back_to_wait_counts_from_then():
    gate = Gate(total=5, per_address=5, deadline=10.0)
    gate.arrived("a", "127.0.0.1", 0.0)
    gate.arrived("b", "127.0.0.1", 1.0)
    gate.through("a")
    gate.arrived("a", "127.0.0.1", 20.0)  # its session ended: it waits again, from now
    assert gate.overdue(15.0) == ["b"]
    assert gate.next_deadline() == 30.0 and gate.overdue(29.9) == [] and gate.overdue(30.0) == ["a"]


def test_a_connection_waiting_past_its_deadline_is_overdue_once():
    gate = Gate(total=5, per_address=5, deadline=10.0)
    assert gate.next_deadline() is None
    gate.arrived("idle", "127.0.0.2", 0.0)
    gate.arrived("quick", "127.0.0.3", 1.0)
    gate.through("quick")
    assert gate.next_deadline() == 10.0
    assert gate.overdue(9.9) == []
    assert gate.overdue(10.0) == ["idle"] and gate.overdue(11.0) == [] and gate.next_deadline() is None


def test_without_a_deadline_nothing_is_overdue():
    gate = Gate(total=5, per_address=5)
    gate.arrived("a", "127.0.0.1", 0.0)
    assert gate.overdue(1e9) == [] and gate.next_deadline() is None


def test_a_flood_never_holds_more_than_the_budget():
    gate = Gate(total=50, per_address=8)
    for i in range(5000):
        gate.arrived(i, f"127.0.{i % 13}.1", float(i))
        assert len(gate) <= 50 and all(gate.from_address(f"127.0.{a}.1") <= 8 for a in range(13))
    assert len(gate) == 50


def test_a_gate_lets_at_least_one_wait():
    with pytest.raises(ValueError):
        Gate(total=0, per_address=1)
