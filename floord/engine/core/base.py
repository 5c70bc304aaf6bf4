"""What every game engine shares: one table, its gaming day and its rounds, wired once.

Each engine (Roulette, Big Six, Blackjack, Baccarat, Mississippi Stud, carnival poker)
is a `TableEngineBase`: it holds the game-neutral `TableState`, the `GamingDay` and the
label of the day in play (`gaming_day`), and the `RoundBook`; it keeps the gaming day
current on every input (`_touch`), lets the table see a device event first (halts,
connections, identities) and counts the device as seen, answers `tick`, `halt` and
`after_restart`, voids the round in play when the table leaves open, and writes and
checks the snapshot fields every game has. A game adds only what is its own: its device
events (`_game_event`), its commands, how a round is voided (`_void_under_policy`) and
its own snapshot fields. The engine stays pure: every input carries its `now`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Container, Sequence
from datetime import datetime, time
from typing import Any, ClassVar, Protocol

from floord.contract import EventType
from floord.engine.core.gaming_day import GamingDay, require_utc
from floord.engine.core.inspection import InspectionSpec
from floord.engine.core.rounds import RoundBook
from floord.engine.core.rulings import STRICT_POLICY
from floord.engine.core.snapshots import SnapshotError, json_copy
from floord.engine.core.table_commands import TABLE_COMMANDS, table_command
from floord.engine.core.table_state import FAIL_CLOSED_POLICY, PrimaryDevice, TableState
from floord.engine.core.types import CommandOutcome, Decision, EngineOutput, VerifiedCommand

CLOSE_POLICY = "floord policy, not a regulation: a round in play when the table closes is void"
# The card devices' event families: a dealing shoe's, and an automated shuffler's.
SHOE_EVENTS = frozenset(
    {
        EventType.SHOE_LOADED,
        EventType.SHOE_CARD_DRAWN,
        EventType.SHOE_CARD_FACE_UP,
        EventType.SHOE_CUTTING_CARD,
        EventType.SHOE_EMPTY,
    }
)
SHUFFLER_EVENTS = frozenset(t for t in EventType if t.value.startswith("shuffler."))
# Which device may send which events: (the events, the device that owns them).
Owners = Sequence[tuple[Container[str], str | None]]


def restart_policy(unseen: str) -> str:
    """The restart rule: a round in play when the daemon stopped is void, as floord did
    not observe its `unseen` ("result", "end")."""
    return (
        "restart rule (floord policy, not a regulation): a round in play when the daemon "
        f"stopped is void, because floord did not observe its {unseen}"
    )


def round_voided(
    round_id: str, body: dict[str, Any], rule: str | None, policy: str | None = None
) -> Decision:
    """A `round.voided` with `body` under `rule`, or, with no rule, under `policy`
    (floord's fail-closed policy when none is given), added last to the event's data."""
    if rule is not None:
        return Decision(EventType.ROUND_VOIDED, body, rule, round_id)
    data = {**body, "policy": policy or FAIL_CLOSED_POLICY}
    return Decision(EventType.ROUND_VOIDED, data, None, round_id)


class Book(Protocol):
    """A game's own record kept in the snapshot (a shoe, the decks)."""

    def restore(self, body: dict[str, Any]) -> None: ...


class TableEngineBase(ABC):
    """One table of any game; see the module docstring. Subclasses set the class
    attributes `RESTART_POLICY` and `RESTART_DETAIL` (what `after_restart` says when it
    voids a round the daemon did not see finish)."""

    RESTART_POLICY: ClassVar[str]
    RESTART_DETAIL: ClassVar[str]

    def __init__(
        self,
        table_id: str,
        *,
        inspection: InspectionSpec,
        primary: PrimaryDevice | None,
        required_devices: list[str],
        gaming_day_starts: time,
        timezone: str,
        device_rules: dict[str, str] | None = None,
        extra_readiness: Callable[[], list[str]] | None = None,
    ) -> None:
        self.table_id = table_id
        self.day = GamingDay(gaming_day_starts, timezone)
        self.table = TableState(
            table_id,
            inspection=inspection,
            primary=primary,
            required_devices=required_devices,
            gaming_day=self.day,
            on_leave_open=self._leave_open,
            device_rules=device_rules,
            extra_readiness=extra_readiness,
        )
        self.rounds = RoundBook(table_id)
        self.gaming_day: str | None = None

    # ----- public interface -------------------------------------------------------

    @property
    def current_round(self) -> str | None:
        return self.rounds.current_id

    def on_device_event(
        self, device: str, type: str, data: dict[str, Any], now: datetime
    ) -> EngineOutput:
        """The table sees every event first (a device's trouble, connection, identity);
        what it does not take is the game's, from a device now counted as seen."""
        now = self._touch(now)
        data = data if isinstance(data, dict) else {}
        handled = self.table.on_device_event(device, type, data, now)
        if handled is not None:
            return self._table_event(device, type, data, now, handled)
        self.table.devices.seen(device, now)
        return self._game_event(device, type, data, now)

    def tick(self, now: datetime) -> EngineOutput:
        """Keep the gaming day current (the snapshot and the next round id depend on it)."""
        self._touch(now)
        return EngineOutput()

    def quiet_until(self, now: datetime) -> datetime | None:
        """The instant before which `tick` would change nothing and decide nothing, as
        the engine stands at `now`; None: it cannot say, and every tick must be taken.
        The daemon spares a table the ticks before it, which are a share of an idle
        table's CPU. Here, the next gaming day's start. A game that overrides `tick`
        overrides this too, in the same class (tests/test_quiet_ticks.py checks it)."""
        span = self.day.span(now)
        if span is None or span[0] != self.gaming_day:
            return None  # a clock change today, or a new day the next tick takes up
        return span[1]

    def after_restart(self, now: datetime) -> EngineOutput:
        """Void a round the daemon did not see finish; no device counts as seen yet."""
        self._touch(now)
        self.table.forget_connections()
        if self.rounds.current is None:
            return EngineOutput()
        return self._void_under_policy("daemon_restart", self.RESTART_DETAIL, self.RESTART_POLICY)

    def halt(self, code: str, detail: str, now: datetime) -> EngineOutput:
        """Latch a halt decided outside the engine (the journal cannot record, say)."""
        now = self._touch(now)
        return self.table.halt(code, device=None, detail=detail, now=now)

    def public_state(self) -> dict[str, Any]:
        """The retained `P/state` body: the snapshot as `public_of` shows it."""
        return self.public_of(self.snapshot())

    def public_of(self, snapshot: dict[str, Any]) -> dict[str, Any]:
        """What the retained `P/state` shows of a snapshot of this engine: the snapshot
        itself, where the game hides nothing; a game that masks (a hole card) returns a
        masked copy. `snapshot` is never changed: it may be the runner's committed one."""
        return snapshot

    @property
    def halted(self) -> bool:
        """Whether the snapshot's `state` is `halted`, read without building it."""
        return self.table.state == "halted"

    @abstractmethod
    def snapshot(self) -> dict[str, Any]: ...

    def restore(self, snapshot: dict[str, Any]) -> None:
        """Put the engine back to `snapshot`, as a restart restores it: what the
        runner does when the journal refuses a turn (the committed state is the
        committed snapshot). A snapshot taken of this engine restores every field the
        engine decides by (tests/test_restored_engines.py checks each game's)."""
        self._restore(snapshot)

    @abstractmethod
    def _restore(self, snap: dict[str, Any]) -> None:
        """The game's own fields and the table's, from a snapshot (each game's)."""

    # ----- what a game supplies ---------------------------------------------------

    def _table_event(
        self, device: str, type: str, data: dict[str, Any], now: datetime, handled: EngineOutput
    ) -> EngineOutput:
        """What the game adds to an event the table took (nothing, unless overridden)."""
        return handled

    @abstractmethod
    def _game_event(
        self, device: str, type: str, data: dict[str, Any], now: datetime
    ) -> EngineOutput:
        """A device event that is the game's own."""

    @abstractmethod
    def _void_under_policy(self, reason: str, detail: str, policy: str) -> EngineOutput:
        """Void the round in play under floord's `policy` (no regulation cited)."""

    def _void_on_halt(self, code: str, detail: str) -> EngineOutput:
        """Void the round in play when the table halts: fail closed, unless overridden."""
        return self._void_under_policy(code, detail, FAIL_CLOSED_POLICY)

    # ----- helpers ----------------------------------------------------------------

    def _touch(self, now: datetime) -> datetime:
        now = require_utc(now)
        self.gaming_day = self.day.label(now)
        return now

    def _leave_open(self, code: str, detail: str) -> EngineOutput:
        """The table closed or halted: the round in play, if any, is void."""
        if self.rounds.current is None:
            return EngineOutput()
        if code == "table_closed":
            return self._void_under_policy(code, detail, CLOSE_POLICY)
        return self._void_on_halt(code, detail)

    def _violation(
        self, what: str, *, rule: str | None = None, policy: str | None = STRICT_POLICY, **data: Any
    ) -> EngineOutput:
        """A `procedure.violation` in the round in play: under `rule`, else `policy`."""
        body = {"what": what, **data}
        if rule is None:
            body["policy"] = policy
        return EngineOutput(
            [Decision(EventType.PROCEDURE_VIOLATION, body, rule, self.rounds.current_id)]
        )

    def _misrouted(
        self, device: str, type: str, owners: Owners, *, what: str = "event_from_other_device"
    ) -> EngineOutput | None:
        """A violation for an event no device of the game sends, or one sent by a device
        other than its owner; None when `device` owns `type`."""
        for events, owner in owners:
            if type in events:
                if device == owner:
                    return None
                return self._violation(what, device=device, event=str(type))
        return self._violation("unknown_device_event", device=device, event=str(type))

    # ----- commands ---------------------------------------------------------------

    def _table_command(
        self, command: VerifiedCommand, now: datetime, unknown: str
    ) -> CommandOutcome:
        """inspect, open, close and resume are the table's; anything else is `unknown`."""
        outcome = table_command(self.table, command, now)
        return outcome if outcome is not None else CommandOutcome(False, unknown)

    def _card_table_command(
        self,
        command: VerifiedCommand,
        now: datetime,
        commands: tuple[str, ...],
        inspector: str,
        rule: str | None,
    ) -> CommandOutcome | None:
        """What the card games' commands share: only the floorperson inspects (`inspector`
        says why, under `rule`), the table commands are the table's, a name neither the
        table's nor among the game's `commands` is refused. None: the game's own command."""
        if command.name == "inspect" and command.role != "floorperson":
            return CommandOutcome(False, inspector, rule)
        outcome = table_command(self.table, command, now)
        if outcome is not None:
            return outcome
        if command.name not in commands:
            known = ", ".join((*TABLE_COMMANDS, *commands))
            return CommandOutcome(
                False, f"unknown table command {command.name!r}: known are {known}"
            )
        return None

    def _own_command(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        """Run a game's own command: its handler is the method `_cmd_<name>`."""
        handler: Callable[[VerifiedCommand, datetime], CommandOutcome]
        handler = getattr(self, f"_cmd_{command.name}")
        return handler(command, now)

    def _start_refusal(self) -> CommandOutcome | None:
        """Why no round may start: the table not open, or a round still in play."""
        if not self.table.is_open:
            return CommandOutcome(False, f"the table is not open (it is {self.table.state})")
        if self.rounds.current is not None:
            return CommandOutcome(False, f"round {self.rounds.current_id} is still in play")
        return None

    # ----- snapshot ---------------------------------------------------------------

    def _snapshot_head(self, version: int, identity: dict[str, Any]) -> dict[str, Any]:
        """The fields every game's snapshot has, `identity` (game, wheel...) after the
        table id; the game appends its own."""
        body = self.table.snapshot()
        return {
            "version": version,
            "table": self.table_id,
            **identity,
            "state": body["state"],
            "underlying": body["underlying"],
            "halt_reasons": body["halt_reasons"],
            "devices": body["devices"],
            "gaming_day": self.gaming_day,
            "inspection": body["inspection"],
            "inspection_required": body["inspection_required"],
            "round": json_copy(self.rounds.current),
            "round_counter": self.rounds.snapshot(),
        }

    def _restore_table(self, snap: dict[str, Any], **books: Book) -> None:
        """Restore the table, the rounds and the game's `books` (snapshot key -> the book
        it restores: `shoe=self.shoe`) from a snapshot whose header was checked; a bad
        body is a `SnapshotError`."""
        try:
            self.table.restore(snap)
            self.rounds.restore(snap.get("round_counter") or {}, json_copy(snap.get("round")))
            for key, book in books.items():
                book.restore(snap.get(key) or {})
        except ValueError as exc:
            raise SnapshotError(str(exc)) from exc
        self.gaming_day = snap.get("gaming_day")
