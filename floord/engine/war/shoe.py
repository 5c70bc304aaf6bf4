"""The cards of a War table: the stack shuffled and cut, the shoe, the cover cards.

What this book keeps, and why:
- whether the cards must be shuffled before the next round, and why (`due`): before
  play, unless preshuffled; after each dealing shoe; when a floorperson directs it
  (§ 567.5(a)); after the cover card is reached in the shoe (§ 567.5(g)); after an idle
  spell (§ 567.5(h)); new decks; a shoe that ran out (floord's policy);
- the stack shuffled (by hand, by the automated shuffler, or received preshuffled) and its
  cut: offered first to the player § 567.5(b) designates (`offer`), then clockwise, the
  dealer cutting if no player accepts (c); the cover card at least 10 cards in from the
  top or the bottom (d); a recut a floorperson requires before the stack is placed in the
  shoe, by the next person entitled under (b)(4) (f);
- the stack loaded (`shoe.loaded`): only a cut stack goes into the shoe (§ 567.5(e));
  the first cover card out of it is the second one the dealer inserted "at least
  approximately one-quarter of the way in from the bottom" (e), the cut's own cover card
  being at the bottom;
- the decks received (`deck_receipt`): until the dealer sorted and inspected each deck
  separately and the floorperson verified (§ 567.4(a)), or they came preinspected and
  preshuffled (e), a shuffle or a load of them is a violation and does not count.
Every method returns the decisions it caused. Pure: no clock but the `now` passed in.
"""

from __future__ import annotations

from typing import Any

from floord.contract import EventType
from floord.engine.cards.cut_offer import size_problem
from floord.engine.cards.deck_receipt import receipt_problem
from floord.engine.cards.quarter_cut import quarter_minimum, quarter_reading
from floord.engine.core.rulings import decision, strict
from floord.engine.core.snapshots import restore_fields, snapshot_fields
from floord.engine.core.types import Decision
from floord.engine.war.rules import WarRules

QUARTER_POLICY = quarter_reading("second cover card")
COVER_READING = (
    "§ 567.8(d), which § 567.5(g) names for when the cover card ends the shoe, is not in "
    "floord's seeds: the round in play is completed, then the cards are reshuffled"
)
# Why the cards are shuffled before the next round -> the key of its paragraph.
DUE_KEYS: dict[str, str] = {
    "start": "shuffle",
    "new_decks": "shuffle",
    "floorperson": "shuffle",
    "cover_card": "reshuffle_at_cover",
    "no_gaming_activity": "no_gaming_activity",
    "shuffler_jam": "shuffle",
    # § 567.5(a): "after each dealing shoe of cards is dealt ... the dealer shall shuffle".
    "shoe_empty": "shuffle",
}
FIELDS: tuple[str, ...] = (
    "due",
    "offer",
    "stack",
    "loaded",
    "load_cards",
    "cover_cards",
    "receipt",
)
FIELDS += ("active_at", "idle_since", "shuffler_out")


def offer(rules: WarRules, to: str, box: int | None = None) -> dict[str, Any]:
    """Whom § 567.5(b) says the next cut is offered to, with the paragraph."""
    key = {
        "first_player": "offer_first_player",
        "box": "offer_cover_box",
        "dealer_hand": "offer_cover_dealer",
        "reshuffle": "offer_reshuffle",
    }[to]
    player = "the player on that betting area" if to == "box" else "the farthest right player"
    if to == "first_player":
        player = "the first player to the table"
    return {"to": player, "box": box, "why": to, "rule": rules.cite(key)}


