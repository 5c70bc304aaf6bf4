"""Big Six (58 Pa. Code ch. 533): one wheel, its layout of § 533.1, live wheel tests."""

from __future__ import annotations

from collections import Counter
from typing import Any, Literal

from pydantic import Field

from floord.analytics.report import WheelSetup
from floord.analytics.wheel_watch import BIG_SIX
from floord.engine.big_six.layout import ORDER_533_1_B, read_layout
from floord.games.definition import Families, GameDefinition, Wheel
from floord.games.second_source import SecondSourceConfig, primary_devices, problems
from floord.games.table_model import DeviceConfig, GameTable, StrictModel
from floord.table.vocabulary import TableEngine

WHEEL = "big_six_wheel"


class BigSixRules(StrictModel):
    """A Big Six wheel's layout (58 Pa. Code § 533.1): 54 symbols clockwise from the joker
    (default: the order of § 533.1(b)), and approved themed symbols (§ 533.1(c)) mapped to
    the pay class each stands for (`$1`, `$2`, `$5`, `$10`, `$20`, `flag`, `joker`).
    The counts and the order are checked by the engine's layout module in `_check`."""

    layout: list[str] | None = None
    symbols: dict[str, str] | None = None


class BigSixTableConfig(GameTable):
    game: Literal["big_six"]
    rules: BigSixRules = BigSixRules()
    devices: list[DeviceConfig] = Field(min_length=1)
    # Another Big Six wheel device's rests, or the dealer's call, checked against the wheel's.
    second_source: SecondSourceConfig | None = None


def _check(table: BigSixTableConfig, where: str, families: Families) -> list[str]:
    """One Big Six wheel and nothing else; the layout of § 533.1 (counts, order, symbols)."""
    found = problems(table.second_source, families, WHEEL, where)
    wheels = len(primary_devices(table.second_source, families, WHEEL))
    if wheels != 1:
        what = "besides the second source " if table.second_source else ""
        found.append(
            f"{where}.devices: exactly one big six wheel device {what}expected, found {wheels}"
        )
    try:
        read_layout(table.rules.layout, table.rules.symbols)
    except ValueError as exc:
        found += [f"{where}.rules: {part}" for part in str(exc).split("; ")]
    return found


def _engine(table: BigSixTableConfig, families: Families, common: dict[str, Any]) -> TableEngine:
    from floord.engine.big_six.engine import BigSixEngine

    [wheel] = primary_devices(table.second_source, families, WHEEL)
    return BigSixEngine(
        table.id,
        layout=table.rules.layout,
        symbols=table.rules.symbols,
        wheel_device=wheel,
        second_source=table.second_source.engine_value() if table.second_source else None,
        **common,
    )


def _wheel_setup(
    table: BigSixTableConfig,
    window: int,
    level: float,
    sectors: int | None,
    dealer_window: int,
    dealer_bins: int,
) -> WheelSetup:
    """The layout's symbols; no dealer signature (the wheel reports no release)."""
    layout = table.rules.layout
    order = tuple(ORDER_533_1_B if layout is None else layout)
    return WheelSetup(
        BIG_SIX, order, window, level, 6 if sectors is None else sectors, dict(Counter(order))
    )


DEFINITION = GameDefinition(
    table=BigSixTableConfig,
    build_engine=_engine,
    families=frozenset({WHEEL}),
    check=_check,
    wheel=Wheel(setup=_wheel_setup, sectors_setting="big_six_sectors"),
)
