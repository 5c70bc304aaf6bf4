"""A table's clean stop: once the daemon's stop begins, the table takes nothing new.

The daemon's stop takes a few seconds (the adapters end, the backlog goes out, each
link says `online: false`) and the broker keeps delivering commands meanwhile. Without a
gate a command taken then started a round after `daemon.stopped` was on the record. So
the stop has two moments, both the runner's:

- it begins (`begin`): every command is refused with `stopping`, on the record and in
  its reply like any refusal; a device event or a tick is still acted on (a number that
  ends a round in play still settles it), unless what the engine would decide starts a
  round: then the engine is put back and the input is named in `daemon.stopped`
  (`not_acted_on`), the same as an input the journal refused is named in a halt;
- it ends (`finish`): `daemon.stopped` is recorded, the table's last event. What comes
  after (a command still in flight) is answered `stopping`, but not recorded: the record
  is closed.

Both are floord's policy (docs/rules.md, "A clean stop takes nothing new").
"""

from __future__ import annotations

import asyncio
from typing import Any

from floord.adapters.device_rows import Row
from floord.contract import EventType
from floord.engine.core.types import Decision, EngineOutput
from floord.operator.commands import Refusal
from floord.table.unrecorded import Unrecorded

STOPPING = "stopping"  # the refusal code of a command taken while the daemon stops
STOPPING_REASON = "stopping: the daemon is stopping and takes no command"
STOPPED_REASON = "stopping: the daemon has stopped; the command was not recorded"


class StopGate:
    """Where a table's runner is in the daemon's stop: running, stopping or finished."""

    def __init__(self) -> None:
        self.stopping = False
        self.finished = asyncio.Event()  # set once `daemon.stopped` is on the record
        self._held_back = Unrecorded()

    def begin(self) -> None:
        self.stopping = True

    def refusal(self, command_id: str, name: str, by: str) -> Refusal | None:
        """The `stopping` refusal of a verified command, or None while not stopping."""
        if not self.stopping:
            return None
        return Refusal(STOPPING, STOPPING_REASON, command_id, name, by)

    def holds_back(self, output: EngineOutput) -> bool:
        """True when stopping and the engine's answer to an input would start a round."""
        return self.stopping and any(d.type == EventType.ROUND_STARTED for d in output.events)

    def held_back(self, described: dict[str, Any], row: Row | None = None) -> None:
        """Note an input that was not acted on, for `daemon.stopped` to name (`row`: a
        local device's event's, on its stream all the same)."""
        self._held_back.note(described, row)

    def held_back_mark(self) -> tuple[int, int]:
        """Where the list of inputs not acted on stands, for `forget_held_back`."""
        return self._held_back.mark()

    def forget_held_back(self, mark: tuple[int, int]) -> None:
        """Forget the inputs noted since `mark`: the runner takes them again (a group
        commit an engine failure cut short is taken again from its start)."""
        self._held_back.forget_since(mark)

    def stopped(self, reason: str) -> Decision:
        """The `daemon.stopped` decision, naming the inputs not acted on, if any."""
        data: dict[str, Any] = {"reason": reason}
        named = self._held_back.named
        if named:
            data["not_acted_on"] = named
        if self._held_back.more:
            data["not_acted_on_more"] = self._held_back.more
        return Decision(type=EventType.DAEMON_STOPPED, data=data, source="daemon")
