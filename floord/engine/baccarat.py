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

from floord.contract import EventType
from floord.engine.baccarat_commands import BaccaratCommands
from floord.engine.baccarat_coup import Coup
from floord.engine.baccarat_rules import (
    BaccaratRules,
    RulesError,
    baccarat_inspection,
    violation,
)
from floord.engine.baccarat_shoe import BaccaratShoe
from floord.engine.blackjack_rules import STRICT_POLICY, policy_decision
from floord.engine.cards import CardError, parse_card
from floord.engine.gaming_day import GamingDay, require_utc
from floord.engine.rounds import RoundBook
from floord.engine.snapshots import SnapshotError, check_header, json_copy
from floord.engine.table_state import FAIL_CLOSED_POLICY, PrimaryDevice, TableState
from floord.engine.types import Decision, EngineOutput

SNAPSHOT_VERSION = 1
RESTART_POLICY = (
    "restart rule (floord policy, not a regulation): a round in play when the daemon "
    "stopped is void, because floord did not observe its end"
)
CLOSE_POLICY = "floord policy, not a regulation: a round in play when the table closes is void"
SHOE_EVENTS = frozenset(
    {
        EventType.SHOE_LOADED,
        EventType.SHOE_CARD_DRAWN,
        EventType.SHOE_CARD_FACE_UP,
        EventType.SHOE_CUTTING_CARD,
        EventType.SHOE_EMPTY,
    }
)

__all__ = ["BaccaratEngine", "RulesError"]


