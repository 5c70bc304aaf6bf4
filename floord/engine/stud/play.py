"""A Mississippi Stud round in play: cards dealt, the players' wagers or folds, the reveals.

The round is a plain dict (it goes into the snapshot as it is); `StudPlay` reads and
changes it and answers each step with a `Step`: decisions to record, or a refusal
(`error`, `rule`), or a void (`void`: reason, citation, detail) the engine carries out.

The order of a round (§ 571.8-571.11): `round_start` with the boxes holding an Ante
Wager; "no more bets"; two cards to each box, the dealer's left first, then the three
community cards (a manual shoe deals all of them; an automated shoe dispenses only the
players' stacks, the community cards come from the dealer's hand, § 571.10(c)); then for
3rd, 4th and 5th Street each player plays 1, 2 or 3 times the ante or folds, "no more
bets" is called and the next community card turned. floord reads "two cards face down to
each player" (§ 571.8(d)(1), § 571.9(b)(1)) as two consecutive cards per box, as the
automated shoe's stacks of two are (§ 571.10(b)).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from floord.contract import EventType, cite
from floord.engine.core.rulings import decision, strict
from floord.engine.core.types import Decision
from floord.engine.stud.rules import ACTIONS, REVEAL_RULES, STREET_RULES, StudRules


@dataclass
class Step:
    decisions: list[Decision] = field(default_factory=list)
    error: str | None = None
    rule: str | None = None
    void: tuple[str, str | None, str] | None = None  # (reason, citation, detail)


def new_round(boxes: list[int], antes: dict[str, int] | None, deck: str) -> dict[str, Any]:
    """The fields of a new round (`RoundBook.start` adds id, n, gaming day, start time)."""
    return {
        "boxes": sorted(boxes),  # ascending = the dealer's left first
        "antes": antes,
        "deck": deck,
        "phase": "betting",
        "street": 3,
        "no_more_bets": False,
        "drawn": 0,
        "hands": [{"box": b, "cards": [], "wagers": {}, "folded_at": None} for b in sorted(boxes)],
        "community": [None, None, None],
        "revealed": 0,
        "face_up": [],
        "face_up_seen": 0,
        "stub_counted": False,
    }


class StudPlay:
    """One round's rules over its dict `r`."""

    def __init__(self, rules: StudRules, r: dict[str, Any]) -> None:
        self.rules = rules
        self.r = r

    @property
    def id(self) -> str:
        return str(self.r["id"])

    def hand(self, box: int) -> dict[str, Any] | None:
        return next((h for h in self.r["hands"] if h["box"] == box), None)

    def live(self) -> list[dict[str, Any]]:
        return [h for h in self.r["hands"] if h["folded_at"] is None]

    @property
    def expected_observed(self) -> int:
        """Cards the shoe device must deal this round (0 when dealt from the hand)."""
        per_box = self.rules.observed_cards
        return per_box * len(self.r["boxes"]) + self.rules.observed_community()

    @property
    def dealt(self) -> bool:
        drawn: int = self.r["drawn"]
        return drawn >= self.expected_observed

    def _cards_in_round(self) -> list[str]:
        cards = [c for h in self.r["hands"] for c in h["cards"] if c]
        return cards + [c for c in self.r["community"] if c]

    # ----- the shoe ---------------------------------------------------------------

    def card_drawn(self, card: str | None) -> Step:
        step = Step()
        r = self.r
        pending = r["face_up"]
        if card in pending or (card is None and pending):
            pending.remove(card if card in pending else pending[0])
            return step  # the face-up card taken out to the discard rack (§ 571.13(b))
        if r["phase"] == "betting":
            step.decisions.append(
                decision(
                    EventType.PROCEDURE_VIOLATION,
                    self.rules.cite("no_more_bets"),
                    self.id,
                    what="card_before_no_more_bets",
                    detail="the dealer announces no more bets before dealing; the card, drawn "
                    "in error without its face exposed, is used as the next card",
                    card=card,
                    used_as="next_card",
                    used_as_rule=cite("571.13(c)"),
                )
            )
        if r["phase"] not in ("betting", "dealing") or self.dealt:
            step.void = (
                "wrong_number_of_cards",
                cite("571.13(d)"),
                f"a card beyond the {self.expected_observed} the shoe deals this round",
            )
            return step
        if card is not None and card in self._cards_in_round():
            step.void = ("card_seen_twice", None, f"{card} was dealt twice in one round")
            return step
        index = r["drawn"]
        places = self.rules.observed_cards * len(r["boxes"])
        if index < places:
            r["hands"][index // 2]["cards"].append(card)
        else:
            r["community"][index - places] = card
        r["drawn"] += 1
        return step

    def face_up(self, card: str | None) -> Step:
        r = self.r
        if r["phase"] not in ("betting", "dealing") or self.dealt:
            return Step([strict("card_face_up_outside_dealing", self.id, card=card)])
        r["face_up_seen"] += 1
        if r["face_up_seen"] > 1:
            return Step(
                void=(
                    "cards_face_up",
                    cite("571.13(b)"),
                    "more than one card found face up in the shoe or deck while dealing",
                )
            )
        r["face_up"].append(card)
        return Step(
            [
                decision(
                    EventType.PROCEDURE_VIOLATION,
                    cite("571.13(b)"),
                    self.id,
                    what="card_face_up_in_shoe",
                    card=card,
                    detail="the card is not used in the game: it goes to the discard rack",
                )
            ]
        )

    def shoe_empty(self) -> Step:
        """An automated shoe that stops dealing mid-round voids it (§ 571.13(f))."""
        if self.rules.dealing == "automated_shoe" and not self.dealt:
            return Step(
                void=(
                    "shoe_failed_to_deal",
                    cite("571.13(f)"),
                    f"the automated shoe dealt {self.r['drawn']} of {self.expected_observed} "
                    "cards; the cards are removed from it and reshuffled with those dealt",
                )
            )
        return Step()

    # ----- the dealer -------------------------------------------------------------

    def _check_dealt(self) -> Step | None:
        """Leaving the deal: a shoe that dealt too few cards is a misdeal (§ 571.13(d))."""
        r = self.r
        if r["phase"] != "dealing":
            return None
        if not self.dealt:
            return Step(
                void=(
                    "wrong_number_of_cards",
                    cite("571.13(d)"),
                    f"the shoe dealt {r['drawn']} of the {self.expected_observed} cards of "
                    f"{len(r['boxes'])} box(es)",
                )
            )
        r["phase"], r["street"], r["no_more_bets"] = "street", 3, False
        return None

    def no_more_bets(self) -> Step:
        r = self.r
        if r["phase"] == "betting":
            r["phase"] = "dealing"
            if self.expected_observed == 0:
                r["phase"] = "street"
            return Step()
        if (bad := self._check_dealt()) is not None:
            return bad
        if r["phase"] != "street":
            return Step(error="every community card is revealed: end the round")
        if r["no_more_bets"]:
            return Step(error="no more bets was already called for this street")
        street = r["street"]
        if not self.live():
            return Step(error="every player folded: end the round")
        waiting = [h["box"] for h in self.live() if str(street) not in h["wagers"]]
        if waiting:
            return Step(
                error=f"box(es) {waiting} have neither wagered nor folded on {street}th Street",
                rule=cite(STREET_RULES[street]),
            )
        r["no_more_bets"] = True
        return Step()

    def decide(self, box: int, action: str) -> Step:
        r = self.r
        if r["phase"] == "betting":
            return Step(
                error="no more bets is called and the cards dealt before any decision",
                rule=self.rules.cite("no_more_bets"),
            )
        if (bad := self._check_dealt()) is not None:
            return bad
        if r["phase"] != "street":
            return Step(error="every community card is revealed: no more decisions")
        street = r["street"]
        hand = self.hand(box)
        if hand is None:
            return Step(error=f"box {box} has no Ante Wager this round", rule=cite("571.7(c)"))
        if hand["folded_at"] is not None:
            return Step(error=f"box {box} folded on {hand['folded_at']}th Street")
        if str(street) in hand["wagers"]:
            return Step(error=f"box {box} already decided on {street}th Street")
        if r["no_more_bets"]:
            return Step(
                error=f"no more bets was called for {street}th Street", rule=cite("571.7(b)")
            )
        if action == "fold":
            hand["folded_at"] = street
        else:
            hand["wagers"][str(street)] = ACTIONS[action]
        return Step()

    def reveal(self, card: int, face: str | None) -> Step:
        r = self.r
        if r["phase"] == "showdown":
            return Step(error="every community card is already revealed")
        if card != r["revealed"] + 1:
            return Step(
                error=f"community card {r['revealed'] + 1} is revealed next, not {card}",
                rule=cite(REVEAL_RULES[min(card, 3)]),
            )
        if r["phase"] == "dealing" and (bad := self._check_dealt()) is not None:
            return bad
        if not r["no_more_bets"]:
            return Step(
                void=(
                    "community_card_before_no_more_bets",
                    cite("571.13(a)"),
                    f"community card {card} was exposed before no more bets was called",
                )
            )
        known = r["community"][card - 1]
        if face is not None and known is not None and face != known:
            return Step(error=f"the shoe read community card {card} as {known}, not {face}")
        if face is not None and known is None:
            if face in self._cards_in_round():
                return Step(error=f"{face} is already one of this round's cards")
            r["community"][card - 1] = face
        r["revealed"] = card
        r["no_more_bets"] = False
        if card == 3:
            r["phase"] = "showdown"
        else:
            r["street"] += 1
        shown = r["community"][:card]
        return Step(
            [
                decision(
                    EventType.STUD_HAND,
                    cite(REVEAL_RULES[card]),
                    self.id,
                    hand="community",
                    card=card,
                    face=r["community"][card - 1],
                    community=shown,
                )
            ]
        )

    def may_end(self) -> str | None:
        """Why the round cannot end yet, or None."""
        r = self.r
        if r["phase"] == "showdown":
            return None
        if r["phase"] == "street" and not self.live():
            return None
        if r["phase"] == "dealing" and not self.live():
            return None
        return f"the round is at {r['phase']}: every community card is revealed first"
