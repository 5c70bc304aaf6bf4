"""What every card-game engine test table does alike: sign commands in as an operator or
the dealer, and bring a device online with an identity. A test table mixes this in and
keeps its own `device` (which device a game's events default to)."""

from __future__ import annotations

from typing import Any

from floord.contract import EventType
from floord.engine.core.types import CommandOutcome, VerifiedCommand


class OperatorCommands:
    """Needs `self.engine`, `self.clock` (test_engine_support.Clock) and `self.device`."""

    engine: Any
    clock: Any

    def command(
        self,
        name: str,
        args: dict[str, Any] | None = None,
        *,
        by: str = "fp1",
        role: str = "floorperson",
    ) -> CommandOutcome:
        cmd = VerifiedCommand(
            id=f"c{self.clock.now.timestamp()}", name=name, by=by, role=role, args=args or {}
        )
        return self.engine.on_command(cmd, self.clock.step())

    def dealer(self, name: str, args: dict[str, Any] | None = None) -> CommandOutcome:
        return self.command(name, args, by="d1", role="dealer")

    def connect(self, device: str, caps: list[str]) -> None:
        self.device(EventType.DEVICE_ONLINE, {}, device)  # type: ignore[attr-defined]
        identity = {
            "maker": "T",
            "model": "M",
            "serial": "1",
            "firmware": "1",
            "capabilities": caps,
        }
        self.device(EventType.DEVICE_IDENTIFIED, identity, device)  # type: ignore[attr-defined]
