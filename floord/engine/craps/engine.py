"""The Craps and Mini-Craps engine (58 Pa. Code ch. 537): the dice tracker's throws called.

The table (closed/open/halted, inspections, devices, fail-closed halts) is `TableState`'s;
this module adds what is chapter 537's own. Each throw the tracker reports is a round:
judged by `throws.judge` (void under § 537.9(a) or § 537.10(b), held for a person's call
under § 537.9(b), or called at once under § 537.10(a), unless the table's rules hold every
throw for the stickperson's call, `stickperson_calls`); a called roll moves the come out
point and the on/off marker (§ 537.1, § 537.3(a)(1)), names what it decides
(`wagers.resolve`), counts the shooter's unique points for the Fire Bets and, on a loser
7, passes the dice (§ 537.11(a)(1)) and settles the Fire Bets (§ 537.12(a)(5)); what the
roll decides for them is `fire_decisions.py`'s. The dice at the table and the shooter's
two (§ 537.7) are recorded from `dice.set` and `dice.selected` (`dice.py`); a throw of
dice not in the set is a violation and is held.
The persons' calls (shooter, pass_dice, fire_bet, call_roll, no_roll, face_ruling) are
`calls.py`'s. The engine is pure: every input carries its `now`.
"""

from __future__ import annotations

from datetime import datetime, time
from typing import Any

from floord.contract import EventType, cite, format_ts
from floord.engine.core.base import restart_policy, round_voided
from floord.engine.core.snapshots import SnapshotError, check_header, json_copy
from floord.engine.core.table_state import FAIL_CLOSED_POLICY, PrimaryDevice
from floord.engine.core.types import Decision, EngineOutput
from floord.engine.craps.calls import CrapsCalls
from floord.engine.craps.dice import (
    MIN_SET,
    TRACKER_POLICY,
    craps_inspection,
    selected_record,
    set_record,
    set_shortfall,
    tracker_problem,
)
from floord.engine.craps.fire import FireBook, come_outs
from floord.engine.craps.fire_decisions import point_counted, settlement
from floord.engine.craps.result_check import CheckedRolls, SecondSource
from floord.engine.craps.reversal import restore_reversible, reversible_record
from floord.engine.craps.rules import POINTS, PayTable
from floord.engine.craps.throws import held_record, judge
from floord.engine.craps.wagers import resolve

SNAPSHOT_VERSION = 1
DICE_EVENTS = frozenset({EventType.DICE_SET, EventType.DICE_SELECTED, EventType.DICE_THROW})
NO_SHOOTER_POLICY = "floord policy, not a regulation: a throw with no shooter is no roll"
HELD_AGAIN_POLICY = (
    "floord policy, not a regulation: a throw before the held one was called voids the held one"
)
NOT_OPEN_POLICY = "floord policy, not a regulation: no throw counts while the table is not open"


