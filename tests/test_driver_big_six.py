"""The Big Six wheel driver (docs/protocols/big-six.md): golden frames, grammar, fuzz.

The golden frames are literal bytes whose checksums (CRC-16/CCITT-FALSE) are checked here
with `binascii.crc_hqx`, not with floord's own code.
"""

from __future__ import annotations

import binascii

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.big_six import BigSixDriver
from floord.contract import EventType
from floord.events import DeviceEvent, DeviceReply, Outgoing
from floord.profiles import DeviceProfile, load_profile

REF = load_profile("ref-big-six")

# (frame, the events it gives): one per device message of the page.
GOLDEN: list[tuple[bytes, list[tuple[EventType, dict]]]] = [
    (b"\x0201|SPN|cw\x03A195\r\n", [(EventType.BIGSIX_SPIN_STARTED, {"direction": "cw"})]),
    (b"\x0202|SEC|53\x03DB32\r\n", []),
    (b"\x0203|REV|1\x03BCD2\r\n", [(EventType.BIGSIX_REVOLUTION, {"count": 1})]),
    (b"\x0204|RST|13\x0351C8\r\n", [(EventType.BIGSIX_AT_REST, {"section": 13})]),
    (b"\x0205|DIV|53|0\x034913\r\n",
     [(EventType.BIGSIX_BETWEEN_SECTIONS, {"left": 53, "right": 0})]),
    (b"\x0206|FLT|50|-\x031F51\r\n",
     [(EventType.DEVICE_FAULT, {"code": 50, "text": "clapper sensor failed", "origin": "device"})]),
    (b"\x0207|TMP|3|magnet near the clapper\x03CA0F\r\n",
     [(EventType.DEVICE_TAMPER, {"code": 3, "text": "magnet near the clapper"})]),
    (b"\x0208|HBT\x03E7CB\r\n", []),
    (b"\x0209|TSR|F|51|rim sensor failed\x031686\r\n",
     [(EventType.DEVICE_FAULT, {"code": 51, "text": "rim sensor failed", "origin": "self_test"})]),
]  # fmt: skip
IDN = b"\x0200|IDN|floord reference|ref-big-six|B6-000054|1.0.0|clapper,sections\x036E89\r\n"


def frame(seq: int, body: str) -> bytes:
    raw = f"{seq:02X}|{body}".encode()
    return b"\x02" + raw + b"\x03" + f"{binascii.crc_hqx(raw, 0xFFFF):04X}".encode() + b"\r\n"


def events(outputs: list) -> list[tuple[EventType, dict]]:
    return [(o.type, o.data) for o in outputs if isinstance(o, DeviceEvent)]


def test_golden_checksums_are_right() -> None:
    for raw, _ in [(IDN, []), *GOLDEN]:
        body = raw[1 : raw.index(b"\x03")]
        assert frame(int(body[:2], 16), body[3:].decode()) == raw


def test_golden_frames_decode_in_order_each_acknowledged() -> None:
    driver = BigSixDriver(REF)
    first = driver.feed(IDN, 0.0)
    assert next(o for o in first if isinstance(o, DeviceReply)).prefix == "IDN"
    for n, (raw, wanted) in enumerate(GOLDEN, start=1):
        out = driver.feed(raw, n * 0.1)
        assert events(out) == wanted, raw
        acks = [o for o in out if isinstance(o, Outgoing)]
        assert len(acks) == 1 and f"|ACK|{n:02X}".encode() in acks[0].payload


def test_identity_needs_the_capabilities_of_the_profile() -> None:
    driver = BigSixDriver(REF)
    text = "IDN|floord reference|ref-big-six|B6-000054|1.0.0|"
    ok = driver.identity({"identify": DeviceReply("IDN", text + "clapper,sections")})
    assert ok.type == EventType.DEVICE_IDENTIFIED and ok.data["capabilities"] == [
        "clapper", "sections"]  # fmt: skip
    bad = driver.identity({"identify": DeviceReply("IDN", text + "clapper")})
    assert bad.type == EventType.DEVICE_PROTOCOL_ERROR and "sections" in bad.data["reason"]
    odd = driver.identity({"identify": DeviceReply("IDN", text + "clapper,sections,angle")})
    assert "unknown to a big_six_wheel" in odd.data["reason"]


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("SPN|left", "cw or ccw"),
        ("SPN", "direction expected"),
        ("SEC|54", "0 to 53"),
        ("SEC|07", "decimal number"),
        ("REV|0", "from 1"),
        ("RST|-1", "decimal number"),
        ("DIV|13|15", "clockwise of left"),
        ("DIV|0|53", "clockwise of left"),
        ("RST|13|14", "section expected"),
        ("XYZ|1", "unknown type"),
    ],
)
def test_bad_forms_are_protocol_errors_not_acknowledged(body: str, reason: str) -> None:
    driver = BigSixDriver(REF)
    driver.feed(IDN, 0.0)
    out = driver.feed(frame(1, body), 0.1)
    assert not [o for o in out if isinstance(o, Outgoing)]
    [(kind, data)] = events(out)
    assert kind == EventType.DEVICE_PROTOCOL_ERROR and reason in data["reason"]


def test_sec_from_a_wheel_without_sections_is_refused() -> None:
    body = REF.model_dump()
    body["quirks"] = {**body["quirks"], "sections": False}
    driver = BigSixDriver(DeviceProfile.model_validate(body))
    [(kind, data)] = events(driver.feed(frame(0, "SEC|3"), 0.0))
    assert kind == EventType.DEVICE_PROTOCOL_ERROR and "sections" in data["reason"]


def test_a_profile_of_another_family_is_refused() -> None:
    with pytest.raises(ValueError, match="not a big_six_wheel"):
        BigSixDriver(load_profile("ref-shuffler-batch"))


BODIES = st.one_of(
    st.tuples(st.sampled_from(["SPN", "SEC", "REV", "RST", "DIV", "TSR", "FLT", "HBT"]),
              st.lists(st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E,
                                             exclude_characters="|"), max_size=4),
                       max_size=3)).map(lambda t: "|".join([t[0], *t[1]])),
    st.tuples(st.sampled_from(["SEC", "RST"]), st.integers(-5, 80)).map(lambda t: f"{t[0]}|{t[1]}"),
)  # fmt: skip
ALLOWED = {
    EventType.BIGSIX_SPIN_STARTED, EventType.BIGSIX_REVOLUTION, EventType.BIGSIX_AT_REST,
    EventType.BIGSIX_BETWEEN_SECTIONS, EventType.DEVICE_FAULT, EventType.DEVICE_PROTOCOL_ERROR,
    EventType.DEVICE_HEARTBEAT_LOST,
}  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(BODIES.map(lambda b: ("frame", b)), st.binary(max_size=20).map(
    lambda b: ("bytes", b))), max_size=12))  # fmt: skip
def test_fuzz_never_crashes_and_gives_only_the_families_events(pieces: list) -> None:
    driver = BigSixDriver(REF)
    for n, (kind, piece) in enumerate(pieces):
        data = frame(n % 256, piece) if kind == "frame" else piece
        for out in driver.feed(data, n * 0.2):
            if isinstance(out, DeviceEvent):
                assert out.type in ALLOWED
                if out.type == EventType.BIGSIX_AT_REST:
                    assert 0 <= out.data["section"] < 54
                if out.type == EventType.BIGSIX_BETWEEN_SECTIONS:
                    assert out.data["right"] == (out.data["left"] + 1) % 54
