"""The Cammegh SS2 twin's answers to the host's commands, and what each one changes.

Kept apart from the game loop (`cammegh_ss2.py`) so each file holds one job: this one is
the command table of the reference ("Commands and replies"), applied to the wheel's
settings and state. The choices made where the reference is silent are listed in
`cammegh_ss2.py`'s docstring.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter

from simulators.cammegh_ss2.stats import statistics_reply
from simulators.cammegh_ss2.wire import (
    FIRMWARE_TEXT,
    GAMES_PER_HOUR,
    MODE_AUTO_STATUS,
    MODE_WAIT_FOR_HOST,
    NO_REPLY,
    ROTOR_RANGE_RPM,
    VERSION_TEXT,
    Command,
)
from simulators.scenario import Scenario


class Ss2HostCommands:
    """The host-command side of the wheel; `Ss2Simulator` sets every attribute below."""

    scenario: Scenario
    _rng: random.Random
    _labels: tuple[str, ...]
    _counts: Counter[str]
    _mode: int
    _status_on: bool
    _state: int
    _warn: int
    _rpm10: int
    _powered: bool
    _faults: list[int]
    _awaiting_respin: bool
    _respin_requested: bool
    _start_requested: bool
    _next_ccw: bool | None
    _nudge: asyncio.Event

    def _draw_rpm10(self) -> int:
        low, high = ROTOR_RANGE_RPM
        return self._rng.randint(int(low * 10), int(high * 10))

    def _power(self, *, on: bool) -> None:
        """Power down (rotor stopped, state 6) or up (faults cleared: a power cycle)."""
        self._powered = on
        self._state = 6
        self._warn = 0
        self._awaiting_respin = False
        if on:
            self._faults.clear()
            self._rpm10 = self._draw_rpm10()
        else:
            self._rpm10 = 0
        self._nudge.set()

    def _obey(self, command: Command) -> list[str]:
        """Act on one host command; the reply lines, in order (none for `*q`)."""
        letter, arg = command.letter, command.arg
        idle = self._state == 6
        if letter == "V":
            return [VERSION_TEXT]
        if letter == "S":
            return [FIRMWARE_TEXT]
        if letter == "T":
            return [self._setting(arg)]
        if letter == "R":
            if self._awaiting_respin:
                self._respin_requested = True
            return ["*R OK"]
        if letter == "K":
            if idle and self._powered and self._mode & MODE_WAIT_FOR_HOST:
                self._start_requested = True
                return ["*K OK"]
            return ["*K CAM"]
        if letter == "u":
            self._next_ccw = arg == "3"
            if idle and self._powered:
                self._start_requested = True
            return ["*u OK"]
        if letter == "o":
            if not idle:
                return ["*o BUSY"]
            if int(arg) > 65535:
                return [NO_REPLY]
            self._mode = int(arg)
            self._status_on = bool(self._mode & MODE_AUTO_STATUS)
            return [f"*o {self._mode}"]
        if letter == "O":
            return [f"*O {self._state} {int(self._powered)} {GAMES_PER_HOUR} {self._mode}"]
        if letter == "q":
            self._status_on = arg == "1"
            return []
        if letter == "F":
            if not idle:
                return ["*F BUSY"]
            return [f"*F {code}" for code in self._faults] or ["*F 0"]
        if letter == "P":
            on = arg == "1"
            if on == self._powered:
                return ["*P NO"]
            self._power(on=on)
            return ["*P OK"]
        if letter == "w":
            if self._state not in (5, 6):
                return ["*w BUSY"]
            return [statistics_reply(self._counts, self._labels)]
        raise AssertionError(f"command {letter!r} parsed but not obeyed")

    def _setting(self, letter: str) -> str:
        if letter == "Z":
            return f"*T z {self.scenario.pockets}"
        if letter == "S":
            low, high = ROTOR_RANGE_RPM
            return f"*T s {low:.1f} {high:.1f}"
        if letter == "H":
            return f"*T h {GAMES_PER_HOUR}"
        return NO_REPLY
