"""Helpers for the engine tests: a virtual clock, a table factory and a wheel's cycle.

No tests live here; the engine test modules import these helpers. Time is virtual: each
helper takes the `Clock` and advances it, so no test depends on the wall clock.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, time, timedelta
from typing import Any

from floord.contract import EventType
from floord.engine import RouletteEngine
from floord.engine.core.types import CommandOutcome, EngineOutput, VerifiedCommand

WHEEL = "wheel-1"
TABLE = "R01"
POCKETS = {"single_zero": 37, "double_zero": 38, "double_zero_as_single": 38}
# 15:00 UTC on 5 March 2024 is 10:00 in New York: gaming day 2024-03-05.
T0 = datetime(2024, 3, 5, 15, 0, tzinfo=UTC)
PASSING = {
    "no_magnet_or_contrivance": True,
    "wheel_level_and_free": True,
    "parts_secure": True,
    "ball_nonmagnetic": True,
    "ball_nonmetallic_and_size": True,
}


@dataclass
class Clock:
    now: datetime = T0

    def step(self, seconds: float = 0.5) -> datetime:
        self.now += timedelta(seconds=seconds)
        return self.now


@dataclass
class Table:
    """An engine under test with its clock, and everything it said, in order."""

    engine: RouletteEngine
    clock: Clock = field(default_factory=Clock)
    wheel: str = "single_zero"

    def device(
        self, type: str, data: dict[str, Any] | None = None, device: str = WHEEL
    ) -> EngineOutput:
        return self.engine.on_device_event(device, type, data or {}, self.clock.step())

    def command(
        self,
        name: str,
        args: dict[str, Any] | None = None,
        *,
        by: str = "fp1",
        role: str = "floorperson",
    ) -> CommandOutcome:
        cmd = VerifiedCommand(
            id=f"c-{self.clock.now.timestamp()}", name=name, by=by, role=role, args=args or {}
        )
        return self.engine.on_command(cmd, self.clock.step())

    def connect(self, device: str = WHEEL, pockets: int | None = None) -> EngineOutput:
        out = self.device(EventType.DEVICE_ONLINE, {}, device)
        identity = {
            "maker": "Cammegh",
            "model": "SS2",
            "firmware": "V2.50",
            "version_text": "*V V2.50",
            "pockets": POCKETS[self.wheel] if pockets is None else pockets,
            "serial": None,
        }
        out.extend(self.device(EventType.DEVICE_IDENTIFIED, identity, device))
        return out

    def inspect(self, **overrides: bool) -> CommandOutcome:
        checklist = dict(PASSING)
        if self.wheel == "double_zero_as_single":
            checklist["layout_and_signage"] = True
        checklist.update(overrides)
        return self.command("inspect", {"checklist": checklist, "note": "morning check"})

    def open(self) -> None:
        self.connect()
        assert self.inspect().ok
        outcome = self.command("open")
        assert outcome.ok, outcome.error

    def spin(self, number: str, spin: int = 1) -> EngineOutput:
        """A clean wheel cycle: game started, launched, no more bets, number."""
        out = self.device(
            EventType.WHEEL_GAME_STARTED,
            {"spin": spin, "state": 2, "rotor_direction": "cw", "rotor_rpm": 17.2},
        )
        out.extend(self.launch(spin))
        out.extend(self.device(EventType.WHEEL_NO_MORE_BETS, {"spin": spin}))
        out.extend(self.number(number, spin))
        return out

    def launch(self, spin: int = 1) -> EngineOutput:
        return self.device(
            EventType.WHEEL_BALL_LAUNCHED,
            {"spin": spin, "rotor_direction": "cw", "rotor_rpm": 17.2},
        )

    def number(self, number: str, spin: int = 1) -> EngineOutput:
        return self.device(
            EventType.WHEEL_NUMBER, {"spin": spin, "number": number, "origin": "line"}
        )

    def warning(
        self, flags: list[str], spin: int = 1, *, persistent: bool = True, state: int = 3
    ) -> EngineOutput:
        bits = {
            "ball_not_detected": 1,
            "same_direction": 2,
            "component_fault": 4,
            "failed_launch": 8,
        }
        code = sum(bits[f] for f in flags)
        data = {
            "spin": spin,
            "state": state,
            "code": code,
            "flags": flags,
            "persistent": persistent,
        }
        return self.device(EventType.WHEEL_WARNING, data)


def make_table(
    wheel: str = "single_zero",
    *,
    required: tuple[str, ...] = (WHEEL,),
    snapshot: dict[str, Any] | None = None,
    clock: Clock | None = None,
    starts: time = time(6, 0),
    timezone: str = "America/New_York",
) -> Table:
    engine = RouletteEngine(
        TABLE,
        wheel=wheel,
        wheel_device=WHEEL,
        required_devices=list(required),
        gaming_day_starts=starts,
        timezone=timezone,
        snapshot=snapshot,
    )
    return Table(engine, clock or Clock(), wheel)


def types(out: EngineOutput) -> list[str]:
    return [str(d.type) for d in out.events]


def only(out: EngineOutput, type: EventType):
    found = [d for d in out.events if d.type == type]
    assert len(found) == 1, f"one {type} expected in {types(out)}"
    return found[0]
