"""What docs/protocols/framing.md tells a device maker, checked on the host's driver.

Each test is one answer of the page: the `ACK`'s SEQ is hex, a power-on `IDN` is only a
reply (no event), and why a device may not number an `ACK` while its own frame waits.
"""

from __future__ import annotations

import pytest
from cards_golden import independent_crc16

from drivers.flf1.card_reader import CardReaderDriver
from floord.contract import EventType
from floord.events import DeviceEvent, DeviceReply, Outgoing
from floord.profiles import load_profile

pytestmark = pytest.mark.unit

READER = load_profile("ref-card-reader")
IDN = "IDN|floord reference|ref-card-reader|CR-000123|1.4.2|-"


def frame(seq: int, body: str) -> bytes:
    text = f"{seq:02X}|{body}".encode()
    return b"\x02" + text + b"\x03" + f"{independent_crc16(text):04X}".encode() + b"\r\n"


def errors(outputs: list) -> list[str]:
    return [
        o.data["reason"]
        for o in outputs
        if isinstance(o, DeviceEvent) and o.type == EventType.DEVICE_PROTOCOL_ERROR
    ]


def test_the_host_acknowledges_with_the_seq_in_two_upper_case_hex_digits() -> None:
    driver = CardReaderDriver(READER)
    driver.feed(frame(0x09, "HBT"), 0.0)
    assert driver.feed(frame(0x0A, "HBT"), 0.1) == [Outgoing(frame(1, "ACK|0A"))]
    assert driver.feed(frame(0x0B, "HBT"), 0.2) == [Outgoing(frame(2, "ACK|0B"))]


def test_a_device_ack_in_decimal_or_lower_case_is_a_bad_form() -> None:
    driver = CardReaderDriver(READER)
    driver.feed(frame(0, "HBT"), 0.0)
    for seq, ack in ((1, "ACK|7"), (1, "ACK|0a")):
        out = driver.feed(frame(seq, ack), 0.1)
        assert errors(out) and "ACK: a SEQ of 2 upper-case hex digits" in errors(out)[0]
    assert errors(driver.feed(frame(1, "ACK|0A"), 0.2)) == []


def test_a_power_on_idn_is_acknowledged_and_gives_no_event() -> None:
    driver = CardReaderDriver(READER)
    out = driver.feed(frame(0, IDN), 0.0)
    assert out == [Outgoing(frame(0, "ACK|00")), DeviceReply(prefix="IDN", text=IDN)]
    assert not [o for o in out if isinstance(o, DeviceEvent)]


def test_an_ack_numbered_while_a_frame_waits_makes_its_resend_254_frames_lost() -> None:
    driver = CardReaderDriver(READER)
    driver.feed(frame(4, "HBT"), 0.0)
    driver.feed(frame(5, "PEK|N"), 0.1)  # the host's ACK|05 is lost on the way
    driver.feed(frame(6, "ACK|00"), 0.2)  # the device acknowledges a host frame: SEQ 06
    resend = driver.feed(frame(5, "PEK|N"), 0.3)  # then resends its frame 05
    assert errors(resend) == ["254 frame(s) lost: SEQ 05 after 06"]
    # Stop and wait instead: the ACK it owes goes after its frame is acknowledged.
    driver = CardReaderDriver(READER)
    driver.feed(frame(4, "HBT"), 0.0)
    driver.feed(frame(5, "PEK|N"), 0.1)
    repeat = driver.feed(frame(5, "PEK|N"), 0.3)
    assert errors(repeat) == [] and not [o for o in repeat if isinstance(o, DeviceEvent)]
    assert errors(driver.feed(frame(6, "ACK|00"), 0.4)) == []
