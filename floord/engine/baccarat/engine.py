"""The Minibaccarat, Midibaccarat and Baccarat engine: the shoe and the dealer in, decisions out.

With a card-recognition shoe floord calls every coup as it is dealt: each card goes to
the hand the rules name (§ 54x.9(c), § 54x.10(c)), the point counts, naturals and the
third cards due are published after each card, a third card the drawing rules
(§ 54x.11) forbid is a violation the moment it is drawn, and `round_end` publishes the
result with every wager's outcome (§ 545.8, § 545.12(a), § 545.13, § 541.13(d)). The
burn after each load (§ 541.5(g), § 543.5(g), § 545.5(f)) and the cover card
(§ 54x.10(e)) are `BaccaratShoe`'s. The table (closed/open/halted, inspections,
devices, latched halts) is the game-neutral `TableState`, with the shoe as its primary
device. Chapters and citations: `baccarat_rules`.

The engine is pure: every input carries its `now`, and nothing here reads a clock.
"""

from __future__ import annotations

from datetime import datetime, time
from typing import Any

from floord.contract import EventType, format_ts
from floord.engine.baccarat.commands import BaccaratCommands
from floord.engine.baccarat.coup import Coup
from floord.engine.baccarat.cuts import CutBook
from floord.engine.baccarat.result_check import CheckedCoups, SecondSource
from floord.engine.baccarat.rules import BaccaratRules, RulesError, baccarat_inspection
from floord.engine.baccarat.shoe import BaccaratShoe
from floord.engine.baccarat.vigorish import VigorishBook
from floord.engine.cards.card import CardError, parse_card
from floord.engine.cards.idle_clock import card_table_quiet_until, idle_since
from floord.engine.cards.shoe_identity import shoe_recognition_problem
from floord.engine.core.base import SHOE_EVENTS, TableEngineBase, restart_policy
from floord.engine.core.rulings import STRICT_POLICY, policy_decision, violation
from floord.engine.core.snapshots import check_header
from floord.engine.core.table_state import PROTOCOL_TROUBLE, PrimaryDevice, protocol_trouble_reason
from floord.engine.core.types import Decision, EngineOutput

SNAPSHOT_VERSION = 1
RESTART_POLICY = restart_policy("end")

__all__ = ["BaccaratEngine", "RulesError"]


