"""The Poker engine (58 Pa. Code chapter 553): the two decks, shuffled and cut each hand.

Our seeds hold only § 553.5 and § 553.6 of the chapter, so floord checks what they say
and a table daemon can see or be told: the two decks received, inspected by the dealer
and verified by a floorperson or higher (§ 553.5(a), (b)) unless preinspected and
preshuffled (f); the opening checklist (a)-(c); the entire deck shuffled before play
(unless preshuffled) and after every round, by hand or by an automated shuffler
(§ 553.6(a)), the other deck placed or left in the shuffler (§ 553.5(e)); the cut of the
deck to be dealt, always, even after the shuffler (§ 553.5(d), (e), § 553.6(b)); a recut
a floorperson requires before any card is dealt (§ 553.6(c)); and the decks spread and
shuffled again when the table has no gaming activity (§ 553.6(d)). It neither reads nor
pays hands. The decks and the shuffler are `DeckBook`'s, with this chapter's citations;
the stack the dealer cuts is kept here. The engine is pure: every input carries its `now`.
"""

from __future__ import annotations

from datetime import datetime, time
from typing import Any

from floord.contract import EventType, format_ts
from floord.engine.cards.deck_book import DeckBook
from floord.engine.cards.deck_void import DealtDeckRounds
from floord.engine.cards.idle_clock import card_table_quiet_until, watch_idle
from floord.engine.cards.snapshot_head import check_snapshot_head
from floord.engine.core.base import SHUFFLER_EVENTS, TableEngineBase
from floord.engine.core.snapshots import SnapshotError, json_copy
from floord.engine.core.table_state import PrimaryDevice
from floord.engine.core.types import EngineOutput
from floord.engine.poker.commands import PokerCommands
from floord.engine.poker.rules import GAME, PokerRules, poker_inspection

SNAPSHOT_VERSION = 1
RESTART_POLICY = "floord policy, not a regulation: a round whose end floord did not see is void"
HOW = ("hand", "device", "preshuffled")


class PokerEngine(DealtDeckRounds, PokerCommands, TableEngineBase):
    """One Poker table: see the module docstring and `docs/rules.md`."""

    SHUFFLED_EACH_ROUND = "the entire deck is shuffled after each round"
    RESHUFFLE_DETAIL = "the entire deck is shuffled before it is dealt again"

    RESTART_POLICY = RESTART_POLICY
    RESTART_DETAIL = ""

    def __init__(
        self,
        table_id: str,
        *,
        rules: PokerRules,
        shuffler_device: str | None,
        required_devices: list[str],
        gaming_day_starts: time,
        timezone: str,
        snapshot: dict[str, Any] | None = None,
    ) -> None:
        self.rules = rules
        if (self.rules.shuffler != "none") != bool(shuffler_device):
            raise ValueError("a shuffler device goes with rules.shuffler automated")
        self.game, self.shuffler_device = GAME, shuffler_device
        primary = (
            PrimaryDevice(shuffler_device, self._identity_problem, "device_mismatch", None)
            if shuffler_device is not None
            else None  # cards shuffled by hand: no device to wait for
        )
        super().__init__(
            table_id,
            inspection=poker_inspection(self.rules),
            primary=primary,
            required_devices=required_devices,
            gaming_day_starts=gaming_day_starts,
            timezone=timezone,
        )
        self.decks = DeckBook(self.rules)
        # How each deck now ready was shuffled: "hand", "device" or "preshuffled".
        self.how: dict[str, str] = {}
        # The deck the dealer cut for the next round: {"deck", "shuffled", "cut"}.
        self.stack: dict[str, Any] | None = None
        if snapshot is not None:
            self._restore(snapshot)

    def _cite(self, key: str) -> str:
        return self.rules.cite(key)

    # ----- devices ----------------------------------------------------------------

    def _game_event(
        self, device: str, type: str, data: dict[str, Any], now: datetime
    ) -> EngineOutput:
        if type not in SHUFFLER_EVENTS:
            return self._violation("unknown_device_event", device=device, event=type)
        if device != self.shuffler_device:
            return self._violation("event_from_other_device", device=device, event=type)
        self.decks.active_at = format_ts(now)  # the shuffler at work: gaming activity
        batch = data.get("batch")
        if type == EventType.SHUFFLER_SHUFFLE_STARTED and batch in self.decks.decks:
            self.how.pop(batch, None)
            if self.stack is not None and self.stack["deck"] == batch:
                self.stack = None  # the device shuffles the cut deck again: cut again
        out = self.decks.shuffler_event(type, data, self.current_round)
        done = (EventType.SHUFFLER_SHUFFLE_COMPLETED, EventType.SHUFFLER_BATCH_READY)
        if type in done and batch in self.decks.decks and self.decks.decks[batch] == "ready":
            self.how[batch] = "device"
        return EngineOutput(out)

    def quiet_until(self, now: datetime) -> datetime | None:
        """Between rounds, the first of the table's instant and the idle spell's end."""
        return card_table_quiet_until(self, super().quiet_until(now), self.decks.active_at)

    def tick(self, now: datetime) -> EngineOutput:
        """Keep the gaming day current; after no gaming activity for the Rules Submission's
        `idle_minutes` both decks are spread, washed, stacked, shuffled and cut again
        before the next round (§ 553.6(d), § 553.5(c))."""
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
            self.stack = None
            self.how = {}
        return EngineOutput(idle)

    # ----- state ------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        return {
            **self._snapshot_head(SNAPSHOT_VERSION, {"game": self.game}),
            "decks": self.decks.snapshot(),
            "how": dict(self.how),
            "stack": json_copy(self.stack),
        }

    def public_state(self) -> dict[str, Any]:
        """The snapshot: floord sees no card of this game, so nothing is masked."""
        return self.snapshot()

    def _restore(self, snap: dict[str, Any]) -> None:
        check_snapshot_head(snap, SNAPSHOT_VERSION, self.table_id, self.game)
        stack, how = snap.get("stack"), snap.get("how") or {}
        if stack is not None and not (
            isinstance(stack, dict) and {"deck", "shuffled", "cut"} <= set(stack)
        ):
            raise SnapshotError(
                "snapshot: stack must be null or an object with deck, shuffled, cut"
            )
        if not isinstance(how, dict) or not all(v in HOW for v in how.values()):
            raise SnapshotError(f"snapshot: how must map decks to one of {', '.join(HOW)}")
        self._restore_table(snap, decks=self.decks)
        self.stack = json_copy(stack)
        self.how = dict(how)
