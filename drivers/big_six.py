"""Driver for a Big Six wheel's clapper sensor (family `big_six_wheel`,
`docs/protocols/big-six.md`, framed as FLF/1).

The wheel says when it is spun (`SPN`), which section passes the clapper (`SEC`), each
revolution completed (`REV`) and where the clapper comes to rest: in a section (`RST`) or
on the divider between two (`DIV`). The driver checks the grammar of each frame (a
section index is 0 to 53, 58 Pa. Code § 533.1(a); a divider lies between two adjacent
sections) and reports; whether a spin is valid is the engine's judgement.

`SEC` frames are validated and acknowledged but give no event: a spin passes some two
hundred sections, too many to journal, and `REV` already says how far the wheel went.
"""

from __future__ import annotations

from typing import ClassVar

from drivers.framed import FramedDriver
from drivers.framed_codec import Frame, FrameError
from drivers.framed_fields import Output, expect_fields, parse_int, self_test_reply
from floord.contract import EventType
from floord.events import DeviceEvent

SECTIONS = 54  # 58 Pa. Code § 533.1(a)
DIRECTIONS = ("cw", "ccw")


def parse_section(value: str, what: str) -> int:
    """A section index, 0 (the joker) to 53, clockwise (`big-six.md`)."""
    index = parse_int(value, what)
    if index >= SECTIONS:
        raise FrameError(f"{what}: a section from 0 to {SECTIONS - 1} expected, found {index}")
    return index


class BigSixDriver(FramedDriver):
    """One Big Six wheel sensor on one link."""

    FAMILY = "big_six_wheel"
    TYPES: ClassVar[frozenset[str]] = frozenset({"SPN", "SEC", "REV", "RST", "DIV", "TSR"})
    FLAGS = ("sections",)
    CAPABILITIES: ClassVar[frozenset[str]] = frozenset({"clapper", "sections"})
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

    def message(self, frame: Frame) -> list[Output]:
        kind = frame.type
        if kind == "TSR":
            return self_test_reply(frame, self.quirks.fault_codes)
        if kind == "SPN":
            (direction,) = expect_fields(frame, "direction")
            if direction not in DIRECTIONS:
                raise FrameError(f"SPN: cw or ccw expected, found {direction!r}")
            return [DeviceEvent(EventType.BIGSIX_SPIN_STARTED, {"direction": direction})]
        if kind == "SEC":
            if not self.quirks.flags["sections"]:
                raise FrameError("SEC: from a wheel without the sections capability")
            parse_section(expect_fields(frame, "section")[0], "SEC section")
            return []
        if kind == "REV":
            count = parse_int(expect_fields(frame, "count")[0], "REV count")
            if count == 0:
                raise FrameError("REV: a count from 1 expected, found 0")
            return [DeviceEvent(EventType.BIGSIX_REVOLUTION, {"count": count})]
        if kind == "RST":
            section = parse_section(expect_fields(frame, "section")[0], "RST section")
            return [DeviceEvent(EventType.BIGSIX_AT_REST, {"section": section})]
        raw_left, raw_right = expect_fields(frame, "left", "right")
        left = parse_section(raw_left, "DIV left")
        right = parse_section(raw_right, "DIV right")
        if right != (left + 1) % SECTIONS:
            raise FrameError(
                f"DIV: right must be the section clockwise of left ({(left + 1) % SECTIONS}), "
                f"found {right}"
            )
        return [DeviceEvent(EventType.BIGSIX_BETWEEN_SECTIONS, {"left": left, "right": right})]


DRIVER = BigSixDriver
