"""The War engine (58 Pa. Code chapter 567): opening, shuffle, the players' cut, the shoe.

Our seeds hold only § 567.4 and § 567.5 of the chapter, so floord checks what they say and
a table daemon can see or be told: six or more decks received, each sorted and inspected
separately by the dealer and verified by the floorperson (§ 567.4(a)) unless preinspected
and preshuffled (e); the opening checklist (a)-(d); the shuffle before play, after each
dealing shoe and when a floorperson directs it (§ 567.5(a)); the cut offered to the
player (b) designates, the dealer cutting if none accepts (c), the cover card at least 10
cards in (d); only a cut stack placed in the dealing shoe, its second cover card about a
quarter from the bottom (e); a recut before the shoe (f); the reshuffle once the cover
card is reached (g); and an idle table's cards spread and shuffled again (h). It neither
reads nor pays hands. The shoe, the stack and the decks are `WarShoe`'s. The dealing shoe
is the table's primary device; an automated shuffler, when used, shuffles the batches.
The engine is pure: every input carries its `now`.
"""

from __future__ import annotations

from datetime import datetime, time
from typing import Any

from floord.contract import EventType, format_ts
from floord.engine.cards.idle_clock import card_table_quiet_until, idle_since
from floord.engine.cards.shoe_identity import shoe_recognition_problem
from floord.engine.cards.snapshot_head import check_snapshot_head
from floord.engine.core.base import SHOE_EVENTS, SHUFFLER_EVENTS, TableEngineBase
from floord.engine.core.rulings import decision, policy_decision, strict
from floord.engine.core.table_state import PrimaryDevice
from floord.engine.core.types import Decision, EngineOutput
from floord.engine.war.commands import WarCommands
from floord.engine.war.rules import GAME, WarRules, war_inspection
from floord.engine.war.shoe import WarShoe

SNAPSHOT_VERSION = 1
RESTART_POLICY = "floord policy, not a regulation: a round whose end floord did not see is void"
DEVICE_POLICY = "floord policy, not a regulation: what the shuffler reports of itself is recorded"


