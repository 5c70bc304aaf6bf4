"""The roulette wheel sensor kit driver (docs/protocols/wheel-sensor.md): golden frames,
grammar against the table's wheel, identity and a fuzz test.

The golden frames are literal bytes whose checksums (CRC-16/CCITT-FALSE) are checked here
with `binascii.crc_hqx`, not with floord's own code.
"""

from __future__ import annotations

import binascii

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.flf1.wheel_sensor import WheelSensorDriver
from floord.adapters.local import load_driver
from floord.contract import EventType
from floord.events import DeviceEvent, DeviceReply, Outgoing
from floord.profiles import load_profile

pytestmark = pytest.mark.unit

REF = load_profile("ref-wheel-sensor")
W = EventType

# (frame, the events it gives): one spin of a double-zero wheel, then the common messages.
GOLDEN: list[tuple[bytes, list[tuple[EventType, dict]]]] = [
    (b"\x0201|ROT|cw|172\x0372ED\r\n",
     [(W.WHEEL_GAME_STARTED, {"spin": 1, "state": 1, "rotor_direction": "cw", "rotor_rpm": 17.2})]),
    (b"\x0202|BAL|ccw\x0348F5\r\n",
     [(W.WHEEL_BALL_LAUNCHED, {"spin": 1, "rotor_direction": "cw", "rotor_rpm": 17.2,
                               "ball_direction": "ccw"})]),
    (b"\x0203|REV|1\x03BCD2\r\n", [(W.WHEEL_BALL_REVOLUTIONS, {"spin": 1, "count": 1})]),
    (b"\x0204|REV|5\x03E512\r\n", [(W.WHEEL_BALL_REVOLUTIONS, {"spin": 1, "count": 5})]),
    (b"\x0205|NMB\x0316D8\r\n", [(W.WHEEL_NO_MORE_BETS, {"spin": 1})]),
    (b"\x0206|OBJ\x035E0C\r\n", [(W.WHEEL_FOREIGN_OBJECT, {"spin": 1})]),
    (b"\x0207|POC|00\x03D454\r\n",
     [(W.WHEEL_NUMBER, {"spin": 1, "number": "00", "origin": "sensor"})]),
    (b"\x0208|ROT|ccw|95\x03F567\r\n",
     [(W.WHEEL_GAME_STARTED, {"spin": 2, "state": 1, "rotor_direction": "ccw", "rotor_rpm": 9.5})]),
    (b"\x0209|BAL|ccw\x034C4E\r\n",
     [(W.WHEEL_BALL_LAUNCHED, {"spin": 2, "rotor_direction": "ccw", "rotor_rpm": 9.5,
                               "ball_direction": "ccw"})]),
    (b"\x020A|OFF\x032916\r\n", [(W.WHEEL_BALL_OFF, {"spin": 2})]),
    (b"\x020B|FLT|61|-\x03C109\r\n",
     [(W.DEVICE_FAULT, {"code": 61, "text": "ball track sensor failed", "origin": "device"})]),
    (b"\x020C|TMP|3|magnet near the wheel\x0337B9\r\n",
     [(W.DEVICE_TAMPER, {"code": 3, "text": "magnet near the wheel"})]),
    (b"\x020D|HBT\x037166\r\n", []),
    (b"\x020E|TSR|F|62|pocket sensor failed\x031F5D\r\n",
     [(W.DEVICE_FAULT, {"code": 62, "text": "pocket sensor failed", "origin": "self_test"})]),
]  # fmt: skip
IDN = b"\x0200|IDN|floord reference|ref-wheel-sensor|WS-000531|1.0.0|double_zero\x03E9D7\r\n"


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
    driver = WheelSensorDriver(REF, pockets=38)
    first = driver.feed(IDN, 0.0)
    assert next(o for o in first if isinstance(o, DeviceReply)).prefix == "IDN"
    for n, (raw, wanted) in enumerate(GOLDEN, start=1):
        out = driver.feed(raw, n * 0.1)
        assert events(out) == wanted, raw
        acks = [o for o in out if isinstance(o, Outgoing)]
        assert len(acks) == 1 and f"|ACK|{n:02X}".encode() in acks[0].payload


