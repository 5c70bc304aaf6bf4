"""What a `replay` command may ask of the table's record: whole sequence numbers, in
order, at most `REPLAY_MAX_EVENTS` of them (docs/contract.md, `P/replay`)."""

from __future__ import annotations

from typing import Any

from floord.contract import REPLAY_MAX_EVENTS, SEQ_MAX
from floord.engine.core.command_checks import whole


def replay_range(args: dict[str, Any]) -> tuple[int, int] | str:
    """The journal range a `replay` command asks for, or why it is refused.

    Both ends are whole numbers: JSON's true is not sequence number 1.
    """
    unknown = sorted(set(args) - {"from_seq", "to_seq"})
    if unknown:
        return f"replay takes from_seq and to_seq only, found {', '.join(map(repr, unknown))}"
    first, last = args.get("from_seq"), args.get("to_seq")
    if not whole(first) or not whole(last):
        return "replay needs integer from_seq and to_seq"
    if first < 1 or last < first:
        return "replay needs 1 <= from_seq <= to_seq"
    if last > SEQ_MAX:
        return f"replay needs to_seq at most {SEQ_MAX}, the largest seq a stream can have"
    if last - first + 1 > REPLAY_MAX_EVENTS:
        return f"replay is limited to {REPLAY_MAX_EVENTS} events per request"
    return first, last
