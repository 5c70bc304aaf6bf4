"""A Craps table in virtual time for the engine tests (58 Pa. Code ch. 537)."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from typing import Any

from floord.contract import EventType
from floord.engine.core.types import CommandOutcome, EngineOutput, VerifiedCommand
from floord.engine.craps.engine import CrapsEngine

T0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
TRACKER = "dice"
INSPECTION = {"layout_approved": True, "no_call_bets_shown": True, "drop_box_and_tip_box": True}
CAPS = ["die_ids", "rest", "cocked", "far_end", "together"]
SET = ["D1", "D2", "D3", "D4", "D5"]


def die(face: int | None, id: str, rest: str = "table", lie: str = "flat",
        far_end: bool = True) -> dict[str, Any]:  # fmt: skip
    return {"id": id, "face": face, "rest": rest, "lie": lie, "far_end": far_end}


class Table:
    def __init__(self, **kwargs: Any) -> None:
        self.now = T0
        self.n = 0
        self.throws = 0
        kwargs.setdefault("fire_bet", "A")
        self.engine = CrapsEngine(
            "CR-01", dice_device=TRACKER, required_devices=[TRACKER],
            gaming_day_starts=time(6), timezone="UTC", **kwargs,
        )  # fmt: skip

    def step(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now

    def dev(self, type: str, **data: Any) -> EngineOutput:
        return self.engine.on_device_event(TRACKER, type, data, self.step())

    def cmd(self, name: str, role: str = "stickperson", **args: Any) -> CommandOutcome:
        self.n += 1
        command = VerifiedCommand(f"c{self.n}", name, "alice", role, args)
        return self.engine.on_command(command, self.step())

    def open(self, caps: list[str] | None = None) -> None:
        self.dev(EventType.DEVICE_ONLINE)
        self.dev(EventType.DEVICE_IDENTIFIED, maker="m", model="x",
                 capabilities=CAPS if caps is None else caps)  # fmt: skip
        self.dev(EventType.DICE_SET, dice=SET)
        assert self.cmd("inspect", "floorperson", checklist=INSPECTION).ok
        opened = self.cmd("open", "floorperson")
        assert opened.ok, opened

    def new_shooter(self, seat: int = 1) -> None:
        assert self.cmd("shooter", seat=seat).ok
        self.dev(EventType.DICE_SELECTED, dice=["D2", "D4"])

    def throw(self, d1: int | None, d2: int | None, *, together: bool | None = True,
              dice: list[dict[str, Any]] | None = None) -> EngineOutput:  # fmt: skip
        self.throws += 1
        body = dice if dice is not None else [die(d1, "D2"), die(d2, "D4")]
        return self.dev(EventType.DICE_THROW, throw=self.throws, together=together, dice=body)

    def ready(self, seat: int = 1) -> None:
        self.open()
        self.new_shooter(seat)


def types(out: EngineOutput) -> list[str]:
    return [d.type for d in out.events]


def first(out: EngineOutput, type: str) -> Any:
    return next(d for d in out.events if d.type == type)


def wagers(out: EngineOutput, kind: str) -> set[str]:
    """The wagers of one outcome list of the roll (`win`, `lose`, ...)."""
    roll = first(out, EventType.CRAPS_ROLL)
    return {w["wager"] for w in roll.data["outcomes"][kind]}