class WarEngine(WarCommands, TableEngineBase):
    """One War table: see the module docstring and `docs/rules.md`."""

    RESTART_POLICY = RESTART_POLICY
    RESTART_DETAIL = ""

    def __init__(
        self,
        table_id: str,
        *,
        rules: WarRules,
        shoe_device: str,
        shuffler_device: str | None,
        required_devices: list[str],
        gaming_day_starts: time,
        timezone: str,
        snapshot: dict[str, Any] | None = None,
    ) -> None:
        self.rules = rules
        if not shoe_device:
            raise ValueError("a War table deals from a dealing shoe (§ 567.5(e)): a shoe device")
        if (self.rules.shuffler != "none") != bool(shuffler_device):
            raise ValueError("a shuffler device goes with rules.shuffler automated")
        self.game, self.shoe_device, self.shuffler_device = GAME, shoe_device, shuffler_device
        super().__init__(
            table_id,
            inspection=war_inspection(self.rules),
            primary=PrimaryDevice(shoe_device, self._identity_problem, "shoe_mismatch", None),
            required_devices=required_devices,
            gaming_day_starts=gaming_day_starts,
            timezone=timezone,
        )
        self.shoe = WarShoe(self.rules)
        if snapshot is not None:
            self._restore(snapshot)

    # ----- devices ----------------------------------------------------------------

    def _game_event(
        self, device: str, type: str, data: dict[str, Any], now: datetime
    ) -> EngineOutput:
        owners = [(SHOE_EVENTS, self.shoe_device), (SHUFFLER_EVENTS, self.shuffler_device)]
        if (misrouted := self._misrouted(device, type, owners)) is not None:
            return misrouted
        self.shoe.active_at = format_ts(now)  # a card or a shuffle: gaming activity
        rnd = self.rounds.current
        round_id = self.rounds.current_id
        if type == EventType.SHOE_LOADED:
            return EngineOutput(self.shoe.stack_loaded(data.get("cards"), round_id))
        if type == EventType.SHOE_CUTTING_CARD:
            return EngineOutput(self.shoe.cover_card(rnd, data.get("count")))
        if type == EventType.SHOE_EMPTY:
            return EngineOutput(self.shoe.empty(round_id))
        if type in (EventType.SHOE_CARD_DRAWN, EventType.SHOE_CARD_FACE_UP):
            return EngineOutput()  # the dealing procedure (§ 567.8) is not in our seeds
        return EngineOutput(self._shuffler_event(type, data, round_id))

    def _shuffler_event(
        self, type: str, data: dict[str, Any], round_id: str | None
    ) -> list[Decision]:
        batch = data.get("batch") if isinstance(data.get("batch"), str) else None
        cards = data.get("cards")
        stack = self.shoe.stack
        if (
            type == EventType.SHUFFLER_BATCH_READY
            and stack is not None
            and (stack["shuffled"], stack["batch"]) == ("device", batch)
        ):
            return []  # the batch its `shuffle_completed` already made the stack
        if type in (EventType.SHUFFLER_SHUFFLE_COMPLETED, EventType.SHUFFLER_BATCH_READY):
            counted = isinstance(cards, int) and not isinstance(cards, bool) and cards > 0
            return self.shoe.shuffled("device", batch, cards if counted else None, round_id)
        if type == EventType.SHUFFLER_SHUFFLE_STARTED:
            self.shoe.batch_lost(batch)  # that batch is being shuffled again
            return []
        if type == EventType.SHUFFLER_JAM:
            if not self.shoe.batch_lost(batch):
                return []
            return [
                decision(
                    EventType.CARDS_SHUFFLE_REQUIRED,
                    self.rules.cite("shuffle"),
                    round_id,
                    reason="shuffler_jam",
                    code=data.get("code"),
                    text=data.get("text"),
                    detail="the jammed batch is shuffled again before it is cut",
                )
            ]
        if type == EventType.SHUFFLER_OUT_OF_ORDER:
            self.shoe.shuffler_out = data.get("code") != 0
            what = "shuffler_out_of_order" if self.shoe.shuffler_out else "shuffler_in_order"
            code, text = data.get("code"), data.get("text")
            return [self._device_warning(what, round_id, code=code, text=text)]
        if type == EventType.SHUFFLER_DOOR:
            opened = data.get("open") is True
            return [self._device_warning("shuffler_door_open", round_id)] if opened else []
        if type == EventType.SHUFFLER_MODE and data.get("continuous") is True:
            rule = self.rules.cite("shuffle")
            detail = f"chapter 567 shuffles the cards after each dealing shoe ({rule})"
            return [strict("continuous_shuffler", round_id, detail=detail)]
        return []  # a batch taken out of the shuffler: its cut comes next

    def _identity_problem(self, identity: dict[str, Any]) -> str | None:
        """Any dealing shoe that says what it can do: War reads no card."""
        return shoe_recognition_problem(identity, device="shoe", recognition=None)

    def _device_warning(self, what: str, round_id: str | None, **data: Any) -> Decision:
        return policy_decision(EventType.TABLE_WARNING, DEVICE_POLICY, round_id, what=what, **data)

    def quiet_until(self, now: datetime) -> datetime | None:
        """Between rounds, the first of the table's instant and the idle spell's end."""
        return card_table_quiet_until(self, super().quiet_until(now), self.shoe.active_at)

    def tick(self, now: datetime) -> EngineOutput:
        """Keep the gaming day current; after no gaming activity for the Rules Submission's
        `idle_minutes` the cards come out of the shoe and the rack, are spread for the
        first player, and are shuffled and cut again (§ 567.5(h))."""
        now = self._touch(now)
        shoe = self.shoe
        shoe.active_at, since = idle_since(
            shoe.active_at,
            now,
            self.rules.idle_minutes,
            in_play=self.rounds.current is not None,
            is_open=self.table.is_open,
        )
        if since is None or not self.rules.idle_minutes:
            return EngineOutput()
        shoe.idle_since = since
        # (h)(2): with a shuffler the batch already in it (shuffled, not yet cut) may be
        # dealt without a spread; a stack shuffled by hand or cut is shuffled again.
        keep = shoe.stack is not None and shoe.stack["shuffled"] == "device"
        if not (keep and shoe.stack is not None and shoe.stack["cut"] is None):
            shoe.stack = None
        body = {"since": since, "idle_minutes": self.rules.idle_minutes}
        body["detail"] = (
            "the cards come out of the shoe and the discard rack, are spread for the first "
            "player, and are shuffled and cut before the next round"
        )
        if shoe.stack is not None:
            body["batch_in_shuffler"] = shoe.stack["batch"]
            body["also"] = self.rules.cite("idle_shuffler")
        return EngineOutput(shoe.reshuffle_due("no_gaming_activity", None, **body))

    def _void_under_policy(self, reason: str, detail: str, policy: str) -> EngineOutput:
        rnd = self.rounds.finish()
        body = {"reason": reason, "detail": detail, "wagers": "returned", "policy": policy}
        out: list[Decision] = [Decision(EventType.ROUND_VOIDED, body, None, rnd["id"])]
        if rnd.get("cover_card"):
            # The cover card came out in the void round: the shoe still ends (§ 567.5(g)).
            out += self.shoe.reshuffle_due("cover_card", rnd["id"])
        return EngineOutput(out)

    # ----- state ------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        return {
            **self._snapshot_head(SNAPSHOT_VERSION, {"game": self.game}),
            "shoe": self.shoe.snapshot(),
        }

    def public_state(self) -> dict[str, Any]:
        """The snapshot: floord reads no card of this game, so nothing is masked."""
        return self.snapshot()

    def _restore(self, snap: dict[str, Any]) -> None:
        check_snapshot_head(snap, SNAPSHOT_VERSION, self.table_id, self.game)
        self._restore_table(snap, shoe=self.shoe)
