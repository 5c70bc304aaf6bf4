"""The carnival poker engine (58 Pa. Code chapters 555-565): opening, shuffle and cut.

Caribbean Stud, Four Card Poker, Let It Ride, Pai Gow Poker, Texas Hold 'Em Bonus and
Three Card Poker. Our seeds hold only § 55x.4 and § 55x.5 of these chapters, so floord
checks the opening inspection, the shuffle after every round, a counting shuffler's count,
the cut of cards shuffled by hand, the recut, and rounds opened and closed by the dealer;
it neither reads hands nor pays. The decks and the shuffler are `stud_deck.DeckBook`'s
(with this chapter's citations), the table is `TableState`'s; the stack the dealer
shuffled by hand (or received preshuffled) and its cut are kept here. A table with no
automated shuffler has no device at all. The engine is pure: every input carries its `now`.
"""

from __future__ import annotations

from datetime import datetime, time
from typing import Any

from floord.contract import EventType
from floord.engine.carnival_commands import CarnivalCommands
from floord.engine.carnival_rules import GAMES, carnival_inspection, read_rules
from floord.engine.gaming_day import GamingDay, require_utc
from floord.engine.roulette import SnapshotError
from floord.engine.rounds import RoundBook
from floord.engine.stud_deck import DeckBook
from floord.engine.stud_rules import decision, strict
from floord.engine.table_state import FAIL_CLOSED_POLICY, PrimaryDevice, TableState
from floord.engine.types import Decision, EngineOutput

SNAPSHOT_VERSION = 1
CLOSE_POLICY = "floord policy, not a regulation: a round in play when the table closes is void"
RESTART_POLICY = "floord policy, not a regulation: a round whose end floord did not see is void"
PAI_GOW_COUNT = "floord policy: § 561.5 has no count rule; a deck is 52 cards and one joker"


