"""The table's own commands: inspect, open, close and resume, for every game.

Each command is checked against the table's state and the game's inspection rule, and
what it changes is recorded: every inspection, passed or failed, is an
`operator.inspection` (the inspection log); a table opens only after a passed inspection
in the same gaming day with its devices ready (the game's regulation, e.g. 58 Pa. Code
§ 531.3(a)); a close may call for the next opening's own inspection (§ 531.3(f)); a halt
is lifted only by `resume`, with a reason, once the devices are healthy (fail closed:
floord's policy). They act on a `TableState`, which keeps the state they decide on.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from floord.contract import EventType, format_ts
from floord.engine.core.inspection import InspectionInputError, read_inspection_args
from floord.engine.core.table_state import TableState
from floord.engine.core.types import CommandOutcome, Decision, EngineOutput, VerifiedCommand

TABLE_COMMANDS = ("inspect", "open", "close", "resume")


def table_command(
    table: TableState, command: VerifiedCommand, now: datetime
) -> CommandOutcome | None:
    """Run inspect/open/close/resume on `table`; None when the command is not the table's."""
    handlers = {"inspect": _inspect, "open": _open, "close": _close, "resume": _resume}
    handler = handlers.get(command.name)
    return handler(table, command, now) if handler else None


def _inspect(table: TableState, command: VerifiedCommand, now: datetime) -> CommandOutcome:
    try:
        checklist, note = read_inspection_args(table.spec, command.args)
    except InspectionInputError as exc:
        return CommandOutcome(False, str(exc), table.spec.rule)
    failed = [k for k, ok in checklist.items() if not ok]
    record = {
        "by": command.by,
        "role": command.role,
        "checklist": checklist,
        "note": note,
        "passed": not failed,
        "gaming_day": table.gaming_day.label(now),
        "failed_items": failed,
        "items": dict(table.spec.items),
        "at": format_ts(now),
    }
    if not failed and table.inspection_required is not None:
        # The log says which cause this inspection answers (§ 531.3(e) "a
        # certification that an inspection was completed, if required").
        record["answers"] = dict(table.inspection_required)
        table.inspection_required = None
    table.inspection = record
    out = EngineOutput([Decision(EventType.OPERATOR_INSPECTION, dict(record), table.spec.rule)])
    if failed and table.underlying == "open":
        out.extend(
            table.halt(
                "inspection_failed",
                device=None,
                detail=f"inspection by {command.by} failed: {', '.join(failed)}",
                now=now,
            )
        )
    return CommandOutcome(True, output=out)


def _no_args(command: VerifiedCommand) -> CommandOutcome | None:
    if command.args:
        keys = ", ".join(sorted(map(str, command.args)))
        return CommandOutcome(False, f"{command.name} takes no arguments, found {keys}")
    return None


def _describe_halt(table: TableState) -> str:
    return ", ".join(
        f"{r['code']}" + (f" ({r['device']})" if r["device"] else "") for r in table.halt_reasons
    )


def _open(table: TableState, command: VerifiedCommand, now: datetime) -> CommandOutcome:
    refused = _no_args(command)
    if refused:
        return refused
    if table.halt_reasons:
        return CommandOutcome(
            False, f"the table is halted ({_describe_halt(table)}); resume it first"
        )
    if table.underlying == "open":
        return CommandOutcome(False, "the table is already open")
    if not table.inspection_valid(now):
        last = table.inspection
        required = table.inspection_required
        if last is None:
            why = "no inspection has been recorded"
        elif required is not None and last["passed"]:
            why = f"the last inspection ({last['at']}) no longer counts: {required['why']}"
        else:
            why = f"the last inspection ({last['gaming_day']}) " + (
                "failed" if not last["passed"] else "was on another gaming day"
            )
        rule = required["rule"] if required is not None else None
        return CommandOutcome(
            False,
            f"a passed inspection in gaming day {table.gaming_day.label(now)} is required "
            f"before opening: {why}",
            rule or table.spec.rule,
        )
    problems = table.readiness_problems()
    if problems:
        return CommandOutcome(False, "cannot open: " + "; ".join(problems))
    table.underlying = "open"
    assert table.inspection is not None
    data = {
        "by": command.by,
        "role": command.role,
        "inspection": {k: table.inspection[k] for k in ("by", "at", "gaming_day")},
    }
    return CommandOutcome(
        True, output=EngineOutput([Decision(EventType.TABLE_OPENED, data, table.spec.rule)])
    )


def _close(table: TableState, command: VerifiedCommand, now: datetime) -> CommandOutcome:
    refused = _no_args(command)
    if refused:
        return refused
    if table.underlying != "open":
        return CommandOutcome(False, f"the table is not open (it is {table.state})")
    was_open = table.is_open
    came_from = table.state
    table.underlying = "closed"
    data: dict[str, Any] = {
        "by": command.by,
        "role": command.role,
        "from": came_from,
        "state": table.state,
    }
    rule = None
    if table.spec.per_opening is not None:
        # The wheel is covered and locked (§ 531.3(f)); the next opening is preceded
        # by its own inspection (§ 531.3(a)).
        rule = table.spec.per_opening
        table.require_inspection(
            f"the table was closed at {format_ts(now)}; each opening needs its own inspection",
            table.spec.rule,
            now,
        )
        data["inspection_required"] = True
    out = EngineOutput([Decision(EventType.TABLE_CLOSED, data, rule)])
    if was_open:
        out.extend(table.on_leave_open("table_closed", f"closed by {command.by}"))
    return CommandOutcome(True, output=out)


def _resume(table: TableState, command: VerifiedCommand, now: datetime) -> CommandOutcome:
    unknown = sorted(set(command.args) - {"reason"})
    if unknown:
        return CommandOutcome(
            False, f"unknown argument(s) {', '.join(unknown)}: resume takes reason"
        )
    reason = command.args.get("reason")
    if not isinstance(reason, str) or not reason.strip():
        return CommandOutcome(False, "resume needs a non-empty reason (text)")
    if not table.halt_reasons:
        return CommandOutcome(False, f"the table is not halted (it is {table.state})")
    problems = table.readiness_problems()
    if problems:
        return CommandOutcome(False, "cannot resume: " + "; ".join(problems))
    if table.underlying == "open" and not table.inspection_valid(now):
        required = table.inspection_required
        since = f" ({required['why']})" if required else ""
        return CommandOutcome(
            False,
            "cannot resume an open table without a passed inspection in gaming day "
            f"{table.gaming_day.label(now)}{since}; inspect it, or close it",
            (required or {}).get("rule") or table.spec.rule,
        )
    cleared = table.halt_reasons
    table.halt_reasons = []
    data = {
        "by": command.by,
        "role": command.role,
        "reason": reason,
        "cleared": cleared,
        "state": table.state,
    }
    return CommandOutcome(True, output=EngineOutput([Decision(EventType.TABLE_RESUMED, data)]))
