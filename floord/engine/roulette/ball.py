"""A Roulette ball put into play during the gaming day, on the record (§ 531.2).

58 Pa. Code § 531.2: "Balls used in Roulette must be made completely of a nonmetallic
substance and not be less than 12/16 of an inch nor more than 14/16 of an inch in
diameter." The inspection before opening answers it for the ball on the table then
(`ball_nonmetallic_and_size`, beside § 531.3(a)(4)'s magnet test, `ball_nonmagnetic`).
A ball put into play later (one that left the wheel, § 531.7(c), or a worn one) has had
neither, so `ball_replaced` records it with the certification of the person who put it
in play: wholly nonmetallic, its diameter in sixteenths of an inch, and passed over a
magnet or compass (the test of § 531.3(a)(4), done on the new ball). A ball that fails
any of them is refused, citing the paragraph it fails, and is not on the record as in
play.

floord's policy, citing nothing: the paragraph names no one, so the people who service
the wheel (a floorperson or table game maintenance, as for § 531.3(b), (d)) put a ball
into play; and a ball is not one of the wheel's "movable parts" of § 531.3(d), so the
table is not closed for a new inspection: the certification above is the new ball's.
Pure: no I/O, no clock.
"""

from __future__ import annotations

from datetime import datetime

from floord.contract import EventType, cite, format_ts
from floord.engine.core.command_checks import unknown_args
from floord.engine.core.table_state import TableState
from floord.engine.core.types import CommandOutcome, Decision, EngineOutput, VerifiedCommand

BALL_ROLES = frozenset({"floorperson", "maintenance"})
# § 531.2: the diameter in sixteenths of an inch.
LEAST_SIXTEENTHS, MOST_SIXTEENTHS = 12, 14
ARGS = ("nonmetallic", "diameter_sixteenths", "nonmagnetic", "licence", "note")
TEXT_LIMITS = {"licence": 40, "note": 500}
POLICY = (
    "floord policy: a floorperson or table game maintenance puts a ball into play (§ 531.2 "
    "names no one); a ball is not a movable part of the wheel (§ 531.3(d)), so the table "
    "stays as it is"
)


def ball_replaced(table: TableState, command: VerifiedCommand, now: datetime) -> CommandOutcome:
    """`ball_replaced`: the new ball's § 531.2 and § 531.3(a)(4) certification, logged."""
    if command.role not in BALL_ROLES:
        return CommandOutcome(
            False, "a ball is put into play by a floorperson or table game maintenance"
        )
    if problem := unknown_args(command, ARGS):
        return CommandOutcome(False, problem)
    if refusal := _certification(command):
        return CommandOutcome(False, *refusal)
    args = command.args
    log = {
        "table": table.table_id,
        "at": format_ts(now),
        "by": command.by,
        "role": command.role,
        "licence": args["licence"].strip(),
        "nonmetallic": True,
        "diameter_sixteenths": args["diameter_sixteenths"],
        "nonmagnetic": True,
        "table_was": table.state,
        "rules": [cite("531.2"), cite("531.3(a)(4)")],
        "policy": POLICY,
    }
    if isinstance(args.get("note"), str) and args["note"].strip():
        log["note"] = args["note"].strip()
    return CommandOutcome(
        True, output=EngineOutput([Decision(EventType.ROULETTE_BALL_REPLACED, log, cite("531.2"))])
    )


def _certification(command: VerifiedCommand) -> tuple[str, str | None] | None:
    """Why the ball cannot be put into play (the reason and the rule); None when it can."""
    args = command.args
    for name, limit in TEXT_LIMITS.items():
        value = args.get(name)
        if value is None and name == "note":
            continue
        if not isinstance(value, str) or not value.strip():
            return f"ball_replaced needs {name} (non-empty text)", None
        if len(value) > limit:
            return f"{name} holds at most {limit} characters, found {len(value)}", None
    for name in ("nonmetallic", "nonmagnetic"):
        if not isinstance(args.get(name), bool):
            return f"ball_replaced needs {name}=true|false", None
    size = args.get("diameter_sixteenths")
    if not isinstance(size, int) or isinstance(size, bool):
        return "ball_replaced needs diameter_sixteenths=N (the diameter in 1/16 inch)", None
    if args["nonmetallic"] is not True:
        return "a Roulette ball is made completely of a nonmetallic substance", cite("531.2")
    if not LEAST_SIXTEENTHS <= size <= MOST_SIXTEENTHS:
        return (
            f"a Roulette ball is from {LEAST_SIXTEENTHS}/16 to {MOST_SIXTEENTHS}/16 of an "
            f"inch in diameter, found {size}/16",
            cite("531.2"),
        )
    if args["nonmagnetic"] is not True:
        return (
            "a ball is passed over a magnet or compass to assure its nonmagnetic quality "
            "before it is used",
            cite("531.3(a)(4)"),
        )
    return None