class BaccaratEngine(CheckedCoups, BaccaratCommands, TableEngineBase):
    """One Baccarat-family table: see the module docstring and `docs/rules.md`."""

    RESTART_POLICY = RESTART_POLICY
    RESTART_DETAIL = "the round's end was not observed by floord"

    def __init__(
        self,
        table_id: str,
        *,
        rules: BaccaratRules,
        shoe_device: str,
        shoe_reports_cards: bool,
        required_devices: list[str],
        gaming_day_starts: time,
        timezone: str,
        snapshot: dict[str, Any] | None = None,
        second_source: SecondSource | None = None,
    ) -> None:
        self.rules = rules
        self._init_check(second_source, shoe_device, snapshot)
        self.game = rules.game
        self.shoe_device = shoe_device
        self.recognition = bool(shoe_reports_cards)
        super().__init__(
            table_id,
            inspection=baccarat_inspection(self.rules),
            primary=PrimaryDevice(shoe_device, self._identity_problem, "shoe_mismatch", None),
            required_devices=required_devices,
            gaming_day_starts=gaming_day_starts,
            timezone=timezone,
        )
        self.shoe = BaccaratShoe(self.rules)
        self.vigorish = VigorishBook(self.rules)
        self.cuts = CutBook(self.rules)  # the shuffle and the cut (§ 54x.5(b)-(f))
        self.active_at: str | None = None  # the last coup or card (§ 541.5(h))
        if snapshot is not None:
            self._restore(snapshot)

    # ----- public interface -------------------------------------------------------

    def quiet_until(self, now: datetime) -> datetime | None:
        """Between rounds, the first of the table's instant and the idle spell's end."""
        return card_table_quiet_until(self, super().quiet_until(now), self.active_at)

    def tick(self, now: datetime) -> EngineOutput:
        """Keep the gaming day current; an idle Minibaccarat table's cards are reshuffled
        (§ 541.5(h), with the Rules Submission's `idle_minutes`)."""
        now = self._touch(now)
        checked = self._check_tick(now)
        if checked.events:
            return checked
        minutes = self.rules.idle_minutes
        self.active_at, since = idle_since(
            self.active_at,
            now,
            minutes,
            in_play=self.rounds.current is not None,
            is_open=self.table.is_open,
        )
        if since is None or not minutes:
            return EngineOutput()
        return EngineOutput(self.shoe.idle(since, minutes))

    def snapshot(self) -> dict[str, Any]:
        head = {"game": self.game, "rules": self.rules.to_dict()}
        return {
            **self._snapshot_head(SNAPSHOT_VERSION, head),
            "shoe": self.shoe.snapshot(),
            "vigorish": self.vigorish.snapshot(),
            "cuts": self.cuts.snapshot(),
            "active_at": self.active_at,
            "result_check": self._check_snapshot(),
        }

    def public_state(self) -> dict[str, Any]:
        """The retained `P/state`: the snapshot. Every card in it was already published
        as a `baccarat.hand` event when it left the shoe, so nothing is masked."""
        return self.snapshot()

    # ----- devices ----------------------------------------------------------------

    def _table_event(
        self, device: str, type: str, data: dict[str, Any], now: datetime, handled: EngineOutput
    ) -> EngineOutput:
        if device == self.shoe_device and type in PROTOCOL_TROUBLE:
            handled.events.extend(self._shoe_data_doubt(data))
        return handled

    def _game_event(
        self, device: str, type: str, data: dict[str, Any], now: datetime
    ) -> EngineOutput:
        if (checked := self._second_source_event(device, type, data, now)) is not None:
            return checked
        owners = [(SHOE_EVENTS, self.shoe_device)]
        if (misrouted := self._misrouted(device, type, owners)) is not None:
            return misrouted
        rnd = self.rounds.current
        round_id = self.rounds.current_id
        if type in (EventType.SHOE_LOADED, EventType.SHOE_CARD_DRAWN):
            self.active_at = format_ts(now)
        if type == EventType.SHOE_LOADED:
            out = EngineOutput()
            if rnd is not None:
                out = self._violation("shoe_loaded_mid_round")
            if (uninspected := self.shoe.uninspected_load(round_id)) is not None:
                out.events.append(uninspected)
                return out
            counts, cut = self.cuts.load(data.get("cards"))
            out.events += cut
            if not counts:
                return out
            out.events += self.shoe.stack_loaded(data.get("cards"))
            self.vigorish.shoe_loaded()
            return out
        if type == EventType.SHOE_CUTTING_CARD:
            return EngineOutput(self.shoe.cutting_card(rnd, data.get("count")))
        if type == EventType.SHOE_EMPTY:
            return EngineOutput(self.shoe.empty(round_id))
        card, bad = self._card(data)
        if bad is not None:
            return bad
        if type == EventType.SHOE_CARD_FACE_UP:
            return self._violation(
                "card_face_up_in_shoe",
                card=card,
                detail="a card found face up in the shoe: floord's sources hold no Baccarat "
                "rule for it, the floorperson decides",
            )
        return self._drawn(card)

    # ----- cards ------------------------------------------------------------------

    def _card(self, data: dict[str, Any]) -> tuple[str | None, EngineOutput | None]:
        raw = data.get("card")
        if raw is None or not self.recognition:
            return None, None
        try:
            return parse_card(raw), None
        except CardError as exc:
            return None, self._violation("unreadable_card", reason=str(exc))

    def _drawn(self, card: str | None) -> EngineOutput:
        if self.shoe.burning:
            return EngineOutput(self.shoe.burn_card(card))
        coup = self._coup()
        if coup is not None:
            return EngineOutput(coup.card(card))
        if not self.shoe.loaded:
            why = "the shoe was not loaded (shoe.loaded) since it was last emptied or changed"
        else:
            why = "no coup is in play (round_start) for this card"
        return EngineOutput(
            [violation(self.rules, "deal_order", "card_outside_round", None, card=card, detail=why)]
        )

    # ----- helpers ----------------------------------------------------------------

    def _coup(self) -> Coup | None:
        rnd = self.rounds.current
        return None if rnd is None else Coup(self.rules, rnd)

    def _identity_problem(self, identity: dict[str, Any]) -> str | None:
        return shoe_recognition_problem(identity, device="shoe", recognition=self.recognition)

    def _shoe_data_doubt(self, data: dict[str, Any]) -> list[Decision]:
        """A shoe frame lost mid-coup: the calling of this coup may be wrong; say so."""
        if self.current_round is None:
            return []
        return [
            policy_decision(
                EventType.TABLE_WARNING,
                STRICT_POLICY,
                self.current_round,
                what="shoe_data_lost",
                reason=protocol_trouble_reason(data),
                detail="a frame from the shoe was lost or unreadable during the coup: the "
                "engine's calling of it may be incomplete; review it from video",
            )
        ]

    def _void(self, reason: str, detail: str, policy: str) -> list[Decision]:
        rnd = self.rounds.finish()
        body = {"reason": reason, "detail": detail, "wagers": "returned", "policy": policy}
        out = [Decision(EventType.ROUND_VOIDED, body, None, rnd["id"])]
        return out + self.shoe.round_finished(rnd)

    def _void_under_policy(self, reason: str, detail: str, policy: str) -> EngineOutput:
        return EngineOutput(self._void(reason, detail, policy))

    # ----- restore ----------------------------------------------------------------

    def _restore(self, snap: dict[str, Any]) -> None:
        check_header(snap, SNAPSHOT_VERSION, {"table": self.table_id, "game": self.game})
        self._restore_table(snap, shoe=self.shoe)
        self.vigorish.restore(snap.get("vigorish"))
        self.cuts.restore(snap.get("cuts"))
        active = snap.get("active_at")
        self.active_at = active if isinstance(active, str) else None
