"""The Big Six wheel driver (docs/protocols/big-six.md): golden frames, grammar, fuzz.

The golden frames are literal bytes whose checksums (CRC-16/CCITT-FALSE) are checked here
with `binascii.crc_hqx`, not with floord's own code.
"""

from __future__ import annotations

import binascii

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.flf1.big_six import SECTIONS, BigSixDriver, angle_section, section_distance
from floord.contract import EventType
from floord.events import DeviceEvent, DeviceReply, Outgoing
from floord.profiles import DeviceProfile, load_profile

pytestmark = pytest.mark.unit

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

ANGLE = load_profile("ref-big-six-angle")
IDN_ANGLE = (
    b"\x0200|IDN|floord reference|ref-big-six-angle|B6-000054|1.0.0|clapper,angle\x037268\r\n"
)
DISAGREE_13 = (
    "rim angle and clapper disagree: the last angle, 86.7 degrees, is in section 13, "
    "but the clapper rests in section 4 (9 sections apart, at most 1 allowed)"
)
DISAGREE_22 = (
    "rim angle and clapper disagree: the last angle, 148.7 degrees, is in section 22, but "
    "the clapper rests on the divider between sections 13 and 14 (8 sections apart, at "
    "most 1 allowed)"
)
# The angle wheel: ANG gives no event; a rest far from the last angle is a fault first.
GOLDEN_ANGLE: list[tuple[bytes, list[tuple[EventType, dict]]]] = [
    (b"\x0201|SPN|cw\x03A195\r\n", [(EventType.BIGSIX_SPIN_STARTED, {"direction": "cw"})]),
    (b"\x0202|ANG|3533\x03E39F\r\n", []),
    (b"\x0203|ANG|0\x032C37\r\n", []),
    (b"\x0204|ANG|3599\x03DEA1\r\n", []),
    (b"\x0205|REV|1\x031DF7\r\n", [(EventType.BIGSIX_REVOLUTION, {"count": 1})]),
    (b"\x0206|ANG|100\x037605\r\n", []),  # 10.0 degrees: on a divider, section 2's
    (b"\x0207|RST|2\x031F29\r\n", [(EventType.BIGSIX_AT_REST, {"section": 2})]),
    (b"\x0208|SPN|ccw\x0333D0\r\n", [(EventType.BIGSIX_SPIN_STARTED, {"direction": "ccw"})]),
    (b"\x0209|ANG|867\x03AA81\r\n", []),
    (b"\x020A|RST|4\x035AAB\r\n",
     [(EventType.DEVICE_FAULT, {"code": None, "text": DISAGREE_13, "origin": "consistency"}),
      (EventType.BIGSIX_AT_REST, {"section": 4})]),
    (b"\x020B|SPN|cw\x03D9EC\r\n", [(EventType.BIGSIX_SPIN_STARTED, {"direction": "cw"})]),
    (b"\x020C|ANG|1487\x03157D\r\n", []),
    (b"\x020D|DIV|13|14\x0365D6\r\n",
     [(EventType.DEVICE_FAULT, {"code": None, "text": DISAGREE_22, "origin": "consistency"}),
      (EventType.BIGSIX_BETWEEN_SECTIONS, {"left": 13, "right": 14})]),
]  # fmt: skip


def frame(seq: int, body: str) -> bytes:
    raw = f"{seq:02X}|{body}".encode()
    return b"\x02" + raw + b"\x03" + f"{binascii.crc_hqx(raw, 0xFFFF):04X}".encode() + b"\r\n"


def events(outputs: list) -> list[tuple[EventType, dict]]:
    return [(o.type, o.data) for o in outputs if isinstance(o, DeviceEvent)]


def test_golden_checksums_are_right() -> None:
    for raw, _ in [(IDN, []), *GOLDEN, (IDN_ANGLE, []), *GOLDEN_ANGLE]:
        body = raw[1 : raw.index(b"\x03")]
        assert frame(int(body[:2], 16), body[3:].decode()) == raw


@pytest.mark.parametrize(
    ("profile", "idn", "golden"), [(REF, IDN, GOLDEN), (ANGLE, IDN_ANGLE, GOLDEN_ANGLE)]
)
def test_golden_frames_decode_in_order_each_acknowledged(
    profile: DeviceProfile, idn: bytes, golden: list
) -> None:
    driver = BigSixDriver(profile)
    first = driver.feed(idn, 0.0)
    assert next(o for o in first if isinstance(o, DeviceReply)).prefix == "IDN"
    for n, (raw, wanted) in enumerate(golden, start=1):
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
    odd = driver.identity({"identify": DeviceReply("IDN", text + "clapper,sections,ball")})
    assert "unknown to a big_six_wheel" in odd.data["reason"]


def _reason(driver: BigSixDriver, capabilities: str) -> str | None:
    text = f"IDN|floord reference|{driver.profile.model}|B6-000054|1.0.0|{capabilities}"
    event = driver.identity({"identify": DeviceReply("IDN", text)})
    if event.type == EventType.DEVICE_IDENTIFIED:
        return None
    assert event.type == EventType.DEVICE_PROTOCOL_ERROR
    return event.data["reason"]


