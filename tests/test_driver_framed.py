"""FLF/1, the link every card device shares (docs/protocols/framing.md), host side.

Golden cases in tests/golden/cards/framing.txt (format in tests/cards_golden.py) run
whole, split at every byte and byte by byte; the checksums in them are checked against
an independent CRC. The rest checks the codec, the profile's quirks, the commands and
the sequence counters directly.
"""

from __future__ import annotations

import pytest
from cards_golden import (
    CRC16_CHECK_VALUES,
    XOR8_CHECK_VALUES,
    Case,
    cases_of,
    check_golden,
    check_golden_checksums,
    independent_crc16,
    independent_xor8,
)

from drivers.flf1 import card_reader, card_shuffler, dealing_shoe
from drivers.flf1.card_reader import CardReaderDriver
from drivers.flf1.codec import (
    FrameError,
    crc16_ccitt_false,
    decode_frame,
    encode_frame,
    xor8,
)
from drivers.text import escape_raw
from floord.contract import EventType
from floord.events import DeviceCommand, DeviceEvent, Outgoing, Request
from floord.profiles import load_profile

pytestmark = pytest.mark.unit

CASES = cases_of("framing")
READER = load_profile("ref-card-reader")


def with_quirks(**quirks):
    return READER.model_copy(update={"quirks": {**READER.quirks, **quirks}})


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_golden_case(case: Case) -> None:
    check_golden(case)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_golden_checksums_are_right(case: Case) -> None:
    check_golden_checksums(case)


def test_golden_file_holds_the_link_cases() -> None:
    names = {case.name for case in CASES}
    assert len(names) == len(CASES)
    assert {
        "repeat_is_acked_again_not_reported",
        "lost_frames_reported_and_accepted",
        "bad_checksum_not_acked",
        "garbage_then_frames",
        "stx_inside_a_frame_starts_a_new_one",
        "overlong_frame_skipped_to_next_stx",
        "xor8_checksum",
    } <= names


@pytest.mark.parametrize(("data", "value"), sorted(CRC16_CHECK_VALUES.items()))
def test_crc16_check_values(data: bytes, value: int) -> None:
    assert crc16_ccitt_false(data) == value
    assert independent_crc16(data) == value


@pytest.mark.parametrize(("data", "value"), sorted(XOR8_CHECK_VALUES.items()))
def test_xor8_check_values(data: bytes, value: int) -> None:
    assert xor8(data) == value
    assert independent_xor8(data) == value


def test_driver_crc_agrees_with_the_independent_one() -> None:
    samples = [bytes(range(n)) for n in range(0, 256, 17)] + [b"07|HBT", b"\xff" * 300]
    for data in samples:
        assert crc16_ccitt_false(data) == independent_crc16(data)


def test_encode_decode_round_trip() -> None:
    raw = encode_frame(0x07, "HBT", (), "crc16-ccitt")
    assert raw == b"\x0207|HBT\x03" + f"{independent_crc16(b'07|HBT'):04X}".encode() + b"\r\n"
    frame = decode_frame(encode_frame(0xAB, "FLT", ("10", "a b"), "xor8"), "xor8")
    assert (frame.seq, frame.type, frame.fields, frame.text) == (
        0xAB,
        "FLT",
        ("10", "a b"),
        "FLT|10|a b",
    )


@pytest.mark.parametrize(
    ("seq", "kind", "fields"),
    [(256, "HBT", ()), (-1, "HBT", ()), (0, "hbt", ()), (0, "FLT", ("a|b",))],
)
def test_encode_refuses_what_the_page_forbids(seq: int, kind: str, fields: tuple[str, ...]) -> None:
    with pytest.raises(ValueError):
        encode_frame(seq, kind, fields, "crc16-ccitt")


def test_decode_without_etx_is_an_error() -> None:
    with pytest.raises(FrameError):
        decode_frame(b"\x0200|HBT", "crc16-ccitt")


def test_escape_raw_is_short_and_printable() -> None:
    text = escape_raw(bytes(range(256)) * 2)
    assert len(text) <= 80 and text.isprintable()
    assert escape_raw(b"\\\r\n\t\x02") == "\\\\\\r\\n\\t\\x02"


def test_drivers_are_exported() -> None:
    assert card_reader.DRIVER is CardReaderDriver
    assert dealing_shoe.DRIVER.FAMILY == "dealing_shoe"
    assert card_shuffler.DRIVER.FAMILY == "card_shuffler"


# ----- quirks -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("checksum", "crc32"),
        ("checksum", 16),
        ("ack_timeout_s", "0.5"),
        ("ack_timeout_s", 0),
        ("ack_timeout_s", True),
        ("heartbeat_s", -1.0),
        ("max_resends", 1.5),
        ("max_resends", -1),
        ("max_resends", False),
        ("max_frame_length", 8),
        ("max_frame_length", "256"),
        ("fault_codes", [10, 11]),
        ("fault_codes", {}),
        ("fault_codes", {"10": "hardware fault"}),
        ("fault_codes", {10: ""}),
        ("tamper_codes", {1: 5}),
        ("tamper_codes", {True: "case opened"}),
        ("exposes_value", "yes"),
        ("exposes_value", 1),
    ],
)
def test_ill_typed_quirk_is_named(key: str, value: object) -> None:
    with pytest.raises(ValueError, match=rf"quirks\.{key}"):
        CardReaderDriver(with_quirks(**{key: value}))


