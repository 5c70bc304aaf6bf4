"""Driver for a dice tracker or a dice shaker (family `dice_tracker`,
`docs/protocols/dice-tracker.md`, framed as FLF/1).

A camera dice tracker over a Craps table reports the dice set at the table (`SET`, the
five or more dice of 58 Pa. Code § 537.7(a)), the two the shooter selected (`SEL`,
§ 537.7(c)) and each throw (`THR`): every die's id and skyward face, where it came to rest
(on the layout, off the table, on the other die, on the bank, in the dice cup, on a rail:
§ 537.9(a), (b)(3), (4)), whether it lies flat or cocked (§ 537.10(b)), whether it struck
the far end (§ 537.9(b)(2)), and whether the dice left the shooter's hand together
(§ 537.9(b)(1)). A Pai Gow shaker (§ 535.2(d)) reports only the faces of its three dice.
Which of those a device reports is its profile's capabilities; a field the device does
not report is `-` and its event value null, so the engine sees one shape from every
device.

The driver checks the grammar and reports; whether a throw is valid, what it totals and
which dice may be thrown are the engine's judgement, never the driver's. It numbers the
throws (from 1, never reused, kept across reconnects like a wheel's spins).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, ClassVar

from drivers.flf1.codec import Frame, FrameError
from drivers.flf1.fields import NO_VALUE, Output, parse_int, self_test_reply
from drivers.flf1.framed import FramedDriver
from floord.contract import EventType
from floord.events import DeviceEvent, Driver
from floord.profiles import DeviceProfile

# The family's own profile quirk: how many dice one throw holds (Craps 2, a shaker 3).
DICE_QUIRK = "dice"
DICE_COUNTS = (2, 3)
DIE_FIELDS = ("id", "face", "rest", "lie", "far_end")
RESTS = ("table", "off", "die", "bank", "cup", "rail")
LIES = ("flat", "cocked", "cocked_multi")
YES_NO = {"Y": True, "N": False}
# A die whose face may be unread (`-`): gone from the table or into the dice cup, where
# the camera may not see it, or resting on more than one side (§ 537.10(b): no face is
# uppermost then).
UNREAD_RESTS = frozenset({"off", "cup"})
UNREAD_LIE = "cocked_multi"
MAX_SET = 32  # ids in one SET: far more dice than any table holds
_DIE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,15}")


def dice_count(profile: DeviceProfile) -> int:
    """The profile's `quirks.dice`: how many dice each throw reports (2 or 3)."""
    value = profile.quirks.get(DICE_QUIRK)
    if type(value) is not int or value not in DICE_COUNTS:
        raise ValueError(
            f"profile {profile.model!r}: quirks.{DICE_QUIRK}: 2 or 3 (dice in a throw) "
            f"expected, found {value!r}"
        )
    return int(value)


def parse_die_id(value: str, what: str) -> str:
    """A die's id: 1 to 16 letters, digits, `.`, `_`, `-`, starting with a letter or digit."""
    if not _DIE_ID.fullmatch(value):
        raise FrameError(
            f"{what}: a die id (1 to 16 of A-Z a-z 0-9 . _ -, first a letter or digit) "
            f"expected, found {value!r}"
        )
    return value


def parse_word(value: str, words: tuple[str, ...], what: str) -> str:
    if value not in words:
        raise FrameError(f"{what}: one of {', '.join(words)} expected, found {value!r}")
    return value


def parse_yes_no(value: str, what: str) -> bool:
    if value not in YES_NO:
        raise FrameError(f"{what}: Y or N expected, found {value!r}")
    return YES_NO[value]


def parse_face(value: str, what: str) -> int:
    face = parse_int(value, what)
    if not 1 <= face <= 6:
        raise FrameError(f"{what}: a face from 1 to 6 expected, found {face}")
    return face


def unique_ids(values: tuple[str, ...], what: str) -> list[str]:
    ids = [parse_die_id(v, f"{what} id") for v in values]
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        raise FrameError(f"{what}: each die once expected, found {', '.join(twice)} twice")
    return ids


