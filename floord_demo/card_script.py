"""The demo's card tables, scripted: what the shoe deals, when, and how the dealer plays.

A dealing shoe does not know the game, so the demo writes down a shoe's whole timeline
ahead of time: the cards of each round in the order of 58 Pa. Code § 549.7(e), with a
pause wherever the dealer has something to tell floord (a round starting, a player's
decision, the dealer's turn, the round's end). The virtual dealer (`dealer.py`) plays
the same strategy (`player_hits`, `dealer_draws`) from the cards it sees, so its
commands always arrive in a pause before the card they call for.

Every round is generated from a seeded random deck and kept within the rules: the
dealer's up card is 2 to 9, so no peek is needed (§ 549.7(f)); Spanish 21 has no tens
(§ 551.3(a)); players hit below 13 and the dealer stands on 17 (§ 549.13(b)) and does
not draw when no player's hand is still live (§ 549.13(c)).

Times here are real seconds from the end of the devices' power-on quiet; `device_scenarios`
turns them into each simulator's scenario at the demo's speed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from floord.engine.cards.card import count_hand, dealer_must_stand

PLAYER_STANDS_ON = 13
SUITS = "SHDC"
UP_CARD_RANKS = "23456789"  # no ace or ten-value: no peek (§ 549.7(f), § 551.8(e))
DECK_SIZE = {"blackjack": 52, "spanish21": 48, "baccarat": 52, "mississippi_stud": 52}
BURN_CARD = "2C"  # the first card after each load is burned (§ 549.7(c))

# Real seconds at the default pace (`--speed 4`); slower speeds stretch them.
DRAW_S = 0.25  # between two cards dealt in a row
GAP_S = 1.5  # a pause for the dealer's commands before the card they call for
ROUND_GAP_S = 2.0  # round_end, then round_start of the next round
# The reader's failure is in real seconds whatever the pace: the daemon calls a silent
# device offline after its profile's silence_s (3 s), and reconnects in real time.
READER_DEAD_S = 5.0
READER_BACK_S = 2.5  # from the line coming back to the shoe being loaded again


def player_hits(cards: list[str]) -> bool:
    """The demo players' strategy: draw below 13; never on 21 or a Blackjack."""
    count = count_hand(cards)
    return not count.bust and not count.blackjack and count.total < PLAYER_STANDS_ON


def hand_live(cards: list[str]) -> bool:
    """A player's hand the dealer's total still matters to (§ 549.13(c))."""
    count = count_hand(cards)
    return not (count.bust or count.blackjack)


def dealer_draws(dealer: list[str], hands: list[list[str]]) -> bool:
    """The dealer draws below 17 (§ 549.13(b)) while some player's hand is live."""
    return any(hand_live(h) for h in hands) and not dealer_must_stand(count_hand(dealer))


@dataclass(frozen=True)
class ScriptedRound:
    """One round's cards: each box's hand (first two cards, then its hits), the dealer's."""

    boxes: tuple[int, ...]
    hands: dict[int, list[str]]
    dealer: list[str]

    def initial(self) -> list[str]:
        """The initial deal in the order of § 549.7(e)."""
        first = [self.hands[b][0] for b in self.boxes]
        second = [self.hands[b][1] for b in self.boxes]
        return [*first, self.dealer[0], *second, self.dealer[1]]


def deal_round(rng: random.Random, game: str, boxes: tuple[int, ...]) -> ScriptedRound:
    """A round dealt from a random deck and played by the demo's strategy."""
    ranks = "A23456789TJQK".replace("T", "") if game == "spanish21" else "A23456789TJQK"

    def card(pool: str = ranks) -> str:
        return rng.choice(pool) + rng.choice(SUITS)

    hands = {b: [card()] for b in boxes}
    up = card(UP_CARD_RANKS)
    for b in boxes:
        hands[b].append(card())
    dealer = [up, card()]
    for b in boxes:
        while player_hits(hands[b]):
            hands[b].append(card())
    while dealer_draws(dealer, list(hands.values())):
        dealer.append(card())
    return ScriptedRound(tuple(boxes), hands, dealer)


@dataclass(frozen=True)
class Cue:
    """One device step at `at` real seconds, taking `takes` real seconds."""

    at: float
    device: str
    step: dict[str, Any]
    takes: float = 0.0


@dataclass
class Timeline:
    """A table's cues in real seconds; `period` is when the devices' loop starts again."""

    pace: float
    cues: list[Cue] = field(default_factory=list)
    rounds: list[ScriptedRound] = field(default_factory=list)
    coups: list[list[str]] = field(default_factory=list)  # a Baccarat shoe's coups
    now: float = 0.0

    def add(self, device: str, step: dict[str, Any], takes: float = 0.0) -> None:
        self.cues.append(Cue(self.now, device, step, takes))

    def wait(self, seconds: float) -> None:
        self.now += seconds * self.pace

    def draw(self, cards: list[str]) -> None:
        """Cards dealt in a row from the shoe, one every DRAW_S."""
        interval = DRAW_S * self.pace
        self.add(
            "shoe",
            {"draw": {"cards": list(cards), "interval": interval}},
            interval * (len(cards) - 1),
        )
        self.now += interval * len(cards)

    def shuffle(self, batch: str, cards: int, seconds: float) -> None:
        """A batch shuffled and counted (`SHS`, then `SHC` and `BRD` after `seconds`)."""
        takes = seconds * self.pace
        self.add("shuffler", {"shuffle": {"batch": batch, "cards": cards, "seconds": takes}}, takes)

    def play(self, rnd: ScriptedRound, *, cut: bool = False) -> None:
        """A round: pause for round_start, the deal, each hit, the dealer's turn."""
        self.rounds.append(rnd)
        self.wait(ROUND_GAP_S)
        self.draw(rnd.initial())
        if cut:
            self.add("shoe", {"cutting_card": {}})
        for box in rnd.boxes:
            for hit in rnd.hands[box][2:]:
                self.wait(GAP_S)
                self.draw([hit])
        self.wait(GAP_S)  # stands and dealer_turn
        if len(rnd.dealer) > 2:
            self.draw(rnd.dealer[2:])

    @property
    def period(self) -> float:
        return max(c.at + c.takes for c in self.cues) + ROUND_GAP_S * self.pace


