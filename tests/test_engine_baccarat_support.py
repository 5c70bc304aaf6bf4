"""Helpers for the Baccarat-family engine tests: a table in virtual time and its dealer.

No tests live here. `Table` wraps a `BaccaratEngine` with a virtual `Clock`
(`test_engine_support.Clock`) and offers the steps of a table's life: connect the shoe,
inspect, open, load and burn, deal a coup card by card, end it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import time
from itertools import cycle
from typing import Any

from engine_commands_support import OperatorCommands
from test_engine_support import Clock

from floord.contract import EventType
from floord.engine import BaccaratEngine
from floord.engine.baccarat.rules import BaccaratRules
from floord.engine.core.types import CommandOutcome, EngineOutput

TABLE = "BAC1"
SHOE = "shoe-1"
RANK_OF_VALUE = {0: "K", 1: "A", **{v: str(v) for v in range(2, 10)}}
_SUITS = cycle("SHDC")


def card(value: int) -> str:
    """A card of Baccarat value `value` (0-9); the suit rotates so cards differ."""
    return RANK_OF_VALUE[value] + next(_SUITS)


def rules(game: str = "baccarat", **over: Any) -> BaccaratRules:
    base = {"decks": 8, "vigorish_percent": 5, "ez_baccarat": False, "dragon_bonus_table": None}
    return BaccaratRules(game, **{**base, **over})


@dataclass
class Table(OperatorCommands):
    engine: BaccaratEngine
    clock: Clock = field(default_factory=Clock)
    drawn: int = 0

    def device(self, type: str, data: dict[str, Any] | None = None) -> EngineOutput:
        return self.engine.on_device_event(SHOE, type, data or {}, self.clock.step())

    def ready(self, *, load: bool = True) -> None:
        """Shoe connected, cards inspected, table opened, shoe loaded and burned."""
        caps = ["recognition"] if self.engine.recognition else []
        self.device(EventType.DEVICE_ONLINE)
        self.device(
            EventType.DEVICE_IDENTIFIED,
            {"maker": "T", "model": "S", "serial": "1", "firmware": "1", "capabilities": caps},
        )
        assert self.command("inspect", {"checklist": {"cards_inspected": True}}).ok
        assert self.command("open").ok
        if load:
            self.load()

    def shuffle_and_cut(self, **cut: Any) -> CommandOutcome:
        """The dealer's shuffle, the floorperson's look at the feathered stack (Mini- and
        Midibaccarat, § 541.5(b), § 543.5(b)) and the cut (no player accepted)."""
        if self.engine.cuts.stack is None:
            assert self.dealer("shuffle").ok
        stack = self.engine.cuts.stack
        assert stack is not None
        if self.engine.rules.feather_rule and stack["shuffled"] == "hand" and not stack["verified"]:
            assert self.command("shuffle_verified", {"even": True}).ok
        return self.dealer("cut", {"cards": 100, "by": "dealer", **cut})

    def cut_if_due(self) -> None:
        """Shuffled and cut, unless the next stack is already (or a coup is in play: the
        cards are shuffled and cut between coups, so that stack goes in uncut)."""
        if self.engine.current_round is not None:
            return
        stack = self.engine.cuts.stack
        if stack is None or stack["cut"] is None:
            done = self.shuffle_and_cut()
            assert done.ok, done.error

    def load(self, burn: tuple[str | None, ...] = ("AS", "KH")) -> EngineOutput:
        """Shuffle and cut, load the stack and burn it (an ace first: two cards)."""
        self.cut_if_due()
        out = self.device(EventType.SHOE_LOADED, {"side": None, "cards": 416})
        out.extend(self.draws(*burn))
        return out

    def draw(self, c: str | None) -> EngineOutput:
        self.drawn += 1
        return self.device(EventType.SHOE_CARD_DRAWN, {"count": self.drawn, "card": c})

    def draws(self, *cards: str | None) -> EngineOutput:
        out = EngineOutput()
        for c in cards:
            out.extend(self.draw(c))
        return out

    def start(self, *, announce: bool = True) -> CommandOutcome:
        """`round_start`, then (`announce`) the dealer's "no more bets" before any card."""
        started = self.dealer("round_start")
        if started.ok and announce:
            called = self.dealer("no_more_bets")
            assert called.ok, called.error
        return started

    def end(self) -> CommandOutcome:
        return self.dealer("round_end")

    def coup(self, *cards: str) -> EngineOutput:
        """A whole coup: round_start, the cards, round_end; every step must be accepted."""
        started = self.start()
        assert started.ok, started.error
        out = EngineOutput(list(started.output.events))
        out.extend(self.draws(*cards))
        ended = self.end()
        assert ended.ok, ended.error
        out.extend(ended.output)
        return out


def make_table(
    game: str = "baccarat",
    *,
    recognition: bool = True,
    snapshot: dict[str, Any] | None = None,
    clock: Clock | None = None,
    **over: Any,
) -> Table:
    engine = BaccaratEngine(
        TABLE,
        rules=rules(game, **over),
        shoe_device=SHOE,
        shoe_reports_cards=recognition,
        required_devices=[SHOE],
        gaming_day_starts=time(6, 0),
        timezone="America/New_York",
        snapshot=snapshot,
    )
    return Table(engine, clock or Clock())


def types(out: EngineOutput) -> list[str]:
    return [str(d.type) for d in out.events]


def of_type(out: EngineOutput, type: EventType) -> list[Any]:
    return [d for d in out.events if d.type == type]


def violations(out: EngineOutput) -> list[Any]:
    return of_type(out, EventType.PROCEDURE_VIOLATION)


def result(out: EngineOutput) -> dict[str, Any]:
    [decision] = of_type(out, EventType.BACCARAT_RESULT)
    return decision.data
