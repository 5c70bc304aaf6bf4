"""The Pai Gow engine (58 Pa. Code chapter 535): the shaker's dice and the deal's start.

Our seeds hold only § 535.2 of the chapter, so floord checks what it says that a table
daemon fed by the shaker and the dealer's signed commands can see or be told: the
shaker's three dice are shaken before each hand is dealt and determine the starting
position of the deal (§ 535.2(d)). A readable shake on an open table with no hand in play
opens the round and records the position its total names (`paigow.deal_position`,
counted around the table's configured `count_order`, `rules.py`); the dealer's `deal
{from}` says where the tiles were first dealt, and a deal from another position, or one
with no shake before it, is a violation of § 535.2(d). The dealer's `round_end` closes
the hand. The shaker is the table's primary device: its fault, tamper, lost heartbeats or
silence halt the table (and void the hand in play) until a floorperson's `resume`, which
is refused until the shaker has reconnected and identified (`core/table_state.py`).
The checklist before opening is § 535.2's characteristics (floord's policy: the chapter's
opening section is not in the seeds). No tile is seen, read or paid.
The engine is pure: every input carries its `now`.
"""

from __future__ import annotations

from datetime import datetime, time
from typing import Any

from floord.contract import EventType
from floord.engine.core.base import TableEngineBase, restart_policy
from floord.engine.core.command_checks import accepted, unknown_args
from floord.engine.core.rulings import STRICT_POLICY, policy_decision, ruled, violation
from floord.engine.core.snapshots import SnapshotError, check_header, json_copy
from floord.engine.core.table_commands import TABLE_COMMANDS
from floord.engine.core.table_state import FAIL_CLOSED_POLICY, PrimaryDevice
from floord.engine.core.types import CommandOutcome, Decision, EngineOutput, VerifiedCommand
from floord.engine.pai_gow.rules import (
    COUNT_NOTE,
    GAME,
    PaiGowRules,
    is_position,
    pai_gow_inspection,
    position_name,
)
from floord.engine.pai_gow.shakes import Shake, read_shake

SNAPSHOT_VERSION = 1
SHAKER_EVENTS = frozenset({EventType.DICE_THROW})
COMMANDS = ("deal", "round_end")
RESTART_POLICY = restart_policy("end")
SHAKER_POLICY = (
    "floord policy, not a regulation: § 535.2(d) requires the shaker, not a device that "
    "reports; floord reads the hand's starting position only from a shaker that says "
    "what it reports (its capabilities)"
)
NOT_OPEN_POLICY = "floord policy, not a regulation: no shake counts while the table is not open"
AGAIN_POLICY = (
    "floord policy, not a regulation: § 535.2(d) shakes the dice once before each hand; "
    "the first shake of a hand determines its starting position and a later one is recorded"
)
NO_SHAKE_POLICY = (
    "floord policy, not a regulation: a hand dealt with no shake before it is a round on "
    "the record, so that its violation and its end belong to it"
)
END_POLICY = (
    "floord records the end of the hand the dealer signs: the dealing and settlement "
    "sections of chapter 535 are not in our seeds"
)