@dataclass(frozen=True)
class CardTable:
    """A demo card table: its config entry's facts and its boxes in play."""

    id: str
    game: str
    decks: int
    shuffler: bool
    boxes: tuple[int, ...]
    seed: int
    rounds_per_shoe: int = 2

    @property
    def batch_cards(self) -> int:
        """Cards in one of the two batches: half the decks (§ 549.3(d)(1))."""
        return self.decks // 2 * DECK_SIZE[self.game]

    @property
    def shoe_cards(self) -> int:
        return self.batch_cards if self.shuffler else self.decks * DECK_SIZE[self.game]


def _shoe(line: Timeline, table: CardTable, rng: random.Random) -> None:
    """Load, burn (§ 549.7(c)) and deal a shoe's rounds; the last one meets the cut card."""
    for n in range(table.rounds_per_shoe):
        line.play(deal_round(rng, table.game, table.boxes), cut=n == table.rounds_per_shoe - 1)


def batch_table_timeline(table: CardTable, pace: float) -> Timeline:
    """A Blackjack table with a batch shuffler: red and blue batches alternate (§ 549.3(d)).

    Faults: the blue batch is counted one card short (the engine refuses it and it is
    shuffled again); in the second shoe the red batch jams going into the shuffler and
    is shuffled again before it is dealt.
    """
    rng = random.Random(table.seed)
    line = Timeline(pace)
    full, short = table.batch_cards, table.batch_cards - 1
    # The first batch goes into the shuffler once the new decks were inspected and verified
    # (§ 549.5(a), (e)): the floorperson opens the table and records them within about a
    # second of the devices coming up, the dealer and floorperson inspect them next.
    line.wait(3.5)
    line.shuffle("red", full, 1.0)
    for first, second, fault in (("red", "blue", "short"), ("blue", "red", "jam")):
        line.wait(2.0)
        line.add("shuffler", {"remove": {"batch": first}})
        line.wait(0.5)
        line.add("shoe", {"load": {"cards": table.shoe_cards}})
        line.wait(0.5)
        # The discards of the other batch go into the shuffler before the burn card.
        if fault == "short":
            line.shuffle(second, short, 1.0)
        else:
            line.add("shuffler", {"jam": {"batch": second, "code": 40}})
        line.wait(0.5)
        line.draw([BURN_CARD])
        redo = line.now
        line.now += 0.5 * pace
        line.shuffle(second, full, 1.5)
        line.now = redo
        _shoe(line, table, rng)
    return line


def reader_fault_timeline(table: CardTable, pace: float) -> Timeline:
    """A table without a shuffler whose card reader fails before each shoe.

    The reader reports a fault (the table halts, § 549.16(k)), is cleared, and is then
    replaced: its line goes dead long enough for the daemon to call it offline, so the
    fault is cleared by a fresh connection and the floorperson can resume the table.
    """
    rng = random.Random(table.seed)
    line = Timeline(pace)
    for _ in range(2):
        # Late enough that the floorperson has opened the table on a slow machine: the
        # failure then halts an open table, as it would mid-shift.
        line.wait(4.0)
        line.add("reader", {"fault": {"code": 11}})
        line.wait(0.5)
        line.add("reader", {"clear": {"code": 11}})
        line.wait(0.5)
        line.add("reader", {"disconnect": READER_DEAD_S}, READER_DEAD_S)
        line.now += READER_DEAD_S + READER_BACK_S
        line.add("shoe", {"load": {"cards": table.shoe_cards}})
        line.wait(0.5)
        line.draw([BURN_CARD])
        _shoe(line, table, rng)
    return line


def device_steps(line: Timeline, device: str, speed: float) -> list[dict[str, Any]]:
    """One device's scenario steps from the timeline: idle between cues, device seconds.

    Every device of a table pads its steps to the same period, so their loops stay in step.
    """
    steps: list[dict[str, Any]] = []
    cursor = 0.0
    for cue in sorted((c for c in line.cues if c.device == device), key=lambda c: c.at):
        if cue.at < cursor - 1e-9:
            raise ValueError(
                f"{device}: a step at {cue.at:.2f} s overlaps one until {cursor:.2f} s"
            )
        if cue.at > cursor:
            steps.append({"idle": round((cue.at - cursor) * speed, 6)})
        steps.append(_in_device_time(cue.step, speed))
        cursor = cue.at + cue.takes
    steps.append({"idle": round(max(line.period - cursor, 0.0) * speed, 6)})
    return steps


def _in_device_time(step: dict[str, Any], speed: float) -> dict[str, Any]:
    [(kind, body)] = step.items()
    if kind == "disconnect":
        return {kind: round(body * speed, 6)}
    if kind == "draw":
        return {kind: {**body, "interval": round(body["interval"] * speed, 6)}}
    if kind == "shuffle":
        return {kind: {**body, "seconds": round(body["seconds"] * speed, 6)}}
    return step
