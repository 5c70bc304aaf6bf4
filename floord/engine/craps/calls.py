"""The persons' calls at a Craps or Mini-Craps table, as signed commands (58 Pa. Code ch. 537).

- `shooter seat=N`: the first player to accept the dice becomes the shooter
  (§ 537.7(b), (c), § 537.11(c), (d)); refused while a shooter holds the dice.
- `pass_dice reason=voluntary|ordered`: the shooter's option after any roll (§ 537.11(a)),
  or the order of the Craps boxperson or the Mini-Craps dealer (§ 537.11(a)(2)).
- `fire_bet seat=N amount=D`: accepted only before a new shooter's initial come out roll
  (§ 537.3(a)(40), § 537.12(a)(1)), Craps only, $1 to $5 (§ 537.12(b)(1)).
- `call_roll`: a held throw called as the tracker read it (§ 537.10(a)).
- `no_roll reason=R`: a held throw invalidated (§ 537.9(b), (d)); with none held, the
  last roll floord called at once, voided and everything it decided undone, while the
  window of `reversal.py` is open.
- `face_ruling faces=[A,B] | void=true`: a disputed face decided, or the throw ordered
  void (§ 537.10(c)).
Who may make each call is `roles.py`'s. A call the table's state does not allow is
refused with the reason and, where one applies, the paragraph.
"""

from __future__ import annotations

from abc import abstractmethod
from datetime import datetime
from typing import Any

from floord.contract import EventType, cite
from floord.engine.core.table_commands import TABLE_COMMANDS
from floord.engine.core.types import CommandOutcome, Decision, EngineOutput, VerifiedCommand
from floord.engine.craps.fire import FireBook, come_outs
from floord.engine.craps.reversal import CLOSED_POLICY, ReversibleRolls
from floord.engine.craps.roles import caller_refusal
from floord.engine.craps.throws import NO_ROLL_REASONS

GAME_COMMANDS = ("shooter", "pass_dice", "fire_bet", "call_roll", "no_roll", "face_ruling")


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _refused(why: str, paragraph: str | None = None) -> CommandOutcome:
    return CommandOutcome(False, why, cite(paragraph) if paragraph else None)


def _ok(*events: Decision) -> CommandOutcome:
    return CommandOutcome(True, output=EngineOutput(list(events)))


