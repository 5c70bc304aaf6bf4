"""Rules that bind every table of a kind on the floor, not one table alone.

§ 545.13(g): "The percentage of vigorish charged at a Baccarat table shall apply to all
players at that table. The same percentage of vigorish shall be used for all Baccarat
tables located within a licensed facility." EZ Baccarat tables charge no vigorish
(§ 545.13(c)) and are left out. Chapters 541 and 543 (Minibaccarat, Midibaccarat) hold
no such paragraph in floord's sources, so their tables are not compared.

§ 537.5(b): the payout odds of the game of Craps or Mini-Craps "may not be less than the
following payout odds: A Certificate Holder may use payout odds for winning wagers at
higher odds than those in the following list. Payout odds shall be uniform within the
licensed facility." A table pays each wager at its `rules.payout_odds` entry or, without
one, at the minimum; uniform means every Craps and Mini-Craps table pays each wager at
equal odds ("18 to 10" equals "9 to 5"). The Fire Bet's odds are § 537.5(g)'s, not in
(b)'s list, and are not compared.

A config is one box's part of the facility: on its own, `check` sees only the tables it
lists. A floor rules file (`floor_rules:`, `floord.config.floor_rules_file`), the same
file installed on every box, holds the facility's values, and then every table of the
config is compared with it, so boxes that each agree with the file agree with each other.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path

from floord.config.floor_rules_file import FloorRules
from floord.config.tables import TableConfig

VIGORISH_RULE = "58 Pa. Code § 545.13(g)"
ODDS_RULE = "58 Pa. Code § 537.5(b)"
# The games compared, by name: their modules are imported only for a config that has them.
VIGORISH_GAMES = ("baccarat",)
CRAPS_GAMES = ("craps", "mini_craps")


def floor_problems(
    tables: Sequence[TableConfig], path: Path, floor: FloorRules | None, floor_path: Path | None
) -> list[str]:
    """Every table of a kind held to one value: the floor rules file's where the config
    names one (and the file says it), else the first such table's of the config."""
    return _vigorish(tables, path, floor, floor_path) + _craps_odds(tables, path, floor, floor_path)


def _vigorish(
    tables: Sequence[TableConfig], path: Path, floor: FloorRules | None, floor_path: Path | None
) -> list[str]:
    """One line per Baccarat table whose vigorish differs from the one it is held to."""
    held: tuple[int, str] | None = None  # (percent, where it comes from)
    if floor is not None and floor.baccarat is not None and floor_path is not None:
        held = (floor.baccarat.vigorish_percent, f"in {floor_path}")
    problems: list[str] = []
    if not any(table.game in VIGORISH_GAMES for table in tables):
        return problems
    from floord.games.baccarat import BaccaratTableConfig

    for t, table in enumerate(tables):
        if not isinstance(table, BaccaratTableConfig):
            continue
        if table.game not in VIGORISH_GAMES or table.rules.ez_baccarat:
            continue
        percent = table.rules.vigorish_percent
        if held is None:
            held = (percent, f"as on table {table.id!r} (tables.{t})")
        elif percent != held[0]:
            problems.append(
                f"{path}: tables.{t}.rules.vigorish_percent: the same vigorish on every "
                f"Baccarat table of the facility ({VIGORISH_RULE}) expected, "
                f"{held[0]} {held[1]}, found {percent}"
            )
    return problems


def _craps_odds(
    tables: Sequence[TableConfig], path: Path, floor: FloorRules | None, floor_path: Path | None
) -> list[str]:
    """One line per wager of a Craps or Mini-Craps table paid at other odds than the
    table (or the floor rules file) it is held to. A table whose own odds are refused
    (`payout_problems`) is left to that check."""
    if not any(table.game in CRAPS_GAMES for table in tables):
        return []
    from floord.engine.craps.rules import payout_problems
    from floord.games.craps import CrapsTableConfig

    held: tuple[dict[str, Fraction], str] | None = None
    if floor is not None and floor.craps is not None and floor_path is not None:
        held = (_paid(floor.craps.payout_odds), f"in {floor_path}")
    problems: list[str] = []
    for t, table in enumerate(tables):
        if not isinstance(table, CrapsTableConfig):
            continue
        rules = table.rules
        if payout_problems(rules.payout_odds, rules.fire_bet, rules.fire_bet_odds):
            continue
        paid = _paid(rules.payout_odds)
        if held is None:
            held = (paid, f"as on table {table.id!r} (tables.{t})")
            continue
        for wager, odds in paid.items():
            if odds != held[0][wager]:
                problems.append(
                    f"{path}: tables.{t}.rules.payout_odds.{wager}: the same payout odds on "
                    f"every Craps and Mini-Craps table of the facility ({ODDS_RULE}) "
                    f"expected, {_text(held[0][wager])} {held[1]}, found {_text(odds)}"
                )
    return problems


def _paid(payout_odds: dict[str, str]) -> dict[str, Fraction]:
    """The odds each wager is paid at: the submitted ones over the minimums."""
    from floord.engine.craps.rules import PayTable

    return {w: Fraction(*odds) for w, odds in PayTable(payout_odds).odds.items()}


def _text(odds: Fraction) -> str:
    from floord.engine.craps.rules import odds_text

    return odds_text((odds.numerator, odds.denominator))