class BaccaratEngine(BaccaratCommands):
    """One Baccarat-family table: see the module docstring and `docs/rules.md`."""

    def __init__(
        self,
        table_id: str,
        *,
        game: str,
        rules: dict[str, Any],
        shoe_device: str,
        shoe_reports_cards: bool,
        required_devices: list[str],
        gaming_day_starts: time,
        timezone: str,
        snapshot: dict[str, Any] | None = None,
    ) -> None:
        self.rules = BaccaratRules.from_config(game, rules)
        self.table_id = table_id
        self.game = game
        self.shoe_device = shoe_device
        self.recognition = bool(shoe_reports_cards)
        self.day = GamingDay(gaming_day_starts, timezone)
        self.table = TableState(
            table_id,
            inspection=baccarat_inspection(self.rules),
            primary=PrimaryDevice(shoe_device, self._identity_problem, "shoe_mismatch", None),
            required_devices=required_devices,
            gaming_day=self.day,
            on_leave_open=self._leave_open,
        )
        self.shoe = BaccaratShoe(self.rules)
        self.rounds = RoundBook(table_id)
        self.gaming_day: str | None = None
        if snapshot is not None:
            self._restore(snapshot)

    # ----- public interface -------------------------------------------------------

    @property
    def current_round(self) -> str | None:
        return self.rounds.current_id

    def on_device_event(
        self, device: str, type: str, data: dict[str, Any], now: datetime
    ) -> EngineOutput:
        now = self._touch(now)
        data = data if isinstance(data, dict) else {}
        handled = self.table.on_device_event(device, type, data, now)
        if handled is not None:
            if device == self.shoe_device and type == EventType.DEVICE_PROTOCOL_ERROR:
                handled.events.extend(self._shoe_data_doubt(data))
            return handled
        self.table.devices.seen(device, now)
        if type not in SHOE_EVENTS:
            return self._strict("unknown_device_event", device=device, event=str(type))
        if device != self.shoe_device:
            return self._strict("event_from_other_device", device=device, event=str(type))
        rnd = self.rounds.current
        round_id = self.rounds.current_id
        if type == EventType.SHOE_LOADED:
            out = EngineOutput()
            if rnd is not None:
                out = self._strict("shoe_loaded_mid_round")
            out.events += self.shoe.stack_loaded()
            return out
        if type == EventType.SHOE_CUTTING_CARD:
            return EngineOutput(self.shoe.cutting_card(rnd))
        if type == EventType.SHOE_EMPTY:
            return EngineOutput(self.shoe.empty(round_id))
        card, bad = self._card(data)
        if bad is not None:
            return bad
        if type == EventType.SHOE_CARD_FACE_UP:
            return self._strict(
                "card_face_up_in_shoe",
                card=card,
                detail="a card found face up in the shoe: floord's sources hold no Baccarat "
                "rule for it, the floorperson decides",
            )
        return self._drawn(card)

    def tick(self, now: datetime) -> EngineOutput:
        """Keep the gaming day current; no Baccarat rule in floord's sources runs on time."""
        self._touch(now)
        return EngineOutput()

    def after_restart(self, now: datetime) -> EngineOutput:
        """Void a round the daemon did not see finish; no device counts as seen yet."""
        self._touch(now)
        self.table.forget_connections()
        if self.rounds.current is None:
            return EngineOutput()
        return EngineOutput(
            self._void(
                "daemon_restart", "the round's end was not observed by floord", RESTART_POLICY
            )
        )

    def halt(self, code: str, detail: str, now: datetime) -> EngineOutput:
        """Latch a halt decided outside the engine (the journal cannot record, say)."""
        now = self._touch(now)
        return self.table.halt(code, device=None, detail=detail, now=now)

    def snapshot(self) -> dict[str, Any]:
        body = self.table.snapshot()
        return {
            "version": SNAPSHOT_VERSION,
            "table": self.table_id,
            "game": self.game,
            "rules": self.rules.to_dict(),
            "state": body["state"],
            "underlying": body["underlying"],
            "halt_reasons": body["halt_reasons"],
            "devices": body["devices"],
            "gaming_day": self.gaming_day,
            "inspection": body["inspection"],
            "round": json_copy(self.rounds.current),
            "round_counter": self.rounds.snapshot(),
            "shoe": self.shoe.snapshot(),
        }

    def public_state(self) -> dict[str, Any]:
        """The retained `P/state`: the snapshot. Every card in it was already published
        as a `baccarat.hand` event when it left the shoe, so nothing is masked."""
        return self.snapshot()

    # ----- cards ------------------------------------------------------------------

    def _card(self, data: dict[str, Any]) -> tuple[str | None, EngineOutput | None]:
        raw = data.get("card")
        if raw is None or not self.recognition:
            return None, None
        try:
            return parse_card(raw), None
        except CardError as exc:
            return None, self._strict("unreadable_card", reason=str(exc))

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

    def _touch(self, now: datetime) -> datetime:
        now = require_utc(now)
        self.gaming_day = self.day.label(now)
        return now

    def _coup(self) -> Coup | None:
        rnd = self.rounds.current
        return None if rnd is None else Coup(self.rules, rnd)

    def _identity_problem(self, identity: dict[str, Any]) -> str | None:
        caps = identity.get("capabilities")
        if not isinstance(caps, list):
            return f"the shoe reports no capabilities list ({caps!r})"
        if ("recognition" in caps) != self.recognition:
            said = "reads" if "recognition" in caps else "does not read"
            return (
                f"the shoe says it {said} cards; the table is configured with "
                f"shoe_reports_cards={self.recognition}"
            )
        return None

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
                reason=str(data.get("reason", "")),
                detail="a frame from the shoe was lost or unreadable during the coup: the "
                "engine's calling of it may be incomplete; review it from video",
            )
        ]

    def _strict(self, what: str, **data: Any) -> EngineOutput:
        return EngineOutput(
            [
                policy_decision(
                    EventType.PROCEDURE_VIOLATION,
                    STRICT_POLICY,
                    self.current_round,
                    what=what,
                    **data,
                )
            ]
        )

    def _void(self, reason: str, detail: str, policy: str) -> list[Decision]:
        rnd = self.rounds.finish()
        body = {"reason": reason, "detail": detail, "wagers": "returned", "policy": policy}
        out = [Decision(EventType.ROUND_VOIDED, body, None, rnd["id"])]
        return out + self.shoe.round_finished(rnd)

    def _leave_open(self, code: str, detail: str) -> EngineOutput:
        if self.rounds.current is None:
            return EngineOutput()
        policy = CLOSE_POLICY if code == "table_closed" else FAIL_CLOSED_POLICY
        return EngineOutput(self._void(code, detail, policy))

    # ----- restore ----------------------------------------------------------------

    def _restore(self, snap: dict[str, Any]) -> None:
        check_header(snap, SNAPSHOT_VERSION, {"table": self.table_id, "game": self.game})
        try:
            self.table.restore(snap)
            self.rounds.restore(snap.get("round_counter") or {}, json_copy(snap.get("round")))
            self.shoe.restore(snap.get("shoe") or {})
        except ValueError as exc:
            raise SnapshotError(str(exc)) from exc
        self.gaming_day = snap.get("gaming_day")
