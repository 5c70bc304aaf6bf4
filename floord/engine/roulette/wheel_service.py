"""The wheel's service record: adjustments, replaced parts and a wheel that changed.

58 Pa. Code § 531.3 asks more of a wheel than the morning's inspection:
- (b) adjustments to a wheel's external movable parts are made by a floorperson or a
  member of table game maintenance, in the presence of a member of security;
- (c) all adjustments are completed before the inspection of (a);
- (d) a movable part may be replaced at any time, but an inspection under (a) is
  completed before the wheel and table reopen;
- (e) the inspection log holds the date, time, table, whether an adjustment or a
  replacement was made, its description, a certification that an inspection was
  completed if required, and the signature and Board licence or permit number of the
  person who made it.

`wheel_adjusted` and `wheel_part_replaced` are signed commands (the signature is the
command's; the licence number is an argument), each recorded as a
`roulette.wheel_service` event with every field of (e); the table's last inspection then
no longer counts, so the next opening (or the resume of an open table, which halts) needs
a new one, whose `operator.inspection` says which service it answers. A wheel that
identifies with another serial number or model than the wheel before it was replaced
whole, so it is treated as a replacement under (d) as well. Pure: no I/O, no clock.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from floord.contract import EventType, cite, format_ts
from floord.engine.core.command_checks import unknown_args
from floord.engine.core.table_state import TableState
from floord.engine.core.types import CommandOutcome, Decision, EngineOutput, VerifiedCommand

SERVICE_COMMANDS = ("wheel_adjusted", "wheel_part_replaced")
# Who may adjust (§ 531.3(b)); the same people replace parts (floord's policy: § 531.3(d)
# names no one, and a replacement is the larger change).
SERVICE_ROLES = frozenset({"floorperson", "maintenance"})
# The identity fields that tell one wheel from another.
WHEEL_IDENTITY = ("maker", "model", "serial")
TEXT_LIMITS = {
    "part": 80,
    "description": 500,
    "licence": 40,
    "security_witness": 80,
    "security_licence": 40,
}


def _text_args(command: VerifiedCommand, required: tuple[str, ...]) -> str | None:
    """Why the service arguments cannot go on the log; None when they can."""
    for name, limit in TEXT_LIMITS.items():
        value = command.args.get(name)
        if value is None and name not in required:
            continue
        if not isinstance(value, str) or not value.strip():
            return f"{command.name} needs {name} (non-empty text)"
        if len(value) > limit:
            return f"{name} holds at most {limit} characters, found {len(value)}"
    return None


def service_command(table: TableState, command: VerifiedCommand, now: datetime) -> CommandOutcome:
    """`wheel_adjusted` (§ 531.3(b), (c)) or `wheel_part_replaced` (§ 531.3(d)), logged
    with the fields of § 531.3(e)."""
    adjustment = command.name == "wheel_adjusted"
    rule = cite("531.3(b)") if adjustment else cite("531.3(d)")
    if command.role not in SERVICE_ROLES:
        return CommandOutcome(
            False,
            "a wheel's movable parts are adjusted or replaced by a floorperson or a member "
            "of table game maintenance",
            cite("531.3(b)"),
        )
    allowed = tuple(TEXT_LIMITS)
    if problem := unknown_args(command, allowed):
        return CommandOutcome(False, problem)
    required: tuple[str, ...] = ("part", "description", "licence")
    if adjustment:
        required += ("security_witness",)
    if problem := _text_args(command, required):
        return CommandOutcome(False, problem, rule)
    was_open = table.underlying == "open"
    kind = "adjustment" if adjustment else "replacement"
    why = f"{kind} of {command.args['part']} by {command.by} at {format_ts(now)}: " + (
        "adjustments are completed before the inspection"
        if adjustment
        else "an inspection is completed before the wheel reopens"
    )
    table.require_inspection(why, cite("531.3(c)") if adjustment else rule, now)
    log = {
        "kind": kind,
        "table": table.table_id,
        "at": format_ts(now),
        "by": command.by,
        "role": command.role,
        **{k: command.args[k] for k in TEXT_LIMITS if k in command.args},
        "inspection_required": True,
        "table_was": table.state,
    }
    rules = [cite("531.3(b)"), cite("531.3(c)")] if adjustment else [cite("531.3(d)")]
    log["log_rule"] = cite("531.3(e)")
    log["rules"] = rules
    out = EngineOutput([Decision(EventType.ROULETTE_WHEEL_SERVICE, log, rule)])
    if was_open:
        out.extend(
            table.halt(
                "inspection_required",
                device=None,
                detail=f"wheel {kind} while open: the wheel is inspected before play goes on",
                now=now,
                rule=rule,
            )
        )
    return CommandOutcome(True, output=out)


def replaced_wheel(
    table: TableState,
    before: dict[str, Any] | None,
    after: dict[str, Any],
    wheel_device: str,
    now: datetime,
) -> EngineOutput:
    """A wheel that identified as another wheel than before (maker, model or serial)
    counts as replaced (§ 531.3(d)): it is logged, and the next opening needs an
    inspection; an open table halts until the new wheel is inspected."""
    if before is None:
        return EngineOutput()
    changed = {
        k: {"before": before.get(k), "after": after.get(k)}
        for k in WHEEL_IDENTITY
        if before.get(k) != after.get(k)
    }
    if not changed:
        return EngineOutput()
    rule = cite("531.3(d)")
    was_open = table.underlying == "open"
    table.require_inspection(
        f"the wheel {wheel_device} identified as another wheel at {format_ts(now)}", rule, now
    )
    log = {
        "kind": "replacement",
        "table": table.table_id,
        "at": format_ts(now),
        "by": None,
        "device": wheel_device,
        "part": "wheel",
        "description": "the wheel identified with another "
        + ", ".join(sorted(changed))
        + " than the wheel before it",
        "identity_changed": changed,
        "inspection_required": True,
        "table_was": table.state,
        "log_rule": cite("531.3(e)"),
        "rules": [rule],
    }
    out = EngineOutput([Decision(EventType.ROULETTE_WHEEL_SERVICE, log, rule)])
    if was_open:
        out.extend(
            table.halt(
                "inspection_required",
                device=wheel_device,
                detail="the wheel was replaced: it is inspected before play goes on",
                now=now,
                rule=rule,
            )
        )
    return out
