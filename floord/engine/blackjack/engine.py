"""The Blackjack and Spanish 21 engine: card devices and dealer commands in, decisions out.

The table (closed/open/halted, inspections, devices, latched halts) is the game-neutral
`TableState`; the card reader is its primary device and any trouble of the reader halts
the table under 58 Pa. Code § 549.16(k). The shoe, burn cards, shuffler and deck clock
are `ShoeBook`'s; a round in play is `Play`'s; the dealer's and floorperson's commands
are `BlackjackCommands`'. Chapter 549 is Blackjack; chapter 551 (Spanish 21) is applied
where floord's sources hold it, chapter 549 elsewhere (`blackjack_rules`).

The engine is pure: every input carries its `now`, and nothing here reads a clock.
"""

from __future__ import annotations

from datetime import datetime, time
from typing import Any

from floord.contract import EventType, format_ts, parse_ts
from floord.engine.blackjack.commands import BlackjackCommands
from floord.engine.blackjack.decisions import Round
from floord.engine.blackjack.devices import BlackjackDevices
from floord.engine.blackjack.rules import GameRules, blackjack_inspection
from floord.engine.blackjack.shoe import ShoeBook
from floord.engine.cards.idle_clock import card_table_quiet_until, idle_since
from floord.engine.core.base import (
    CLOSE_POLICY,
    SHOE_EVENTS,
    SHUFFLER_EVENTS,
    TableEngineBase,
    restart_policy,
    round_voided,
)
from floord.engine.core.devices import capability_problem
from floord.engine.core.gaming_day import require_utc
from floord.engine.core.rulings import STRICT_POLICY
from floord.engine.core.snapshots import check_header, json_copy
from floord.engine.core.table_state import (
    FAIL_CLOSED_POLICY,
    PROTOCOL_TROUBLE,
    PrimaryDevice,
    protocol_trouble_reason,
)
from floord.engine.core.types import CommandOutcome, Decision, EngineOutput, VerifiedCommand
from floord.events import DeviceCommand

SNAPSHOT_VERSION = 1
RESTART_POLICY = restart_policy("end")
READER_KIND_POLICY = (
    "floord policy, not a regulation: a card reader of another kind than configured halts "
    "the table, as the engine would judge a wrong peek by the wrong kind (§ 549.16(j)(1) "
    "or (2))"
)
# The dealer's commands that continue a round: refused while it is suspended (§ 549.16(k)).
SUSPENDED_COMMANDS = frozenset({"decision", "dealer_turn", "round_end", "card_to", "hand_option"})
READER_EVENTS = frozenset({EventType.READER_PEEK, EventType.READER_SELF_TEST})