class CarnivalEngine(CarnivalCommands):
    """One carnival poker table: see the module docstring and `docs/rules.md`."""

    def __init__(
        self,
        table_id: str,
        *,
        game: str,
        rules: dict[str, Any],
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
        self.rules = read_rules(game, rules)
        if shoe_device or shoe_reports_cards:
            raise ValueError("the carnival games' dealing rules are not in our seeds: no shoe")
        if (self.rules.shuffler != "none") != bool(shuffler_device):
            raise ValueError("a shuffler device goes with rules.shuffler counting or non_counting")
        self.table_id, self.game, self.shuffler_device = table_id, game, shuffler_device
        self.shoe_device = None
        self.day = GamingDay(gaming_day_starts, timezone)
        primary = (
            PrimaryDevice(shuffler_device, self._identity_problem, "device_mismatch", None)
            if shuffler_device is not None
            else None  # cards shuffled by hand: no device to wait for
        )
        self.table = TableState(
            table_id,
            inspection=carnival_inspection(self.rules),
            primary=primary,
            required_devices=required_devices,
            gaming_day=self.day,
            on_leave_open=self._leave_open,
        )
        self.decks = DeckBook(self.rules)
        self.rounds = RoundBook(table_id)
        self.stack: dict[str, Any] | None = None  # shuffled by hand or preshuffled, and cut
        self.gaming_day: str | None = None
        if snapshot is not None:
            self._restore(snapshot)

    @property
    def current_round(self) -> str | None:
        return self.rounds.current_id

    def _cite(self, key: str) -> str:
        return self.rules.cite(key)

    # ----- devices ----------------------------------------------------------------

    def on_device_event(
        self, device: str, type: str, data: dict[str, Any], now: datetime
    ) -> EngineOutput:
        now = self._touch(now)
        data = data if isinstance(data, dict) else {}
        handled = self.table.on_device_event(device, type, data, now)
        if handled is not None:
            return handled
        self.table.devices.seen(device, now)
        rnd = self.current_round
        if not str(type).startswith("shuffler."):
            return EngineOutput([strict("unknown_device_event", rnd, device=device, event=type)])
        if device != self.shuffler_device:
            return EngineOutput([strict("event_from_other_device", rnd, device=device, event=type)])
        stack = self.stack
        restarted = type == EventType.SHUFFLER_SHUFFLE_STARTED and stack is not None
        if restarted and (self.rules.decks == 1 or stack["deck"] in (None, data.get("batch"))):
            self.stack = None  # the device shuffles it again: no hand shuffle stands
        return EngineOutput([self._pai_gow(d) for d in self.decks.shuffler_event(type, data, rnd)])

    def _pai_gow(self, made: Decision) -> Decision:
        """§ 561.5 has no count paragraph: Pai Gow Poker's deck removed on a count other
        than 53 is floord's policy, on the deck of § 561.4(b) (52 cards and one joker)."""
        if made.type != EventType.CARDS_DECK_REMOVED or made.rule is not None:
            return made
        data = {**made.data, "policy": PAI_GOW_COUNT, "basis": self._cite("one_joker")}
        return Decision(made.type, data, None, made.round)

    def _identity_problem(self, identity: dict[str, Any]) -> str | None:
        caps = identity.get("capabilities")
        if not isinstance(caps, list):
            return f"the device reports no capabilities list ({caps!r})"
        if "continuous" in caps:
            rule = self._cite("shuffle")
            return f"a continuous shuffler: the deck is shuffled after each round ({rule})"
        return None

    def tick(self, now: datetime) -> EngineOutput:
        self._touch(now)
        return EngineOutput()

    def after_restart(self, now: datetime) -> EngineOutput:
        now = self._touch(now)
        self.table.forget_connections()
        if self.rounds.current is None:
            return EngineOutput()
        return EngineOutput(self._void("daemon_restart", RESTART_POLICY))

    def halt(self, code: str, detail: str, now: datetime) -> EngineOutput:
        now = self._touch(now)
        return self.table.halt(code, device=None, detail=detail, now=now)

    def _leave_open(self, code: str, detail: str) -> EngineOutput:
        if self.rounds.current is None:
            return EngineOutput()
        why = CLOSE_POLICY if code == "table_closed" else FAIL_CLOSED_POLICY
        return EngineOutput(self._void(code, why, detail))

    def _void(self, reason: str, why: str, detail: str = "") -> list[Decision]:
        rnd = self.rounds.finish()
        self.decks.round_done(counted=True)
        body = {"reason": reason, "detail": detail, "wagers": "returned", "policy": why}
        return [
            Decision(EventType.ROUND_VOIDED, body, None, rnd["id"]),
            decision(
                EventType.CARDS_SHUFFLE_REQUIRED,
                self._cite("shuffle"),
                rnd["id"],
                decks=[rnd["deck"]],
                reason=reason,
                detail="the cards are shuffled before the next round",
            ),
        ]

    # ----- state ------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        body = self.table.snapshot()
        return {
            "version": SNAPSHOT_VERSION,
            "table": self.table_id,
            "game": self.game,
            **{
                k: body[k] for k in ("state", "underlying", "halt_reasons", "devices", "inspection")
            },
            "gaming_day": self.gaming_day,
            "round": _copy(self.rounds.current),
            "round_counter": self.rounds.snapshot(),
            "decks": self.decks.snapshot(),
            "stack": _copy(self.stack),
        }

    def public_state(self) -> dict[str, Any]:
        """The snapshot: floord sees no card of these games, so nothing is masked."""
        return self.snapshot()

    def _touch(self, now: datetime) -> datetime:
        now = require_utc(now)
        self.gaming_day = self.day.label(now)
        return now

    def _restore(self, snap: dict[str, Any]) -> None:
        if not isinstance(snap, dict) or snap.get("version") != SNAPSHOT_VERSION:
            raise SnapshotError(f"a version {SNAPSHOT_VERSION} snapshot object expected")
        for key, mine in (("table", self.table_id), ("game", self.game)):
            if snap.get(key) != mine:
                raise SnapshotError(f"the snapshot is for {key} {snap.get(key)!r}, not {mine!r}")
        stack = snap.get("stack")
        if stack is not None and not (
            isinstance(stack, dict) and {"shuffled", "deck", "cut"} <= set(stack)
        ):
            raise SnapshotError(
                "snapshot: stack must be null or an object with shuffled, deck, cut"
            )
        try:
            self.table.restore(snap)
            self.rounds.restore(snap.get("round_counter") or {}, _copy(snap.get("round")))
            self.decks.restore(snap.get("decks") or {})
        except ValueError as exc:
            raise SnapshotError(str(exc)) from exc
        self.stack = _copy(stack)
        self.gaming_day = snap.get("gaming_day")


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value
