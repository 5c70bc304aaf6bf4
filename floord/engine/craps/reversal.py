"""A roll floord called at once, voided by a "no roll" (58 Pa. Code § 537.9(b), (d)).

§ 537.9(b) gives the persons of § 537.9(d) (Craps: the boxperson or stickperson;
Mini-Craps: the dealer, stickperson or floorperson) the authority to invalidate a roll by
calling "no roll", for reasons no camera judges: a cheating, crooked or fixed device or
technique ((b)(5)), a throw they consider improper ((b)(6)), and (b)(1), (b)(2) on a
tracker without the `together` and `far_end` fields. floord calls a throw the tracker did
not flag at once (§ 537.10(a)), so their call comes after floord's: it reverses the roll.

floord could instead hold every throw for the stickperson's call; it does not, because a
held throw costs every roll a person's command and live play its pace, while a "no roll"
is rare. The reversal is floord's policy (`REVERSAL_POLICY`): it is open from floord's
call until the next throw or the next call at the table (a new shooter, a pass of the
dice, a Fire Bet accepted), a halt or a restart; a roll a person called (`call_roll`,
`face_ruling`) is that person's call and is not reopened. It undoes everything the roll
decided: the wagers it named, the come out point and marker, the shooter's roll counts
and points, the dice passed on a loser 7, the Fire Bets' points and their settlement,
the four-point notice. The dice tests keep the faces (the dice did land so: a throw
voided as improper or as a cheating technique is what they watch for).
"""

from __future__ import annotations

from typing import Any

from floord.contract import EventType, cite
from floord.engine.core.base import TableEngineBase
from floord.engine.core.snapshots import SnapshotError, json_copy
from floord.engine.core.types import Decision, EngineOutput
from floord.engine.craps.fire import FireBook
from floord.engine.craps.rules import PayTable
from floord.engine.craps.wagers import resolve

REVERSAL_POLICY = (
    "floord policy, not a regulation: a roll floord called at once may be voided by a "
    '"no roll" of a person of § 537.9(d) until the next throw or the next call at the '
    "table; everything the roll decided is undone"
)
CLOSED_POLICY = (
    "floord policy, not a regulation: only the last roll floord called at once may be "
    "voided, and only until the next throw or the next call at the table"
)
KEYS = ("round", "throw", "faces", "dice", "total", "decision", "point_before", "undo")


class ReversibleRolls(TableEngineBase):
    """The reversal half of the Craps engine: what the last roll floord called changed,
    kept until the window closes (`reversible`, in the snapshot)."""

    point: int | None
    shooter: dict[str, Any] | None
    selected: list[str]
    fire: FireBook
    last_roll: dict[str, Any] | None
    pays: PayTable
    lay_bets: bool
    reversible: dict[str, Any] | None

    def _undo_state(self) -> dict[str, Any]:
        """What a roll may change, as it was before the roll."""
        return {
            "point": self.point,
            "shooter": json_copy(self.shooter),
            "selected": list(self.selected),
            "fire": self.fire.snapshot(),
            "last_roll": json_copy(self.last_roll),
        }

    def _reverse(
        self, reason: str, paragraph: str, by: str, role: str, detail: Any
    ) -> EngineOutput:
        """Void the last roll floord called: restore the state before it and record all
        it undoes (`craps.no_roll` with `reverses`, `round.voided`, the shooter back)."""
        rev, self.reversible = self.reversible, None
        assert rev is not None
        undo = rev["undo"]
        was_shooter, fire_before = self.shooter, self.fire.snapshot()
        d1, d2 = rev["faces"]
        self.point, self.shooter = undo["point"], json_copy(undo["shooter"])
        self.selected, self.last_roll = list(undo["selected"]), json_copy(undo["last_roll"])
        self.fire.restore(undo["fire"])
        assert self.shooter is not None
        self.shooter["invalid_rolls"] += 1
        undone: dict[str, Any] = {
            "round": rev["round"],
            "total": rev["total"],
            "decision": rev["decision"],
            "point_before": rev["point_before"],
            "come_out": rev["point_before"] is None,
            "wagers": resolve(d1, d2, rev["point_before"], self.pays, self.lay_bets),
            "shooter_restored": was_shooter is None,
            "fire_bets": json_copy(undo["fire"]["bets"]),
            "fire_settlement_undone": rev["decision"] == "loser_7" and bool(undo["fire"]["bets"]),
            "fire_points_undone": rev["decision"] == "point_made"
            and fire_before["bets"] != undo["fire"]["bets"],
            "notice_withdrawn": bool(was_shooter and was_shooter.get("fire_notice"))
            and not self.shooter.get("fire_notice"),
            "policy": REVERSAL_POLICY,
        }
        body = {
            "reason": reason,
            "invalid": False,
            "rethrow": True,
            "throw": rev["throw"],
            "faces": [d1, d2],
            "shooter": self.shooter["seat"],
            "point": self.point,
            "called_by": by,
            "role": role,
            "detail": detail,
            "callers_rule": cite("537.9(d)"),
            "reverses": undone,
        }
        out = EngineOutput([Decision(EventType.CRAPS_NO_ROLL, body, cite(paragraph), rev["round"])])
        void = {
            "reason": reason,
            "detail": "the roll floord called is void: the dice are thrown again",
            "reversed": True,
        }
        out.events.append(Decision(EventType.ROUND_VOIDED, void, cite(paragraph), rev["round"]))
        if undone["shooter_restored"]:
            back = {
                "action": "restored",
                "seat": self.shooter["seat"],
                "n": self.shooter["n"],
                "by": by,
                "reason": "no_roll",
                "point": self.point,
                "fire_bets_pending": len(self.fire.bets),
                "detail": "the loser 7 that passed the dice is void: the shooter keeps them",
            }
            out.events.append(Decision(EventType.CRAPS_SHOOTER, back, cite(paragraph), None))
        return out


def restore_reversible(raw: Any) -> dict[str, Any] | None:
    """The snapshot's `reversible`: null, or an object with every key of `KEYS`."""
    if raw is None:
        return None
    if not isinstance(raw, dict) or any(k not in raw for k in KEYS):
        raise SnapshotError(f"snapshot: reversible must be null or an object of {KEYS}")
    undo = raw["undo"]
    if not isinstance(undo, dict) or not isinstance(undo.get("shooter"), dict):
        raise SnapshotError("snapshot: reversible.undo must hold the shooter before the roll")
    return dict(json_copy(raw))


def reversible_record(
    rnd: dict[str, Any],
    faces: list[int],
    total: int,
    decision: str,
    point_before: int | None,
    undo: dict[str, Any],
) -> dict[str, Any]:
    """The roll floord called at once in round `rnd`, kept while a "no roll" may void it:
    what it was and `undo`, the state before it (`ReversibleRolls._undo_state`)."""
    return {
        "round": rnd["id"],
        "throw": rnd["throw"],
        "faces": faces,
        "dice": rnd["dice"],
        "total": total,
        "decision": decision,
        "point_before": point_before,
        "undo": undo,
    }
