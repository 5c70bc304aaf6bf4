"""Helpers for the Mississippi Stud engine tests: a table in virtual time and its dealer.

No tests live here. `Table` wraps a `StudEngine` with a virtual `Clock`
(`test_engine_support.Clock`) and offers the steps of a table's life: connect the
devices, inspect, open, change decks, shuffle, load the shoe and deal a round.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import time
from typing import Any

from engine_commands_support import OperatorCommands
from test_engine_support import Clock

from floord.contract import EventType
from floord.engine import StudEngine
from floord.engine.core.types import CommandOutcome, EngineOutput
from floord.engine.stud.rules import StudRules

TABLE = "MS1"
SHOE = "shoe-1"
SHUFFLER = "shuffler-1"
CHECKLIST = {"cards_inspected": True, "cards_verified": True}


@dataclass
class Table(OperatorCommands):
    engine: StudEngine
    clock: Clock = field(default_factory=Clock)
    drawn: int = 0
    batch: int = 0

    @property
    def rules(self) -> Any:
        return self.engine.rules

    def device(
        self, type: str, data: dict[str, Any] | None = None, device: str = SHOE
    ) -> EngineOutput:
        return self.engine.on_device_event(device, type, data or {}, self.clock.step())

    def shuffler(self, type: str, data: dict[str, Any] | None = None) -> EngineOutput:
        return self.device(type, data, SHUFFLER)

    def ready(self) -> None:
        """Devices up, inspected, opened, decks recorded, the first deck shuffled and loaded."""
        if self.engine.shoe_device:
            self.connect(SHOE, ["recognition"] if self.engine.recognition else [])
        if self.engine.shuffler_device:
            self.connect(SHUFFLER, [])
        assert self.command("inspect", {"checklist": CHECKLIST, "note": "morning"}).ok
        assert self.command("open").ok
        self.new_decks()
        self.prepare()

    def new_decks(self) -> EngineOutput:
        """The floorperson's `change_decks`, the dealer's inspection and the verification
        (§ 571.3(c), § 571.4(a), (b))."""
        changed = self.command("change_decks")
        assert changed.ok, changed.error
        out = EngineOutput(list(changed.output.events))
        for step in self.inspect_decks(self.rules.decks):
            out.extend(step.output)
        return out

    def prepare(self, deck: str | None = None, cards: int = 52) -> EngineOutput:
        """Shuffle (with a shuffler) and place the deck in the shoe (with a shoe)."""
        out = EngineOutput()
        if self.engine.shuffler_device:
            if deck is None:
                backs = self.rules.deck_names
                deck = backs[self.batch % len(backs)]
                self.batch += 1
            out.extend(self.shuffler(EventType.SHUFFLER_SHUFFLE_STARTED, {"batch": deck}))
            out.extend(
                self.shuffler(EventType.SHUFFLER_SHUFFLE_COMPLETED, {"batch": deck, "cards": cards})
            )
        elif not (self.engine.stack and self.engine.stack["cut"]):
            # Shuffled by hand: the dealer cuts before dealing (§ 571.5(c)(2), (d)).
            cut = self.dealer("cut", {"cards": 20})
            assert cut.ok, cut.error
        if self.engine.shoe_device:
            out.extend(self.device(EventType.SHOE_LOADED, {"side": None, "cards": None}))
        return out

    def draw(self, card: str | None) -> EngineOutput:
        self.drawn += 1
        return self.device(
            EventType.SHOE_CARD_DRAWN, {"count": self.drawn, "card": card, "side": None}
        )

    def draws(self, *cards: str | None) -> EngineOutput:
        out = EngineOutput()
        for card in cards:
            out.extend(self.draw(card))
        return out

    def start(self, *boxes: int, antes: dict[str, int] | None = None) -> CommandOutcome:
        args: dict[str, Any] = {"boxes": list(boxes)}
        if antes is not None:
            args["antes"] = antes
        self.drawn = 0
        return self.dealer("round_start", args)

    def decide(self, box: int, action: str) -> CommandOutcome:
        return self.dealer("decision", {"box": box, "action": action})

    def reveal(self, card: int, face: str | None = None) -> CommandOutcome:
        args: dict[str, Any] = {"card": card}
        if face is not None:
            args["face"] = face
        return self.dealer("reveal", args)

    def street(self, actions: dict[int, str], card: int, face: str | None = None) -> CommandOutcome:
        """Every box's decision, no more bets, and the next community card turned."""
        for box, action in actions.items():
            assert self.decide(box, action).ok
        assert self.dealer("no_more_bets").ok
        return self.reveal(card, face)

    def play_round(
        self,
        hands: dict[int, str],
        community: str,
        actions: dict[int, str] | None = None,
        antes: dict[str, int] | None = None,
    ) -> CommandOutcome:
        """A whole round on a manual shoe with recognition: deal, three streets, end."""
        boxes = sorted(hands)
        assert self.start(*boxes, antes=antes).ok
        assert self.dealer("no_more_bets").ok
        for box in boxes:
            self.draws(*hands[box].split())
        self.draws(*community.split())
        acts = actions or {b: "play1" for b in boxes}
        for card in (1, 2, 3):
            assert self.street(acts, card).ok
        if self.engine.decks.rounds_uncounted + 1 >= 5 and not self.engine.decks.counting_in_use:
            assert self.dealer("stub_count", {"cards": 52 - 2 * len(boxes) - 3}).ok
        return self.dealer("round_end")


def make_table(
    *,
    dealing: str = "manual_shoe",
    shuffler: str = "counting",
    recognition: bool = True,
    snapshot: dict[str, Any] | None = None,
    clock: Clock | None = None,
    **over: Any,
) -> Table:
    backs = over.pop("deck_backs", None)
    given = None if backs is None else tuple(backs)
    base = {"dealing": dealing, "shuffler": shuffler, "boxes": 6, "aggregate_payout_limit": 50000}
    rules = StudRules(**{**base, **over}, deck_backs=given)
    shoe = None if dealing == "hand" else SHOE
    shuffler_device = None if shuffler == "none" else SHUFFLER
    required = [d for d in (shoe, shuffler_device) if d]
    engine = StudEngine(
        TABLE,
        game="mississippi_stud",
        rules=rules,
        shoe_device=shoe,
        shuffler_device=shuffler_device,
        shoe_reports_cards=recognition,
        required_devices=required,
        gaming_day_starts=time(6, 0),
        timezone="America/New_York",
        snapshot=snapshot,
    )
    return Table(engine, clock or Clock())


def types(out: EngineOutput) -> list[str]:
    return [str(d.type) for d in out.events]


def of_type(out: EngineOutput, type: EventType) -> list[Any]:
    return [d for d in out.events if d.type == type]
