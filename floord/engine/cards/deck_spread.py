"""The spread of decks received, for the first player to look at, then washed and stacked.

After the inspection the cards are "spread out face up on the table for visual inspection
by the first player to arrive at the table ... by deck according to suit and in sequence",
then "turned face down on the table, mixed thoroughly by a washing of the cards and
stacked" (58 Pa. Code § 549.5(b), (c); § 551.4(b), (c); § 541.4(b), (c), § 543.4(b), (c),
§ 545.4(b), (c); § 571.4(b), (c)). No device sees it: the dealer's signed `decks_spread`
puts it on the record, one command per part the text spreads apart (a double shoe's side,
§ 549.5(d); a shuffler's batch, § 549.5(e); each of two Stud decks, § 571.4(d)).

It is the receipt's third step (`deck_receipt`), never an item of the dealer's
`decks_inspected`: Spanish 21, the Baccarat family and Mississippi Stud put it "Following
the inspection of the cards by the dealer and the verification by the floorperson", so the
dealer cannot attest it when inspecting. Blackjack's § 549.5(b) says only "After the cards
are inspected" (the verification there is floord's policy), so there it may come before or
after the floorperson's step. Until every part is spread (and washed, where the text washes
it) the decks are not cleared. Pure: no I/O, no clock.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from itertools import product
from typing import Any

from floord.contract import format_ts
from floord.engine.cards.deck_receipt import ReceiptRefused, cleared, to_spread
from floord.engine.core.command_checks import unknown_args
from floord.engine.core.types import VerifiedCommand


@dataclass(frozen=True)
class SpreadPlan:
    """What a table's text asks of the spread.

    `parts`: each argument the text spreads apart by, with its values (`{"side": ("left",
    "right")}`); every combination is one spread, and none means one spread of all.
    `after_verification`: the text puts the spread after the floorperson's verification.
    `washed`: the text washes the cards after the spread (§ 549.5(e) only stacks a batch)."""

    parts: tuple[tuple[str, tuple[str, ...]], ...] = ()
    after_verification: bool = True
    washed: bool = True

    def record(self) -> dict[str, Any]:
        """The receipt's fields for the spread: every part still to spread."""
        names = [name for name, _ in self.parts]
        combos = product(*(values for _, values in self.parts))
        return {
            "spread": [
                {"part": dict(zip(names, combo, strict=True)), "by": None, "at": None}
                for combo in combos
            ],
            "spread_args": names,
            "spread_after_verification": self.after_verification,
            "wash_required": self.washed,
        }


def label(part: dict[str, str]) -> str:
    """A part as a sentence names it: "all" for one spread of all the decks."""
    return ", ".join(f"{k} {v}" for k, v in part.items()) or "all"


class WashRefused(ReceiptRefused):
    """The dealer says the cards were not washed where the text washes them."""


def spread_step(
    receipt: dict[str, Any] | None, command: VerifiedCommand, now: datetime
) -> dict[str, Any]:
    """Apply the dealer's `decks_spread` to the receipt; return the event's data."""
    names = list((receipt or {}).get("spread_args") or [])
    if problem := unknown_args(command, ("defects_found", "washed", "note", *names)):
        raise ReceiptRefused(problem)
    defects, washed = command.args.get("defects_found"), command.args.get("washed")
    if not isinstance(defects, bool):
        raise ReceiptRefused("defects_found must be true or false (what the spread showed)")
    if not isinstance(washed, bool):
        raise ReceiptRefused("washed must be true or false: the washing is recorded")
    note = command.args.get("note", "")
    if not isinstance(note, str) or len(note) > 500:
        raise ReceiptRefused("note must be text of at most 500 characters")
    if command.role != "dealer":
        raise ReceiptRefused("the dealer spreads, washes and stacks the decks received")
    if receipt is None:
        raise ReceiptRefused("no decks received are on record: record decks_received first")
    if receipt["rejected"]:
        raise ReceiptRefused("these decks were rejected for defects: receive new decks")
    if receipt["preinspected_preshuffled"]:
        raise ReceiptRefused("these decks were received preinspected and preshuffled")
    if "spread" not in receipt:
        raise ReceiptRefused("this table's decks received are not spread on the record")
    if not receipt["inspected_by"]:
        raise ReceiptRefused("the cards are spread after the dealer's inspection: none yet")
    if receipt["spread_after_verification"] and not receipt["verified_by"]:
        raise ReceiptRefused(
            "the cards are spread after the floorperson's verification of the inspection: none yet"
        )
    part = {n: command.args[n] for n in names if n in command.args}
    entry = next((e for e in receipt["spread"] if e["part"] == part), None)
    if entry is None:
        owed = "; ".join(label(e["part"]) for e in receipt["spread"])
        raise ReceiptRefused(f"the decks are spread by part ({owed}), found {label(part)}")
    if entry["by"] is not None:
        raise ReceiptRefused(f"{label(part)} was already spread by {entry['by']}")
    if receipt["wash_required"] and not washed:
        raise WashRefused("the cards are turned face down, washed and then stacked")
    at = format_ts(now)
    entry.update(by=command.by, at=at, washed=washed)
    if defects:
        receipt["rejected"] = True
    return {
        "by": command.by,
        "role": command.role,
        "step": "spread",
        **part,
        "defects_found": defects,
        "washed": washed,
        "stacked": True,
        "note": note,
        "received_at": receipt["received_at"],
        "to_spread": to_spread(receipt),
        "cleared": cleared(receipt),
    }