def test_the_daemon_builds_it_with_the_tables_pockets() -> None:
    driver = load_driver(REF, {"pockets": 37})
    assert isinstance(driver, WheelSensorDriver) and driver.pockets == 37
    for bad in (36, 39, "37", 37.0):
        with pytest.raises(ValueError, match="37 or 38"):
            WheelSensorDriver(REF, pockets=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not a roulette_wheel"):
        WheelSensorDriver(load_profile("ref-big-six"), pockets=37)


def test_identity_reports_the_pockets_of_the_kits_wheel() -> None:
    driver = WheelSensorDriver(REF, pockets=37)
    text = "IDN|floord reference|ref-wheel-sensor|WS-000531|1.0.0|"
    single = driver.identity({"identify": DeviceReply("IDN", text + "single_zero")})
    assert single.type == EventType.DEVICE_IDENTIFIED and single.data["pockets"] == 37
    # Another wheel than the table's is reported as it is: the engine judges (§ 531.1).
    double = driver.identity({"identify": DeviceReply("IDN", text + "double_zero")})
    assert double.data["pockets"] == 38 and double.data["serial"] == "WS-000531"
    for words in ("-", "single_zero,double_zero"):
        bad = driver.identity({"identify": DeviceReply("IDN", text + words)})
        assert bad.type == EventType.DEVICE_PROTOCOL_ERROR
        assert "single_zero, double_zero" in bad.data["reason"]
    odd = driver.identity({"identify": DeviceReply("IDN", text + "single_zero,laser")})
    assert "unknown to a roulette_wheel" in odd.data["reason"]


def _spin_until(driver: WheelSensorDriver, bodies: list[str]) -> int:
    for n, body in enumerate(bodies, start=1):
        assert all(e[0] != EventType.DEVICE_PROTOCOL_ERROR
                   for e in events(driver.feed(frame(n, body), n * 0.1))), body  # fmt: skip
    return len(bodies) + 1


@pytest.mark.parametrize(
    ("pockets", "before", "body", "reason"),
    [
        (37, [], "ROT|left|172", "cw or ccw"),
        (37, [], "ROT|cw|0", "from 1 to 999"),
        (37, [], "ROT|cw|1000", "from 1 to 999"),
        (37, [], "ROT|cw|17.2", "decimal number"),
        (37, [], "ROT|cw", "rpm expected"),
        (37, [], "BAL|ccw", "no spin in progress"),
        (37, [], "POC|17", "no spin in progress"),
        (37, ["ROT|cw|172"], "REV|1", "no ball launched"),
        (37, ["ROT|cw|172"], "NMB", "no ball turning"),
        (37, ["ROT|cw|172"], "OFF", "no ball launched"),
        (37, ["ROT|cw|172"], "BAL|up", "cw or ccw"),
        (37, ["ROT|cw|172", "BAL|ccw", "REV|3"], "REV|3", "above 3"),
        (37, ["ROT|cw|172", "BAL|ccw"], "REV|0", "above 0"),
        (37, ["ROT|cw|172", "BAL|ccw"], "POC|00", "not a pocket of a 37-pocket wheel"),
        (38, ["ROT|cw|172", "BAL|ccw"], "POC|37", "not a pocket of a 38-pocket wheel"),
        (38, ["ROT|cw|172", "BAL|ccw"], "POC|07", "not a pocket"),
        (38, ["ROT|cw|172", "BAL|ccw"], "POC|000", "not a pocket"),
        (38, ["ROT|cw|172", "BAL|ccw", "POC|5"], "POC|5", "already at rest"),
        (38, ["ROT|cw|172", "BAL|ccw", "POC|5"], "BAL|ccw", "new spin begins with ROT"),
        (38, ["ROT|cw|172", "BAL|ccw"], "NMB|now", "no field expected"),
        (38, ["ROT|cw|172", "BAL|ccw"], "OBJ|1", "no field expected"),
        (38, [], "XYZ|1", "unknown type"),
        (37, ["ROT|cw|172"], "BAL|ccw|00", "release '00' is not a pocket of a 37-pocket wheel"),
        (38, ["ROT|cw|172"], "BAL|ccw|37", "release '37' is not a pocket"),
        (38, ["ROT|cw|172"], "BAL|ccw|5|6", "direction expected"),
    ],
)
def test_bad_forms_are_protocol_errors_not_acknowledged(
    pockets: int, before: list[str], body: str, reason: str
) -> None:
    driver = WheelSensorDriver(REF, pockets=pockets)
    driver.feed(IDN, 0.0)
    seq = _spin_until(driver, before)
    out = driver.feed(frame(seq, body), seq * 0.1)
    assert not [o for o in out if isinstance(o, Outgoing)]
    [(kind, data)] = events(out)
    assert kind == EventType.DEVICE_PROTOCOL_ERROR and reason in data["reason"]


def test_a_relaunch_counts_revolutions_again_and_the_spin_counter_survives_a_reset() -> None:
    driver = WheelSensorDriver(REF, pockets=37)
    seq = _spin_until(driver, ["ROT|cw|172", "BAL|cw", "REV|2"])
    out = events(driver.feed(frame(seq, "BAL|ccw"), 1.0))
    launched = {"spin": 1, "rotor_direction": "cw", "rotor_rpm": 17.2, "ball_direction": "ccw"}
    assert out == [(W.WHEEL_BALL_LAUNCHED, launched)]
    assert events(driver.feed(frame(seq + 1, "REV|1"), 1.1)) == [
        (W.WHEEL_BALL_REVOLUTIONS, {"spin": 1, "count": 1})]  # fmt: skip
    driver.reset()
    [(kind, _)] = events(driver.feed(frame(0, "REV|2"), 2.0))
    assert kind == EventType.DEVICE_PROTOCOL_ERROR  # the spin in progress is forgotten
    [(kind, data)] = events(driver.feed(frame(1, "ROT|ccw|150"), 2.1))
    assert kind == W.WHEEL_GAME_STARTED and data["spin"] == 2  # never reused


BODIES = st.one_of(
    st.tuples(st.sampled_from(["ROT", "BAL", "REV", "NMB", "POC", "OFF", "OBJ", "TSR", "FLT",
                               "HBT"]),
              st.lists(st.one_of(st.sampled_from(["cw", "ccw", "172", "0", "00", "36", "37"]),
                                 st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E,
                                                       exclude_characters="|"), max_size=4)),
                       max_size=3)).map(lambda t: "|".join([t[0], *t[1]])),
    st.sampled_from(["ROT|cw|172", "BAL|ccw", "BAL|cw", "NMB", "OFF", "OBJ"]),
    st.integers(-5, 40).map(lambda n: f"REV|{n}"),
    st.sampled_from(["0", "00", "000", "17", "36", "37", " 7"]).map(lambda p: f"POC|{p}"),
)  # fmt: skip
ALLOWED = {
    W.WHEEL_GAME_STARTED, W.WHEEL_BALL_LAUNCHED, W.WHEEL_BALL_REVOLUTIONS, W.WHEEL_NO_MORE_BETS,
    W.WHEEL_NUMBER, W.WHEEL_BALL_OFF, W.WHEEL_FOREIGN_OBJECT, W.DEVICE_FAULT,
    W.DEVICE_PROTOCOL_ERROR, W.DEVICE_HEARTBEAT_LOST,
}  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.sampled_from([37, 38]), st.lists(st.one_of(BODIES.map(lambda b: ("frame", b)),
       st.binary(max_size=20).map(lambda b: ("bytes", b))), max_size=16))  # fmt: skip