class CrapsCalls(ReversibleRolls):
    """The command half of `CrapsEngine` (see the module docstring); the engine supplies
    the state and the call of a roll."""

    game: str
    shooter: dict[str, Any] | None
    shooters: int
    point: int | None
    fire: FireBook
    fire_offered: bool

    @property
    @abstractmethod
    def marker(self) -> str: ...

    @abstractmethod
    def _call(
        self, faces: list[Any], now: datetime, called_by: str | None, **more: Any
    ) -> EngineOutput: ...

    @abstractmethod
    def _no_roll_out(
        self, out: EngineOutput, reason: str, paragraph: str, *, invalid: bool, **more: Any
    ) -> EngineOutput: ...

    @abstractmethod
    def _pass_dice(
        self, reason: str, rule: str, by: str | None, round_id: str | None, **more: Any
    ) -> Decision: ...

    def on_command(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        now = self._touch(now)
        if command.name not in GAME_COMMANDS:
            known = ", ".join((*TABLE_COMMANDS, *GAME_COMMANDS))
            return self._table_command(
                command, now, f"unknown table command {command.name!r}: a Craps table knows {known}"
            )
        if not self.table.is_open:
            return _refused(f"the table is not open (it is {self.table.state})")
        role_call = command.name
        if command.name == "pass_dice":
            reason = command.args.get("reason")
            if reason not in ("voluntary", "ordered"):
                return _refused(f"reason must be voluntary or ordered, found {reason!r}")
            role_call = f"pass_{reason}"
        refusal = caller_refusal(role_call, self.game, command.role)
        if refusal is not None:
            return _refused(*refusal)
        return self._own_command(command, now)

    # ----- the shooter ------------------------------------------------------------

    def _cmd_shooter(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        seat = command.args.get("seat")
        if not isinstance(seat, int) or isinstance(seat, bool) or seat < 1:
            return _refused(f"seat must be a player position from 1, found {seat!r}")
        if self.shooter is not None:
            return _refused(
                f"the player at {self.shooter['seat']} is the shooter: the dice are "
                "offered once the shooter passes them",
                "537.11(c)",
            )
        if self.rounds.current is not None:
            return _refused(f"throw {self.rounds.current['throw']} awaits its call")
        self.reversible = None  # a new shooter: the last roll stands
        self.shooters += 1
        self.shooter = {
            "n": self.shooters,
            "seat": seat,
            "rolls": 0,
            "come_outs": 0,
            "points": [],
            "invalid_rolls": 0,
        }
        first = self.shooters == 1
        body = {
            "action": "new",
            "seat": seat,
            "n": self.shooters,
            "by": command.by,
            "point": self.point,
            "marker": self.marker,
            "fire_bets_pending": len(self.fire.bets),
            "select": "the shooter selects and retains two of the dice offered",
        }
        rule = cite("537.7(b)") if first else cite("537.11(d)")
        return _ok(Decision(EventType.CRAPS_SHOOTER, body, rule, None))

    def _cmd_pass_dice(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        if self.shooter is None:
            return _refused("no shooter holds the dice")
        if self.rounds.current is not None:
            return _refused(f"throw {self.rounds.current['throw']} awaits its call")
        reason = command.args["reason"]
        self.reversible = None  # the dice passed: the last roll stands
        rule = cite("537.11(a)(2)") if reason == "ordered" else cite("537.11(a)")
        carried = {"fire_bets_rule": cite("537.12(a)(2)")} if self.fire.bets else {}
        detail = command.args.get("detail")
        return _ok(self._pass_dice(reason, rule, command.by, None, detail=detail, **carried))

    # ----- the Fire Bet -----------------------------------------------------------

    def _cmd_fire_bet(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        if not self.fire_offered:
            return _refused("this table's Rules Submission offers no Fire Bet", "537.3(a)(40)")
        if self.shooter is not None and come_outs(self.shooter) > 0:
            return _refused(
                "a Fire Bet is accepted only before a new shooter's initial come out roll",
                "537.12(a)(1)",
            )
        seat, amount = command.args.get("seat"), command.args.get("amount")
        refusal = self.fire.refusal(seat, amount)
        if refusal is not None:
            return _refused(*refusal)
        for_shooter = self.shooter["n"] if self.shooter else self.shooters + 1
        assert isinstance(seat, int) and isinstance(amount, int)
        self.reversible = None  # a Fire Bet taken: the last roll stands
        bet = self.fire.place(seat, amount, for_shooter)
        body = {
            "action": "accepted",
            "seat": bet.seat,
            "amount": bet.amount,
            "shooter": for_shooter,
            "by": command.by,
        }
        return _ok(Decision(EventType.CRAPS_FIRE_BET, body, cite("537.12(a)(1)"), None))

    # ----- a held throw -----------------------------------------------------------

    def _held(self) -> dict[str, Any] | None:
        return self.rounds.current

    def _cmd_call_roll(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        held = self._held()
        if held is None:
            return _refused("no throw awaits a call")
        faces = held["faces"]
        if len(faces) != 2 or not all(_whole(f) for f in faces):
            return _refused(
                "the tracker read no face of every die: the boxperson (Mini-Craps: "
                "the floorperson) decides the faces",
                "537.10(c)",
            )
        return CommandOutcome(
            True, output=self._call(faces, now, called_by=command.by, held=held["held"])
        )

    def _cmd_no_roll(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        reason = command.args.get("reason")
        if not isinstance(reason, str) or reason not in NO_ROLL_REASONS:
            return _refused(
                f"reason must be one of {', '.join(NO_ROLL_REASONS)}, found {reason!r}", "537.9(b)"
            )
        held = self._held()
        if held is None and self.reversible is not None:
            out = self._reverse(
                reason,
                NO_ROLL_REASONS[reason],
                command.by,
                command.role,
                command.args.get("detail"),
            )
            return CommandOutcome(True, output=out)
        if held is None:
            return _refused(
                f"no throw awaits a call, and no roll floord called is open to a "
                f"no roll ({CLOSED_POLICY})"
            )
        assert self.shooter is not None
        self.shooter["invalid_rolls"] += 1
        out = self._no_roll_out(
            EngineOutput(),
            reason,
            NO_ROLL_REASONS[reason],
            invalid=False,
            called_by=command.by,
            role=command.role,
            detail=command.args.get("detail"),
            callers_rule=cite("537.9(d)"),
        )
        return CommandOutcome(True, output=out)

    def _cmd_face_ruling(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        paragraph = "537.10(c)(1)" if self.game == "craps" else "537.10(c)(2)"
        held = self._held()
        if held is None:
            return _refused("no throw awaits a call")
        if command.args.get("void") is True:
            out = self._no_roll_out(
                EngineOutput(),
                "face_dispute_void",
                paragraph,
                invalid=False,
                called_by=command.by,
                role=command.role,
            )
            return CommandOutcome(True, output=out)
        faces = command.args.get("faces")
        if not (
            isinstance(faces, list)
            and len(faces) == 2
            and all(_whole(f) and 1 <= f <= 6 for f in faces)
        ):
            return _refused(f"faces=[A,B] (1 to 6) or void=true expected, found {faces!r}")
        ruling = {
            "faces": list(faces),
            "read": held["faces"],
            "by": command.by,
            "rule": cite(paragraph),
        }
        return CommandOutcome(
            True,
            output=self._call(
                faces, now, called_by=command.by, held=held["held"], face_ruling=ruling
            ),
        )
