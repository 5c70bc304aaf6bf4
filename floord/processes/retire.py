"""`floord journal retire`: set aside a table's state that no longer fits its config.

A table's snapshot restores it after a restart. When its game or wheel is changed in the
config, the old snapshot cannot restore the new engine, and `run` refuses to start
(`floord check` says so first). Deleting the row by hand would leave no trace of the
state thrown away; this command does it on the record instead: one `table.retired`
event on the table's stream (who, their role, why, what the snapshot held) and the
snapshot's deletion, in one transaction. The table then starts as a new table does,
closed, and must be inspected and opened again.

It retires only a state that does not fit (it refuses one the engine restores), so it
can never be used to lift a halt: a table halted when retired starts halted again, for
`journal_integrity` (the record's last `table.halted` is held by no snapshot, which
`floord journal verify` names as `halt_unsupported` until that start), until a
floorperson resumes it with a signed command.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from floord.config.load import LoadedConfig
from floord.contract import COMMAND_ROLES, Envelope, EventType, format_ts
from floord.journal.store import Journal
from floord.processes.table_units import build_engine

# The roles that may lift a halt may retire a table's state.
RETIRE_ROLES = COMMAND_ROLES["resume"]
# What of the snapshot the event keeps: its identity, and the halt it latched.
KEPT = ("version", "table", "game", "wheel", "state", "halt_reasons", "gaming_day")


class RetireError(ValueError):
    """Why a retire was refused; nothing was written."""


def retire_table(
    loaded: LoadedConfig, table_id: str, operator: str, reason: str, now: datetime | None = None
) -> Envelope:
    """Record `table.retired` and delete the table's snapshot; return the event."""
    table = loaded.table(table_id)  # KeyError: not in the config
    role = _role(loaded, operator)
    if not reason.strip():
        raise RetireError("a reason is required (--reason): it goes on the record")
    path = loaded.journal_path
    if not path.is_file():
        raise RetireError(f"journal {path}: no such file; a new table has no state to retire")
    journal = Journal(path)
    try:
        snapshot = journal.load_snapshot(table_id)
        if snapshot is None:
            raise RetireError(f"{table_id} has no state in {path}; nothing to retire")
        try:
            build_engine(table, loaded, snapshot)
        except (ValueError, KeyError, TypeError) as exc:
            why = str(exc)
        else:
            raise RetireError(
                f"{table_id}'s state in {path} fits its config ({table.game}); only a state "
                "that no longer fits is retired"
            )
        data: dict[str, Any] = {
            "by": operator,
            "role": role,
            "reason": reason.strip(),
            "mismatch": why,
            "snapshot": {k: snapshot[k] for k in KEPT if k in snapshot},
            "game": table.game,
            "policy": "floord policy: a state that no longer fits its table is retired on "
            "the record, never deleted silently",
        }
        ts = format_ts(now or datetime.now(UTC))

        def build(seq: int) -> Envelope:
            return Envelope(
                site=loaded.config.site,
                table=table_id,
                seq=seq,
                ts=ts,
                type=EventType.TABLE_RETIRED,
                source=f"operator:{operator}",
                data=data,
            )

        [event] = journal.append_many(table_id, [build], drop_snapshot=table_id)
        return event
    finally:
        journal.close()


def _role(loaded: LoadedConfig, operator: str) -> str:
    for op in loaded.config.operators:
        if op.id == operator:
            if str(op.role) not in RETIRE_ROLES:
                allowed = ", ".join(sorted(RETIRE_ROLES))
                raise RetireError(f"{operator} is a {op.role}; retiring needs one of: {allowed}")
            return str(op.role)
    raise RetireError(f"no operator {operator!r} in {loaded.path}")
