"""Pai Gow (58 Pa. Code ch. 535): one Pai Gow shaker whose three dice name the starting
position of each deal (§ 535.2(d)); only § 535.2 is in our seeds."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from floord.engine.pai_gow.rules import DICE, PaiGowRules
from floord.games.definition import (
    Families,
    GameDefinition,
    dice_count,
    first_device,
    slot_problems,
)
from floord.games.table_model import DeviceConfig, GameTable, StrictModel
from floord.profiles import DeviceProfile
from floord.table.vocabulary import TableEngine

SHAKER = "dice_tracker"


class PaiGowRulesConfig(StrictModel):
    """A Pai Gow table's `rules:` as the config file holds them (ch. 535: only § 535.2 is
    in our seeds); `engine_rules` makes the engine's `PaiGowRules`, which checks them
    against § 535.2.

    `count_order` has no default: § 535.2(d) says the shaker's dice determine the starting
    position of the deal but not how, so the table's Rules Submission says it: the
    positions (betting areas 1 to 6, `dealer`, optionally `dead_hand`) in the order the
    total of the three faces is counted, the first counted 1 (`floord.engine.pai_gow.rules`).
    """

    count_order: list[int | str]

    def engine_rules(self) -> PaiGowRules:
        """The engine's rules, made once from these; ValueError names what is wrong."""
        return PaiGowRules(count_order=tuple(self.count_order))


class PaiGowTableConfig(GameTable):
    game: Literal["pai_gow"]
    rules: PaiGowRulesConfig
    devices: list[DeviceConfig] = Field(min_length=1)


def _check(table: PaiGowTableConfig, where: str, families: Families) -> list[str]:
    """One Pai Gow shaker and nothing else; the rules against § 535.2."""
    wanted: dict[str, int | None] = {SHAKER: 1}
    problems = slot_problems(families, wanted, where, "pai gow (one Pai Gow shaker, § 535.2(d))")
    try:
        table.rules.engine_rules()
    except ValueError as exc:
        problems.append(f"{where}.rules: {exc}")
    return problems


def _device_check(profile: DeviceProfile) -> str | None:
    """A shaker of three dice (§ 535.2(d)(1)), not a two-dice Craps tracker."""
    if profile.family != SHAKER:
        return None
    if profile.dice != DICE:
        return (
            f"a Pai Gow shaker of {DICE} dice (quirks.dice: {DICE}, 58 Pa. Code § 535.2(d)(1)) "
            f"expected, found {profile.model!r} of {dice_count(profile)}"
        )
    return None


def _engine(table: PaiGowTableConfig, families: Families, common: dict[str, Any]) -> TableEngine:
    from floord.engine.pai_gow.engine import PaiGowEngine

    shaker = first_device(families, SHAKER)
    assert shaker is not None  # `check` requires it
    return PaiGowEngine(table.id, rules=table.rules.engine_rules(), shaker_device=shaker, **common)


DEFINITION = GameDefinition(
    table=PaiGowTableConfig,
    build_engine=_engine,
    families=frozenset({SHAKER}),
    check=_check,
    device_check=_device_check,
)
