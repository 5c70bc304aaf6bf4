"""Driver for an automated card shuffler (family `card_shuffler`,
`docs/protocols/card-shuffler.md`).

A batch shuffler (58 Pa. Code § 549.3(d)) or a continuous one (§ 549.15). The driver
only reports what the shuffler says; whether a batch's count or colour is acceptable
is the engine's judgement against the table's rules.
"""

from __future__ import annotations

import re
from typing import ClassVar

from drivers.flf1.codec import Frame, FrameError
from drivers.flf1.fields import (
    NO_VALUE,
    Output,
    code_text,
    expect_fields,
    parse_int,
    parse_text,
    self_test_reply,
)
from drivers.flf1.framed import FramedDriver
from floord.contract import EventType
from floord.events import DeviceEvent, Driver

_BATCH = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,31}")


def parse_batch(value: str, what: str) -> str:
    """A batch's back colour or id (`red`, `blue`, `A`): a word of up to 32 characters."""
    if not _BATCH.fullmatch(value):
        raise FrameError(f"{what}: a batch name (letters, digits, _ . -) expected, found {value!r}")
    return value


class CardShufflerDriver(FramedDriver):
    """One card shuffler on one link."""

    FAMILY = "card_shuffler"
    TYPES: ClassVar[frozenset[str]] = frozenset(
        {"SHS", "SHC", "BRD", "BRM", "JAM", "DOR", "OOO", "MOD", "TSR"}
    )
    FLAGS = ("continuous",)
    CAPABILITIES: ClassVar[frozenset[str]] = frozenset({"batch", "continuous", "counting"})
    FAULT_CODES: ClassVar[dict[int, str]] = {
        10: "hardware fault",
        40: "card jam",
        41: "motor failed",
        42: "elevator failed",
        43: "count sensor failed",
        90: "link: frame not acknowledged",
    }
    TAMPER_CODES: ClassVar[dict[int, str]] = {1: "door forced", 2: "cable cut"}

    def message(self, frame: Frame) -> list[Output]:
        kind = frame.type
        if kind == "TSR":
            return self_test_reply(frame, self.quirks.fault_codes)
        if kind in ("SHS", "BRM"):
            batch = parse_batch(expect_fields(frame, "batch")[0], f"{kind} batch")
            event = (
                EventType.SHUFFLER_SHUFFLE_STARTED
                if kind == "SHS"
                else EventType.SHUFFLER_BATCH_REMOVED
            )
            return [DeviceEvent(event, {"batch": batch})]
        if kind in ("SHC", "BRD"):
            raw_batch, raw_cards = expect_fields(frame, "batch", "cards")
            data = {
                "batch": parse_batch(raw_batch, f"{kind} batch"),
                "cards": parse_int(raw_cards, f"{kind} cards"),
            }
            event = (
                EventType.SHUFFLER_SHUFFLE_COMPLETED
                if kind == "SHC"
                else EventType.SHUFFLER_BATCH_READY
            )
            return [DeviceEvent(event, data)]
        if kind == "JAM":
            raw_batch, raw_code, text = expect_fields(frame, "batch or -", "code", "text")
            in_batch = None if raw_batch == NO_VALUE else parse_batch(raw_batch, "JAM batch")
            code = parse_int(raw_code, "JAM code")
            if code == 0:
                raise FrameError("JAM: a jam code (not 0) expected, found 0")
            text = code_text(code, parse_text(text, "JAM text"), self.quirks.fault_codes)
            return [
                DeviceEvent(EventType.SHUFFLER_JAM, {"batch": in_batch, "code": code, "text": text})
            ]
        if kind == "OOO":
            raw_code, text = expect_fields(frame, "code", "text")
            code = parse_int(raw_code, "OOO code")
            text = parse_text(text, "OOO text")
            if code == 0:
                return [DeviceEvent(EventType.SHUFFLER_OUT_OF_ORDER, {"code": 0})]
            data = {"code": code, "text": code_text(code, text, self.quirks.fault_codes)}
            return [DeviceEvent(EventType.SHUFFLER_OUT_OF_ORDER, data)]
        (value,) = expect_fields(frame, "DOR O or C" if kind == "DOR" else "MOD B or C")
        if kind == "DOR":
            if value not in ("O", "C"):
                raise FrameError(f"DOR: O (open) or C (closed) expected, found {value!r}")
            return [DeviceEvent(EventType.SHUFFLER_DOOR, {"open": value == "O"})]
        if value not in ("B", "C"):
            raise FrameError(f"MOD: B (batch) or C (continuous) expected, found {value!r}")
        if value == "C" and not self.quirks.flags["continuous"]:
            raise FrameError("MOD: continuous mode from a shuffler without continuous")
        return [DeviceEvent(EventType.SHUFFLER_MODE, {"continuous": value == "C"})]


DRIVER: type[Driver] = CardShufflerDriver  # mypy checks it is a Driver