class BlackjackEngine(BlackjackCommands, BlackjackDevices, TableEngineBase):
    """One Blackjack or Spanish 21 table: see the module docstring and `docs/rules.md`."""

    RESTART_POLICY = RESTART_POLICY
    RESTART_DETAIL = "the round's end was not observed by floord"

    def __init__(
        self,
        table_id: str,
        *,
        rules: GameRules,
        reader_device: str,
        shoe_device: str,
        shuffler_device: str | None,
        reader_exposes_value: bool,
        shoe_reports_cards: bool,
        required_devices: list[str],
        gaming_day_starts: time,
        timezone: str,
        snapshot: dict[str, Any] | None = None,
    ) -> None:
        self.rules = rules
        if rules.shuffler != "none" and not shuffler_device:
            raise ValueError(f"a {rules.shuffler} shuffler needs a shuffler device")
        self.game = rules.game
        self.reader = reader_device
        self.shoe_device = shoe_device
        self.shuffler_device = shuffler_device
        self.exposes = reader_exposes_value
        self.recognition = shoe_reports_cards
        super().__init__(
            table_id,
            inspection=blackjack_inspection(self.rules),
            primary=PrimaryDevice(
                reader_device,
                self._identity_problem,
                "reader_mismatch",
                None,  # floord's policy (READER_KIND_POLICY), not § 549.16(j)
            ),
            required_devices=required_devices,
            gaming_day_starts=gaming_day_starts,
            timezone=timezone,
            device_rules={reader_device: self.rules.cite("reader_malfunction")},
            extra_readiness=self._reader_problems,
        )
        self.shoe = ShoeBook(self.rules)
        self.self_test: dict[str, Any] | None = None  # the reader's last self-test
        self.tampered_at: str | None = None  # the reader's last tamper report
        # § 549.6(h): the last gaming activity (a round in play, a stack loaded).
        self.active_at: str | None = None
        if snapshot is not None:
            self._restore(snapshot)

    # ----- public interface -------------------------------------------------------

    def on_device_event(
        self, device: str, type: str, data: dict[str, Any], now: datetime
    ) -> EngineOutput:
        if device == self.reader and type == EventType.DEVICE_TAMPER:
            self.tampered_at = format_ts(require_utc(now))
        if device == self.shoe_device and type in (
            EventType.SHOE_LOADED,
            EventType.SHOE_CARD_DRAWN,
        ):
            self.active_at = format_ts(require_utc(now))
        return super().on_device_event(device, type, data, now)

    def _table_event(
        self, device: str, type: str, data: dict[str, Any], now: datetime, handled: EngineOutput
    ) -> EngineOutput:
        if device == self.reader and type == EventType.DEVICE_IDENTIFIED:
            handled.device_commands.extend(self._self_test_due(now))
        if device == self.shoe_device and type in PROTOCOL_TROUBLE:
            handled.events.extend(self._shoe_data_doubt(data))
        return self._end_suspended(handled)

    def _game_event(
        self, device: str, type: str, data: dict[str, Any], now: datetime
    ) -> EngineOutput:
        owners = [
            (READER_EVENTS, self.reader),
            (SHOE_EVENTS, self.shoe_device),
            (SHUFFLER_EVENTS, self.shuffler_device),
        ]
        if (misrouted := self._misrouted(device, type, owners)) is not None:
            return misrouted
        if type in SHUFFLER_EVENTS:
            return EngineOutput(self.shoe.shuffler_event(type, data, self.current_round))
        handlers = {
            EventType.READER_SELF_TEST: self._self_test,
            EventType.READER_PEEK: self._peek,
            EventType.SHOE_LOADED: self._loaded,
            EventType.SHOE_CARD_DRAWN: self._drawn,
            EventType.SHOE_CARD_FACE_UP: self._face_up,
            EventType.SHOE_CUTTING_CARD: self._cutting_card,
            EventType.SHOE_EMPTY: self._empty,
        }
        return handlers[EventType(type)](data, now)

    def quiet_until(self, now: datetime) -> datetime | None:
        """Between rounds, the first of the table's instant, the idle spell's end and the
        deck change's warning."""
        return card_table_quiet_until(
            self, super().quiet_until(now), self.active_at, self.shoe.warning_at()
        )

    def tick(self, now: datetime) -> EngineOutput:
        """Keep the gaming day current and warn ahead of the 24-hour deck change."""
        now = self._touch(now)
        return EngineOutput(self.shoe.tick(now) + self._idle(now))

    def _idle(self, now: datetime) -> list[Decision]:
        """No gaming activity past the table's `idle_minutes`: the cards come out of the
        shoe and the rack, are spread, inspected and reshuffled before the next round
        (§ 549.6(h), § 551.5(h)); floord requires the shoe loaded again."""
        minutes = self.rules.idle_minutes
        self.active_at, since = idle_since(
            self.active_at,
            now,
            minutes,
            in_play=self.rounds.current is not None,
            is_open=self.table.is_open,
        )
        if since is None or not minutes:
            return []
        return self.shoe.idle(since, int(minutes))

    def snapshot(self) -> dict[str, Any]:
        return {
            **self._snapshot_head(SNAPSHOT_VERSION, {"game": self.game}),
            "shoe": self.shoe.snapshot(),
            "reader_self_test": json_copy(self.self_test),
            "reader_tampered_at": self.tampered_at,
            "active_at": self.active_at,
        }

    def public_of(self, snapshot: dict[str, Any]) -> dict[str, Any]:
        """The snapshot as the retained `P/state` shows it: the dealer's hole card masked
        (in a copy of the round: `snapshot` is the runner's committed one).

        The snapshot keeps the hole card so a restart restores the round exactly; a pit
        display or a console reading `P/state` must not learn it before the dealer turns
        it (58 Pa. Code § 549.7(f), (i)).
        """
        state = {**snapshot, "round": json_copy(snapshot.get("round"))}
        rnd = state.get("round")
        if isinstance(rnd, dict) and rnd.get("phase") != "dealer":
            dealer = rnd.get("dealer")
            if isinstance(dealer, dict) and len(dealer.get("cards") or []) > 1:
                dealer["cards"] = [dealer["cards"][0]] + ["down"] * (len(dealer["cards"]) - 1)
                last = rnd.get("last")
                if isinstance(last, dict) and (last.get("at") or {}).get("dealer"):
                    last["card"] = "down"  # the hole card, as `card_to` remembers it
            peek = rnd.get("peek")
            if isinstance(peek, dict) and peek.get("hole_card") is not None:
                peek["hole_card"] = "down"
        return state

    # ----- helpers ----------------------------------------------------------------

    def _play(self) -> Round | None:
        rnd = self.rounds.current
        if rnd is None:
            return None
        return Round(
            self.rules,
            rnd,
            exposes_value=self.exposes,
            hd_side=self.rules.hearts_diamonds_side,
        )

    def _identity_problem(self, identity: dict[str, Any]) -> str | None:
        def mismatch(exposes: bool) -> str:
            said = "can" if exposes else "cannot"
            return (
                f"the card reader says it {said} show the hole card's value; the table is "
                f"configured with reader_exposes_value={self.exposes}: {READER_KIND_POLICY}"
            )

        return capability_problem(
            identity,
            device="card reader",
            capability="exposes_value",
            configured=self.exposes,
            mismatch=mismatch,
        )

    def _reader_problems(self) -> list[str]:
        """The reader's own conditions for open and resume: a passing self-test, no tamper."""
        problems = []
        inspection = self.table.inspection
        if self.tampered_at and (
            inspection is None or parse_ts(inspection["at"]) <= parse_ts(self.tampered_at)
        ):
            problems.append(
                f"the card reader reported tampering at {self.tampered_at}: the floorperson "
                f"inspects it again ({self.rules.cite('reader_inspection')})"
            )
        test = self.self_test
        if test is not None and not test["passed"]:
            problems.append(
                f"the card reader failed its self-test at {test['at']} ({test['text']}); "
                "it must pass one again"
            )
        return problems

    def _shoe_data_doubt(self, data: dict[str, Any]) -> list[Decision]:
        """A shoe frame lost or garbled mid-round: the calling of this round may be wrong.

        The engine cannot tell which card went missing, so it says so on the record for
        surveillance to review the round from video; the round itself goes on, as the
        dealer and the players saw every card.
        """
        if self.current_round is None:
            return []
        body = {
            "what": "shoe_data_lost",
            "reason": protocol_trouble_reason(data),
            "detail": "a frame from the shoe was lost or unreadable during the round: "
            "the engine's calling of this round may be incomplete; review it from video",
            "policy": STRICT_POLICY,
        }
        return [Decision(EventType.TABLE_WARNING, body, None, self.current_round)]

    def _self_test_due(self, now: datetime) -> list[DeviceCommand]:
        """Ask a (re)connected reader for its self-test unless it passed one today: the
        floorperson's inspection at the start of the gaming day relies on it (§ 549.2(e))."""
        test = self.self_test
        if test is not None and test["passed"] and test["gaming_day"] == self.day.label(now):
            return []
        return [DeviceCommand(device=self.reader, name="self_test")]

    def reader_cleared(self, now: datetime) -> str | None:
        """Why the reader does not yet allow dealing today (§ 549.2(e)); None when it does."""
        day = self.day.label(now)
        if not self.table.inspection_valid(now):
            return f"no passed inspection of the card reader in gaming day {day}"
        inspected = parse_ts(self.table.inspection["at"])  # type: ignore[index]
        if self.tampered_at and parse_ts(self.tampered_at) >= inspected:
            return f"the card reader reported tampering at {self.tampered_at}, after its inspection"
        test = self.self_test
        if test is None or not test["passed"] or test["gaming_day"] != day:
            return f"the card reader has not passed a self-test in gaming day {day}"
        return None

    def _void(
        self, reason: str, rule: str | None, detail: str, policy: str | None = None, **more: Any
    ) -> list[Decision]:
        rnd = self.rounds.finish()
        body: dict[str, Any] = {"reason": reason, "detail": detail, "wagers": "returned", **more}
        out = [round_voided(rnd["id"], body, rule, policy)]
        return out + self.shoe.round_finished(rnd["id"])

    def _void_under_policy(self, reason: str, detail: str, policy: str) -> EngineOutput:
        return EngineOutput(self._void(reason, None, detail, policy))

    def _void_on_halt(self, code: str, detail: str) -> EngineOutput:
        """A halt for the card reader's malfunction suspends the round; others void it.

        § 549.16(k): "the dealer may not continue dealing the game of Blackjack at that
        table until the card reader device is repaired or replaced." It stops the dealing
        and voids nothing (unlike (j)(1)): the round in play waits, and goes on once the
        table is resumed. What (k) does not cover, a close or another device's halt while
        it waits, voids it under floord's policies (`_end_suspended`).
        """
        if self._reader_halt_only():
            body = {
                "what": "round_suspended",
                "detail": f"{detail}: no card is dealt until the card reader is repaired or "
                "replaced and the table resumed; the round then goes on",
            }
            decision = Decision(
                EventType.TABLE_WARNING,
                body,
                self.rules.cite("reader_malfunction"),
                self.current_round,
            )
            return EngineOutput([decision])
        return super()._void_on_halt(code, detail)

    def _reader_halt_only(self) -> bool:
        """Every latched halt reason is the card reader's malfunction (§ 549.16(k))."""
        rule = self.rules.cite("reader_malfunction")
        reasons = self.table.halt_reasons
        return bool(reasons) and all(
            r["device"] == self.reader and r["rule"] == rule for r in reasons
        )

    def _end_suspended(self, out: EngineOutput) -> EngineOutput:
        """A round suspended under § 549.16(k) that can no longer go on is void: the table
        was closed (floord's close policy) or another halt reason came (fail closed)."""
        play = self._play()
        if play is None or self.table.is_open:
            return out
        where = {"phase": play.r["phase"], "peek_done": play.r["peek"] is not None}
        if self.table.underlying == "closed":
            closed = "the table closed"
            out.events += self._void("table_closed", None, closed, CLOSE_POLICY, **where)
        elif not self._reader_halt_only():
            reason = self.table.halt_reasons[-1]
            detail = f"{reason['code']}: {reason['detail']}"
            out.events += self._void("table_halted", None, detail, FAIL_CLOSED_POLICY, **where)
        return out

    def halt(self, code: str, detail: str, now: datetime) -> EngineOutput:
        return self._end_suspended(super().halt(code, detail, now))

    def on_command(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        """The dealer's round commands wait while the reader is out (§ 549.16(k))."""
        if (
            command.name in SUSPENDED_COMMANDS
            and self.rounds.current is not None
            and self._reader_halt_only()
        ):
            return CommandOutcome(
                False,
                "the card reader is out of order: the dealer may not continue dealing until "
                "it is repaired or replaced and the table resumed",
                self.rules.cite("reader_malfunction"),
            )
        outcome = super().on_command(command, now)
        if outcome.ok:
            self._end_suspended(outcome.output)
        return outcome

    # ----- restore ----------------------------------------------------------------

    def _restore(self, snap: dict[str, Any]) -> None:
        check_header(snap, SNAPSHOT_VERSION, {"table": self.table_id, "game": self.game})
        self._restore_table(snap, shoe=self.shoe)
        self.self_test = json_copy(snap.get("reader_self_test"))
        self.tampered_at = snap.get("reader_tampered_at")
        self.active_at = snap.get("active_at")
