"""The demo's virtual dealer: plays the card tables' rounds through signed commands.

Blackjack and Spanish 21 are played here; Baccarat (`baccarat_dealer`), Mississippi
Stud (`stud_dealer`), the Big Six wheel (`big_six_dealer`) and the manual roulette wheel
(`wheel_dealer`) have their own seats, fed the same way.

A card table's dealer tells floord what no device sees (docs/contract.md): the boxes
with a wager (`round_start`), each player's decision, the dealer's turn and the end of
the round. The virtual dealer does so exactly as a person's client would (signed
commands through the broker, role dealer), watching the table as a dealer does: the
table's state says when a round may start (open, the decks received inspected and
verified, the shoe loaded and burned, no reshuffle due), and the shoe's `shoe.card_drawn`
events are the cards on the layout. New decks the floorperson records (`change_decks`, a
receipt) are inspected by the dealer first (§ 549.5(a), § 551.4(a)); the floorperson
then verifies them, and the dealer spreads them for the first player, washed and stacked,
each part the receipt owes (`decks_spread`, § 549.5(b)-(e), § 551.4(b), (c)). Each
stack is cut before it goes into the shoe (§ 549.6(b)-(d), § 551.5(b)-(d)): when a side
of the shoe waits for a stack, the dealer offers the cut to the player the paragraph
designates, who accepts (`cut`), and a round in which the cutting card came out ends
naming the box it appeared on (`round_end {cutting_card_at}`).
Players follow `card_script`'s strategy, which the scripted shoe also follows, so each
command arrives in the pause before the card it calls for.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from floord.contract import Topics
from floord.engine.cards.card import count_hand
from floord_demo.baccarat_dealer import BaccaratSeat
from floord_demo.big_six_dealer import BigSixSeat
from floord_demo.big_six_table import GAP_S as BIG_SIX_GAP_S
from floord_demo.card_script import dealer_draws, player_hits
from floord_demo.game_scripts import SETTLE_S
from floord_demo.seat import CommandSeat, SignedOperator, receipt_cleared, receipt_in
from floord_demo.stud_dealer import StudSeat
from floord_demo.wheel_dealer import WheelDealerSeat

CUT_CARDS = 30  # the cutting card's place from the top: well inside any demo stack


@dataclass
class RoundInPlay:
    """What the dealer sees of the round: the cards as they were dealt, and whose turn."""

    boxes: list[int]
    id: str | None = None  # from the table's round.started
    hands: dict[int, list[str]] = field(default_factory=dict)
    dealer: list[str] = field(default_factory=list)
    dealt: int = 0  # cards of the initial deal seen
    turn: int = 0  # index into boxes of the box playing now
    waiting: str | None = None  # "box" or "dealer": a card is called for
    dealer_turn: bool = False
    broken: bool = False  # a command was refused: the dealer only tries to end the round
    cutting_card: bool = False  # the shoe's cutting card came out in this round
    cutting_card_at: int | str | None = None  # the box (or "dealer") the next card went to

    def __post_init__(self) -> None:
        self.hands = {b: [] for b in self.boxes}

    @property
    def initial_done(self) -> bool:
        return self.dealt >= 2 * len(self.boxes) + 2

    def place(self, card: str) -> bool:
        """Put a dealt card where it goes; False if no card was due (the engine says why).
        The first card after the cutting card says where it appeared (§ 549.6(b)(2), (3))."""
        before = (len(self.dealer), {b: len(h) for b, h in self.hands.items()})
        placed = self._place(card)
        if placed and self.cutting_card and self.cutting_card_at is None:
            grown = [b for b, h in self.hands.items() if len(h) > before[1][b]]
            self.cutting_card_at = grown[0] if grown else "dealer"
        return placed

    def _place(self, card: str) -> bool:
        if not self.initial_done:
            n, per = self.dealt, len(self.boxes) + 1
            self.dealt += 1
            spot = n % per
            if spot == len(self.boxes):
                self.dealer.append(card)
            else:
                self.hands[self.boxes[spot]].append(card)
            return True
        if self.waiting == "box":
            self.hands[self.boxes[self.turn]].append(card)
        elif self.waiting == "dealer":
            self.dealer.append(card)
        else:
            return False
        self.waiting = None
        return True


def shoe_ready(state: dict[str, Any]) -> bool:
    """The table's state allows a round: open, none in play, decks on record, inspected
    and verified, the shoe loaded and its burn card out, no reshuffle due and no refused
    batch in it."""
    shoe = state.get("shoe") or {}
    sides = shoe.get("sides") or {}
    batch = shoe.get("shuffler") or {}
    return (
        state.get("state") == "open"
        and state.get("round") is None
        and bool(shoe.get("decks_opened_at"))
        and receipt_cleared(receipt_in(state, "shoe"))
        and shoe.get("burn_due") is None
        and bool(sides)
        and all(
            s.get("loaded") and not s.get("shuffle_required") and not s.get("cutting_pending")
            for s in sides.values()
        )
        and not batch.get("shoe_batch_bad")
    )


class DealerSeat(CommandSeat):
    """One table's dealer: reacts to the table's messages one at a time, in order."""

    def __init__(
        self,
        table: str,
        boxes: tuple[int, ...],
        send: Callable[[str, str, dict[str, Any]], Any],
    ) -> None:
        super().__init__(table, send, "floord.demo.dealer")
        self.boxes = list(boxes)
        self.state: dict[str, Any] = {}
        self.round: RoundInPlay | None = None
        # The sides whose next stack this dealer cut, with what the table showed then (the
        # decks, why the side waited): a state published before the cut shows the same.
        self.cut_sides: dict[str, tuple[Any, ...]] = {}
        # The player offered the next cut: the first player to the table (§ 549.6(b)(1)).
        self.next_cutter = self.boxes[0] if self.boxes else 1

    async def on_state(self, state: dict[str, Any]) -> None:
        self.state = state
        if await self.inspect_received(receipt_in(state, "shoe")):
            return
        await self.cut_due()
        if self.round is None:
            await self.advance()

    async def cut_due(self) -> None:
        """Offer the cut of each side that waits for a stack (§ 549.6(b)-(d)); the player
        offered it accepts, the cutting card well inside the stack."""
        shoe = self.state.get("shoe") or {}
        pending = (shoe.get("cuts") or {}).get("pending") or {}
        opened = shoe.get("decks_opened_at")
        for side, s in (shoe.get("sides") or {}).items():
            waits = not s.get("loaded") or bool(s.get("shuffle_required"))
            if not waits:
                self.cut_sides.pop(side, None)  # loaded: its next stack is cut anew
                continue
            seen = (opened, s.get("loaded"), s.get("shuffle_required"))
            if pending.get(side) is not None or self.cut_sides.get(side) == seen:
                continue
            if not opened or not receipt_cleared(receipt_in(self.state, "shoe")):
                continue
            args: dict[str, Any] = {"cards": CUT_CARDS, "by": "player", "box": self.next_cutter}
            if side != "shoe":
                args["side"] = side
            if await self.command("cut", args):
                self.cut_sides[side] = seen

    async def on_event(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        data = event.get("data") or {}
        rnd = self.round
        if rnd is None:
            return
        if kind == "round.started" and rnd.id is None:
            rnd.id = event.get("round")
        elif kind in ("round.voided", "round.ended") and event.get("round") == rnd.id:
            self.round = None  # voided (a halt, say); the dealer's own round_end cleared it
        elif kind == "shoe.cutting_card" and rnd.id is not None:
            rnd.cutting_card = True
        elif kind == "shoe.card_drawn" and rnd.id is not None:
            # `P/events` keeps the table's order: a card before round.started is not
            # the round's (the burn card, say), whatever the state said first.
            card = data.get("card")
            if isinstance(card, str) and not rnd.place(card):
                self.log.warning("a card no one called for", card=card)
            await self.advance()

    async def advance(self) -> None:
        """Do whatever the round now calls for: start it, decide, turn, draw or end it."""
        rnd = self.round
        if rnd is None:
            if shoe_ready(self.state):
                self.round = RoundInPlay(list(self.boxes))
                if not await self.command("round_start", {"boxes": list(self.boxes)}):
                    self.round = None
            return
        if rnd.broken:
            await self._end(rnd)
            return
        if not rnd.initial_done or rnd.waiting is not None:
            return
        hands = [rnd.hands[b] for b in rnd.boxes]
        while rnd.turn < len(rnd.boxes):
            box = rnd.boxes[rnd.turn]
            cards = rnd.hands[box]
            if player_hits(cards):
                rnd.waiting = "box"
                if not await self.command("decision", {"box": box, "hand": 0, "action": "hit"}):
                    rnd.broken = True
                return
            if not count_hand(cards).bust and not await self.command(
                "decision", {"box": box, "hand": 0, "action": "stand"}
            ):
                rnd.broken = True
                return
            rnd.turn += 1
        if not rnd.dealer_turn:
            rnd.dealer_turn = True
            if not await self.command("dealer_turn"):
                rnd.broken = True
                return
        if dealer_draws(rnd.dealer, hands):
            rnd.waiting = "dealer"
            return
        await self._end(rnd)

    async def _end(self, rnd: RoundInPlay) -> None:
        if not rnd.dealer_turn and await self.command("dealer_turn"):
            rnd.dealer_turn = True
        args: dict[str, Any] = {}
        if rnd.cutting_card:
            # § 549.6(b)(2), (3): on a box, that player; on the dealer's hand, the farthest
            # right player is offered the next cut.
            at = rnd.cutting_card_at or "dealer"
            args["cutting_card_at"] = at
            self.next_cutter = at if isinstance(at, int) else max(self.boxes)
        if rnd.dealer_turn and await self.command("round_end", args):
            self.round = None


class Seat(Protocol):
    """What the dealer asks of one table's seat, whatever its game (`deal`)."""

    async def on_state(self, state: dict[str, Any]) -> None: ...

    async def on_event(self, event: dict[str, Any]) -> None: ...

    def quiet_s(self) -> float | None: ...

    async def on_quiet(self) -> None: ...