@pytest.mark.parametrize("key", ["recognition", "continuous", "max_line_length", "checksums"])
def test_unknown_quirk_is_named(key: str) -> None:
    with pytest.raises(ValueError, match=rf"quirks\.{key}: unknown quirk"):
        CardReaderDriver(with_quirks(**{key: True}))


def test_defaults_follow_the_page() -> None:
    driver = CardReaderDriver(READER.model_copy(update={"quirks": {}}))
    quirks = driver.quirks
    assert (quirks.checksum, quirks.ack_timeout_s, quirks.max_resends) == ("crc16-ccitt", 0.5, 3)
    assert (quirks.heartbeat_s, quirks.max_frame_length) == (1.0, 256)
    assert quirks.flags == {"exposes_value": False}
    assert quirks.fault_codes[13] == "card jammed in the reader"
    assert quirks.tamper_codes[3] == "magnet or foreign object"


def test_a_profile_of_another_family_is_refused() -> None:
    with pytest.raises(ValueError, match="dealing_shoe"):
        CardReaderDriver(load_profile("ref-shoe-manual"))


# ----- commands and counters ------------------------------------------------------------


def host(seq: int, body: str) -> bytes:
    text = f"{seq:02X}|{body}".encode()
    return b"\x02" + text + b"\x03" + f"{independent_crc16(text):04X}".encode() + b"\r\n"


device = host  # both sides frame alike; the name says who sends


def test_commands_are_numbered_with_the_acks() -> None:
    driver = CardReaderDriver(READER)
    [identify] = driver.handshake()
    assert identify == Request("identify", host(0, "IDQ"), "IDN", READER.timeouts.reply_s)
    assert driver.feed(device(0x10, "HBT"), 0.0) == [Outgoing(host(1, "ACK|10"))]
    test = driver.encode(DeviceCommand("reader", "self_test"))
    assert test == Request("self_test", host(2, "TST"), "TSR", READER.timeouts.reply_s)


def test_reply_timeout_follows_the_profile() -> None:
    timeouts = READER.timeouts.model_copy(update={"reply_s": 7.5})
    driver = CardReaderDriver(READER.model_copy(update={"timeouts": timeouts}))
    assert driver.encode(DeviceCommand("r", "self_test")).timeout_s == 7.5


def test_unknown_command_lists_the_known() -> None:
    driver = CardReaderDriver(READER)
    with pytest.raises(ValueError, match="identify, self_test"):
        driver.encode(DeviceCommand("reader", "respin"))
    with pytest.raises(ValueError, match="no arguments"):
        driver.encode(DeviceCommand("reader", "identify", {"x": 1}))


def test_host_counter_wraps() -> None:
    driver = CardReaderDriver(READER)
    for _ in range(255):
        driver.encode(DeviceCommand("reader", "identify"))
    assert driver.encode(DeviceCommand("reader", "identify")).payload == host(0xFF, "IDQ")
    assert driver.encode(DeviceCommand("reader", "identify")).payload == host(0x00, "IDQ")


def test_reset_forgets_buffers_and_both_counters() -> None:
    driver = CardReaderDriver(READER)
    driver.feed(device(0, "HBT") + device(1, "HBT") + b"\x0202|PE", 0.0)
    driver.reset()
    # A new link: no half frame, host numbering from 00, any device SEQ accepted first.
    assert driver.feed(device(0x30, "PEK|N"), 5.0) == [
        Outgoing(host(0, "ACK|30")),
        DeviceEvent(EventType.READER_PEEK, {"blackjack": False, "hole_card": None}),
    ]


def test_reset_forgets_the_heartbeat_clock() -> None:
    driver = CardReaderDriver(READER)
    driver.feed(device(0, "HBT"), 0.0)
    driver.reset()
    assert driver.feed(device(0, "HBT"), 100.0) == [Outgoing(host(0, "ACK|00"))]


def test_bad_checksum_then_resend_after_the_device_gave_up() -> None:
    # The device resends a refused frame, gives it up and says so with FLT 90: the host
    # reports the gap in the numbering and the link report, which is no device fault.
    driver = CardReaderDriver(READER)
    driver.feed(device(0, "HBT"), 0.0)
    bad = device(1, "PEK|N")[:-6] + b"0000\r\n"
    outputs = driver.feed(bad * 4 + device(2, "FLT|90|link: frame not acknowledged"), 0.5)
    reasons = [
        o.data["reason"].split(":")[0]
        for o in outputs
        if isinstance(o, DeviceEvent) and o.type == EventType.DEVICE_PROTOCOL_ERROR
    ]
    assert reasons == ["checksum mismatch"] * 4 + [
        "1 frame(s) lost",
        "the device gave up a frame that was not acknowledged (FLT 90)",
    ]
    assert outputs[-2] == Outgoing(host(1, "ACK|02"))
    assert not [o for o in outputs if getattr(o, "type", None) == EventType.DEVICE_FAULT]
