"""What an operator command must pass before a table's engine sees it, and how the
table records it.

`verify` checks the signed body (signature, operator, role, freshness) and the replay
guard (an id used before is refused), reading the journal off the loop; `gate` refuses
a verified command the table may not take now: the daemon is stopping, the table cannot
record (all but `replay`), or it came on the replay request topic and is not a `replay`.
The runner (`floord.table.runner`) records a refusal as `operator.command_refused` and
a command it takes as `operator.command`, with what `described` says of it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from floord.contract import EventType
from floord.engine.core.types import Decision, VerifiedCommand
from floord.journal.store import Journal
from floord.operator.commands import Operators, Refusal, Verified, check_command, looked_up_id
from floord.table.stopping import StopGate

# Refusals whose `by` the body claims but no key vouches for: recorded as the daemon's.
UNVOUCHED = ("bad_signature", "key_expired")


async def verify(
    payload: bytes, *, journal: Journal, operators: Operators, now: datetime
) -> Verified | Refusal:
    """The command checked, or why it is refused; raises `JournalError` when the replay
    guard cannot be read (no command can be taken safely then)."""
    claimed = looked_up_id(payload)
    # Read off the loop before the check, which asks of the id it finds.
    used = claimed is not None and await journal.command_id_used_async(claimed)
    return check_command(
        payload,
        operators=operators,
        now=now,
        id_used=lambda cid: used if cid == claimed else journal.command_id_used(cid),
    )


def gate(
    command: VerifiedCommand, *, replay_only: bool, stop: StopGate, failure: str | None
) -> Refusal | None:
    """Why a verified command is refused before the engine sees it, if it is."""
    stopping = stop.refusal(command.id, command.name, command.by)
    if stopping is not None:
        return stopping
    if failure and command.name != "replay":
        reason = f"the table cannot record events ({failure})"
        return Refusal("journal_failure", reason, command.id, command.name, command.by)
    if replay_only and command.name != "replay":
        reason = f"only replay is taken on the replay request topic, not {command.name!r}"
        return Refusal("not_a_replay", reason, command.id, command.name, command.by)
    return None


def described(verified: Verified) -> dict[str, Any]:
    """What the record says of a command: `key` is which of the operator's keys signed
    it (current, or previous during a key rotation), so the record shows when a retired
    key was still in use."""
    command = verified.command
    return {
        "id": command.id,
        "name": command.name,
        "by": command.by,
        "role": command.role,
        "key": verified.key,
        "args": command.args,
    }


def refused(refusal: Refusal, operators: Operators) -> Decision:
    """The `operator.command_refused` of a refusal, the operator's if one is known and
    vouched for, else the daemon's."""
    data = {
        "id": refusal.command_id,
        "name": refusal.name,
        "by": refusal.by,
        "code": refusal.code,
        "reason": refusal.reason,
    }
    known = refusal.by in operators and refusal.code not in UNVOUCHED
    source = f"operator:{refusal.by}" if known else "daemon"
    return Decision(EventType.OPERATOR_COMMAND_REFUSED, data, source=source)
