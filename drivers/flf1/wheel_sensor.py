"""Driver for a roulette wheel sensor kit fitted to a manual wheel (family
`roulette_wheel`, `docs/protocols/wheel-sensor.md`, framed as FLF/1).

The kit reports what 58 Pa. Code § 531.6 and § 531.7 turn on: the rotor's direction and
speed (`ROT`, which begins a spin), the ball's launch and its direction (`BAL`), the
ball's revolutions on the track (`REV`), "no more bets" as the ball slows (`NMB`), the
pocket where it comes to rest (`POC`), the ball leaving the wheel (`OFF`) and an object
in the wheel (`OBJ`). The driver checks each frame's grammar against the table's wheel
(a pocket the wheel cannot have is a protocol error) and numbers the spins; whether a
spin is valid is the engine's judgement, not the driver's.
"""

from __future__ import annotations

from typing import ClassVar

from drivers.flf1.codec import Frame, FrameError
from drivers.flf1.fields import Output, expect_fields, parse_int, self_test_reply
from drivers.flf1.framed import FramedDriver
from drivers.text import protocol_error
from floord.contract import EventType
from floord.events import DeviceEvent, DeviceReply, Driver
from floord.profiles import DeviceProfile

DIRECTIONS = ("cw", "ccw")
# The IDN capability word that says which wheel the kit is fitted to, and its pockets.
WHEEL_WORDS = {"single_zero": 37, "double_zero": 38}
MAX_RPM_X10 = 999  # 99.9 rpm: far beyond any manual rotor; more is a misread


def pocket_labels(pockets: int) -> frozenset[str]:
    """The pockets of a single-zero (37) or double-zero (38) wheel, § 531.1(b), (c)."""
    return frozenset({str(n) for n in range(37)} | ({"00"} if pockets == 38 else set()))


def parse_direction(value: str, what: str) -> str:
    if value not in DIRECTIONS:
        raise FrameError(f"{what}: cw or ccw expected, found {value!r}")
    return value


