"""The automated dealing shoe out of order at Mississippi Stud, covered, and uncovered.

§ 571.13(g): "If an automated card shuffling device or automated dealing shoe
malfunctions and cannot be used, the automated card shuffling device or automated dealing
shoe shall be covered or have a sign indicating that the automated card shuffling device
or automated dealing shoe is out of order placed on the device before any other method of
shuffling or dealing may be utilized at that table."

How floord holds a table to it:
- the shoe says it cannot be used with `OOO` (`shoe.out_of_order`, a table warning under
  (g)); a shoe that cannot speak at all is known by its active fault or by being offline.
  Until a floorperson's `cover_shoe` is on the record no round starts: the table deals
  from the automated shoe, which cannot be used, and may not deal any other way yet;
- `cover_shoe {deal_by, reason, marked}` records the cover (or the sign) and the method
  the table now deals by: from the dealer's hand (§ 571.9, which needs the automated
  shuffler, (a)(1)) or a manual shoe (§ 571.8). The shoe is then not a required device:
  its fault or silence no longer halts the table, and `resume` may lift a halt it caused.
  Every rule that depends on the dealing procedure (which cards a device reports, the stub
  paragraphs, the 4 or 8 hours of § 571.3(c)) follows the method in use. A manual shoe
  used in its place has no device, so floord sees its cards no more than a hand's;
- a card, load or empty from the covered shoe is recorded as a violation under floord's
  strict policy and never enters a round;
- `uncover_shoe {reason}` (between rounds; the shoe online, identified, free of faults
  and not out of order) takes the cover off: the table deals from the automated shoe
  again, which is required again, and the deck is placed in it before the next round
  (§ 571.10(a)(1)). The shoe saying it is back in service (`OOO` code 0) does not take
  the cover off by itself: the dealer changes method only on a floorperson's word.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from floord.contract import EventType, cite, format_ts
from floord.engine.core.base import TableEngineBase
from floord.engine.core.command_checks import accepted, needs_reason, unknown_args
from floord.engine.core.rulings import decision, policy_decision
from floord.engine.core.snapshots import json_copy
from floord.engine.core.types import CommandOutcome, Decision, VerifiedCommand

if TYPE_CHECKING:
    from floord.engine.cards.deck_book import DeckBook
    from floord.engine.stud.rules import StudRules

RULE = "571.13(g)"
METHODS = ("hand", "manual_shoe")  # § 571.9, § 571.8: the other methods of dealing
MARKS = ("covered", "sign")
UNCOVER_POLICY = (
    "floord policy, not a regulation: the automated shoe is used again once a floorperson "
    "takes its cover off and the device is online, identified, free of faults and not out "
    "of order"
)
MANUAL_SHOE_POLICY = (
    "floord policy, not a regulation: § 571.13(g) speaks of an automated dealing shoe; a "
    "manual shoe's out-of-order report is recorded"
)


class ShoeCover:
    """What the shoe last said of its order, and the cover on the record."""

    def __init__(self) -> None:
        # The shoe's outstanding out-of-order report {code, text, at}, or None.
        self.out_of_order: dict[str, Any] | None = None
        # The cover {by, role, at, reason, marked, deal_by, report}, or None.
        self.cover: dict[str, Any] | None = None

    @property
    def covered(self) -> bool:
        return self.cover is not None

    def snapshot(self) -> dict[str, Any]:
        return {"out_of_order": json_copy(self.out_of_order), "cover": json_copy(self.cover)}

    def restore(self, body: Any) -> None:
        if body is None:
            return
        if not isinstance(body, dict):
            raise ValueError("snapshot: shoe_cover must be an object or null")
        ooo, cover = body.get("out_of_order"), body.get("cover")
        if not all(v is None or isinstance(v, dict) for v in (ooo, cover)):
            raise ValueError("snapshot: shoe_cover's out_of_order and cover are objects or null")
        if cover is not None and cover.get("deal_by") not in METHODS:
            raise ValueError(f"snapshot: shoe_cover.cover.deal_by must be one of {METHODS}")
        self.out_of_order, self.cover = ooo, cover


class StudShoeCommands(TableEngineBase):
    """The shoe's out-of-order report, `cover_shoe` and `uncover_shoe` (mixed into the
    engine, which supplies the attributes below)."""

    rules: StudRules  # the rules in effect: the configured ones, or the other method's
    table_rules: StudRules  # the table's configured rules
    decks: DeckBook
    shoe_device: str | None
    shoe: ShoeCover

    # ----- the device -----------------------------------------------------------------

    def shoe_order_reported(self, data: dict[str, Any], now: datetime) -> list[Decision]:
        """`shoe.out_of_order`: a table warning under (g) at an automated shoe (code 0,
        back in service, clears the report and leaves any cover on)."""
        back = data.get("code") in (0, "0")
        self.shoe.out_of_order = (
            None
            if back
            else {"code": data.get("code"), "text": data.get("text"), "at": format_ts(now)}
        )
        body = {
            "what": "shoe_in_order" if back else "shoe_out_of_order",
            "code": data.get("code"),
            "text": data.get("text"),
            "covered": self.shoe.covered,
        }
        if self.table_rules.dealing != "automated_shoe":
            return [policy_decision(EventType.TABLE_WARNING, MANUAL_SHOE_POLICY, None, **body)]
        if not back and not self.shoe.covered:
            body["detail"] = (
                "no round starts until a floorperson covers the shoe (cover_shoe) and "
                "names the method the table deals by"
            )
        return [decision(EventType.TABLE_WARNING, cite(RULE), self.current_round, **body)]

    def covered_shoe_event(self, type: str) -> Decision:
        """An event from the covered shoe: recorded, never used (floord's strict policy)."""
        return policy_decision(
            EventType.PROCEDURE_VIOLATION,
            "floord policy, not a regulation: the automated shoe is covered as out of order "
            "(§ 571.13(g)); what it reports is recorded and not used",
            self.current_round,
            what="covered_shoe_in_use",
            event=str(type),
        )

    def shoe_cover_problem(self) -> tuple[str, str] | None:
        """Why no round may start for an automated shoe out of order and not covered."""
        if self.table_rules.dealing != "automated_shoe" or self.shoe.covered:
            return None
        if self._shoe_trouble() is None:
            return None
        return (
            cite(RULE),
            "the automated dealing shoe is out of order: a floorperson covers it or places "
            "a sign on it (cover_shoe) before the cards are dealt any other way",
        )

    def _shoe_trouble(self) -> dict[str, Any] | None:
        """What says the shoe cannot be used (its report, a fault, offline), or None."""
        assert self.shoe_device is not None
        state = self.table.devices.get(self.shoe_device)
        faults = [f.public() for f in state.faults]
        if self.shoe.out_of_order is None and not faults and state.online:
            return None
        return {"out_of_order": self.shoe.out_of_order, "faults": faults, "online": state.online}

    # ----- the floorperson ------------------------------------------------------------

    def _cmd_cover_shoe(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        if problem := unknown_args(command, ("deal_by", "reason", "marked")):
            return CommandOutcome(False, problem)
        if problem := needs_reason(command):
            return CommandOutcome(False, problem)
        deal_by = command.args.get("deal_by")
        marked = command.args.get("marked", "covered")
        if deal_by not in METHODS:
            return CommandOutcome(
                False, f"deal_by must be one of {', '.join(METHODS)}, found {deal_by!r}"
            )
        if marked not in MARKS:
            return CommandOutcome(False, f"marked must be one of {', '.join(MARKS)}")
        if self.table_rules.dealing != "automated_shoe":
            how = "from the hand" if self.table_rules.dealing == "hand" else "from a manual shoe"
            why = f"the table deals {how}: it has no automated dealing shoe"
            return CommandOutcome(False, why, cite(RULE))
        if self.shoe.covered:
            return CommandOutcome(False, "the automated shoe is already covered")
        if self.rounds.current is not None:
            return CommandOutcome(
                False, "the shoe is covered between rounds (the round in play ends or is void)"
            )
        if deal_by == "hand" and self.table_rules.shuffler == "none":
            why = "cards dealt from the hand are shuffled by an automated shuffler"
            return CommandOutcome(False, why, cite("571.9(a)(1)"))
        report = self._shoe_trouble()
        if report is None:
            return CommandOutcome(
                False,
                "the automated shoe reports no malfunction (online, no fault, not out of "
                "order): the cover is for a shoe that malfunctions and cannot be used",
                cite(RULE),
            )
        reason = command.args["reason"]
        self.shoe.cover = {
            "by": command.by,
            "role": command.role,
            "at": format_ts(now),
            "reason": reason,
            "marked": marked,
            "deal_by": deal_by,
            "report": report,
        }
        self.apply_shoe_cover()
        detail = (
            "the table deals from the dealer's hand (§ 571.9)"
            if deal_by == "hand"
            else "the table deals from a manual shoe (§ 571.8); floord sees none of its cards"
        )
        event = decision(
            EventType.TABLE_DEVICE_COVERED,
            cite(RULE),
            None,
            device=self.shoe_device,
            family="dealing_shoe",
            marked=marked,
            deal_by=deal_by,
            by=command.by,
            reason=reason,
            report=report,
            detail=detail + "; the shoe is no longer a required device",
        )
        return accepted([event])

    def _cmd_uncover_shoe(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        if problem := unknown_args(command, ("reason",)):
            return CommandOutcome(False, problem)
        if problem := needs_reason(command):
            return CommandOutcome(False, problem)
        if not self.shoe.covered:
            return CommandOutcome(False, "the automated shoe is not covered")
        if self.rounds.current is not None:
            return CommandOutcome(False, "the cover comes off between rounds")
        if (problem := self._shoe_unusable()) is not None:
            return CommandOutcome(False, f"the automated shoe cannot be used yet: {problem}")
        cover = self.shoe.cover or {}
        self.shoe.cover = None
        self.apply_shoe_cover()
        self.decks.shoe_loaded = False  # the deck goes into the automated shoe (§ 571.10(a)(1))
        event = policy_decision(
            EventType.TABLE_DEVICE_UNCOVERED,
            UNCOVER_POLICY,
            None,
            device=self.shoe_device,
            family="dealing_shoe",
            by=command.by,
            reason=command.args["reason"],
            dealt_by=cover.get("deal_by"),
            dealing="automated_shoe",
            detail="the table deals from the automated shoe again; the deck is placed in it "
            "before the next round",
        )
        return accepted([event])

    def _shoe_unusable(self) -> str | None:
        assert self.shoe_device is not None
        if self.shoe.out_of_order is not None:
            return f"it reports itself out of order ({self.shoe.out_of_order.get('text')})"
        state = self.table.devices.get(self.shoe_device)
        if not state.online:
            return "it is offline"
        if state.faults:
            return f"it has an active fault ({state.faults[-1].text or state.faults[-1].code})"
        if state.identity is None:
            return "it has not identified itself"
        return None

    def apply_shoe_cover(self) -> None:
        """Make the rules in effect, and whether the shoe is a required device, follow
        the cover on the record (after a command, or a restore)."""
        if self.table_rules.dealing != "automated_shoe":
            self.shoe.cover = None  # a snapshot of a table since configured without one
        cover = self.shoe.cover
        if cover is None:
            self.rules = self.table_rules
        else:
            self.rules = replace(self.table_rules, dealing=cover["deal_by"], shoe_observed=False)
        self.decks.rules = self.rules
        if self.shoe_device is not None and self.table_rules.dealing == "automated_shoe":
            # The shoe is the table's primary device, required unless covered.
            self.table.devices.get(self.shoe_device).required = cover is None