class VirtualDealer(SignedOperator):
    """The dealers of the demo's card tables, its Big Six wheel and its manual roulette
    wheel (a seat per table, by its game), fed the tables' MQTT messages."""

    def __init__(
        self,
        *,
        url: str,
        operator: str,
        key: bytes,
        topics: dict[str, Topics],
        boxes: dict[str, tuple[int, ...]],
        games: dict[str, str] | None = None,
        pace: float = 1.0,
        hands: dict[str, Callable[[], str]] | None = None,
    ) -> None:
        super().__init__(url=url, operator=operator, key=key, topics=topics)
        games = games or {}
        # The wheels the dealer spins by hand (Big Six), by table.
        self.hands = hands or {}
        self.seats: dict[str, Seat] = {
            t: self._seat(t, games.get(t, "blackjack"), boxes[t], pace) for t in topics
        }
        self._inbox: dict[str, asyncio.Queue[tuple[str, dict[str, Any]]]] = {
            t: asyncio.Queue() for t in topics
        }

    def _seat(self, table: str, game: str, boxes: tuple[int, ...], pace: float) -> Seat:
        if game == "baccarat":
            return BaccaratSeat(table, self._send, settle_s=SETTLE_S * pace)
        if game == "mississippi_stud":
            return StudSeat(table, boxes, self._send)
        if game == "big_six":
            return BigSixSeat(table, self._send, self.hands.get(table), BIG_SIX_GAP_S)
        if game == "roulette":
            return WheelDealerSeat(table, self._send)
        return DealerSeat(table, boxes, self._send)

    def on_message(self, topic: str, payload: bytes) -> None:
        """Take a message of `P/events` or `P/state`; others and other tables are ignored."""
        for table, topics in self.topics.items():
            if topic in (topics.events, topics.state):
                seat = self.seats[table]
                if isinstance(seat, WheelDealerSeat) and seat.signed_in:
                    return  # a time-lapse wheel's many messages need no reading any more
                try:
                    body = json.loads(payload)
                except ValueError:
                    return
                if isinstance(body, dict):
                    kind = "state" if topic == topics.state else "event"
                    self._inbox[table].put_nowait((kind, body))
                return

    async def deal(self, table: str) -> None:
        """Run one table's dealer until cancelled."""
        seat, inbox = self.seats[table], self._inbox[table]
        while True:
            try:
                async with asyncio.timeout(seat.quiet_s()):
                    kind, body = await inbox.get()
            except TimeoutError:
                await seat.on_quiet()
                continue
            if kind == "state":
                await seat.on_state(body)
            else:
                await seat.on_event(body)