class WheelSensorDriver(FramedDriver):
    """One wheel sensor kit on one link; `pockets` is the table's wheel (37 or 38)."""

    FAMILY = "roulette_wheel"
    TYPES: ClassVar[frozenset[str]] = frozenset(
        {"ROT", "BAL", "REV", "NMB", "POC", "OFF", "OBJ", "TSR"}
    )
    CAPABILITIES: ClassVar[frozenset[str]] = frozenset(WHEEL_WORDS)
    FAULT_CODES: ClassVar[dict[int, str]] = {
        10: "hardware fault",
        60: "rotor sensor failed",
        61: "ball track sensor failed",
        62: "pocket sensor failed",
        90: "link: frame not acknowledged",
    }
    TAMPER_CODES: ClassVar[dict[int, str]] = {
        1: "case opened",
        2: "cable cut",
        3: "magnet near the wheel",
    }

    def __init__(self, profile: DeviceProfile, pockets: int) -> None:
        if type(pockets) is not int or pockets not in (37, 38):
            raise ValueError(f"pockets must be 37 or 38, found {pockets!r}")
        self.pockets = pockets
        self.labels = pocket_labels(pockets)
        self.spin = 0  # kept across reconnects: a spin number is never reused
        super().__init__(profile)

    def reset(self) -> None:
        """Forget the spin in progress too: after a gap the kit's story starts again."""
        super().reset()
        self._rotor: tuple[str, float] | None = None  # the current spin's rotor
        self._launched = False
        self._revolutions = 0
        self._at_rest = False

    def message(self, frame: Frame) -> list[Output]:
        kind = frame.type
        if kind == "TSR":
            return self_test_reply(frame, self.quirks.fault_codes)
        if kind == "ROT":
            raw_direction, raw_rpm = expect_fields(frame, "direction", "rpm")
            direction = parse_direction(raw_direction, "ROT direction")
            rpm = parse_int(raw_rpm, "ROT rpm")
            if not 1 <= rpm <= MAX_RPM_X10:
                raise FrameError(f"ROT: rpm x10 from 1 to {MAX_RPM_X10} expected, found {rpm}")
            self.spin += 1
            self._rotor = (direction, rpm / 10)
            self._launched, self._revolutions, self._at_rest = False, 0, False
            data = {
                "spin": self.spin,
                "state": 1,
                "rotor_direction": direction,
                "rotor_rpm": rpm / 10,
            }
            return [DeviceEvent(EventType.WHEEL_GAME_STARTED, data)]
        rotor = self._rotor
        if rotor is None:
            raise FrameError(f"{kind}: no spin in progress (no ROT since the link began)")
        spin = {"spin": self.spin}
        if kind == "BAL":
            fields = frame.fields if len(frame.fields) == 2 else expect_fields(frame, "direction")
            ball = parse_direction(fields[0], "BAL direction")
            release = fields[1] if len(fields) == 2 else None
            if release is not None and release not in self.labels:
                raise FrameError(
                    f"BAL: release {release!r} is not a pocket of a {self.pockets}-pocket wheel"
                )
            if self._at_rest:
                raise FrameError("BAL: the ball is at rest; a new spin begins with ROT")
            self._launched, self._revolutions = True, 0
            data = {
                **spin,
                "rotor_direction": rotor[0],
                "rotor_rpm": rotor[1],
                "ball_direction": ball,
            }
            if release is not None:
                data["release_pocket"] = release
            return [DeviceEvent(EventType.WHEEL_BALL_LAUNCHED, data)]
        if kind == "REV":
            count = parse_int(expect_fields(frame, "count")[0], "REV count")
            if not self._launched:
                raise FrameError("REV: no ball launched in this spin")
            if count <= self._revolutions:
                raise FrameError(f"REV: a count above {self._revolutions} expected, found {count}")
            self._revolutions = count
            return [DeviceEvent(EventType.WHEEL_BALL_REVOLUTIONS, {**spin, "count": count})]
        if kind == "POC":
            (label,) = expect_fields(frame, "pocket")
            if label not in self.labels:
                raise FrameError(f"POC: {label!r} is not a pocket of a {self.pockets}-pocket wheel")
            if self._at_rest:
                raise FrameError("POC: this spin's ball is already at rest")
            self._at_rest = True
            data = {**spin, "number": label, "origin": "sensor"}
            return [DeviceEvent(EventType.WHEEL_NUMBER, data)]
        expect_fields(frame)
        if kind == "NMB" and (not self._launched or self._at_rest):
            raise FrameError("NMB: no ball turning in this spin")
        if kind == "OFF" and not self._launched:
            raise FrameError("OFF: no ball launched in this spin")
        event = {
            "NMB": EventType.WHEEL_NO_MORE_BETS,
            "OFF": EventType.WHEEL_BALL_OFF,
            "OBJ": EventType.WHEEL_FOREIGN_OBJECT,
        }[kind]
        return [DeviceEvent(event, spin)]

    def identity(self, replies: dict[str, DeviceReply]) -> DeviceEvent:
        """`device.identified` with the kit's `pockets`, read from its wheel word in `IDN`.

        A kit on a wheel of another kind than the table's is reported as it is: whether it
        may be played is the engine's judgement (§ 531.1), not the driver's.
        """
        event = super().identity(replies)
        if event.type != EventType.DEVICE_IDENTIFIED:
            return event
        words = [w for w in event.data["capabilities"] if w in WHEEL_WORDS]
        if len(words) != 1:
            text = replies["identify"].text
            reason = f"IDN: exactly one of single_zero, double_zero expected, found {words}"
            return protocol_error(reason, text.encode("utf-8", "backslashreplace"))
        return DeviceEvent(
            EventType.DEVICE_IDENTIFIED, {**event.data, "pockets": WHEEL_WORDS[words[0]]}
        )


DRIVER: type[Driver] = WheelSensorDriver  # mypy checks it is a Driver
