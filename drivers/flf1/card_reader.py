"""Driver for a card reader device (family `card_reader`, `docs/protocols/card-reader.md`).

The dealer slides the hole card into the reader (58 Pa. Code § 549.7(f)) and it says
whether the dealer has Blackjack. Only a model with the `exposes_value` capability may
say which card it is (§ 549.16(j)); from any other model a card is a protocol error,
because floord must never learn a value the table's rules keep hidden.
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
    parse_self_test,
)
from drivers.flf1.framed import FramedDriver
from floord.contract import EventType
from floord.events import DeviceEvent, DeviceReply, Driver

BLACKJACK_HOLE_RANKS = frozenset("ATJQK")


class CardReaderDriver(FramedDriver):
    """One card reader on one link."""

    FAMILY = "card_reader"
    TYPES: ClassVar[frozenset[str]] = frozenset({"PEK", "TSR"})
    FLAGS = ("exposes_value",)
    CAPABILITIES: ClassVar[frozenset[str]] = frozenset({"exposes_value"})
    FAULT_CODES: ClassVar[dict[int, str]] = {
        10: "hardware fault",
        11: "optical sensor failed",
        12: "optical sensor dirty",
        13: "card jammed in the reader",
        20: "display failed",
        90: "link: frame not acknowledged",
    }
    TAMPER_CODES: ClassVar[dict[int, str]] = {
        1: "case opened",
        2: "cable cut",
        3: "magnet or foreign object",
    }

    def message(self, frame: Frame) -> list[Output]:
        if frame.type == "PEK":
            return [self._peek(frame)]
        result = parse_self_test(frame)
        text = code_text(result.code, result.text, self.quirks.fault_codes)
        data = {"passed": result.passed, "code": result.code, "text": text}
        return [
            DeviceEvent(EventType.READER_SELF_TEST, data),
            DeviceReply(prefix="TSR", text=frame.text),
        ]

    def _peek(self, frame: Frame) -> DeviceEvent:
        exposes = self.quirks.flags["exposes_value"]
        if exposes:
            answer, card = expect_fields(frame, "Y or N", "card")
        else:
            if len(frame.fields) == 2:
                raise FrameError("PEK: a card from a reader without exposes_value")
            (answer,) = expect_fields(frame, "Y or N")
            card = NO_VALUE
        if answer not in ("Y", "N"):
            raise FrameError(f"PEK: Y or N expected, found {answer!r}")
        hole = parse_card(card, "PEK card") if exposes else None
        if hole is not None and answer == "Y" and hole[0] not in BLACKJACK_HOLE_RANKS:
            raise FrameError(f"PEK: Blackjack with a hole card {hole} that is not an ace or a ten")
        return DeviceEvent(EventType.READER_PEEK, {"blackjack": answer == "Y", "hole_card": hole})


DRIVER: type[Driver] = CardReaderDriver  # mypy checks it is a Driver