class WarShoe:
    """The stack, the shoe and the decks of one War table."""

    def __init__(self, rules: WarRules) -> None:
        self.rules = rules
        self.due: str | None = "start"
        self.offer: dict[str, Any] | None = offer(rules, "first_player")
        # {"shuffled", "batch", "cards", "cut": None | {...}} once shuffled, until loaded.
        self.stack: dict[str, Any] | None = None
        self.loaded = False
        self.load_cards: int | None = None
        self.cover_cards = 0
        self.receipt: dict[str, Any] | None = None
        self.active_at: str | None = None
        self.idle_since: str | None = None
        self.shuffler_out = False

    @property
    def shuffler_in_use(self) -> bool:
        return self.rules.shuffler != "none" and not self.shuffler_out

    # ----- the shuffle ------------------------------------------------------------

    def _uninspected(self, step: str, round_id: str | None) -> Decision | None:
        if (problem := receipt_problem(self.receipt)) is None:
            return None
        return decision(
            EventType.PROCEDURE_VIOLATION,
            self.rules.cite("decks_inspected"),
            round_id,
            what="decks_not_inspected",
            step=step,
            detail=f"{problem}: the {step} does not count",
        )

    def shuffled(
        self, how: str, batch: str | None, cards: int | None, round_id: str | None
    ) -> list[Decision]:
        """A stack shuffled by hand or by the shuffler (§ 567.5(a)), to be cut."""
        if (uninspected := self._uninspected("shuffle", round_id)) is not None:
            return [uninspected]
        self.stack = {"shuffled": how, "batch": batch, "cards": cards, "cut": None}
        self.idle_since = None
        return []

    def batch_lost(self, batch: str | None) -> bool:
        """A shuffle that did not finish (a jam, a batch removed mid-shuffle): the stack
        of that batch is no longer shuffled. True when it was the table's stack."""
        stack = self.stack
        if stack is not None and stack["shuffled"] == "device" and stack["batch"] in (None, batch):
            self.stack = None
            return True
        return False

    # ----- the cut ----------------------------------------------------------------

    def cut_problem(self, cards: object) -> str | None:
        """§ 567.5(d): the cover card at least 10 cards in from the top or the bottom."""
        size = (self.stack or {}).get("cards") or self.rules.stack_cards
        return size_problem(cards, size, "cover card")

    def recut(self) -> None:
        """§ 567.5(f): the recut is made by the next person entitled under (b)(4)."""
        assert self.stack is not None
        self.stack["cut"] = None
        self.offer = offer(self.rules, "reshuffle")

    # ----- the shoe ---------------------------------------------------------------

    def stack_loaded(self, cards: object, round_id: str | None) -> list[Decision]:
        out: list[Decision] = []
        if round_id is not None:
            out.append(strict("shoe_loaded_during_round", round_id))
        if (uninspected := self._uninspected("shoe load", round_id)) is not None:
            return [*out, uninspected]
        stack = self.stack
        if stack is None or stack["cut"] is None:
            key = "shuffle" if stack is None else "second_cover_card"
            what = "stack_not_shuffled" if stack is None else "stack_not_cut"
            detail = (
                "the cards are shuffled and cut before they are placed in the shoe"
                if stack is None
                else "the stack is cut, and the second cover card inserted, before it is "
                "placed in the shoe"
            )
            out.append(
                decision(
                    EventType.PROCEDURE_VIOLATION,
                    self.rules.cite(key),
                    round_id,
                    what=what,
                    detail=f"{detail}: the load does not count",
                )
            )
            self.loaded = False
            return out
        if isinstance(cards, int) and not isinstance(cards, bool) and cards > 0:
            self.load_cards = cards
        else:  # a shoe that does not count its stack: the stack shuffled, else the decks
            self.load_cards = stack["cards"] or self.rules.stack_cards
        self.loaded, self.cover_cards, self.due = True, 0, None
        self.stack = None
        self.offer = None  # the next cut's player follows from this shoe's cover card
        self.idle_since = None
        return out

    def cover_card(self, rnd: dict[str, Any] | None, count: object) -> list[Decision]:
        """A `shoe.cutting_card`: the first of a load is the second cover card (§ 567.5(e));
        reaching it makes the reshuffle due (§ 567.5(g)). The second, the cut's own cover
        card at the bottom of the stack, changes nothing."""
        round_id = rnd["id"] if rnd else None
        if not self.loaded:
            return [strict("cover_card_without_stack", round_id)]
        self.cover_cards += 1
        if self.cover_cards > 1:
            return []
        out = self._cover_position(round_id, count)
        if rnd is not None:
            rnd["cover_card"] = True
            return out
        # Reached between rounds: no betting area to name, so no (b)(2) or (b)(3) player.
        return [*out, *self.reshuffle_due("cover_card", round_id)]

    def _cover_position(self, round_id: str | None, count: object) -> list[Decision]:
        if not isinstance(count, int) or isinstance(count, bool) or self.load_cards is None:
            return []
        behind = self.load_cards - count
        least = quarter_minimum(self.load_cards, self.rules.deck_size)
        if behind >= least:
            return []
        return [
            decision(
                EventType.PROCEDURE_VIOLATION,
                self.rules.cite("second_cover_card"),
                round_id,
                what="cover_card_too_deep",
                count=count,
                stack=self.load_cards,
                behind=behind,
                least=least,
                reading=QUARTER_POLICY,
                detail=f"the second cover card came out after {count} of {self.load_cards} "
                f"cards, {behind} above the bottom; it is inserted about a quarter of the "
                "way in from the bottom",
            )
        ]

    def reshuffle_due(self, why: str, round_id: str | None, **data: Any) -> list[Decision]:
        """The cards are shuffled (and cut, and loaded) before the next round, for `why`."""
        self.due = why
        self.loaded = False
        key = DUE_KEYS[why]
        body = {"reason": why, **data}
        if why == "cover_card":
            body["rule_note"] = COVER_READING
        return [decision(EventType.CARDS_SHUFFLE_REQUIRED, self.rules.cite(key), round_id, **body)]

    def empty(self, round_id: str | None) -> list[Decision]:
        out = []
        if round_id is not None:
            out.append(strict("shoe_empty_mid_round", round_id))
        return [*out, *self.reshuffle_due("shoe_empty", None)]

    # ----- gates ------------------------------------------------------------------

    def start_problems(self) -> list[tuple[str | None, str]]:
        """Why no round may start now: (citation or None, sentence), strongest first."""
        problems: list[tuple[str | None, str]] = []
        if (problem := receipt_problem(self.receipt)) is not None:
            problems.append((self.rules.cite("decks_inspected"), problem))
        stack = self.stack
        if self.due is not None and stack is None:
            rule = self.rules.cite(DUE_KEYS[self.due])
            problems.append(
                (rule, f"the cards are shuffled, cut and placed in the shoe ({self.due})")
            )
        elif stack is not None and stack["cut"] is None:
            problems.append(
                (self.rules.cite("offer"), "the shuffled stack is offered to be cut (cut)")
            )
        elif not self.loaded:
            problems.append(
                (self.rules.cite("second_cover_card"), "the cut stack is placed in the shoe")
            )
        return problems

    # ----- persistence ------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        return snapshot_fields(self, FIELDS)

    def restore(self, body: dict[str, Any]) -> None:
        if not isinstance(body, dict):
            raise ValueError("snapshot: shoe must be an object")
        if body.get("due") not in (None, *DUE_KEYS):
            raise ValueError(f"snapshot: shoe.due {body.get('due')!r} is not known")
        stack = body.get("stack")
        if stack is not None and not (
            isinstance(stack, dict) and {"shuffled", "batch", "cards", "cut"} <= set(stack)
        ):
            raise ValueError("snapshot: shoe.stack must be null or a stack object")
        restore_fields(self, FIELDS, body)
