"""Roulette (58 Pa. Code ch. 531): one wheel, its kind in the rules, live wheel tests."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from floord.analytics.report import WheelSetup
from floord.analytics.wheel_watch import roulette_order
from floord.engine.roulette.layout import wheel_spec
from floord.games.definition import Families, GameDefinition, Wheel
from floord.games.roulette_watch import PaceConfig, SpinPhysicsConfig
from floord.games.second_source import SecondSourceConfig, primary_devices, problems
from floord.games.table_model import DeviceConfig, GameTable, StrictModel
from floord.table.vocabulary import TableEngine

WHEEL = "roulette_wheel"


class RouletteRules(StrictModel):
    """Rules Submission options of a Roulette table (58 Pa. Code § 521.2, ch. 531)."""

    wheel: Literal["single_zero", "double_zero", "double_zero_as_single"]


class RouletteTableConfig(GameTable):
    game: Literal["roulette"]
    rules: RouletteRules
    devices: list[DeviceConfig] = Field(min_length=1)
    # The pace and spin physics tests (`floord.games.roulette_watch`); absent: off.
    pace: PaceConfig | None = None
    spin_physics: SpinPhysicsConfig | None = None
    # Another device's numbers, or the dealer's call, checked against the wheel's.
    second_source: SecondSourceConfig | None = None


def _check(table: RouletteTableConfig, where: str, families: Families) -> list[str]:
    """One wheel, and a second source device (if named) that reports numbers too."""
    found = problems(table.second_source, families, WHEEL, where)
    wheels = len(primary_devices(table.second_source, families, WHEEL))
    if wheels != 1:
        what = "besides the second source " if table.second_source else ""
        found.append(
            f"{where}.devices: exactly one roulette wheel device {what}expected, found {wheels}"
        )
    return found


def _engine(table: RouletteTableConfig, families: Families, common: dict[str, Any]) -> TableEngine:
    from floord.engine.roulette.engine import RouletteEngine

    [wheel] = primary_devices(table.second_source, families, WHEEL)
    second = table.second_source.engine_value() if table.second_source else None
    return RouletteEngine(
        table.id, wheel=table.rules.wheel, wheel_device=wheel, second_source=second, **common
    )


def _driver_options(table: RouletteTableConfig, family: str) -> dict[str, Any]:
    """The wheel's driver refuses a pocket count other than the wheel kind's."""
    if family == WHEEL:
        return {"pockets": len(wheel_spec(table.rules.wheel).order)}
    return {}


def _wheel_setup(
    table: RouletteTableConfig,
    window: int,
    level: float,
    sectors: int | None,
    dealer_window: int,
    dealer_bins: int,
) -> WheelSetup:
    kind = table.rules.wheel
    pace = table.pace.settings() if table.pace is not None else None
    spin = table.spin_physics.settings() if table.spin_physics is not None else None
    return WheelSetup(
        kind,
        tuple(roulette_order(kind)),
        window,
        level,
        8 if sectors is None else sectors,
        dealer_window=dealer_window,
        dealer_bins=dealer_bins,
        pace=pace,
        spin=spin,
    )


DEFINITION = GameDefinition(
    table=RouletteTableConfig,
    build_engine=_engine,
    families=frozenset({WHEEL}),
    check=_check,
    driver_options=_driver_options,
    wheel=Wheel(setup=_wheel_setup, sectors_setting="roulette_sectors"),
)
