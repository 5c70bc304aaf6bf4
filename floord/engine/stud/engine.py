"""The Mississippi Stud engine (58 Pa. Code chapter 571): card devices and commands in.

The table (closed/open/halted, inspections, devices, latched halts) is the game-neutral
`TableState`; its primary device is the dealing shoe, or the shuffler when the cards are
dealt from the hand (§ 571.9(a)(1)). The decks and the shuffler are `DeckBook`'s, a
round in play is `StudPlay`'s, the commands are `StudCommands`' and a round's settlement
is `stud_settle`'s. Every rule the engine applies is listed in `docs/rules.md`.

The engine is pure: every input carries its `now`, and nothing here reads a clock.
"""

from __future__ import annotations

from datetime import datetime, time
from typing import Any

from floord.contract import EventType, cite, format_ts
from floord.engine.cards.card import CardError, parse_card
from floord.engine.cards.deck_book import DeckBook
from floord.engine.cards.idle_clock import card_table_quiet_until, watch_idle
from floord.engine.cards.shoe_identity import shoe_recognition_problem
from floord.engine.core.base import (
    SHOE_EVENTS,
    SHUFFLER_EVENTS,
    TableEngineBase,
    restart_policy,
    round_voided,
)
from floord.engine.core.rulings import decision, strict
from floord.engine.core.snapshots import check_header, json_copy
from floord.engine.core.table_state import PrimaryDevice
from floord.engine.core.types import Decision, EngineOutput
from floord.engine.stud.commands import StudCommands
from floord.engine.stud.play import Step, StudPlay
from floord.engine.stud.rules import GAMES, StudRules, stud_inspection
from floord.engine.stud.shoe_cover import ShoeCover

SNAPSHOT_VERSION = 1
RESTART_POLICY = restart_policy("end")


