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

    def inspect_decks(self, decks: int | None = None) -> list[CommandOutcome]:
        """The dealer inspects the decks received (saying how many, where each deck is
        inspected on its own), then the floorperson verifies, then the dealer spreads each
        part the verification says is owed, washed and stacked; all must be accepted."""
        args: dict[str, Any] = {"defects_found": False}
        if decks is not None:
            args["decks"] = decks
        steps = [self.dealer("decks_inspected", args)]
        steps.append(self.command("decks_inspected", {"defects_found": False}))
        for event in steps[-1].output.events:
            for part in event.data.get("to_spread") or []:
                spread = {"defects_found": False, "washed": True, **part}
                steps.append(self.dealer("decks_spread", spread))
        assert all(s.ok for s in steps), [s.error for s in steps]
        return steps
