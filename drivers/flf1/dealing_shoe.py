"""Driver for a dealing shoe (family `dealing_shoe`, `docs/protocols/dealing-shoe.md`).

One grammar for three models: a manual shoe that only counts the cards drawn, a
card-recognition shoe that reads each card, and a double shoe (58 Pa. Code § 549.3(c),
§ 549.7(d)) that says which side each card came from. The driver holds each side's
count since its batch was loaded, so a card the host never heard of shows up as a
protocol error instead of a silently shifted deal.
"""

from __future__ import annotations

from typing import ClassVar

from drivers.flf1.codec import Frame, FrameError
from drivers.flf1.fields import (
    NO_VALUE,
    Output,
    code_text,
    expect_fields,
    parse_card,
    parse_int,
    parse_text,
    self_test_reply,
)
from drivers.flf1.framed import FramedDriver
from drivers.text import protocol_error
from floord.contract import EventType
from floord.events import DeviceEvent, Driver

SIDES = {"L": "left", "R": "right"}


class DealingShoeDriver(FramedDriver):
    """One dealing shoe on one link."""

    FAMILY = "dealing_shoe"
    TYPES: ClassVar[frozenset[str]] = frozenset({"LOD", "CRD", "FUP", "CUT", "EMP", "OOO", "TSR"})
    FLAGS = ("recognition", "double")
    CAPABILITIES: ClassVar[frozenset[str]] = frozenset({"recognition", "double"})
    FAULT_CODES: ClassVar[dict[int, str]] = {
        10: "hardware fault",
        30: "card jam at the exit",
        31: "card sensor blocked",
        32: "recognition camera failed",
        90: "link: frame not acknowledged",
    }
    TAMPER_CODES: ClassVar[dict[int, str]] = {1: "shoe lid opened during play", 2: "cable cut"}

    def reset(self) -> None:
        """Forget the link and each side's count (a reconnect: the shoe may have changed)."""
        super().reset()
        # Cards drawn since each side's LOD; unknown until a LOD (or a first CRD) says.
        self._counts: dict[str | None, int] = {}

    def message(self, frame: Frame) -> list[Output]:
        kind = frame.type
        if kind == "TSR":
            return self_test_reply(frame, self.quirks.fault_codes)
        if kind == "OOO":
            return self._out_of_order(frame)
        side = self._side(frame)
        if kind == "LOD":
            _, raw_cards = expect_fields(frame, "side", "cards")
            cards = None if raw_cards == NO_VALUE else parse_int(raw_cards, "LOD cards")
            self._counts[side] = 0
            return [DeviceEvent(EventType.SHOE_LOADED, {"side": side, "cards": cards})]
        if kind == "CRD":
            _, raw_count, raw_card = expect_fields(frame, "side", "count", "card")
            count = parse_int(raw_count, "CRD count")
            card = self._card(raw_card, "CRD card")
            if count < 1:
                raise FrameError(f"CRD: a count from 1 expected, found {count}")
            out = self._count_check(frame, side, count, 1)
            self._counts[side] = count
            data = {"count": count, "card": card, "side": side}
            return [*out, DeviceEvent(EventType.SHOE_CARD_DRAWN, data)]
        if kind == "FUP":
            _, raw_card = expect_fields(frame, "side", "card")
            card = self._card(raw_card, "FUP card")
            return [DeviceEvent(EventType.SHOE_CARD_FACE_UP, {"card": card, "side": side})]
        if kind == "CUT":
            _, raw_count = expect_fields(frame, "side", "count")
            count = parse_int(raw_count, "CUT count")
            out = self._count_check(frame, side, count, 0)
            self._counts[side] = count
            return [*out, DeviceEvent(EventType.SHOE_CUTTING_CARD, {"count": count, "side": side})]
        expect_fields(frame, "side")
        return [DeviceEvent(EventType.SHOE_EMPTY, {"side": side})]

    def _out_of_order(self, frame: Frame) -> list[Output]:
        """`OOO|code|text`: the shoe malfunctions and cannot be used (code 0: back in
        service). Unlike `FLT`, it is the shoe's word that it is out of service until
        repaired, the report § 571.13(g) asks a person to act on."""
        raw_code, text = expect_fields(frame, "code", "text")
        code = parse_int(raw_code, "OOO code")
        text = parse_text(text, "OOO text")
        if code == 0:
            return [DeviceEvent(EventType.SHOE_OUT_OF_ORDER, {"code": 0})]
        data = {"code": code, "text": code_text(code, text, self.quirks.fault_codes)}
        return [DeviceEvent(EventType.SHOE_OUT_OF_ORDER, data)]

    def _side(self, frame: Frame) -> str | None:
        """The frame's side: `L`/`R` from a double shoe, `-` from a single one."""
        raw = frame.fields[0] if frame.fields else ""
        if self.quirks.flags["double"]:
            if raw not in SIDES:
                raise FrameError(f"{frame.type}: side L or R from a double shoe, found {raw!r}")
            return SIDES[raw]
        if raw != NO_VALUE:
            raise FrameError(f"{frame.type}: side '-' from a single shoe, found {raw!r}")
        return None

    def _card(self, raw: str, what: str) -> str | None:
        """A card from a recognition shoe; `-` from a shoe that does not read cards."""
        if self.quirks.flags["recognition"]:
            return parse_card(raw, what)
        if raw != NO_VALUE:
            raise FrameError(f"{what}: '-' from a shoe without recognition, found {raw!r}")
        return None

    def _count_check(self, frame: Frame, side: str | None, count: int, step: int) -> list[Output]:
        """A protocol error when `count` is not the side's count so far + `step`.

        The count then resyncs to the device's, so one skip is reported once.
        """
        known = self._counts.get(side)
        if known is None or count == known + step:
            return []
        where = f"the {side} side" if side else "the shoe"
        reason = f"{frame.type} count {count} on {where}, {known + step} expected"
        return [protocol_error(reason, frame.raw)]


DRIVER: type[Driver] = DealingShoeDriver  # mypy checks it is a Driver
