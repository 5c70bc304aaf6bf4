"""Craps and Mini-Craps (58 Pa. Code ch. 537): one dice tracker, the Rules Submission's odds."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from floord.engine.craps.fire import MINI_CRAPS_POLICY
from floord.engine.craps.rules import payout_problems
from floord.games.definition import Families, GameDefinition, dice_count
from floord.games.second_source import SecondSourceConfig, primary_devices
from floord.games.second_source import problems as second_source_problems
from floord.games.table_model import DeviceConfig, GameTable, StrictModel
from floord.profiles import DeviceProfile
from floord.table.vocabulary import TableEngine

TRACKER = "dice_tracker"


class CrapsRules(StrictModel):
    """A Craps table's Rules Submission (§ 521.2) as floord reads it: odds above the
    minimums of § 537.5(b) (`payout_odds`, wager -> "N to D"), the Fire Bet's table of
    § 537.5(g) (`fire_bet`: A or B; none: the Fire Bet is not offered) and any higher
    odds in it (`fire_bet_odds`, points 4, 5 or 6 -> N for "N to 1"), whether Lay Bets
    are offered (§ 537.5a(b)), and whether every throw waits for the person who calls it
    (`stickperson_calls`, § 537.10(a)) rather than floord calling it at once.
    `floord check` refuses odds below a minimum."""

    payout_odds: dict[str, str] = Field(default_factory=dict)
    fire_bet: Literal["A", "B"] | None = None
    fire_bet_odds: dict[int, int] = Field(default_factory=dict)
    lay_bets: bool = False
    stickperson_calls: bool = False


class CrapsTableConfig(GameTable):
    game: Literal["craps", "mini_craps"]
    rules: CrapsRules = CrapsRules()
    devices: list[DeviceConfig] = Field(min_length=1)
    # Another tracker's throws, or the stickperson's call, checked against the tracker's.
    second_source: SecondSourceConfig | None = None


def _check(table: CrapsTableConfig, where: str, families: Families) -> list[str]:
    """One dice tracker and nothing else; the odds of § 537.5; the Fire Bet at Craps only."""
    problems = second_source_problems(table.second_source, families, TRACKER, where)
    trackers = len(primary_devices(table.second_source, families, TRACKER))
    if trackers != 1:
        what = "besides the second source " if table.second_source else ""
        problems.append(
            f"{where}.devices: exactly one dice tracker {what}expected, found {trackers}"
        )
    rules = table.rules
    odds = payout_problems(rules.payout_odds, rules.fire_bet, rules.fire_bet_odds)
    problems += [f"{where}.rules.{p}" for p in odds]
    if table.game == "mini_craps" and rules.fire_bet is not None:
        problems.append(
            f"{where}.rules.fire_bet: floord offers the Fire Bet at Craps only, "
            f"not at Mini-Craps ({MINI_CRAPS_POLICY})"
        )
    return problems


def _device_check(profile: DeviceProfile) -> str | None:
    """A Craps table's tracker reads two dice (§ 537.8); a Pai Gow shaker reads three."""
    if profile.family == TRACKER and profile.dice != 2:
        return (
            f"a dice tracker of two dice expected, found {profile.model!r} of {dice_count(profile)}"
        )
    return None


def _engine(table: CrapsTableConfig, families: Families, common: dict[str, Any]) -> TableEngine:
    from floord.engine.craps.engine import CrapsEngine

    [tracker] = primary_devices(table.second_source, families, TRACKER)
    rules = table.rules
    return CrapsEngine(
        table.id,
        game=table.game,
        payout_odds=dict(rules.payout_odds),
        fire_bet=rules.fire_bet,
        fire_bet_odds=dict(rules.fire_bet_odds),
        lay_bets=rules.lay_bets,
        stickperson_calls=rules.stickperson_calls,
        dice_device=tracker,
        second_source=table.second_source.engine_value() if table.second_source else None,
        **common,
    )


DEFINITION = GameDefinition(
    table=CrapsTableConfig,
    build_engine=_engine,
    families=frozenset({TRACKER}),
    check=_check,
    device_check=_device_check,
    dice_watch=True,
)