def test_fuzz_never_crashes_and_gives_only_the_families_events(pockets: int, pieces: list) -> None:
    driver = WheelSensorDriver(REF, pockets=pockets)
    labels = {str(n) for n in range(37)} | ({"00"} if pockets == 38 else set())
    spin = 0
    for n, (kind, piece) in enumerate(pieces):
        data = frame(n % 256, piece) if kind == "frame" else piece
        for out in driver.feed(data, n * 0.2):
            if isinstance(out, DeviceEvent):
                assert out.type in ALLOWED
                if out.type == W.WHEEL_GAME_STARTED:
                    assert out.data["spin"] == spin + 1
                    spin = out.data["spin"]
                elif "spin" in out.data:
                    assert out.data["spin"] == spin >= 1
                if out.type == W.WHEEL_NUMBER:
                    assert out.data["number"] in labels
                if out.type == W.WHEEL_BALL_REVOLUTIONS:
                    assert out.data["count"] >= 1


def test_a_kit_with_a_rotor_encoder_names_the_release_pocket() -> None:
    driver = WheelSensorDriver(REF, pockets=38)
    seq = _spin_until(driver, ["ROT|cw|172"])
    out = events(driver.feed(frame(seq, "BAL|ccw|00"), 1.0))
    assert out == [
        (
            W.WHEEL_BALL_LAUNCHED,
            {
                "spin": 1,
                "rotor_direction": "cw",
                "rotor_rpm": 17.2,
                "ball_direction": "ccw",
                "release_pocket": "00",
            },
        )
    ]
