"""Retained `P/state` and `P/devices/<d>` go out at once when the table's state changed,
and, when only the chain head or a device's clock moved, at most about once a second
(`P/state`) or once in five seconds (a device's `last_heard`)
(`floord.mqtt.retained`, docs/contract.md)."""

from __future__ import annotations

import json

import pytest

from floord.mqtt.retained import DEVICE_CLOCK_EVERY_S, RETAINED_EVERY_S, RetainedPacer

pytestmark = pytest.mark.unit


def text(body: dict) -> str:
    return json.dumps(body, separators=(",", ":"))


class Clock:
    """The pacer's clock, moved only by the test: exact moments, no wall-clock waits."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_change_of_state_goes_out_at_once_a_moved_head_waits_its_turn() -> None:
    clock = Clock()
    pacer = RetainedPacer(every=0.2, clock=clock)
    state = {
        "state": "open",
        "chain": {"seq": 1, "hash": "a"},
        "devices": {"w": {"last_seen": "1"}},
    }
    assert pacer.due("P/state", state, text) is not None
    pacer.sent("P/state", text(state))
    assert None is pacer.due("P/state", state, text)  # the same body: never again
    assert pacer.wait_s() is None

    moved = {**state, "chain": {"seq": 2, "hash": "b"}, "devices": {"w": {"last_seen": "2"}}}
    clock.now += 0.05
    assert None is pacer.due("P/state", moved, text)  # only the head and a clock
    assert pacer.wait_s() == pytest.approx(0.15)
    until = pacer.held_until()  # the same moment, as the link's one timer is armed for it
    assert until == pytest.approx(clock.now + 0.15)
    clock.now += 0.1
    assert None is pacer.due("P/state", moved, text)  # held again: the moment stays
    assert pacer.held_until() == until

    halted = {**moved, "state": "halted"}
    assert pacer.due("P/state", halted, text) is not None  # a change of state: at once
    pacer.sent("P/state", text(halted))
    assert pacer.wait_s() is None and pacer.held_until() is None

    later = {**halted, "chain": {"seq": 3, "hash": "c"}}
    clock.now += 0.19
    assert None is pacer.due("P/state", later, text)
    clock.now += 0.02
    assert pacer.due("P/state", later, text) is not None  # its second is up


def test_a_device_body_whose_last_heard_moved_waits_and_a_new_connection_sends_all() -> None:
    pacer = RetainedPacer(every=60)
    body = {"device": "w", "online": True, "last_heard": "t1"}
    pacer.sent("P/devices/w", text(body))
    heard = {**body, "last_heard": "t2"}
    assert None is pacer.due("P/devices/w", heard, text)
    offline = {**heard, "online": False}
    assert pacer.due("P/devices/w", offline, text) is not None
    pacer.reset()
    assert pacer.due("P/devices/w", heard, text) is not None


def test_a_body_held_back_or_unchanged_is_not_encoded() -> None:
    pacer = RetainedPacer(every=60)
    encoded: list[dict] = []

    def counting(body: dict) -> str:
        encoded.append(body)
        return text(body)

    body = {"device": "w", "online": True, "last_heard": "t1"}
    sent = pacer.due("P/devices/w", body, counting)
    assert sent is not None
    pacer.sent("P/devices/w", sent)
    assert pacer.due("P/devices/w", body, counting) is None
    assert pacer.due("P/devices/w", {**body, "last_heard": "t2"}, counting) is None
    assert encoded == [body], "only the body that went out was encoded"


def test_a_device_clock_keeps_its_own_slower_pace_its_online_flag_none() -> None:
    clock = Clock()
    pacer = RetainedPacer(every=0.05, clock=clock)
    body = {"device": "w", "online": True, "last_heard": "t1"}
    pacer.sent("P/devices/w", text(body))
    heard = {**body, "last_heard": "t2"}
    clock.now += 0.1  # past the pacer's own pace, not the topic's
    assert None is pacer.due("P/devices/w", heard, text, 0.3)
    assert pacer.wait_s() == pytest.approx(0.2)
    offline = {**heard, "online": False}
    assert pacer.due("P/devices/w", offline, text, 0.3) is not None  # at once
    pacer.sent("P/devices/w", text(offline))
    again = {**offline, "last_heard": "t3"}
    clock.now += 0.29
    assert None is pacer.due("P/devices/w", again, text, 0.3)
    clock.now += 0.02
    assert pacer.due("P/devices/w", again, text, 0.3) is not None  # its five seconds


def test_the_link_paces_device_clocks_at_five_seconds_and_the_state_at_one() -> None:
    assert RETAINED_EVERY_S == 1.0
    assert DEVICE_CLOCK_EVERY_S == 5.0
