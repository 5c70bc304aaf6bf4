"""The Fire Bets of a Craps table (58 Pa. Code § 537.3(a)(40), § 537.4(c)(3), § 537.12).

A Fire Bet is accepted only before a new shooter's initial come out roll (§ 537.3(a)(40),
§ 537.12(a)(1)), $1 to $5 in whole dollars (§ 537.12(b)(1)), on one of at most 16
numbered areas (§ 537.2(f)(1)). Each point the shooter makes counts once
(§ 537.12(b)(2)), in any order (§ 537.12(b)(3)); once four different points are made the
surveillance department is notified (§ 537.12(a)(6)): once for each bet that reaches four,
and once for a shooter who makes four himself, never twice for one shooter unless another
bet reaches four. The bets are settled when a
shooter throws a loser 7 (§ 537.12(a)(5)): four or more points win at the Rules
Submission's odds (§ 537.3(a)(40)(i), § 537.5(g)), fewer lose (§ 537.3(a)(40)(ii)). A
shooter who passes the dice before a loser 7 leaves the pending bets to be settled on
the successor's loser 7 (§ 537.12(a)(2)). No command reduces, increases or removes a
Fire Bet (§ 537.4(c)(3)).

The text does not say whether a bet carried to the successor counts the points made
before the surrender; floord keeps them (each bet counts the points made while it was in
action), its policy (`CARRY_POLICY`, docs/rules.md).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

MAX_AREAS = 16  # § 537.2(f)(1)
MIN_BET, MAX_BET = 1, 5  # § 537.12(b)(1)
NOTICE_AT = 4  # § 537.12(a)(6)
MINI_CRAPS_POLICY = (
    "floord policy, not a regulation: § 537.3(a)(40) permits the Fire Bet at Craps and "
    "Mini-Craps, but the seeds give its layout (§ 537.2(f)), limits and procedures "
    "(§ 537.12) for the game of Craps only; floord offers it at Craps only"
)
CARRY_POLICY = (
    "floord policy, not a regulation: a Fire Bet carried to the successor shooter "
    "(§ 537.12(a)(2)) keeps the unique points made while it was in action"
)


def come_outs(shooter: dict[str, Any]) -> int:
    """The come out rolls `shooter` has thrown. A successor who inherits a point throws
    point rolls first, which are not his come out roll (§ 537.1: the first roll after a
    Pass Bet decision); a record without the count (an older snapshot) counts every roll."""
    count = shooter.get("come_outs", shooter.get("rolls", 0))
    return count if isinstance(count, int) else 0


@dataclass
class FireBet:
    seat: int
    amount: int
    shooter: int  # the shooter number (the table's count of shooters) it was placed for
    points: list[int] = field(default_factory=list)
    # The shooter number who made each of `points`, in the same order (a bet carried to
    # the successor under § 537.12(a)(2) holds points of two or more shooters).
    made_by: list[int] = field(default_factory=list)

    def record(self) -> dict[str, Any]:
        """The bet as a surveillance notice names it: whose points it holds."""
        return {
            "seat": self.seat,
            "amount": self.amount,
            "points": list(self.points),
            "made_by": list(self.made_by),
        }


class FireBook:
    """The pending Fire Bets and the unique points each has seen."""

    def __init__(self) -> None:
        self.bets: list[FireBet] = []
        # Bets whose four unique points the surveillance department was told of.
        self.notified: list[int] = []

    def refusal(self, seat: Any, amount: Any) -> tuple[str, str] | None:
        """(why, paragraph) a Fire Bet is refused, before the come out timing."""
        if not isinstance(seat, int) or isinstance(seat, bool) or not 1 <= seat <= MAX_AREAS:
            return (f"seat must be a Fire Bet area 1 to {MAX_AREAS}, found {seat!r}", "537.2(f)(1)")
        if any(b.seat == seat for b in self.bets):
            return (f"a Fire Bet is already on area {seat}: it may not be increased", "537.4(c)(3)")
        if (
            not isinstance(amount, int)
            or isinstance(amount, bool)
            or not MIN_BET <= amount <= MAX_BET
        ):
            return (
                f"a Fire Bet is ${MIN_BET} to ${MAX_BET} in whole dollars, found {amount!r}",
                "537.12(b)(1)",
            )
        return None

    def place(self, seat: int, amount: int, shooter: int) -> FireBet:
        bet = FireBet(seat, amount, shooter)
        self.bets.append(bet)
        self.bets.sort(key=lambda b: b.seat)  # § 537.12(a)(3): brought in in numerical order
        return bet

    def point_made(self, point: int, shooter: int) -> list[FireBet]:
        """Count `point`, made by the shooter numbered `shooter`, once for every pending
        bet; the bets that reached four now (each bet is reported once)."""
        reached = []
        for bet in self.bets:
            if point not in bet.points:
                bet.points.append(point)
                bet.made_by.append(shooter)
                if len(bet.points) == NOTICE_AT and bet.seat not in self.notified:
                    self.notified.append(bet.seat)
                    reached.append(bet)
        return reached

    def settle(self) -> list[FireBet]:
        """Take every pending bet off the layout (a loser 7) and return them."""
        done, self.bets, self.notified = self.bets, [], []
        return done

    def snapshot(self) -> dict[str, Any]:
        return {"bets": [asdict(b) for b in self.bets], "notified": list(self.notified)}

    def restore(self, body: dict[str, Any]) -> None:
        try:
            self.bets = [FireBet(**b) for b in body.get("bets") or []]
        except TypeError as exc:
            raise ValueError(f"snapshot: fire_bets: {exc}") from exc
        self.notified = [int(s) for s in body.get("notified") or []]