class PaiGowEngine(TableEngineBase):
    """One Pai Gow table: see the module docstring and `docs/rules.md`."""

    RESTART_POLICY = RESTART_POLICY
    RESTART_DETAIL = "the end of the hand was not observed by floord"

    def __init__(
        self,
        table_id: str,
        *,
        rules: PaiGowRules,
        shaker_device: str,
        required_devices: list[str],
        gaming_day_starts: time,
        timezone: str,
        snapshot: dict[str, Any] | None = None,
    ) -> None:
        self.rules = rules
        if not shaker_device:
            raise ValueError("Pai Gow is played with a Pai Gow shaker (§ 535.2(d)): a device")
        self.shaker_device = shaker_device
        super().__init__(
            table_id,
            inspection=pai_gow_inspection(self.rules),
            primary=PrimaryDevice(
                shaker_device, self._identity_problem, "shaker_mismatch", None, SHAKER_POLICY
            ),
            required_devices=required_devices,
            gaming_day_starts=gaming_day_starts,
            timezone=timezone,
        )
        # The last hand's starting position and where it was dealt from, for `P/state`.
        self.last_deal: dict[str, Any] | None = None
        if snapshot is not None:
            self._restore(snapshot)

    # ----- the shaker -------------------------------------------------------------

    def _identity_problem(self, identity: dict[str, Any]) -> str | None:
        """Any shaker that says what it reports: the game needs only the faces."""
        caps = identity.get("capabilities")
        if isinstance(caps, list):
            return None
        return f"the shaker reports no capabilities list ({caps!r})"

    def _game_event(
        self, device: str, type: str, data: dict[str, Any], now: datetime
    ) -> EngineOutput:
        owners = [(SHAKER_EVENTS, self.shaker_device)]
        if (misrouted := self._misrouted(device, type, owners)) is not None:
            return misrouted
        throw = data.get("throw")
        if not self.table.is_open:
            policy = NOT_OPEN_POLICY if self.table.state == "closed" else FAIL_CLOSED_POLICY
            return self._violation(
                "shake_while_not_open", policy=policy, state=self.table.state, count=throw
            )
        shake, what, detail = read_shake(data)
        round_id = self.rounds.current_id
        if shake is None:
            return EngineOutput([self._unreadable(what, detail, throw, round_id)])
        current = self.rounds.current
        if current is not None:
            return EngineOutput([self._shaken_in_hand(current, shake, throw)])
        return self._hand_shaken(shake, now)

    def _unreadable(self, what: str, detail: str, throw: Any, round_id: str | None) -> Decision:
        """A shake that determines nothing: not three dice (§ 535.2(d)), or faces the
        shaker could not read (floord's strict policy)."""
        if what == "not_three_dice":
            return violation(
                self.rules, "shaker", what, round_id, count=throw, expected=3, detail=detail
            )
        return policy_decision(
            EventType.PROCEDURE_VIOLATION, STRICT_POLICY, round_id, what=what, detail=detail
        )

    def _shaken_in_hand(self, current: dict[str, Any], shake: Shake, throw: Any) -> Decision:
        """A shake while a hand is in play: before its deal (`shaken_again`, the first
        shake's position stands) or after it (`shaken_during_hand`); recorded either way."""
        faces = "/".join(map(str, shake.faces))
        if current["dealt_from"] is not None:
            what = "shaken_during_hand"
            detail = f"the dice ({faces}) were shaken after round {current['id']} was dealt"
        else:
            what = "shaken_again"
            named = position_name(self.rules.starting_position(shake.total))
            detail = (
                f"the dice were shaken again ({faces}, total {shake.total}, which would name "
                f"{named}); round {current['id']} keeps the position of its first shake, "
                f"{position_name(current['position'])}"
            )
        return policy_decision(
            EventType.PROCEDURE_VIOLATION,
            AGAIN_POLICY,
            current["id"],
            what=what,
            count=throw,
            detail=detail,
        )

    def _hand_shaken(self, shake: Shake, now: datetime) -> EngineOutput:
        """A readable shake before a hand: the round opens with its starting position."""
        assert self.gaming_day is not None
        position = self.rules.starting_position(shake.total)
        fields = {
            "throw": shake.throw,
            "faces": list(shake.faces),
            "total": shake.total,
            "position": position,
            "dealt_from": None,
            "dealt_by": None,
        }
        rnd = self.rounds.start(self.gaming_day, now, fields)
        body = {"n": rnd["n"], "gaming_day": rnd["gaming_day"], "game": GAME, "opened_by": "shake"}
        started = ruled(self.rules, EventType.ROUND_STARTED, "shaker", rnd["id"], **body)
        deal_position = ruled(
            self.rules,
            EventType.PAIGOW_DEAL_POSITION,
            "shaker",
            rnd["id"],
            throw=shake.throw,
            faces=list(shake.faces),
            total=shake.total,
            position=position,
            count_order=list(self.rules.count_order),
            detail=f"{COUNT_NOTE}; the total {shake.total} names {position_name(position)}",
        )
        return EngineOutput([started, deal_position])

    # ----- the dealer -------------------------------------------------------------

    def on_command(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        now = self._touch(now)
        if command.name not in COMMANDS:
            known = ", ".join((*TABLE_COMMANDS, *COMMANDS))
            return self._table_command(
                command,
                now,
                f"unknown table command {command.name!r}: a Pai Gow table knows {known}",
            )
        allowed = ("from",) if command.name == "deal" else ()
        if problem := unknown_args(command, allowed):
            return CommandOutcome(False, problem)
        if not self.table.is_open:
            return CommandOutcome(False, f"the table is not open (it is {self.table.state})")
        return self._own_command(command, now)

    def _cmd_deal(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        """The dealer says where the first tiles were dealt (§ 535.2(d): from the starting
        position the dice determined)."""
        start = command.args.get("from")
        order = self.rules.count_order
        if not is_position(start) or start not in order:
            return CommandOutcome(
                False,
                f"from must be one of the table's positions {list(order)} (betting areas "
                f"numbered 1 to 6, {self.rules.cite('betting_areas')}; the dealer, "
                f"{self.rules.cite('table')}; the Dead Hand, {self.rules.cite('dead_hand')}), "
                f"found {start!r}",
                self.rules.cite("table"),
            )
        current = self.rounds.current
        if current is not None and current["dealt_from"] is not None:
            return CommandOutcome(
                False,
                f"the tiles of round {current['id']} were dealt already, from "
                f"{position_name(current['dealt_from'])}",
            )
        out: list[Decision] = []
        if current is None:
            current = self._unshaken_round(now)
            out.append(
                policy_decision(
                    EventType.ROUND_STARTED,
                    NO_SHAKE_POLICY,
                    current["id"],
                    n=current["n"],
                    gaming_day=current["gaming_day"],
                    game=GAME,
                    opened_by="deal",
                )
            )
        current["dealt_from"], current["dealt_by"] = start, command.by
        position = current["position"]
        dealt = {"from": start, "position": position, "as_determined": start == position}
        dealt |= {"by": command.by, "role": command.role}
        out.append(ruled(self.rules, EventType.PAIGOW_DEALT, "shaker", current["id"], **dealt))
        if position is None:
            detail = "the tiles were dealt with no shake of the three dice before the hand"
            out.append(
                violation(
                    self.rules,
                    "shaker",
                    "dealt_without_shake",
                    current["id"],
                    dealt_from=start,
                    detail=detail,
                )
            )
        elif start != position:
            faces = "/".join(map(str, current["faces"]))
            detail = (
                f"the dice ({faces}, total {current['total']}) named {position_name(position)}; "
                f"the tiles were dealt from {position_name(start)}"
            )
            out.append(
                violation(
                    self.rules,
                    "shaker",
                    "dealt_from_other_position",
                    current["id"],
                    dealt_from=start,
                    expected=position,
                    detail=detail,
                )
            )
        return accepted(out)

    def _unshaken_round(self, now: datetime) -> dict[str, Any]:
        """A round for a hand dealt with no shake before it: no faces, no position."""
        assert self.gaming_day is not None
        fields = dict.fromkeys(("throw", "faces", "total", "position", "dealt_from", "dealt_by"))
        return self.rounds.start(self.gaming_day, now, fields)

    def _cmd_round_end(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        current = self.rounds.current
        if current is None:
            return CommandOutcome(False, "no hand is in play")
        if current["dealt_from"] is None:
            return CommandOutcome(
                False, f"the tiles of round {current['id']} have not been dealt (deal from=...)"
            )
        rnd = self.rounds.finish()
        self.last_deal = {
            k: json_copy(rnd[k]) for k in ("id", "faces", "total", "position", "dealt_from")
        }
        detail = f"dealt from {position_name(rnd['dealt_from'])}" + (
            "" if rnd["position"] is None else f"; the dice named {position_name(rnd['position'])}"
        )
        ended = {"outcome": "dealt", "detail": detail, "policy": END_POLICY}
        return accepted([Decision(EventType.ROUND_ENDED, ended, None, rnd["id"])])

    # ----- rounds voided ----------------------------------------------------------

    def _void_under_policy(self, reason: str, detail: str, policy: str) -> EngineOutput:
        rnd = self.rounds.finish()
        body = {"reason": reason, "detail": detail, "wagers": "returned", "policy": policy}
        return EngineOutput([Decision(EventType.ROUND_VOIDED, body, None, rnd["id"])])

    # ----- state ------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        head = {"game": GAME, "shaker_device": self.shaker_device}
        return {
            **self._snapshot_head(SNAPSHOT_VERSION, head),
            "count_order": list(self.rules.count_order),
            "last_deal": json_copy(self.last_deal),
        }

    def _restore(self, snap: dict[str, Any]) -> None:
        check_header(snap, SNAPSHOT_VERSION, {"table": self.table_id, "game": GAME})
        if snap.get("count_order") != list(self.rules.count_order):
            raise SnapshotError("the snapshot is for another count_order than this table's")
        last = snap.get("last_deal")
        if last is not None and not isinstance(last, dict):
            raise SnapshotError("snapshot: last_deal must be an object or null")
        self._restore_table(snap)
        self.last_deal = json_copy(last)