class StudEngine(StudCommands, TableEngineBase):
    """One Mississippi Stud table: see the module docstring and `docs/rules.md`."""

    RESTART_POLICY = RESTART_POLICY
    RESTART_DETAIL = "the round's end was not observed by floord"

    def __init__(
        self,
        table_id: str,
        *,
        game: str,
        rules: StudRules,
        shoe_device: str | None,
        shuffler_device: str | None,
        shoe_reports_cards: bool,
        required_devices: list[str],
        gaming_day_starts: time,
        timezone: str,
        snapshot: dict[str, Any] | None = None,
    ) -> None:
        if game not in GAMES:
            raise ValueError(f"game {', '.join(GAMES)} expected, found {game!r}")
        # The configured rules; `rules` are those in effect (another method of dealing
        # while the automated shoe is covered, § 571.13(g): `stud.shoe_cover`).
        self.table_rules = self.rules = rules
        if self.rules.dealing != "hand" and not shoe_device:
            raise ValueError(f"dealing from a {self.rules.dealing} needs a shoe device")
        if self.rules.dealing == "hand" and shoe_device:
            raise ValueError("cards dealt from the hand use no shoe device")
        if self.rules.shuffler != "none" and not shuffler_device:
            raise ValueError(f"a {self.rules.shuffler} shuffler needs a shuffler device")
        if self.rules.shuffler == "none" and shuffler_device:
            raise ValueError("a shuffler device needs rules.shuffler counting or non_counting")
        if shoe_reports_cards and not shoe_device:
            raise ValueError("card recognition needs a shoe device")
        self.game = game
        self.shoe_device = shoe_device
        self.shuffler_device = shuffler_device
        self.recognition = shoe_reports_cards
        primary = shoe_device or shuffler_device
        assert primary is not None
        super().__init__(
            table_id,
            inspection=stud_inspection(),
            primary=PrimaryDevice(primary, self._identity_problem, "device_mismatch", None),
            required_devices=required_devices,
            gaming_day_starts=gaming_day_starts,
            timezone=timezone,
        )
        self.decks = DeckBook(self.rules)
        self.stack: dict[str, Any] | None = None  # the cut since the last round (§ 571.5(d))
        self.shoe = ShoeCover()
        if snapshot is not None:
            self._restore(snapshot)

    # ----- public interface -------------------------------------------------------

    def _game_event(
        self, device: str, type: str, data: dict[str, Any], now: datetime
    ) -> EngineOutput:
        owners = [(SHOE_EVENTS | {EventType.SHOE_OUT_OF_ORDER}, self.shoe_device)]
        owners.append((SHUFFLER_EVENTS, self.shuffler_device))
        if (misrouted := self._misrouted(device, type, owners)) is not None:
            return misrouted
        if type == EventType.SHOE_OUT_OF_ORDER:
            return EngineOutput(self._shoe_out_of_order(data, now))
        if type in SHOE_EVENTS and self.shoe.covered:
            return EngineOutput([self.covered_shoe_event(type)])
        self.decks.active_at = format_ts(now)  # a card, stack or shuffle: gaming activity
        if type in SHUFFLER_EVENTS:
            return EngineOutput(self.decks.shuffler_event(type, data, self.current_round))
        return EngineOutput(self._shoe_event(EventType(type), data))

    def quiet_until(self, now: datetime) -> datetime | None:
        """Between rounds, the first of the table's instant, the idle spell's end and the
        deck change's warning."""
        return card_table_quiet_until(
            self, super().quiet_until(now), self.decks.active_at, self.decks.warning_at()
        )

    def tick(self, now: datetime) -> EngineOutput:
        """Keep the gaming day current, warn ahead of the deck change (§ 571.3(c)), and
        have the cards in the shoe and the rack reshuffled after no gaming activity for
        the Rules Submission's `idle_minutes` (§ 571.5(f))."""
        now = self._touch(now)
        idle = watch_idle(
            self.decks,
            now,
            self.rules.idle_minutes,
            in_play=self.rounds.current is not None,
            is_open=self.table.is_open,
            every_deck=False,
        )
        return EngineOutput(self.decks.tick(now) + idle)

    def snapshot(self) -> dict[str, Any]:
        return {
            **self._snapshot_head(SNAPSHOT_VERSION, {"game": self.game}),
            "decks": self.decks.snapshot(),
            "cut": json_copy(self.stack),
            "shoe_cover": self.shoe.snapshot(),
        }

    def public_of(self, snapshot: dict[str, Any]) -> dict[str, Any]:
        """The snapshot as the retained `P/state` shows it: cards not yet shown masked
        (in a copy of the round: `snapshot` is the runner's committed one).

        Community cards stay "down" until turned (§ 571.11(b), (d), (f)); a player's two
        cards until the showdown (§ 571.11(g)), and a folded hand for good: the players
        may not learn each other's cards (§ 571.11(a), (j)).
        """
        state = {**snapshot, "round": json_copy(snapshot.get("round"))}
        rnd = state.get("round")
        if isinstance(rnd, dict):
            revealed = rnd.get("revealed", 0)
            rnd["community"] = [
                c if i < revealed or c is None else "down"
                for i, c in enumerate(rnd.get("community") or [])
            ]
            for hand in rnd.get("hands") or []:
                shown = rnd.get("phase") == "showdown" and hand.get("folded_at") is None
                if not shown:
                    hand["cards"] = ["down" if c is not None else None for c in hand["cards"]]
            rnd["face_up"] = ["down" for _ in rnd.get("face_up") or []]
        return state

    # ----- devices ----------------------------------------------------------------

    def _shoe_event(self, type: EventType, data: dict[str, Any]) -> list[Decision]:
        play = self._play()
        if type == EventType.SHOE_LOADED:
            return self.decks.loaded(self.current_round)
        if type == EventType.SHOE_CUTTING_CARD:
            return [
                strict(
                    "cutting_card",
                    self.current_round,
                    detail="chapter 571 deals one deck with a cover card and no cutting card",
                )
            ]
        card: str | None = None
        if type in (EventType.SHOE_CARD_DRAWN, EventType.SHOE_CARD_FACE_UP):
            raw = data.get("card")
            if raw is not None:
                try:
                    card = parse_card(raw)
                except CardError as exc:
                    return [strict("unreadable_card", self.current_round, reason=str(exc))]
            if self.recognition and card is None and type == EventType.SHOE_CARD_DRAWN:
                return [
                    strict("card_without_value", self.current_round, detail="the shoe reads cards")
                ]
        if play is None:
            if type == EventType.SHOE_EMPTY:
                return []
            return [strict("card_without_round", None, event=str(type), card=card)]
        if type == EventType.SHOE_CARD_DRAWN:
            step = play.card_drawn(card)
        elif type == EventType.SHOE_CARD_FACE_UP:
            step = play.face_up(card)
        else:
            step = play.shoe_empty()
        return self._apply(step)

    def _shoe_out_of_order(self, data: dict[str, Any], now: datetime) -> list[Decision]:
        """The shoe says it cannot be used: a warning under § 571.13(g); mid-round, before
        it dealt every stack, the round is void under § 571.13(f) ("stops dealing cards")."""
        out = self.shoe_order_reported(data, now)
        play = self._play()
        if play is not None and self.shoe.out_of_order is not None and not self.shoe.covered:
            out += self._apply(play.shoe_empty())
        return out

    def _apply(self, step: Step) -> list[Decision]:
        out = list(step.decisions)
        if step.void is not None:
            reason, rule, detail = step.void
            out += self._void(reason, rule, detail)
        return out

    def _identity_problem(self, identity: dict[str, Any]) -> str | None:
        recognition = self.recognition if self.shoe_device else None
        return shoe_recognition_problem(identity, device="device", recognition=recognition)

    # ----- helpers ----------------------------------------------------------------

    def _play(self) -> StudPlay | None:
        rnd = self.rounds.current
        return None if rnd is None else StudPlay(self.rules, rnd)

    def _void(
        self,
        reason: str,
        rule: str | None,
        detail: str,
        *,
        remove: bool = False,
        policy: str | None = None,
    ) -> list[Decision]:
        """Void the round in play: every wager returned, the cards reshuffled or removed."""
        rnd = self.rounds.finish()
        body = {"reason": reason, "detail": detail, "wagers": "returned"}
        voided = round_voided(rnd["id"], body, rule, policy)
        out = [voided]
        deck = rnd["deck"]
        self.decks.round_done(counted=rnd.get("stub_counted", False))
        if remove:
            self.decks.remove([deck], rule)
            out.append(
                decision(
                    EventType.CARDS_DECK_REMOVED,
                    rule,
                    rnd["id"],
                    decks=[deck],
                    reason=reason,
                    detail="the entire deck is removed from the table",
                )
            )
        else:
            extra = {} if rule is not None else {"policy": voided.data["policy"]}
            out.append(
                decision(
                    EventType.CARDS_SHUFFLE_REQUIRED,
                    rule,
                    rnd["id"],
                    decks=[deck],
                    reason=reason,
                    detail="the cards are reshuffled with those already dealt",
                    **extra,
                )
            )
        return out

    def _void_under_policy(self, reason: str, detail: str, policy: str) -> EngineOutput:
        return EngineOutput(self._void(reason, None, detail, policy=policy))

    def _void_on_halt(self, code: str, detail: str) -> EngineOutput:
        """The automated shoe failing mid-round voids under § 571.13(f); others fail closed."""
        reason = self.table.halt_reasons[-1] if self.table.halt_reasons else {}
        if self.rules.dealing == "automated_shoe" and reason.get("device") == self.shoe_device:
            detail = f"{detail}: the automated shoe failed during the round"
            return EngineOutput(self._void(code, cite("571.13(f)"), detail))
        return super()._void_on_halt(code, detail)

    # ----- restore ----------------------------------------------------------------

    def _restore(self, snap: dict[str, Any]) -> None:
        check_header(snap, SNAPSHOT_VERSION, {"table": self.table_id, "game": self.game})
        self._restore_table(snap, decks=self.decks, shoe_cover=self.shoe)
        cut = snap.get("cut")
        self.stack = cut if isinstance(cut, dict) and "cut" in cut else None
        self.apply_shoe_cover()
