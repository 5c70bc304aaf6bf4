"""The keyboard-wedge shoe driver: boot report streams in, card events out, identity.

Reports are written out byte by byte here (not made by the simulator), so a bug shared
by the simulator's typing and the driver's decoding cannot hide.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.usb_shoe.hid_wedge_shoe import (
    DESCRIPTOR_MAGIC,
    DESCRIPTOR_PREFIX,
    DESCRIPTOR_QUERY,
    HidWedgeShoeDriver,
)
from floord.contract import EventType
from floord.events import DeviceCommand, DeviceEvent, DeviceReply
from floord.profiles import load_profile

pytestmark = pytest.mark.unit

PROFILE = load_profile("ref-usb-shoe")
UP = bytes(8)
SHIFT, RSHIFT, CTRL = 0x02, 0x20, 0x01
A, S, H, K, D, ONE, ZERO, ENTER, SPACE = 0x04, 0x16, 0x0B, 0x0E, 0x07, 0x1E, 0x27, 0x28, 0x2C


def key(*usages: int, mod: int = 0) -> bytes:
    return bytes([mod, 0, *usages, *([0] * (6 - len(usages)))])


def tap(usage: int, mod: int = 0) -> bytes:
    return key(usage, mod=mod) + UP


def drawn(events: list, *cards: str, first: int = 1) -> None:
    assert events == [
        DeviceEvent(EventType.SHOE_CARD_DRAWN, {"count": first + i, "card": c, "side": None})
        for i, c in enumerate(cards)
    ]


def errors(events: list) -> list[str]:
    assert all(e.type == EventType.DEVICE_PROTOCOL_ERROR for e in events), events
    return [e.data["reason"] for e in events]


def driver(**quirks: object) -> HidWedgeShoeDriver:
    profile = PROFILE.model_copy(update={"quirks": {**PROFILE.quirks, **quirks}})
    return HidWedgeShoeDriver(profile)


AS = tap(A, SHIFT) + tap(S, SHIFT) + tap(ENTER)
TEN_H = tap(ONE) + tap(ZERO) + tap(H, SHIFT) + tap(ENTER)


def test_golden_stream_gives_cards_with_a_running_count() -> None:
    d = driver()
    drawn(d.feed(AS + TEN_H + tap(K, SHIFT) + tap(D, RSHIFT) + tap(ENTER), 0.0), "AS", "TH", "KD")


def test_reports_split_anywhere_decode_the_same() -> None:
    d = driver()
    stream = AS + TEN_H
    out = []
    for i in range(0, len(stream), 3):
        out += d.feed(stream[i : i + 3], 0.0)
    drawn(out, "AS", "TH")


def test_a_held_key_types_once_and_rollover_order_is_kept() -> None:
    d = driver()
    # A down, A held while S goes down, A up with S held, all up, then Enter held twice.
    stream = key(A, mod=SHIFT) * 3 + key(A, S, mod=SHIFT) + key(S, mod=SHIFT) + UP
    stream += key(ENTER) * 4 + UP
    drawn(d.feed(stream, 0.0), "AS")


def test_a_key_typed_twice_needs_a_release_between() -> None:
    codes = {code: card for code, card in PROFILE.quirks["card_codes"].items()}
    codes["S11"] = codes.pop("AS")
    d = driver(card_codes=codes)
    held = tap(S, SHIFT) + key(ONE) + key(ONE) + UP + tap(ENTER)
    assert errors(d.feed(held, 0.0)) == ["unknown card code 'S1'"]
    drawn(d.feed(tap(S, SHIFT) + tap(ONE) + tap(ONE) + tap(ENTER), 0.0), "AS")


def test_without_shift_letters_are_lower_case_and_no_code() -> None:
    d = driver()
    assert errors(d.feed(tap(A) + tap(S) + tap(ENTER), 0.0)) == ["unknown card code 'as'"]
    assert d.feed(AS, 0.0)[0].data["count"] == 1  # an unknown code is not counted


def test_shifted_digit_and_other_keys_drop_the_line() -> None:
    d = driver()
    out = d.feed(tap(ONE, SHIFT) + tap(ZERO) + tap(H, SHIFT) + tap(ENTER), 0.0)
    assert errors(out) == ["key 0x1e (shift True) is not a letter or digit"]
    out = d.feed(tap(A, SHIFT) + tap(SPACE) + tap(S, SHIFT) + tap(ENTER), 0.0)
    assert errors(out) == ["key 0x2c (shift False) is not a letter or digit"]
    out = d.feed(tap(A, CTRL) + tap(S, SHIFT) + tap(ENTER), 0.0)
    assert errors(out) == ["key 0x04 with modifiers 0x01: only Shift types a code"]
    drawn(d.feed(AS, 0.0), "AS")


def test_rollover_report_drops_the_line_and_the_next_line_decodes() -> None:
    d = driver()
    phantom = bytes([0, 0, 1, 1, 1, 1, 1, 1])
    out = d.feed(key(A, mod=SHIFT) + phantom + UP + tap(S, SHIFT) + tap(ENTER), 0.0)
    assert out[0].data == {
        "reason": "keyboard reported rollover (too many keys down): key presses lost",
        "raw": "00 00 01 01 01 01 01 01",
    }
    assert len(out) == 1  # "S" alone is never looked up
    drawn(d.feed(TEN_H, 0.0), "TH")


def test_reserved_byte_empty_line_and_too_long_line() -> None:
    d = driver(max_line_length=3)
    assert errors(d.feed(bytes([0, 7, A, 0, 0, 0, 0, 0]), 0.0)) == [
        "reserved byte 0x07, a boot report has 0"
    ]
    assert errors(d.feed(tap(ENTER), 0.0)) == ["Enter without a card code"]
    out = d.feed(tap(A, SHIFT) * 6 + tap(ENTER), 0.0)
    assert errors(out) == ["line longer than 3 characters without Enter"]
    assert out[0].data["raw"] == "AAAA"
    drawn(d.feed(TEN_H, 0.0), "TH")


def test_reset_forgets_count_partial_line_and_held_keys() -> None:
    d = driver()
    d.feed(AS + key(K, mod=SHIFT), 0.0)
    d.reset()
    drawn(d.feed(key(K, mod=SHIFT) + UP + tap(D, SHIFT) + tap(ENTER), 0.0), "KD")


def record(**changes: object) -> bytes:
    body = {
        "id_vendor": 0x1209,
        "id_product": 0x0001,
        "bcd_device": 0x0210,
        "manufacturer": "Acme",
        "product": "Wedge Shoe",
        "serial_number": "W123",
        "interface": 0,
        "endpoint": 0x81,
        **changes,
    }
    raw = json.dumps(body).encode()
    return DESCRIPTOR_MAGIC + len(raw).to_bytes(2, "big") + raw


def identify(d: HidWedgeShoeDriver, data: bytes) -> DeviceEvent:
    replies = [r for r in d.feed(data, 0.0) if isinstance(r, DeviceReply)]
    assert len(replies) == 1
    return d.identity({"identify": replies[0]})


def test_identity_from_the_descriptor_record_between_reports() -> None:
    d = driver()
    out = d.feed(AS[:8] + record() + AS[8:], 0.0)
    assert isinstance(out[0], DeviceReply) and out[0].text.startswith(DESCRIPTOR_PREFIX)
    drawn(out[1:], "AS")
    event = d.identity({"identify": out[0]})
    assert event == DeviceEvent(
        EventType.DEVICE_IDENTIFIED,
        {
            "maker": "Acme",
            "model": "Wedge Shoe",
            "serial": "W123",
            "firmware": "2.10",
            "capabilities": ["recognition"],
        },
    )


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"id_product": 2}, "descriptor mismatch: the device has id_product 0x0002"),
        ({"endpoint": 0x82}, "descriptor mismatch: the device has endpoint 0x0082"),
        ({"product": 5}, "descriptor record: product: a string or null expected"),
        ({"extra": 1}, "descriptor record: keys"),
    ],
)
def test_identity_refuses_a_record_that_is_not_this_shoe(changes: dict, reason: str) -> None:
    event = identify(driver(), record(**changes))
    assert event.type == EventType.DEVICE_PROTOCOL_ERROR
    assert event.data["reason"].startswith(reason)


def test_identity_without_a_usable_reply() -> None:
    d = driver()
    assert d.identity({}).data["reason"] == "no descriptor record to identify"
    bad = DeviceReply(prefix=DESCRIPTOR_PREFIX, text=f"{DESCRIPTOR_PREFIX} {{nope")
    assert d.identity({"identify": bad}).data["reason"].startswith("descriptor record: JSON")


def test_commands_and_handshake() -> None:
    d = driver()
    (request,) = d.handshake()
    assert request.payload == DESCRIPTOR_QUERY
    assert request.reply_prefix == DESCRIPTOR_PREFIX
    assert request.timeout_s == PROFILE.timeouts.reply_s
    with pytest.raises(ValueError, match="unknown hid_wedge_shoe command 'self_test'"):
        d.encode(DeviceCommand(device="shoe", name="self_test"))
    with pytest.raises(ValueError, match="takes no arguments"):
        d.encode(DeviceCommand(device="shoe", name="identify", args={"x": 1}))


@pytest.mark.parametrize(
    ("quirks", "message"),
    [
        ({"colour": "red"}, "quirks.colour: unknown quirk"),
        ({"double": True}, "a wedge shoe reads cards on one side"),
        ({"endpoint": 0x01}, "quirks.endpoint: an IN endpoint"),
        ({"vendor_id": "0x1209"}, "quirks.vendor_id: an integer"),
        ({"card_codes": {"AS": "AS"}}, "each of the 52 cards once expected"),
        ({"card_codes": {**PROFILE.quirks["card_codes"], "1": "ZZ"}}, "a card (rank"),
        ({"card_codes": {**PROFILE.quirks["card_codes"], 7: "AS"}}, "a code of letters"),
        ({"max_line_length": 2}, "'10S' is longer than max_line_length"),
    ],
)
def test_bad_profile_quirks_are_refused(quirks: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        driver(**quirks)


def test_the_reference_profile_types_every_card() -> None:
    d = driver()
    cards = sorted(set(PROFILE.quirks["card_codes"].values()))
    assert len(cards) == 52
    assert d.quirks.card_codes["10C"] == "TC" and d.quirks.card_codes["QH"] == "QH"


REPORT = st.builds(
    bytes,
    st.lists(
        st.sampled_from([0, 0, 1, 2, 0x20, 0x28, 0x04, 0x16, 0x1E, 0x27, 0xFF]),
        min_size=8,
        max_size=8,
    ),
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.one_of(REPORT, st.binary(max_size=20), st.just(DESCRIPTOR_MAGIC)), max_size=40),
    st.integers(1, 17),
)
def test_fuzz_the_decoder_never_raises(pieces: list[bytes], step: int) -> None:
    d = driver()
    stream = b"".join(pieces)
    for i in range(0, len(stream), step):
        for out in d.feed(stream[i : i + step], float(i)):
            if isinstance(out, DeviceReply):
                assert d.identity({"identify": out}).type in (
                    EventType.DEVICE_IDENTIFIED,
                    EventType.DEVICE_PROTOCOL_ERROR,
                )
                continue
            assert out.type in (EventType.SHOE_CARD_DRAWN, EventType.DEVICE_PROTOCOL_ERROR)
            if out.type == EventType.DEVICE_PROTOCOL_ERROR:
                assert len(out.data["raw"]) <= 80


def test_the_load_code_says_a_new_batch_was_placed_and_restarts_the_count() -> None:
    n, e, w = 0x11, 0x08, 0x1A
    new = tap(n, SHIFT) + tap(e, SHIFT) + tap(w, SHIFT) + tap(ENTER)
    events = driver().feed(AS + new + TEN_H, 0.0)
    assert [(ev.type, ev.data.get("count")) for ev in events] == [
        (EventType.SHOE_CARD_DRAWN, 1),
        (EventType.SHOE_LOADED, None),
        (EventType.SHOE_CARD_DRAWN, 1),
    ]


def test_a_load_code_that_is_a_card_code_is_refused() -> None:
    with pytest.raises(ValueError, match="load_code"):
        driver(load_code="AS")
