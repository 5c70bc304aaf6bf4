"""Decks received at a card table: inspected by the dealer, verified by a floorperson.

58 Pa. Code § 549.5(a): "After receiving one or more decks of cards at the table, the
dealer shall inspect the cards for any defects." (§ 551.4(a) the same for Spanish 21,
whose (b) adds "the verification by the floorperson assigned to the table".) § 549.5(f):
decks received "preinspected and preshuffled in accordance with § 523.16(u) or (v)" are
exempt from (a) to (e).

The receipt is a record, never an assumption: `decks_received` says whether the decks
came preinspected and preshuffled (a required true or false); if not, the dealer's
`decks_inspected` and then a floorperson's (the verification, by another person) clear
them. Until then the decks may not be used: a shoe loaded with them is a violation and
does not count as loaded, and no round starts. A dealer who finds a defect rejects the
set; only another receipt clears the table then. Where the table's text then spreads the
decks for the first player, washes and stacks them (Blackjack, Spanish 21, the Baccarat
family, Mississippi Stud), that is a third step, the dealer's `decks_spread`
(`deck_spread`); the decks are cleared only once every part is spread. Pure: no I/O,
no clock.

The Baccarat family (§ 541.4(a), § 543.4(a), § 545.4(a): "sort and inspect each deck of
cards separately") and Mississippi Stud with two decks (§ 571.4(d): "each deck of cards
shall be separately ... inspected") inspect deck by deck: there the dealer's step says
how many decks were inspected separately (`separately=True`), and it must be all of them.
A game whose `change_decks` goes through a receipt (Mississippi Stud, Baccarat) may leave
the declaration out (`declared=False`): it is then recorded as not declared (null), and
the decks are inspected, since the exemption is never assumed.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from floord.contract import EventType, format_ts
from floord.engine.core.command_checks import unknown_args, whole
from floord.engine.core.rulings import decision
from floord.engine.core.types import CommandOutcome, Decision, VerifiedCommand

FLOOR_ROLES = frozenset({"floorperson", "supervisor"})
VERIFY_POLICY = (
    "floord policy, not a regulation: a floorperson verifies the dealer's inspection of "
    "the decks received (§ 549.5 names only the dealer; the Spanish 21, Baccarat and "
    "Mississippi Stud chapters name the floorperson's verification)"
)


class ReceiptRefused(ValueError):
    """A receipt command that cannot go on the record; the message says why."""


def new_receipt(
    command: VerifiedCommand,
    now: datetime,
    *,
    table_decks: tuple[int, ...] | None = None,
    declared: bool = True,
    spread: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The record of decks received, from a `decks_received` (or `change_decks`) command.

    `table_decks`: the numbers of decks the table may receive (the first is taken when the
    command names none); `declared=False` lets the declaration be left out (see above);
    `spread`, a `deck_spread.SpreadPlan`'s record where the table's text spreads the decks
    for the first player after the inspection (the receipt's third step)."""
    if problem := unknown_args(command, ("preinspected_preshuffled", "decks", "note")):
        raise ReceiptRefused(problem)
    pre = command.args.get("preinspected_preshuffled")
    if not isinstance(pre, bool) and (declared or pre is not None):
        raise ReceiptRefused(
            "preinspected_preshuffled must be true or false: whether the decks came "
            "preinspected and preshuffled is recorded, never assumed"
        )
    decks = command.args.get("decks")
    if decks is not None and not (whole(decks) and 1 <= decks <= 16):
        raise ReceiptRefused("decks must be a whole number of decks from 1 to 16")
    if table_decks is not None:
        if decks is None:
            decks = table_decks[0]
        elif decks not in table_decks:
            said = " or ".join(map(str, table_decks))
            raise ReceiptRefused(f"this table receives {said} deck(s), found decks={decks}")
    note = command.args.get("note", "")
    if not isinstance(note, str) or len(note) > 500:
        raise ReceiptRefused("note must be text of at most 500 characters")
    return {
        "received_at": format_ts(now),
        "by": command.by,
        "role": command.role,
        "decks": decks,
        "preinspected_preshuffled": pre,
        "note": note,
        "inspected_by": None,
        "inspected_at": None,
        "verified_by": None,
        "verified_at": None,
        "rejected": False,
        **(spread or {}),
    }


def cleared(receipt: dict[str, Any] | None) -> bool:
    """The decks received may be used (no receipt on record: nothing to clear)."""
    if receipt is None:
        return True
    if receipt.get("rejected"):
        return False
    if receipt.get("preinspected_preshuffled"):
        return True
    return bool(receipt.get("verified_by")) and not to_spread(receipt)


def to_spread(receipt: dict[str, Any] | None) -> list[dict[str, str]]:
    """The parts of the decks received still to spread for the first player, washed and
    stacked (`deck_spread`); none when nothing is owed."""
    if receipt is None or receipt.get("preinspected_preshuffled") or receipt.get("rejected"):
        return []
    return [dict(e["part"]) for e in receipt.get("spread") or [] if e["by"] is None]


def received_data(receipt: dict[str, Any]) -> dict[str, Any]:
    """What a `cards.decks_received` (or a receipt's `cards.decks_changed`) says of it."""
    pre = receipt["preinspected_preshuffled"]
    return {
        "by": receipt["by"],
        "role": receipt["role"],
        "decks": receipt["decks"],
        "preinspected_preshuffled": pre,
        "note": receipt["note"],
        "inspection": "not_required" if pre else "required",
    }


PRESHUFFLED_DETAIL = "preinspected and preshuffled: not inspected nor shuffled before play, but cut"