class DiceTrackerDriver(FramedDriver):
    """One dice tracker (or shaker) on one link; `quirks.dice` dice in each throw."""

    FAMILY = "dice_tracker"
    TYPES: ClassVar[frozenset[str]] = frozenset({"SET", "SEL", "THR", "TSR"})
    FLAGS = ("die_ids", "rest", "cocked", "far_end", "together")
    CAPABILITIES: ClassVar[frozenset[str]] = frozenset(FLAGS)
    FAULT_CODES: ClassVar[dict[int, str]] = {
        10: "hardware fault",
        70: "camera failed",
        71: "calibration lost",
        72: "die not recognised",
        90: "link: frame not acknowledged",
    }
    TAMPER_CODES: ClassVar[dict[int, str]] = {
        1: "case opened",
        2: "cable cut",
        3: "camera or shaker obstructed",
    }

    def __init__(self, profile: DeviceProfile) -> None:
        # The link quirks are read strictly; `dice` is this family's own, read after.
        link = {k: v for k, v in profile.quirks.items() if k != DICE_QUIRK}
        super().__init__(profile.model_copy(update={"quirks": link}))
        self.dice = dice_count(profile)
        self.throw = 0  # kept across reconnects: a throw number is never reused

    def message(self, frame: Frame) -> list[Output]:
        kind = frame.type
        if kind == "TSR":
            return self_test_reply(frame, self.quirks.fault_codes)
        if kind == "THR":
            return [self._throw(frame)]
        if not self.quirks.flags["die_ids"]:
            raise FrameError(f"{kind}: from a device without the die_ids capability")
        if kind == "SET":
            if frame.fields == (NO_VALUE,):
                return [DeviceEvent(EventType.DICE_SET, {"dice": []})]
            if not 1 <= len(frame.fields) <= MAX_SET:
                raise FrameError(
                    f"SET: 1 to {MAX_SET} die ids (or '-') expected, found {len(frame.fields)}"
                )
            return [DeviceEvent(EventType.DICE_SET, {"dice": unique_ids(frame.fields, "SET")})]
        if len(frame.fields) != self.dice:
            raise FrameError(f"SEL: {self.dice} die ids expected, found {len(frame.fields)}")
        return [DeviceEvent(EventType.DICE_SELECTED, {"dice": unique_ids(frame.fields, "SEL")})]

    def _throw(self, frame: Frame) -> DeviceEvent:
        """`THR|together|` then id, face, rest, lie, far_end for each die; checked whole
        before the throw number moves, so a refused frame's resend finds it unchanged."""
        fields = frame.fields
        wanted = 1 + len(DIE_FIELDS) * self.dice
        if len(fields) != wanted:
            raise FrameError(
                f"THR: {wanted} fields expected (together, then {', '.join(DIE_FIELDS)} "
                f"for each of {self.dice} dice), found {len(fields)}"
            )
        together = self._reported(fields[0], "together", "THR together", parse_yes_no)
        dice = []
        for n in range(self.dice):
            start = 1 + len(DIE_FIELDS) * n
            dice.append(self._die(fields[start : start + len(DIE_FIELDS)], f"THR die {n + 1}"))
        ids = [d["id"] for d in dice if d["id"] is not None]
        twice = sorted({i for i in ids if ids.count(i) > 1})
        if twice:
            raise FrameError(f"THR: each die once expected, found {', '.join(twice)} twice")
        self.throw += 1
        data = {"throw": self.throw, "together": together, "dice": dice}
        return DeviceEvent(EventType.DICE_THROW, data)

    def _die(self, fields: tuple[str, ...], what: str) -> dict[str, Any]:
        raw_id, raw_face, raw_rest, raw_lie, raw_end = fields
        rest = self._reported(
            raw_rest, "rest", f"{what} rest", lambda v, w: parse_word(v, RESTS, w)
        )
        # An id the camera could not read is `-` from any device (null: the engine holds
        # the throw for a person); an unseen die (off the table, in the cup) may also
        # leave its lie and far_end `-`.
        die_id = self._reported(raw_id, "die_ids", f"{what} id", parse_die_id, unread=True)
        unseen = rest in UNREAD_RESTS
        lie = self._reported(
            raw_lie, "cocked", f"{what} lie", lambda v, w: parse_word(v, LIES, w), unread=unseen
        )
        far_end = self._reported(raw_end, "far_end", f"{what} far_end", parse_yes_no, unread=unseen)
        face: int | None = None
        if raw_face != NO_VALUE:
            face = parse_face(raw_face, f"{what} face")
        elif rest not in UNREAD_RESTS and lie != UNREAD_LIE:
            raise FrameError(
                f"{what} face: a face from 1 to 6 expected ('-' only for a die off the "
                f"table, in the dice cup or resting on more than one side), found '-'"
            )
        return {"id": die_id, "face": face, "rest": rest, "lie": lie, "far_end": far_end}

    def _reported(
        self,
        value: str,
        flag: str,
        what: str,
        parse: Callable[[str, str], Any],
        *,
        unread: bool = False,
    ) -> Any:
        """A field the `flag` capability governs: a value from a device that has it, `-`
        (None) from one that has not; `unread`: `-` allowed from a device that has it too
        (a value it could not read)."""
        if not self.quirks.flags[flag]:
            if value != NO_VALUE:
                raise FrameError(
                    f"{what}: '-' expected from a device without the {flag} capability, "
                    f"found {value!r}"
                )
            return None
        if value == NO_VALUE:
            if unread:
                return None
            raise FrameError(
                f"{what}: a value expected from a device with the {flag} capability, found '-'"
            )
        return parse(value, what)


DRIVER: type[Driver] = DiceTrackerDriver  # mypy checks it is a Driver