def test_the_angle_profile_needs_exactly_the_angle_capability() -> None:
    angle, sections = BigSixDriver(ANGLE), BigSixDriver(REF)
    assert _reason(angle, "clapper,angle") is None
    assert "does not list 'angle'" in _reason(angle, "clapper")
    assert "lists 'sections'" in _reason(angle, "clapper,sections")
    assert "does not list 'sections'" in _reason(sections, "clapper,angle")
    for driver in (angle, sections):
        assert "both sections and angle" in _reason(driver, "clapper,sections,angle")
    neither = BigSixDriver(_with_quirks(sections=False))
    assert _reason(neither, "clapper") is None
    assert "lists 'angle'" in _reason(neither, "clapper,angle")


def _with_quirks(base: DeviceProfile = REF, **quirks: object) -> DeviceProfile:
    body = base.model_dump()
    body["quirks"] = {**body["quirks"], **quirks}
    return DeviceProfile.model_validate(body)


def test_a_profile_with_both_sections_and_angle_or_an_unknown_quirk_is_refused() -> None:
    with pytest.raises(ValueError, match="never both"):
        BigSixDriver(_with_quirks(ANGLE, sections=True))
    with pytest.raises(ValueError, match=r"quirks\.angles: unknown quirk"):
        BigSixDriver(_with_quirks(ANGLE, angles=True))
    with pytest.raises(ValueError, match=r"quirks\.angle: true or false"):
        BigSixDriver(_with_quirks(ANGLE, angle="yes"))


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


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("ANG|3600", "0 to 3599"),
        ("ANG|99999", "0 to 3599"),
        ("ANG|-1", "decimal number"),
        ("ANG|0100", "decimal number"),
        ("ANG|12.5", "decimal number"),
        ("ANG| 12", "decimal number"),
        ("ANG|", "decimal number"),
        ("ANG", "angle expected"),
        ("ANG|1|2", "angle expected"),
        ("SEC|3", "without the sections capability"),
    ],
)
def test_bad_angle_frames_are_protocol_errors_not_acknowledged(body: str, reason: str) -> None:
    driver = BigSixDriver(ANGLE)
    driver.feed(IDN_ANGLE, 0.0)
    out = driver.feed(frame(1, body), 0.1)
    assert not [o for o in out if isinstance(o, Outgoing)]
    [(kind, data)] = events(out)
    assert kind == EventType.DEVICE_PROTOCOL_ERROR and reason in data["reason"]


@pytest.mark.parametrize("profile", [REF, _with_quirks(sections=False)])
def test_ang_from_a_wheel_without_angle_is_refused(profile: DeviceProfile) -> None:
    driver = BigSixDriver(profile)
    out = driver.feed(frame(0, "ANG|100"), 0.0)
    assert not [o for o in out if isinstance(o, Outgoing)]
    [(kind, data)] = events(out)
    assert kind == EventType.DEVICE_PROTOCOL_ERROR and "angle capability" in data["reason"]


def test_the_angle_rule_sections_and_their_dividers() -> None:
    # section i is centred on i x 3600/54 tenths; an angle on a divider goes clockwise
    assert [angle_section(a) for a in (0, 33, 34, 66, 67, 99, 100, 3566, 3567, 3599)] == [
        0, 0, 1, 1, 1, 1, 2, 53, 0, 0]  # fmt: skip
    for i in range(SECTIONS):
        centre = round(i * 3600 / SECTIONS)
        assert angle_section(centre) == i
    dividers = [a for a in range(3600) if angle_section(a) != angle_section((a - 1) % 3600)]
    assert len(dividers) == SECTIONS
    exact = [a for a in dividers if (a * SECTIONS * 2) % 3600 == 0]  # a = (i + 0.5) x 3600/54
    assert exact == list(range(100, 3600, 200)) and len(exact) == 18
    assert section_distance(0, 53) == 1 and section_distance(2, 0) == 2
    assert section_distance(27, 0) == 27 and section_distance(40, 10) == 24


def _rest(angle: int | None, rest: str) -> list[tuple[EventType, dict]]:
    """The events of SPN, maybe one ANG, then the rest frame, on the angle wheel."""
    driver = BigSixDriver(ANGLE)
    bodies = ["SPN|cw", *([f"ANG|{angle}"] if angle is not None else []), rest]
    out = []
    for n, body in enumerate(bodies):
        out += events(driver.feed(frame(n, body), n * 0.1))
    return out[1:]


