"""The carnival poker engine (58 Pa. Code chapters 555-565): opening, shuffle and cut.

Caribbean Stud, Four Card Poker, Let It Ride, Pai Gow Poker, Texas Hold 'Em Bonus and
Three Card Poker. Our seeds hold only § 55x.4 and § 55x.5 of these chapters, so floord
checks the opening inspection, the decks received (inspected and verified before they are
shuffled), the shuffle after every round, a counting shuffler's count, the cut of cards
shuffled by hand, the recut, and rounds opened and closed by the dealer; it neither reads
hands nor pays. The decks and the shuffler are `cards.deck_book.DeckBook`'s
(with this chapter's citations), the table is `TableState`'s; the stack the dealer
shuffled by hand (or received preshuffled) and its cut are kept here. A table with no
automated shuffler has no device at all. The engine is pure: every input carries its `now`.
"""

from __future__ import annotations

from datetime import datetime, time
from typing import Any

from floord.contract import EventType, format_ts
from floord.engine.cards.deck_book import DeckBook
from floord.engine.cards.deck_void import DealtDeckRounds
from floord.engine.cards.idle_clock import card_table_quiet_until, watch_idle
from floord.engine.cards.snapshot_head import check_snapshot_head
from floord.engine.carnival.commands import CarnivalCommands
from floord.engine.carnival.rules import CarnivalRules, carnival_inspection
from floord.engine.core.base import TableEngineBase
from floord.engine.core.snapshots import SnapshotError, json_copy
from floord.engine.core.table_state import PrimaryDevice
from floord.engine.core.types import Decision, EngineOutput

SNAPSHOT_VERSION = 1
RESTART_POLICY = "floord policy, not a regulation: a round whose end floord did not see is void"
PAI_GOW_COUNT = "floord policy: § 561.5 has no count rule; a deck is 52 cards and one joker"


class CarnivalEngine(DealtDeckRounds, CarnivalCommands, TableEngineBase):
    """One carnival poker table: see the module docstring and `docs/rules.md`."""

    SHUFFLED_EACH_ROUND = "the deck is shuffled after each round"
    RESHUFFLE_DETAIL = "the cards are shuffled before the next round"

    RESTART_POLICY = RESTART_POLICY
    RESTART_DETAIL = ""

    def __init__(
        self,
        table_id: str,
        *,
        rules: CarnivalRules,
        shoe_device: str | None,
        shuffler_device: str | None,
        shoe_reports_cards: bool,
        required_devices: list[str],
        gaming_day_starts: time,
        timezone: str,
        snapshot: dict[str, Any] | None = None,
    ) -> None:
        self.rules = rules
        if shoe_device or shoe_reports_cards:
            raise ValueError("the carnival games' dealing rules are not in our seeds: no shoe")
        if (self.rules.shuffler != "none") != bool(shuffler_device):
            raise ValueError("a shuffler device goes with rules.shuffler counting or non_counting")
        self.game, self.shuffler_device = rules.game, shuffler_device
        self.shoe_device = None
        primary = (
            PrimaryDevice(shuffler_device, self._identity_problem, "device_mismatch", None)
            if shuffler_device is not None
            else None  # cards shuffled by hand: no device to wait for
        )
        super().__init__(
            table_id,
            inspection=carnival_inspection(self.rules),
            primary=primary,
            required_devices=required_devices,
            gaming_day_starts=gaming_day_starts,
            timezone=timezone,
        )
        self.decks = DeckBook(self.rules)
        self.stack: dict[str, Any] | None = None  # shuffled by hand or preshuffled, and cut
        if snapshot is not None:
            self._restore(snapshot)

    def _cite(self, key: str) -> str:
        return self.rules.cite(key)

    # ----- devices ----------------------------------------------------------------

    def _game_event(
        self, device: str, type: str, data: dict[str, Any], now: datetime
    ) -> EngineOutput:
        # Every "shuffler.*" event goes to the decks, which judge one they do not know.
        if not str(type).startswith("shuffler."):
            return self._violation("unknown_device_event", device=device, event=type)
        if device != self.shuffler_device:
            return self._violation("event_from_other_device", device=device, event=type)
        self.decks.active_at = format_ts(now)  # the shuffler at work: gaming activity
        rnd = self.current_round
        stack = self.stack
        restarted = type == EventType.SHUFFLER_SHUFFLE_STARTED
        if (
            restarted
            and stack is not None
            and (self.rules.decks == 1 or stack["deck"] in (None, data.get("batch")))
        ):
            self.stack = None  # the device shuffles it again: no hand shuffle stands
        return EngineOutput([self._pai_gow(d) for d in self.decks.shuffler_event(type, data, rnd)])

    def quiet_until(self, now: datetime) -> datetime | None:
        """Between rounds, the first of the table's instant and the idle spell's end."""
        return card_table_quiet_until(self, super().quiet_until(now), self.decks.active_at)

    def tick(self, now: datetime) -> EngineOutput:
        """Keep the gaming day current; after no gaming activity for the Rules Submission's
        `idle_minutes` the cards are spread and shuffled again (§ 55x.5(f), § 561.5(g))."""
        now = self._touch(now)
        idle = watch_idle(
            self.decks,
            now,
            self.rules.idle_minutes,
            in_play=self.rounds.current is not None,
            is_open=self.table.is_open,
            every_deck=True,
        )
        if idle:
            self.stack = None  # a hand shuffle (and its cut) is done again
        return EngineOutput(idle)

    def _pai_gow(self, made: Decision) -> Decision:
        """§ 561.5 has no count paragraph: Pai Gow Poker's deck removed on a count other
        than 53 is floord's policy, on the deck of § 561.4(b) (52 cards and one joker)."""
        if made.type != EventType.CARDS_DECK_REMOVED or made.rule is not None:
            return made
        data = {**made.data, "policy": PAI_GOW_COUNT, "basis": self._cite("one_joker")}
        return Decision(made.type, data, None, made.round)

    # ----- state ------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        return {
            **self._snapshot_head(SNAPSHOT_VERSION, {"game": self.game}),
            "decks": self.decks.snapshot(),
            "stack": json_copy(self.stack),
        }

    def public_state(self) -> dict[str, Any]:
        """The snapshot: floord sees no card of these games, so nothing is masked."""
        return self.snapshot()

    def _restore(self, snap: dict[str, Any]) -> None:
        check_snapshot_head(snap, SNAPSHOT_VERSION, self.table_id, self.game)
        stack = snap.get("stack")
        if stack is not None and not (
            isinstance(stack, dict) and {"shuffled", "deck", "cut"} <= set(stack)
        ):
            raise SnapshotError(
                "snapshot: stack must be null or an object with shuffled, deck, cut"
            )
        self._restore_table(snap, decks=self.decks)
        self.stack = json_copy(stack)