def receipt_event(
    type: EventType,
    receipt: dict[str, Any],
    now: datetime,
    rule: str,
    inspect: str,
    decks: list[str] | None = None,
) -> Decision:
    """The receipt's event for a game with no deck-change clock in our seeds (Poker, War):
    no due time, no deck rule; its detail `inspect` (how the decks are inspected), or
    `PRESHUFFLED_DETAIL` for decks preinspected and preshuffled. `decks`, the table's
    names of the decks, where the game has them."""
    data = {**received_data(receipt)}
    if decks is not None:
        data["decks"] = decks
    data |= {"opened_at": format_ts(now), "due_at": None, "deck_rule": None}
    data["detail"] = PRESHUFFLED_DETAIL if receipt["preinspected_preshuffled"] else inspect
    return decision(type, rule, None, **data)


def inspect_step(
    receipt: dict[str, Any] | None,
    command: VerifiedCommand,
    now: datetime,
    *,
    separately: bool = False,
) -> dict[str, Any]:
    """Apply a `decks_inspected` command to the receipt; return the event's data.

    `separately`: the dealer inspects each deck on its own and says how many (`decks`)."""
    if problem := unknown_args(command, ("defects_found", "note", "decks")):
        raise ReceiptRefused(problem)
    counted = command.args.get("decks")
    if counted is not None and not whole(counted):
        raise ReceiptRefused("decks must be the whole number of decks inspected")
    defects = command.args.get("defects_found")
    if not isinstance(defects, bool):
        raise ReceiptRefused("defects_found must be true or false")
    note = command.args.get("note", "")
    if not isinstance(note, str) or len(note) > 500:
        raise ReceiptRefused("note must be text of at most 500 characters")
    if receipt is None:
        raise ReceiptRefused("no decks received are on record: record decks_received first")
    if receipt["rejected"]:
        raise ReceiptRefused("these decks were rejected for defects: receive new decks")
    if receipt["preinspected_preshuffled"]:
        raise ReceiptRefused("these decks were received preinspected and preshuffled")
    if receipt["verified_by"]:
        raise ReceiptRefused("these decks were already inspected and verified")
    at = format_ts(now)
    if command.role == "dealer":
        if receipt["inspected_by"]:
            raise ReceiptRefused(f"the dealer {receipt['inspected_by']} already inspected them")
        received = receipt["decks"]
        if separately and received and received > 1 and counted != received:
            raise ReceiptRefused(
                f"each deck is inspected separately: decks must say how many were "
                f"({received} received), found {counted!r}"
            )
        if counted is not None and received is not None and counted != received:
            raise ReceiptRefused(f"{received} deck(s) were received, found decks={counted}")
        step = "inspected"
        receipt.update(inspected_by=command.by, inspected_at=at)
    elif command.role in FLOOR_ROLES:
        if not receipt["inspected_by"]:
            raise ReceiptRefused("the floorperson verifies the dealer's inspection: none yet")
        if command.by == receipt["inspected_by"]:
            raise ReceiptRefused("the verification is by another person than the inspection")
        step = "verified"
        receipt.update(verified_by=command.by, verified_at=at)
    else:
        raise ReceiptRefused("the dealer inspects the decks and a floorperson verifies")
    if defects:
        receipt["rejected"] = True
    return {
        "by": command.by,
        "role": command.role,
        "step": step,
        "defects_found": defects,
        "note": note,
        "received_at": receipt["received_at"],
        "cleared": cleared(receipt),
        **({"decks": counted} if counted is not None else {}),
        **({"to_spread": to_spread(receipt)} if "spread" in receipt else {}),
    }


def receipt_problem(receipt: dict[str, Any] | None) -> str | None:
    """Why the decks on the table may not be used yet; None when they may."""
    if cleared(receipt):
        return None
    assert receipt is not None
    if receipt["rejected"]:
        return f"the decks received at {receipt['received_at']} were rejected for defects"
    missing = missing_step(receipt)
    return f"the decks received at {receipt['received_at']} have not been {missing}"


def missing_step(receipt: dict[str, Any]) -> str:
    """The receipt's next step, as a sentence ends (the decks have not been ...)."""
    if not receipt["inspected_by"]:
        return "inspected by the dealer"
    owed = to_spread(receipt)
    if not receipt["verified_by"] and not (owed and not receipt["spread_after_verification"]):
        return "verified"
    if owed and not receipt["verified_by"]:
        return "verified nor spread for the first player, washed and stacked"
    parts = "; ".join(", ".join(f"{k} {v}" for k, v in p.items()) or "all" for p in owed)
    return f"spread for the first player, washed and stacked ({parts})"


def spread_missing(receipt: dict[str, Any] | None) -> bool:
    """Only the spread keeps the decks received from use (its paragraph is the rule)."""
    return receipt is not None and bool(receipt.get("verified_by")) and bool(to_spread(receipt))


class ReceiptCommands:
    """`change_decks` and `decks_received` of a game (Poker, War) whose `_receive` records
    the receipt: `change_decks` is a receipt whose declaration may be left out (the decks
    are then inspected: the exemption for decks preinspected and preshuffled is never
    assumed); `decks_received` must say whether they came so."""

    _receive: Callable[..., CommandOutcome]

    def _cmd_change_decks(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        return self._receive(command, now, declared=False, type=EventType.CARDS_DECKS_CHANGED)

    def _cmd_decks_received(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        return self._receive(command, now, declared=True, type=EventType.CARDS_DECKS_RECEIVED)