@pytest.mark.parametrize(
    ("angle", "rest", "fault"),
    [
        (99, "RST|0", False),  # section 1: one section apart is tolerated
        (100, "RST|0", True),  # on the divider of 1 and 2: section 2, two apart
        (3567, "RST|1", False),  # the joker, next to 1
        (3566, "RST|1", True),  # section 53, two from 1 the short way round
        (1800, "RST|0", True),  # section 27, opposite
        (None, "RST|40", False),  # no angle this spin: nothing to compare
        (1487, "DIV|21|22", False),  # section 22, on the divider's right
        (1487, "DIV|23|24", False),  # one from 23
        (1487, "DIV|24|25", True),  # two from 24
        (0, "DIV|53|0", False),
    ],
)
def test_the_rest_must_agree_with_the_last_angle(angle: int | None, rest: str, fault: bool) -> None:
    out = _rest(angle, rest)
    if fault:
        [(kind, data), (rest_kind, _)] = out
        assert kind == EventType.DEVICE_FAULT and data["origin"] == "consistency"
        assert data["code"] is None and "rim angle and clapper disagree" in data["text"]
        assert rest_kind in (EventType.BIGSIX_AT_REST, EventType.BIGSIX_BETWEEN_SECTIONS)
    else:
        assert [kind for kind, _ in out] in (
            [EventType.BIGSIX_AT_REST], [EventType.BIGSIX_BETWEEN_SECTIONS]
        )  # fmt: skip


def test_only_the_last_angle_of_this_spin_counts_and_only_once() -> None:
    driver = BigSixDriver(ANGLE)
    bodies = [
        ("ANG|1800", []),  # section 27
        ("SPN|cw", [EventType.BIGSIX_SPIN_STARTED]),  # forgets it
        ("RST|0", [EventType.BIGSIX_AT_REST]),
        ("SPN|cw", [EventType.BIGSIX_SPIN_STARTED]),
        ("ANG|1800", []),
        ("ANG|0", []),  # the last one is the joker
        ("ANG|3600", [EventType.DEVICE_PROTOCOL_ERROR]),  # refused: the angle stays 0
        ("RST|0", [EventType.BIGSIX_AT_REST]),
        ("RST|30", [EventType.BIGSIX_AT_REST]),  # the angle was used by the last rest
        ("ANG|1800", []),
        ("RST|30", [EventType.DEVICE_FAULT, EventType.BIGSIX_AT_REST]),
    ]
    seq = 0
    for n, (body, wanted) in enumerate(bodies):
        assert [kind for kind, _ in events(driver.feed(frame(seq, body), n * 0.1))] == wanted
        seq += body != "ANG|3600"  # a refused frame's SEQ comes again with the next frame
    driver.feed(frame(seq, "ANG|1800"), 1.2)
    driver.reset()  # a new connection: no angle to compare
    assert [k for k, _ in events(driver.feed(frame(0, "RST|0"), 1.3))] == [
        EventType.BIGSIX_AT_REST]  # fmt: skip


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
    st.tuples(st.sampled_from(["SPN", "SEC", "ANG", "REV", "RST", "DIV", "TSR", "FLT", "HBT"]),
              st.lists(st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E,
                                             exclude_characters="|"), max_size=4),
                       max_size=3)).map(lambda t: "|".join([t[0], *t[1]])),
    st.tuples(st.sampled_from(["SEC", "RST"]), st.integers(-5, 80)).map(lambda t: f"{t[0]}|{t[1]}"),
    st.integers(-5, 3700).map(lambda a: f"ANG|{a}"),
    st.sampled_from(["SPN|cw", "SPN|ccw"]),
)  # fmt: skip
ALLOWED = {
    EventType.BIGSIX_SPIN_STARTED, EventType.BIGSIX_REVOLUTION, EventType.BIGSIX_AT_REST,
    EventType.BIGSIX_BETWEEN_SECTIONS, EventType.DEVICE_FAULT, EventType.DEVICE_PROTOCOL_ERROR,
    EventType.DEVICE_HEARTBEAT_LOST,
}  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(BODIES.map(lambda b: ("frame", b)), st.binary(max_size=20).map(
    lambda b: ("bytes", b))), max_size=12))  # fmt: skip
@pytest.mark.parametrize("profile", [REF, ANGLE])
def test_fuzz_never_crashes_and_gives_only_the_families_events(
    profile: DeviceProfile, pieces: list
) -> None:
    driver = BigSixDriver(profile)
    for n, (kind, piece) in enumerate(pieces):
        data = frame(n % 256, piece) if kind == "frame" else piece
        outs = [o for o in driver.feed(data, n * 0.2) if isinstance(o, DeviceEvent)]
        for i, out in enumerate(outs):
            assert out.type in ALLOWED
            if out.data.get("origin") == "consistency":  # always just before its rest
                assert profile is ANGLE
                assert outs[i + 1].type in (
                    EventType.BIGSIX_AT_REST, EventType.BIGSIX_BETWEEN_SECTIONS)  # fmt: skip
                if out.type == EventType.BIGSIX_AT_REST:
                    assert 0 <= out.data["section"] < 54
                if out.type == EventType.BIGSIX_BETWEEN_SECTIONS:
                    assert out.data["right"] == (out.data["left"] + 1) % 54
