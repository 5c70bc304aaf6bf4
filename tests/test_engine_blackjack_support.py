"""Helpers for the Blackjack engine tests: a card table in virtual time, and its dealer.

No tests live here. `Table` wraps a `BlackjackEngine` with a virtual `Clock`
(`test_engine_support.Clock`), and offers the steps of a table's life: connect the
devices, inspect, open, change decks, load the shoe and burn, deal a round card by card.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import time
from typing import Any

from engine_commands_support import OperatorCommands
from test_engine_support import Clock

from floord.contract import EventType
from floord.engine import BlackjackEngine
from floord.engine.blackjack.rules import GameRules
from floord.engine.blackjack.spanish21 import read_pay_table
from floord.engine.core.types import CommandOutcome, EngineOutput

TABLE = "BJ1"
READER = "reader-1"
SHOE = "shoe-1"
SHUFFLER = "shuffler-1"
CHECKLIST = {"card_reader_untampered": True, "card_reader_working": True, "cards_inspected": True}


def rules(game: str = "blackjack", **over: Any) -> GameRules:
    base = {
        "decks": 6,
        "shoe": "single",
        "hearts_diamonds_side": "left",
        "shuffler": "none",
        "batch_backs": None,
        "boxes": 7,
        "max_adjacent_boxes": 2,
        "deck_change_warn_minutes": 60,
    }
    given = {**base, **over}
    backs, payouts = given.pop("batch_backs"), given.pop("spanish21_payouts", None)
    table = read_pay_table(game, payouts)
    return GameRules(
        game, batch_backs=None if backs is None else tuple(backs), pay_table=table, **given
    )


@dataclass
class Table(OperatorCommands):
    engine: BlackjackEngine
    clock: Clock = field(default_factory=Clock)
    game: str = "blackjack"
    exposes: bool = False
    drawn: int = 0

    def device(
        self, type: str, data: dict[str, Any] | None = None, device: str = SHOE
    ) -> EngineOutput:
        return self.engine.on_device_event(device, type, data or {}, self.clock.step())

    def reader(self, type: str, data: dict[str, Any] | None = None) -> EngineOutput:
        return self.device(type, data, READER)

    def connect_all(self) -> None:
        self.connect(READER, ["exposes_value"] if self.exposes else [])
        self.connect(SHOE, ["recognition"])

    def inspect(self, **over: bool) -> CommandOutcome:
        checklist = dict(CHECKLIST)
        if self.game == "spanish21":
            checklist["tens_removed"] = True
        checklist.update(over)
        return self.command("inspect", {"checklist": checklist, "note": "morning"})

    def ready(self, *, self_test: bool = True, load: bool = True) -> None:
        """Devices up, inspected, opened, decks recorded (a receipt: inspected by the
        dealer and verified, § 549.5(a)), reader tested, shoe loaded and burned."""
        self.connect_all()
        assert self.inspect().ok
        assert self.command("open").ok
        self.new_decks()
        if self_test:
            self.reader(EventType.READER_SELF_TEST, {"passed": True, "code": 0, "text": "ok"})
        if load:
            self.load()

    def new_decks(self) -> EngineOutput:
        """The floorperson's `change_decks` (§ 549.3(e)), the dealer's inspection and the
        verification (§ 549.5(a), § 551.4(a), (b))."""
        changed = self.command("change_decks")
        assert changed.ok, changed.error
        out = EngineOutput(list(changed.output.events))
        for step in self.inspect_decks():
            out.extend(step.output)
        return out

    def cut(self, side: str | None = None, **args: Any) -> CommandOutcome:
        """The dealer's cut of the next stack (§ 549.6(b)-(d)): no player accepted."""
        body = {"cards": 12, "by": "dealer", **args}
        return self.dealer("cut", {**body, "side": side} if side else body)

    def cut_if_due(self, side: str | None = None) -> None:
        """The dealer's cut, unless the next stack of `side` is already cut."""
        if self.engine.shoe.cuts.pending[side or "shoe"] is None:
            done = self.cut(side)
            assert done.ok, done.error

    def load(self, side: str | None = None, *, cut: bool = True) -> EngineOutput:
        """A stack placed in the shoe (`side` of a double shoe), cut first by the dealer
        unless `cut` is false; on a single shoe the burn card follows."""
        if cut:
            self.cut_if_due(side)
        out = self.device(EventType.SHOE_LOADED, {"side": side, "cards": None})
        if side is None and self.engine.shoe.has_burn:
            out.extend(self.draw("2C"))  # the burn card
        return out

    def draw(self, card: str | None, side: str | None = None) -> EngineOutput:
        self.drawn += 1
        return self.device(
            EventType.SHOE_CARD_DRAWN, {"count": self.drawn, "card": card, "side": side}
        )

    def draws(self, *cards: str | None, side: str | None = None) -> EngineOutput:
        out = EngineOutput()
        for card in cards:
            out.extend(self.draw(card, side))
        return out

    def start(self, *boxes: int) -> CommandOutcome:
        return self.dealer("round_start", {"boxes": list(boxes)})

    def decide(self, box: int, action: str, hand: int = 0) -> CommandOutcome:
        return self.dealer("decision", {"box": box, "hand": hand, "action": action})

    def peek(self, blackjack: bool = False, hole: str | None = None) -> EngineOutput:
        return self.reader(EventType.READER_PEEK, {"blackjack": blackjack, "hole_card": hole})


def make_table(
    game: str = "blackjack",
    *,
    exposes: bool = False,
    recognition: bool = True,
    shuffler_device: str | None = None,
    snapshot: dict[str, Any] | None = None,
    clock: Clock | None = None,
    required: tuple[str, ...] = (READER, SHOE),
    **over: Any,
) -> Table:
    if game == "spanish21":
        over.setdefault("decks", 6)
    card_rules = rules(game, **over)
    engine = BlackjackEngine(
        TABLE,
        rules=card_rules,
        reader_device=READER,
        shoe_device=SHOE,
        shuffler_device=shuffler_device,
        reader_exposes_value=exposes,
        shoe_reports_cards=recognition,
        required_devices=list(required),
        gaming_day_starts=time(6, 0),
        timezone="America/New_York",
        snapshot=snapshot,
    )
    return Table(engine, clock or Clock(), game, exposes)


def types(out: EngineOutput) -> list[str]:
    return [str(d.type) for d in out.events]


def of_type(out: EngineOutput, type: EventType) -> list[Any]:
    return [d for d in out.events if d.type == type]


def violations(out: EngineOutput) -> list[Any]:
    return of_type(out, EventType.PROCEDURE_VIOLATION)
