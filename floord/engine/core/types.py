"""What goes into and comes out of the game engine.

The engine is pure: it is handed device events, verified operator commands and the
time, and it answers with decisions (events to record) and device commands (a re-spin,
say). It never reads a clock, a file or a socket, so every rule is testable in virtual
time and a table's behaviour is the same on a rig as on the floor.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from floord.contract import EventType
from floord.events import DeviceCommand


@dataclass(frozen=True)
class Decision:
    """An event the engine decided to record: a contract type, its data and its citation.

    `rule` is the citation (`cite("531.7(a)")`) when the decision is taken under a
    regulation, else None. `round` is the round the decision belongs to (a
    `round.ended` names the round it closes even though no round is open after it).
    """

    type: EventType
    data: dict[str, Any] = field(default_factory=dict)
    rule: str | None = None
    round: str | None = None
    source: str = "engine"


@dataclass
class EngineOutput:
    """Everything one input caused: events to record, in order, and device commands."""

    events: list[Decision] = field(default_factory=list)
    device_commands: list[DeviceCommand] = field(default_factory=list)

    def extend(self, other: EngineOutput) -> None:
        self.events.extend(other.events)
        self.device_commands.extend(other.device_commands)


@dataclass(frozen=True)
class VerifiedCommand:
    """An operator command whose signature, freshness, id and role were already checked."""

    id: str
    name: str
    by: str
    role: str
    args: dict[str, Any] = field(default_factory=dict)


@dataclass
class CommandOutcome:
    """The engine's answer to a verified command.

    `ok` False means the engine refused it for the table's state (opening without an
    inspection, say): `error` says why in words an operator understands and `rule` cites
    the regulation behind the refusal, if any.
    """

    ok: bool
    error: str | None = None
    rule: str | None = None
    output: EngineOutput = field(default_factory=EngineOutput)