class CrapsEngine(CheckedRolls, CrapsCalls):
    """One Craps or Mini-Craps table: see the module docstring and `docs/rules.md`."""

    RESTART_POLICY = restart_policy("call")
    RESTART_DETAIL = "the call of the held throw was not observed by floord"

    def __init__(
        self,
        table_id: str,
        *,
        game: str = "craps",
        payout_odds: dict[str, str] | None = None,
        fire_bet: str | None = None,
        fire_bet_odds: dict[int, int] | None = None,
        lay_bets: bool = False,
        stickperson_calls: bool = False,
        dice_device: str,
        required_devices: list[str],
        gaming_day_starts: time,
        timezone: str,
        snapshot: dict[str, Any] | None = None,
        second_source: SecondSource | None = None,
    ) -> None:
        self.game = game
        self._init_check(second_source, dice_device, snapshot)
        self.pays = PayTable(payout_odds, fire_bet, fire_bet_odds)
        self.fire_offered = fire_bet is not None and game == "craps"
        self.lay_bets = lay_bets
        # The Rules Submission's choice: every throw waits for the person who calls it.
        self.stickperson_calls = stickperson_calls
        self.dice_device = dice_device
        super().__init__(
            table_id,
            inspection=craps_inspection(),
            primary=PrimaryDevice(
                dice_device, tracker_problem, "dice_tracker_mismatch", None, TRACKER_POLICY
            ),
            required_devices=required_devices,
            gaming_day_starts=gaming_day_starts,
            timezone=timezone,
            extra_readiness=self._dice_readiness,
        )
        self.dice_set: list[str] = []
        self.selected: list[str] = []
        self.shooter: dict[str, Any] | None = None
        self.shooters = 0
        self.point: int | None = None
        self.fire = FireBook()
        self.last_roll: dict[str, Any] | None = None
        self.reversible: dict[str, Any] | None = None
        if snapshot is not None:
            self._restore(snapshot)

    @property
    def marker(self) -> str:
        """The on/off marker: "on" with a come out point established, else "off"."""
        return "on" if self.point is not None else "off"

    def snapshot(self) -> dict[str, Any]:
        head = {"game": self.game, "dice_device": self.dice_device}
        return {
            **self._snapshot_head(SNAPSHOT_VERSION, head),
            "dice_set": list(self.dice_set),
            "selected": list(self.selected),
            "shooter": json_copy(self.shooter),
            "shooters": self.shooters,
            "point": self.point,
            "marker": self.marker,
            "fire_bets": self.fire.snapshot(),
            "last_roll": json_copy(self.last_roll),
            "reversible": json_copy(self.reversible),
            "result_check": self._check_snapshot(),
        }

    # ----- the device -------------------------------------------------------------

    def _dice_readiness(self) -> list[str]:
        return set_shortfall(self.dice_set)

    def _game_event(
        self, device: str, type: str, data: dict[str, Any], now: datetime
    ) -> EngineOutput:
        if (checked := self._second_source_event(device, type, data, now)) is not None:
            return checked
        misrouted = self._misrouted(
            device, type, [(DICE_EVENTS, self.dice_device)], what="dice_event_from_other_device"
        )
        if misrouted is not None:
            return misrouted
        if type == EventType.DICE_SET:
            return self._dice_set(data)
        if type == EventType.DICE_SELECTED:
            return self._dice_selected(data)
        if not self.table.is_open:
            policy = NOT_OPEN_POLICY if self.table.state == "closed" else FAIL_CLOSED_POLICY
            return self._violation(
                "throw_while_not_open",
                policy=policy,
                state=self.table.state,
                throw=data.get("throw"),
            )
        return self._throw(data, now)

    def _dice_set(self, data: dict[str, Any]) -> EngineOutput:
        """§ 537.7(a): the set at the table; a die replaced or removed is recorded."""
        dice, body = set_record(self.dice_set, data)
        self.dice_set = dice
        out = EngineOutput(
            [Decision(EventType.CRAPS_DICE, body, cite("537.7(a)"), self.rounds.current_id)]
        )
        if self.table.is_open and len(dice) < MIN_SET:
            out.extend(
                self._violation(
                    "fewer_than_five_dice", rule=cite("537.7(a)"), dice=dice, count=len(dice)
                )
            )
        return out

    def _dice_selected(self, data: dict[str, Any]) -> EngineOutput:
        """§ 537.7(c), § 537.11(d): the shooter selects and retains two of the dice offered."""
        dice, body = selected_record(data, self._seat())
        self.selected = dice
        out = EngineOutput(
            [Decision(EventType.CRAPS_DICE, body, cite("537.7(c)"), self.rounds.current_id)]
        )
        outside = [d for d in dice if d not in self.dice_set]
        if outside:
            out.extend(
                self._violation(
                    "selected_dice_not_in_set",
                    rule=cite("537.7(c)"),
                    dice=outside,
                    dice_set=list(self.dice_set),
                )
            )
        return out

    # ----- a throw ----------------------------------------------------------------

    def _throw(self, data: dict[str, Any], now: datetime) -> EngineOutput:
        out = EngineOutput()
        self.reversible = None  # the next throw: the last roll stands
        if self.rounds.current is not None:
            out.extend(
                self._void_under_policy(
                    "thrown_again",
                    "a throw came before the held throw was called",
                    HELD_AGAIN_POLICY,
                )
            )
        j = judge(data)
        assert self.gaming_day is not None
        fields = {
            "throw": data.get("throw"),
            "shooter": self._seat(),
            "point": self.point,
            "faces": j.faces,
            "dice": j.ids,
            "held": [],
        }
        rnd = self.rounds.start(self.gaming_day, now, fields)
        started = {
            "n": rnd["n"],
            "gaming_day": rnd["gaming_day"],
            "opened_by": "throw",
            "throw": rnd["throw"],
            "shooter": rnd["shooter"],
        }
        out.events.append(Decision(EventType.ROUND_STARTED, started, cite("537.8"), rnd["id"]))
        if self.shooter is None:
            out.extend(
                self._violation(
                    "throw_without_shooter",
                    rule=cite("537.7(c)"),
                    detail="no player has accepted the dice",
                )
            )
            out.extend(self._void_under_policy("no_shooter", "no shooter", NO_SHOOTER_POLICY))
            return out
        if j.void is not None:
            reason, paragraph = j.void
            self.shooter["invalid_rolls"] += 1
            return self._no_roll_out(out, reason, paragraph, invalid=True)
        held = list(j.held)
        foreign = [i for i in j.ids if i is not None and i not in self.dice_set]
        if foreign:
            out.extend(
                self._violation(
                    "dice_not_in_set",
                    rule=cite("537.7(a)"),
                    dice=foreign,
                    dice_set=list(self.dice_set),
                )
            )
            held.append({"reason": "dice_not_in_set", "rule": cite("537.7(a)")})
        elif (
            self.selected
            and None not in j.ids
            and sorted(i or "" for i in j.ids) != sorted(self.selected)
        ):
            out.extend(
                self._violation(
                    "not_the_shooters_dice",
                    rule=cite("537.7(c)"),
                    dice=j.ids,
                    selected=list(self.selected),
                )
            )
        if not held and self.stickperson_calls:
            held.append({"reason": "awaiting_call", "rule": cite("537.10(a)")})
        if held:
            rnd["held"] = held
            body, rule = held_record(rnd["throw"], j, held)
            out.events.append(Decision(EventType.CRAPS_THROW_HELD, body, rule, rnd["id"]))
            return out
        out.extend(self._checked_roll([int(f or 0) for f in j.faces], now))
        return out

    def _seat(self) -> int | None:
        return self.shooter["seat"] if self.shooter else None

    def _no_roll_out(
        self, out: EngineOutput, reason: str, paragraph: str, *, invalid: bool, **more: Any
    ) -> EngineOutput:
        """`craps.no_roll` then `round.voided` under `paragraph`: the dice are thrown again."""
        rnd = self.rounds.finish()
        body = {
            "reason": reason,
            "invalid": invalid,
            "rethrow": True,
            "throw": rnd["throw"],
            "faces": rnd["faces"],
            "shooter": rnd["shooter"],
            "point": self.point,
            **more,
        }
        out.events.append(Decision(EventType.CRAPS_NO_ROLL, body, cite(paragraph), rnd["id"]))
        out.events.append(
            round_voided(
                rnd["id"],
                {"reason": reason, "detail": "the throw does not count: the dice are thrown again"},
                cite(paragraph),
            )
        )
        return out

    def _void_under_policy(self, reason: str, detail: str, policy: str) -> EngineOutput:
        rnd = self.rounds.finish()
        return EngineOutput(
            [round_voided(rnd["id"], {"reason": reason, "detail": detail}, None, policy)]
        )

    # ----- the call of a roll -----------------------------------------------------

    def _call(
        self, faces: list[Any], now: datetime, called_by: str | None, **more: Any
    ) -> EngineOutput:
        """§ 537.10(a): the sum of the skyward faces, and all it decides (§ 537.10(d))."""
        assert self.shooter is not None
        undo = self._undo_state() if called_by is None else None
        d1, d2 = int(faces[0]), int(faces[1])
        total, before = d1 + d2, self.point
        outcomes = resolve(d1, d2, before, self.pays, self.lay_bets)
        decision = self._advance(total)
        rnd = self.rounds.finish()
        self.shooter["rolls"] += 1
        if before is None:
            self.shooter["come_outs"] = come_outs(self.shooter) + 1
        body = {
            "throw": rnd["throw"],
            "faces": [d1, d2],
            "dice": rnd["dice"],
            "total": total,
            "come_out": before is None,
            "point_before": before,
            "point": self.point,
            "marker": self.marker,
            "decision": decision,
            "shooter": self.shooter["seat"],
            "called_by": called_by,
            "outcomes": outcomes,
            **more,
        }
        self.last_roll = {
            "round": rnd["id"],
            "faces": [d1, d2],
            "total": total,
            "decision": decision,
            "at": format_ts(now),
        }
        self.reversible = (
            None
            if undo is None
            else reversible_record(rnd, [d1, d2], total, decision, before, undo)
        )
        out = EngineOutput([Decision(EventType.CRAPS_ROLL, body, cite("537.10(a)"), rnd["id"])])
        if decision == "point_made":
            out.extend(self._point_made(before, rnd["id"]))
        ended = {"outcome": decision, "total": total}
        out.events.append(Decision(EventType.ROUND_ENDED, ended, None, rnd["id"]))
        if decision == "loser_7":
            out.extend(self._loser_seven(rnd["id"]))
        return out

    def _advance(self, total: int) -> str:
        """Move the come out point (§ 537.1, § 537.3(a)(1)); the decision's name."""
        if self.point is None:
            if total in POINTS:
                self.point = total
                return "point_established"
            return "natural" if total in (7, 11) else "craps"
        if total == self.point:
            self.point = None
            return "point_made"
        if total == 7:
            self.point = None
            return "loser_7"
        return "no_decision"

    def _point_made(self, point: int | None, round_id: str) -> EngineOutput:
        """§ 537.12(a)(4), (b)(2), (b)(3): each different point counts once per shooter."""
        assert self.shooter is not None and point is not None
        out = EngineOutput()
        first_time = point not in self.shooter["points"]
        if first_time:
            self.shooter["points"].append(point)
        if self.fire_offered:
            out.events += point_counted(self.fire, self.shooter, point, first_time, round_id)
        return out

    def _loser_seven(self, round_id: str) -> EngineOutput:
        """§ 537.12(a)(5): Fire Bets settled; § 537.11(a)(1): the shooter passes the dice."""
        assert self.shooter is not None
        out = EngineOutput()
        if self.fire_offered:
            out.events += settlement(self.fire, self.pays, self.shooter["n"], round_id)
        out.events.append(self._pass_dice("loser_7", cite("537.11(a)(1)"), None, round_id))
        return out

    def _pass_dice(
        self, reason: str, rule: str, by: str | None, round_id: str | None, **more: Any
    ) -> Decision:
        """The shooter gives up the dice; pending Fire Bets wait for a loser 7."""
        assert self.shooter is not None
        done, self.shooter = self.shooter, None
        self.selected = []
        body = {
            "action": "passed",
            "reason": reason,
            "seat": done["seat"],
            "n": done["n"],
            "rolls": done["rolls"],
            "points": done["points"],
            "by": by,
            "fire_bets_pending": len(self.fire.bets),
            "next": "offer the dice to the player immediately to the left of the "
            "previous shooter (§ 537.11(c))",
            **more,
        }
        return Decision(EventType.CRAPS_SHOOTER, body, rule, round_id)

    # ----- restore ----------------------------------------------------------------

    def _restore(self, snap: dict[str, Any]) -> None:
        check_header(snap, SNAPSHOT_VERSION, {"table": self.table_id, "game": self.game})
        self._restore_table(snap, fire_bets=self.fire)
        shooter, shooters, point = snap.get("shooter"), snap.get("shooters"), snap.get("point")
        if shooter is not None and not (isinstance(shooter, dict) and "seat" in shooter):
            raise SnapshotError("snapshot: shooter must be an object with a seat, or null")
        if not isinstance(shooters, int) or isinstance(shooters, bool) or shooters < 0:
            raise SnapshotError(f"snapshot: shooters must be a whole number, found {shooters!r}")
        if point is not None and point not in POINTS:
            raise SnapshotError(
                f"snapshot: point must be 4, 5, 6, 8, 9, 10 or null, found {point!r}"
            )
        self.dice_set = [d for d in snap.get("dice_set") or [] if isinstance(d, str)]
        self.selected = [d for d in snap.get("selected") or [] if isinstance(d, str)]
        self.shooter, self.shooters, self.point = json_copy(shooter), shooters, point
        self.last_roll = json_copy(snap.get("last_roll"))
        self.reversible = restore_reversible(snap.get("reversible"))

    def after_restart(self, now: datetime) -> EngineOutput:
        """The restart rule, and the reversal's window closed: floord did not see what
        happened at the table while it was stopped."""
        self.reversible = None
        return super().after_restart(now)

    def _leave_open(self, code: str, detail: str) -> EngineOutput:
        """A table closed or halted: the last roll stands, the round in play is void."""
        self.reversible = None
        return super()._leave_open(code, detail)
