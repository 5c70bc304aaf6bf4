"""The payout odds of a Craps table's Rules Submission, and their minimums (58 Pa. Code
§ 537.5, § 537.5a, § 537.6).

§ 537.5(b) lists the least odds each winning wager may be paid ("A Certificate Holder may
use payout odds for winning wagers at higher odds"); § 537.5(g) the Fire Bet's Table A or
Table B, preselected by the certificate holder; § 537.6(a)-(d) the odds of the
supplemental (odds) wagers, which are exact ("shall be paid at odds of"). A table's
`rules.payout_odds` may raise any § 537.5(b) entry and `rules.fire_bet_odds` any entry of
the table it chose; `floord check` refuses one below the minimum (`payout_problems`).

§ 537.5a (Buy and Lay Bets): floord's sources hold only the amended lead sentence of
subsection (b) (a Lay Bet "to receive true odds on the Place Bet to Lose", offered in the
Rules Submission in addition to or in lieu of the Place Bets to Lose); subsection (a) and
the pay table after "shall pay winning wagers as follows:" are not in the seeds, so
floord holds no minimum for a Buy or Lay Bet and says so (docs/rules.md).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from floord.contract import cite

# The games this engine plays: ch. 537 is "Craps and Mini-Craps".
GAMES = ("craps", "mini_craps")
POINTS = (4, 5, 6, 8, 9, 10)
# § 537.5(b): the least payout odds of each winning wager, (to, for-one-of) as "N to D".
MINIMUM_ODDS: dict[str, tuple[int, int]] = {
    "pass_line": (1, 1),
    "dont_pass": (1, 1),
    "come": (1, 1),
    "dont_come": (1, 1),
    "place_win_4": (9, 5),
    "place_win_5": (7, 5),
    "place_win_6": (7, 6),
    "place_win_8": (7, 6),
    "place_win_9": (7, 5),
    "place_win_10": (9, 5),
    "place_lose_4": (5, 11),
    "place_lose_5": (5, 8),
    "place_lose_6": (4, 5),
    "place_lose_8": (4, 5),
    "place_lose_9": (5, 8),
    "place_lose_10": (5, 11),
    "hard_4": (7, 1),
    "hard_6": (9, 1),
    "hard_8": (9, 1),
    "hard_10": (7, 1),
    "field": (1, 1),
    "field_2_or_12": (2, 1),
    "any_seven": (4, 1),
    "any_craps": (7, 1),
    "craps_2": (30, 1),
    "craps_3": (15, 1),
    "craps_12": (30, 1),
    "eleven": (15, 1),
    "hop_2_2": (30, 1),
    "hop_3_3": (30, 1),
    "hop_4_4": (30, 1),
    "hop_5_5": (30, 1),
    **{
        f"hop_{a}_{b}": (15, 1)
        for a, b in (
            (1, 3),
            (1, 4),
            (1, 5),
            (1, 6),
            (2, 3),
            (2, 4),
            (2, 5),
            (2, 6),
            (3, 4),
            (3, 5),
            (3, 6),
            (4, 5),
            (4, 6),
        )
    },
    "six_seven_eight": (1, 1),
    "six_seven_eight_pair": (2, 1),
}
# § 537.5(g): a winning Fire Bet's least odds by unique points made (6: six or more).
FIRE_TABLES: dict[str, dict[int, int]] = {
    "A": {4: 24, 5: 249, 6: 999},
    "B": {4: 39, 5: 199, 6: 499},
}
# § 537.6(a)-(d): the supplemental wager on a point, taking odds (Pass, Come) and laying
# odds (Don't Pass, Don't Come).
TAKE_ODDS: dict[int, tuple[int, int]] = {
    4: (2, 1),
    10: (2, 1),
    5: (3, 2),
    9: (3, 2),
    6: (6, 5),
    8: (6, 5),
}
LAY_ODDS: dict[int, tuple[int, int]] = {
    4: (1, 2),
    10: (1, 2),
    5: (2, 3),
    9: (2, 3),
    6: (5, 6),
    8: (5, 6),
}


def odds_text(odds: tuple[int, int]) -> str:
    """§ 537.5(a): odds are stated with the word "to", never "for"."""
    return f"{odds[0]} to {odds[1]}"


def _read_odds(value: Any) -> tuple[int, int] | None:
    """`"9 to 5"` -> (9, 5); None for anything else."""
    if not isinstance(value, str):
        return None
    parts = value.split(" to ")
    if len(parts) != 2 or not all(p.isdigit() and int(p) > 0 for p in parts):
        return None
    return int(parts[0]), int(parts[1])


def payout_problems(
    payout_odds: dict[str, str], fire_table: str | None, fire_odds: dict[int, int]
) -> list[str]:
    """Why the submitted odds cannot be used: an unknown wager, a form other than
    "N to D", odds below § 537.5(b) or the Fire Bet table of § 537.5(g)."""
    problems = []
    for wager, text in payout_odds.items():
        least = MINIMUM_ODDS.get(wager)
        if least is None:
            problems.append(f"payout_odds.{wager}: not a wager of {cite('537.5(b)')}")
            continue
        odds = _read_odds(text)
        if odds is None:
            problems.append(
                f'payout_odds.{wager}: odds as "N to D" expected ({cite("537.5(a)")}), '
                f"found {text!r}"
            )
        elif Fraction(*odds) < Fraction(*least):
            problems.append(
                f"payout_odds.{wager}: {text} is below the minimum {odds_text(least)} "
                f"of {cite('537.5(b)')}"
            )
    if fire_odds and fire_table is None:
        problems.append(f"fire_bet_odds: no fire_bet table (A or B, {cite('537.5(g)')}) chosen")
    for points, pays in fire_odds.items():
        if fire_table is None:
            break
        least_to = FIRE_TABLES[fire_table].get(points)
        if least_to is None:
            problems.append(f"fire_bet_odds.{points}: 4, 5 or 6 (six or more) points expected")
        elif pays < least_to:
            problems.append(
                f"fire_bet_odds.{points}: {pays} to 1 is below {least_to} to 1, Table "
                f"{fire_table} of {cite('537.5(g)')}"
            )
    return problems


class PayTable:
    """The odds this table pays: the submitted odds over the minimums."""

    def __init__(
        self,
        payout_odds: dict[str, str] | None = None,
        fire_table: str | None = None,
        fire_odds: dict[int, int] | None = None,
    ) -> None:
        problems = payout_problems(payout_odds or {}, fire_table, fire_odds or {})
        if problems:
            raise ValueError("; ".join(problems))
        self.odds = dict(MINIMUM_ODDS)
        for wager, text in (payout_odds or {}).items():
            read = _read_odds(text)
            assert read is not None
            self.odds[wager] = read
        self.fire_table = fire_table
        self.fire_odds = {**FIRE_TABLES.get(fire_table or "", {}), **(fire_odds or {})}

    def of(self, wager: str) -> str:
        return odds_text(self.odds[wager])

    def fire(self, unique_points: int) -> str:
        """A winning Fire Bet is paid once for the highest number of points (§ 537.5(g))."""
        return f"{self.fire_odds[min(unique_points, 6)]} to 1"
