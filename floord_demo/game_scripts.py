"""The demo's Baccarat and Mississippi Stud tables, scripted: what their devices do, when.

Like `card_script`'s Blackjack shoes, each timeline is written ahead of time from a
seeded random deck, with a pause wherever the dealer has something to tell floord.

Baccarat (58 Pa. Code chapter 545): the shoe is loaded, burned (§ 545.5(f): the first
card and as many more as its value) and deals coups card by card, Player first, by the
tableau (`floord.engine.baccarat.tableau.next_card`). Now and then the dealer errs and
draws a third card the tableau forbids: floord records a `procedure.violation`.

Mississippi Stud (chapter 571) with a counting shuffler and an automated shoe: before
each round the deck is shuffled and counted, the shoe dispenses each box's two cards
(§ 571.10(b)), and the dealer turns the three community cards from the hand. Faults:
the shuffler jams before the first round (the deck is shuffled again, § 571.13(e)); in
the second round the shoe stops dealing midway, which voids the round (§ 571.13(f)).
"""

from __future__ import annotations

import random

from floord.engine.baccarat.tableau import NEXT_NONE, next_card
from floord.engine.cards.card import burn_value
from floord_demo.card_script import (
    DRAW_S,
    GAP_S,
    ROUND_GAP_S,
    SUITS,
    CardTable,
    Timeline,
    batch_table_timeline,
    reader_fault_timeline,
)

RANKS = "A23456789TJQK"
BACCARAT_DECKS = 8
BACCARAT_BURN = ["AD", "7C"]  # an ace: it and one more card (§ 545.5(f))
ERROR_EVERY = 3  # every third coup the dealer draws a card the tableau forbids
# Real seconds (at the default pace) the baccarat dealer waits after a coup's last card
# before `round_end`: an erroneous extra card comes DRAW_S after the last one.
SETTLE_S = 0.75
STUD_DECK = "deck"  # a one-deck table's deck (floord.engine.stud.rules: StudRules.deck_names)
STUD_SHUFFLE_S = 1.0
STREETS_S = 2.5  # the dealer's three streets and round_end, from the hand
SHOE_JAM_AFTER = 3  # cards the automated shoe deals before it stops in the jam round
SHOE_JAM_ROUND = 1  # the second round of each loop: the first shows a whole round


def _card(rng: random.Random) -> str:
    return rng.choice(RANKS) + rng.choice(SUITS)


def deal_coup(rng: random.Random, *, error: bool = False) -> list[str]:
    """A coup's cards in the order dealt (§ 545.9(c), § 545.10(c)); with `error`, one
    more card the tableau forbids."""
    player: list[str] = []
    banker: list[str] = []
    order: list[str] = []
    while (due := next_card(player, banker)) != NEXT_NONE:
        card = _card(rng)
        (player if due in ("player", "player_third") else banker).append(card)
        order.append(card)
    if error:
        order.append(_card(rng))
    return order


def tableau_cards(cards: list[str]) -> int:
    """How many of `cards` the tableau allows (the rest were dealt in error)."""
    player: list[str] = []
    banker: list[str] = []
    for n, card in enumerate(cards):
        due = next_card(player, banker)
        if due == NEXT_NONE:
            return n
        (player if due in ("player", "player_third") else banker).append(card)
    return len(cards)


def baccarat_timeline(table: CardTable, pace: float) -> Timeline:
    """Load, burn and deal `rounds_per_shoe` coups; every ERROR_EVERY-th has an extra card."""
    assert burn_value(BACCARAT_BURN[0]) + 1 == len(BACCARAT_BURN)
    rng = random.Random(table.seed)
    line = Timeline(pace)
    # The dealer shuffles and the cut is made once the daemon is up (§ 545.5(a)-(c)).
    line.wait(3.5)
    line.add("shoe", {"load": {"cards": BACCARAT_DECKS * 52}})
    line.wait(0.5)
    line.draw(BACCARAT_BURN)
    for n in range(table.rounds_per_shoe):
        cards = deal_coup(rng, error=n % ERROR_EVERY == 1)
        line.coups.append(cards)
        line.wait(ROUND_GAP_S)
        line.draw(cards)
        line.wait(SETTLE_S + GAP_S)
    return line


def stud_timeline(table: CardTable, pace: float) -> Timeline:
    """Shuffle (a jam first), load and deal the boxes' stacks; the second round's shoe stops."""
    rng = random.Random(table.seed)
    line = Timeline(pace)
    line.wait(1.5)
    line.add("shuffler", {"jam": {"batch": STUD_DECK, "code": 40}})
    line.wait(0.5)
    for n in range(table.rounds_per_shoe):
        line.shuffle(STUD_DECK, 52, STUD_SHUFFLE_S)
        line.wait(STUD_SHUFFLE_S + 0.5)
        line.add("shoe", {"load": {}})
        line.wait(ROUND_GAP_S)
        deck = rng.sample([r + s for r in RANKS for s in SUITS], 2 * len(table.boxes))
        jam = n == SHOE_JAM_ROUND
        line.draw(deck[:SHOE_JAM_AFTER] if jam else deck)
        if jam:
            line.add("shoe", {"empty": {}})
        line.wait(STREETS_S)
    return line


def timeline_for(table: CardTable, pace: float) -> Timeline:
    """Any demo card table's timeline, by its game."""
    if table.game == "baccarat":
        return baccarat_timeline(table, pace)
    if table.game == "mississippi_stud":
        return stud_timeline(table, pace)
    if table.shuffler:
        return batch_table_timeline(table, pace)
    return reader_fault_timeline(table, pace)


__all__ = ["DRAW_S", "deal_coup", "tableau_cards", "timeline_for"]
