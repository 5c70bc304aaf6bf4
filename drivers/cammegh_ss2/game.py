"""The SS2 game as the status frames tell it: transitions, the number, and warnings.

The wheel repeats its whole state every 500 ms, so a game is a sequence of states; this
tracker turns changes of state into the normalised `wheel.*` events, reports each spin's
number once, and applies the vendor's guidance on how long a warning flag may stand
before it becomes `persistent` (the moment the host must void or stop the game).
The clock is the caller's `now`, so every rule is testable without waiting.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from drivers.cammegh_ss2.protocol import (
    COMPONENT_FAULT_TEXT,
    FLAG_BALL_NOT_DETECTED,
    FLAG_COMPONENT_FAULT,
    FLAG_FAILED_LAUNCH,
    FLAG_SAME_DIRECTION,
    StatusFrame,
    flag_names,
)
from drivers.text import protocol_error
from floord.contract import EventType
from floord.events import DeviceEvent

NEW_GAME_FROM = frozenset({5, 6, 7})
BALL_NOT_DETECTED_STATES = frozenset({4, 7})


@dataclass(frozen=True)
class Grace:
    """The profile's quirks: how long flags 8 and 1 may stand before they persist."""

    failed_launch_s: float
    ball_not_detected_s: float
    ball_not_detected_frames: int


class GameTracker:
    """Remembers the last status frame and turns each new one into events."""

    def __init__(self, grace: Grace) -> None:
        self._grace = grace
        self.reset()

    def reset(self) -> None:
        self._state: int | None = None
        self._spin: int | None = None
        self._code = 0
        self._number_spin: int | None = None
        self._number: str | None = None
        self._number_origin: str | None = None
        self._mismatch_reported = False
        self._state3_since: float | None = None
        self._nd_since: float | None = None
        self._nd_frames = 0
        self._persisted: set[int] = set()

    @property
    def state(self) -> int | None:
        return self._state

    def status(self, frame: StatusFrame, now: float) -> list[DeviceEvent]:
        """Events for one valid status frame; a repeat emits nothing but ages the warnings."""
        events: list[DeviceEvent] = []
        prev_state, prev_spin = self._state, self._spin
        if frame.spin != prev_spin:
            self._number_spin = self._number = self._number_origin = None
            self._mismatch_reported = False
        if prev_state is not None:
            events.extend(self._transitions(frame, prev_state, prev_spin))
        if frame.state == 5:
            events.extend(self._status_number(frame))
        code = frame.warn | (FLAG_BALL_NOT_DETECTED if frame.state == 7 else 0)
        if code != self._code:
            events.append(self._warning(frame, code, flag_names(code), persistent=False))
            if code & FLAG_COMPONENT_FAULT and not self._code & FLAG_COMPONENT_FAULT:
                events.append(
                    DeviceEvent(
                        EventType.DEVICE_FAULT,
                        {"code": None, "text": COMPONENT_FAULT_TEXT, "origin": "status_flag"},
                    )
                )
        if frame.state == 3 and prev_state != 3:
            self._state3_since = now
        elif frame.state != 3:
            self._state3_since = None
        self._code = code
        self._state, self._spin = frame.state, frame.spin
        events.extend(self._persistence(frame, now))
        return events

    def number_line(self, number: str, raw: bytes) -> list[DeviceEvent]:
        """The winning-number line: a result only while the last status state was 4."""
        if self._state != 4 or self._spin is None:
            return [protocol_error("winning-number line while the wheel is not in state 4", raw)]
        if self._number_spin == self._spin:
            return [protocol_error(f"second winning number for spin {self._spin}", raw)]
        self._number_spin, self._number, self._number_origin = self._spin, number, "line"
        return [self._number_event(self._spin, number, "line")]

    def _transitions(
        self, frame: StatusFrame, prev_state: int, prev_spin: int | None
    ) -> list[DeviceEvent]:
        state = frame.state
        if state in (1, 2) and (frame.spin != prev_spin or prev_state in NEW_GAME_FROM):
            data = {
                "spin": frame.spin,
                "state": state,
                "rotor_direction": frame.rotor_direction,
                "rotor_rpm": frame.rotor_rpm,
            }
            return [DeviceEvent(EventType.WHEEL_GAME_STARTED, data)]
        if state == prev_state:
            return []
        if state == 3:
            data = {
                "spin": frame.spin,
                "rotor_direction": frame.rotor_direction,
                "rotor_rpm": frame.rotor_rpm,
            }
            return [DeviceEvent(EventType.WHEEL_BALL_LAUNCHED, data)]
        if state == 4:
            return [DeviceEvent(EventType.WHEEL_NO_MORE_BETS, {"spin": frame.spin})]
        if state == 6:
            return [DeviceEvent(EventType.WHEEL_IDLE, {"spin": frame.spin})]
        return []

    def _status_number(self, frame: StatusFrame) -> list[DeviceEvent]:
        if frame.win is None:  # parse_status already refuses such a frame
            return []
        if self._number_spin != frame.spin:
            self._number_spin, self._number, self._number_origin = (
                frame.spin,
                frame.win,
                "status",
            )
            return [self._number_event(frame.spin, frame.win, "status")]
        if frame.win == self._number or self._mismatch_reported:
            return []
        self._mismatch_reported = True
        source = "winning-number line" if self._number_origin == "line" else "first state-5 frame"
        reason = f"state-5 frame shows {frame.win!r} but the {source} said {self._number!r}"
        return [protocol_error(reason, frame.text.encode("ascii"))]

    @staticmethod
    def _number_event(spin: int, number: str, origin: str) -> DeviceEvent:
        return DeviceEvent(
            EventType.WHEEL_NUMBER, {"spin": spin, "number": number, "origin": origin}
        )

    @staticmethod
    def _warning(
        frame: StatusFrame, code: int, flags: list[str], *, persistent: bool
    ) -> DeviceEvent:
        data: dict[str, Any] = {
            "spin": frame.spin,
            "state": frame.state,
            "code": code,
            "flags": flags,
            "persistent": persistent,
        }
        return DeviceEvent(EventType.WHEEL_WARNING, data)

    def _persistence(self, frame: StatusFrame, now: float) -> list[DeviceEvent]:
        """Persistent warnings: one per flag and episode, once the flag outlasts its grace."""
        code, state = self._code, frame.state
        due: list[int] = []

        if state in BALL_NOT_DETECTED_STATES and code & FLAG_BALL_NOT_DETECTED:
            if self._nd_since is None:
                self._nd_since, self._nd_frames = now, 0
            self._nd_frames += 1
            if (
                now - self._nd_since >= self._grace.ball_not_detected_s
                and self._nd_frames > self._grace.ball_not_detected_frames
            ):
                due.append(FLAG_BALL_NOT_DETECTED)
        else:
            self._nd_since, self._nd_frames = None, 0
            self._persisted.discard(FLAG_BALL_NOT_DETECTED)

        if state == 3 and code & FLAG_SAME_DIRECTION:
            due.append(FLAG_SAME_DIRECTION)
        else:
            self._persisted.discard(FLAG_SAME_DIRECTION)

        if state == 3 and code & FLAG_FAILED_LAUNCH and self._state3_since is not None:
            if now - self._state3_since >= self._grace.failed_launch_s:
                due.append(FLAG_FAILED_LAUNCH)
        else:
            self._persisted.discard(FLAG_FAILED_LAUNCH)

        events = []
        for bit in due:
            if bit not in self._persisted:
                self._persisted.add(bit)
                events.append(self._warning(frame, bit, flag_names(bit), persistent=True))
        return events
