"""Driver for a Big Six wheel's clapper sensor (family `big_six_wheel`,
`docs/protocols/big-six.md`, framed as FLF/1).

The wheel says when it is spun (`SPN`), which section passes the clapper (`SEC`) or, on a
rim with an absolute encoder, the wheel's angle (`ANG`), each revolution completed
(`REV`) and where the clapper comes to rest: in a section (`RST`) or on the divider
between two (`DIV`). The driver checks the grammar of each frame (a section index is 0
to 53, 58 Pa. Code § 533.1(a); a divider lies between two adjacent sections; an angle is
0 to 3599 tenths of a degree) and reports; whether a spin is valid is the engine's
judgement.

`SEC` and `ANG` frames are validated and acknowledged but give no event: a spin passes
some two hundred sections, too many to journal, and `REV` already says how far the wheel
went. The last angle of a spin is kept, though: a rim and a clapper that disagree about
where the wheel stopped (more than one section apart) mean one of the two sensors is
wrong, and the rest they report cannot be trusted, so the rest comes after a
`device.fault` (origin `consistency`) that halts the table and voids the round.
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

SECTIONS = 54  # 58 Pa. Code § 533.1(a)
DIRECTIONS = ("cw", "ccw")
ANGLES = 3600  # tenths of a degree in a turn
# How far (in sections, either way round) the rim's last angle may lie from the rest.
RIM_TOLERANCE = 1


def parse_section(value: str, what: str) -> int:
    """A section index, 0 (the joker) to 53, clockwise (`big-six.md`)."""
    index = parse_int(value, what)
    if index >= SECTIONS:
        raise FrameError(f"{what}: a section from 0 to {SECTIONS - 1} expected, found {index}")
    return index


def parse_angle(value: str) -> int:
    """An `ANG` angle: tenths of a degree, 0 to 3599, a plain decimal (`big-six.md`)."""
    angle = parse_int(value, "ANG angle")
    if angle >= ANGLES:
        raise FrameError(
            f"ANG angle: tenths of a degree from 0 to {ANGLES - 1} expected, found {angle}"
        )
    return angle


def angle_section(angle: int) -> int:
    """The section under the clapper at `angle` tenths: round(angle / (3600/54)) mod 54.

    Section i is centred on i x 3600/54 tenths and its dividers lie at (i ± 0.5) x 3600/54;
    in whole tenths, 18 of the 54 dividers fall exactly on an angle (10.0, 30.0, ...
    350.0 degrees), and such an angle belongs to the section clockwise of the divider
    (the higher index): the rounding is half up, done in integers.
    """
    return (angle * SECTIONS * 2 + ANGLES) // (ANGLES * 2) % SECTIONS


def section_distance(a: int, b: int) -> int:
    """How many sections apart two sections are, the shorter way round."""
    gap = (a - b) % SECTIONS
    return min(gap, SECTIONS - gap)


class BigSixDriver(FramedDriver):
    """One Big Six wheel sensor on one link."""

    FAMILY = "big_six_wheel"
    TYPES: ClassVar[frozenset[str]] = frozenset({"SPN", "SEC", "ANG", "REV", "RST", "DIV", "TSR"})
    FLAGS = ("sections", "angle")
    CAPABILITIES: ClassVar[frozenset[str]] = frozenset({"clapper", "sections", "angle"})
    FAULT_CODES: ClassVar[dict[int, str]] = {
        10: "hardware fault",
        50: "clapper sensor failed",
        51: "rim sensor failed",
        52: "index sensor failed",
        90: "link: frame not acknowledged",
    }
    TAMPER_CODES: ClassVar[dict[int, str]] = {
        1: "case opened",
        2: "cable cut",
        3: "magnet near the clapper",
    }

    def __init__(self, profile: DeviceProfile) -> None:
        super().__init__(profile)
        if self.quirks.flags["sections"] and self.quirks.flags["angle"]:
            raise ValueError(
                f"profile {profile.model!r}: quirks.sections and quirks.angle are both true; "
                "a wheel reports the sections passing or the rim's angle, never both"
            )

    def reset(self) -> None:
        """Also forget the spin's last angle: a new connection starts with none."""
        super().reset()
        self._angle: int | None = None

    def identity(self, replies: dict[str, DeviceReply]) -> DeviceEvent:
        """As every FLF/1 device, and a wheel listing both `sections` and `angle` is refused
        by name (the profile can hold only one of them, so it would mismatch anyway)."""
        reply = replies.get("identify")
        if reply is not None:
            words = reply.text.rsplit("|", 1)[-1].split(",")
            if "sections" in words and "angle" in words:
                reason = "IDN lists both sections and angle: a wheel reports one or the other"
                return protocol_error(reason, reply.text.encode("utf-8", "backslashreplace"))
        return super().identity(replies)

    def message(self, frame: Frame) -> list[Output]:
        kind = frame.type
        if kind == "TSR":
            return self_test_reply(frame, self.quirks.fault_codes)
        if kind == "SPN":
            (direction,) = expect_fields(frame, "direction")
            if direction not in DIRECTIONS:
                raise FrameError(f"SPN: cw or ccw expected, found {direction!r}")
            self._angle = None  # a new spin: only its own angles count
            return [DeviceEvent(EventType.BIGSIX_SPIN_STARTED, {"direction": direction})]
        if kind == "SEC":
            if not self.quirks.flags["sections"]:
                raise FrameError("SEC: from a wheel without the sections capability")
            parse_section(expect_fields(frame, "section")[0], "SEC section")
            return []
        if kind == "ANG":
            if not self.quirks.flags["angle"]:
                raise FrameError("ANG: from a wheel without the angle capability")
            self._angle = parse_angle(expect_fields(frame, "angle")[0])
            return []
        if kind == "REV":
            count = parse_int(expect_fields(frame, "count")[0], "REV count")
            if count == 0:
                raise FrameError("REV: a count from 1 expected, found 0")
            return [DeviceEvent(EventType.BIGSIX_REVOLUTION, {"count": count})]
        if kind == "RST":
            section = parse_section(expect_fields(frame, "section")[0], "RST section")
            rest = DeviceEvent(EventType.BIGSIX_AT_REST, {"section": section})
            return [*self._rim_check((section,), f"rests in section {section}"), rest]
        raw_left, raw_right = expect_fields(frame, "left", "right")
        left = parse_section(raw_left, "DIV left")
        right = parse_section(raw_right, "DIV right")
        if right != (left + 1) % SECTIONS:
            raise FrameError(
                f"DIV: right must be the section clockwise of left ({(left + 1) % SECTIONS}), "
                f"found {right}"
            )
        rest = DeviceEvent(EventType.BIGSIX_BETWEEN_SECTIONS, {"left": left, "right": right})
        where = f"rests on the divider between sections {left} and {right}"
        return [*self._rim_check((left, right), where), rest]

    def _rim_check(self, sections: tuple[int, ...], where: str) -> list[Output]:
        """A `device.fault` if the spin's last angle is too far from the clapper's rest.

        Called once every field of the rest frame is good; it uses up the angle, so a
        second rest without a new angle is not checked against a stale one.
        """
        angle, self._angle = self._angle, None
        if angle is None:
            return []
        seen = angle_section(angle)
        apart = min(section_distance(seen, s) for s in sections)
        if apart <= RIM_TOLERANCE:
            return []
        text = (
            f"rim angle and clapper disagree: the last angle, {angle // 10}.{angle % 10} "
            f"degrees, is in section {seen}, but the clapper {where} ({apart} sections "
            f"apart, at most {RIM_TOLERANCE} allowed)"
        )
        data = {"code": None, "text": text, "origin": "consistency"}
        return [DeviceEvent(EventType.DEVICE_FAULT, data)]


DRIVER: type[Driver] = BigSixDriver  # mypy checks it is a Driver
