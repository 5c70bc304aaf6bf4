"""The table's vocabulary: what a table's runner needs of a game engine.

A game's definition (`floord.games`) builds an engine of this shape and the runner
(`floord.table.runner`) drives it; both say so through this module, which imports
nothing but the engine's own types. So a game knows the table by its words, not by its
machinery: loading the config (which reads every game's definition) does not load the
runner, its journal or its devices.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol

from floord.engine.core.types import CommandOutcome, EngineOutput, VerifiedCommand


class TableEngine(Protocol):
    """What the runner needs of a game engine (the roulette engine is one)."""

    @property
    def current_round(self) -> str | None: ...

    # The label of the gaming day in play (the snapshot's `gaming_day`).
    gaming_day: str | None

    @property
    def halted(self) -> bool: ...
    def on_device_event(
        self, device: str, type: str, data: dict[str, Any], now: datetime
    ) -> EngineOutput: ...
    def on_command(self, command: VerifiedCommand, now: datetime) -> CommandOutcome: ...
    def tick(self, now: datetime) -> EngineOutput: ...
    def quiet_until(self, now: datetime) -> datetime | None: ...
    def after_restart(self, now: datetime) -> EngineOutput: ...
    def halt(self, code: str, detail: str, now: datetime) -> EngineOutput: ...
    def snapshot(self) -> dict[str, Any]: ...
    def restore(self, snapshot: dict[str, Any]) -> None: ...
    def public_state(self) -> dict[str, Any]: ...
    def public_of(self, snapshot: dict[str, Any]) -> dict[str, Any]: ...
