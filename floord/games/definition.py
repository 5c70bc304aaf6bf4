"""What a game's definition holds, and the helpers the definitions share.

A `GameDefinition` is all that floord outside the engine knows of a game: the table's
config model (its `game` names are the config's discriminator), the checks `floord check`
runs on its rules and device slots, how its engine is built, the options its drivers
derive from its rules, for a wheel game how its wheel is reported on, and whether its
rolls run the dice tests.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, get_args

from floord.analytics.report import WheelSetup
from floord.games.table_model import GameTable
from floord.profile_sources import ProfileShelf
from floord.profiles import DeviceProfile, ProfileError
from floord.table.vocabulary import TableEngine

# The family of a dealing shoe: a card game whose shoe reads the cards runs the shuffle
# tests (`floord.games.shuffle`).
SHOE_FAMILY = "dealing_shoe"
# A table's devices by family: (device id, profile) in the config's order.
Families = dict[str, list[tuple[str, DeviceProfile]]]


def devices_by_family(
    table: GameTable, profiles: ProfileShelf, *, skip_unloadable: bool = False
) -> Families:
    """The table's devices grouped by their profile's family, each profile looked up on
    the box's shelf (the site's profiles first). `floord check` skips a profile it cannot
    load (it reported it already); the daemon's config is checked."""
    found: Families = {}
    for device in table.devices:
        try:
            profile = profiles.load(device.profile)
        except ProfileError:
            if skip_unloadable:
                continue
            raise
        found.setdefault(profile.family, []).append((device.id, profile))
    return found


def slot_problems(
    families: Families, wanted: dict[str, int | None], where: str, why: str
) -> list[str]:
    """A problem for each family whose device count is not the one the rules need
    (None: any number)."""
    problems = []
    for family, count in wanted.items():
        found = len(families.get(family, []))
        if count is not None and found != count:
            problems.append(
                f"{where}.devices: {count} {family.replace('_', ' ')} device(s) expected "
                f"for {why}, found {found}"
            )
    return problems


def card_table_problems(
    families: Families,
    where: str,
    *,
    game: str,
    shuffler: str,
    shoes: int,
    make_rules: Callable[[], object],
) -> list[str]:
    """What a card table's config gets wrong, shared by Poker, War and the carnival games:
    `shoes` dealing shoes, a card shuffler unless `shuffler: none` (a device of a family
    the game does not take is refused at its entry, `GameDefinition.family_problem`);
    then the rules: `make_rules` makes the engine's rules value, which checks itself
    against the chapter (a `ValueError` is a problem of `where.rules`)."""
    wanted: dict[str, int | None] = {
        "dealing_shoe": shoes,
        "card_shuffler": 0 if shuffler == "none" else 1,
    }
    problems = slot_problems(families, wanted, where, f"{game} with shuffler {shuffler!r}")
    try:
        make_rules()
    except ValueError as exc:
        problems.append(f"{where}.rules: {exc}")
    return problems


def dice_count(profile: DeviceProfile) -> str:
    """How many dice a dice device's profile says it reads, in a message's words."""
    return "no count of dice" if profile.dice is None else f"{profile.dice} dice"


def first_device(families: Families, family: str) -> str | None:
    """The id of the table's device of that family, None when it has none."""
    devices = families.get(family, [])
    return devices[0][0] if devices else None


class SurveillanceSettings(Protocol):
    """What the live wheel tests read of the config's `surveillance:` section."""

    @property
    def window(self) -> int: ...
    @property
    def level(self) -> float: ...
    @property
    def dealer_window(self) -> int: ...
    @property
    def dealer_bins(self) -> int: ...
    @property
    def shooter_window(self) -> int: ...
    @property
    def shooter_bins(self) -> int: ...


@dataclass(frozen=True)
class Wheel:
    """A wheel game's statistics: its setup from the table's rules (window, level,
    sectors or None for the game's default, dealer window and bins), and which setting
    of `surveillance:` gives the sectors of its live tests."""

    setup: Callable[[Any, int, float, int | None, int, int], WheelSetup]
    sectors_setting: str


def _no_check(table: Any, where: str, families: Families) -> list[str]:
    return []


def _no_device_check(profile: DeviceProfile) -> str | None:
    return None


def _no_options(table: Any, family: str) -> dict[str, Any]:
    return {}


@dataclass(frozen=True)
class GameDefinition:
    """One game (or family of games sharing an engine and a config model)."""

    # The table's config model: `game` a Literal of the names it plays, `rules` its options.
    table: type[GameTable]
    # Its engine from the table, its devices by family, and the arguments every engine
    # takes (required_devices, gaming_day_starts, timezone, snapshot).
    build_engine: Callable[[Any, Families, dict[str, Any]], TableEngine]
    # The device families its engine takes events from. A device of any other family is
    # refused at its entry (`family_problem`): the engine would record each of its events
    # as an unknown device event, and, the device being required, its fault would halt
    # the table.
    families: frozenset[str]
    # Why a family a reader might expect the game to take is not among `families`
    # (floord's policy, or a paragraph the seeds do not contain), by family.
    refused: Mapping[str, str] = field(default_factory=dict)
    # `floord check`: the rules and device slots, after each field is valid. Problems
    # start with `where` (`FILE: tables.N`).
    check: Callable[[Any, str, Families], list[str]] = _no_check
    # A device whose profile does not fit the game, said as "X expected, found Y".
    device_check: Callable[[DeviceProfile], str | None] = _no_device_check
    # What a driver of that family must know of the table's rules to judge its bytes.
    driver_options: Callable[[Any, str], dict[str, Any]] = _no_options
    wheel: Wheel | None = field(default=None)
    # Its rolls run the live dice tests (`floord/analytics/dice_watch.py`): Craps.
    dice_watch: bool = False

    def family_problem(self, game: str, device: str, profile: DeviceProfile) -> str | None:
        """A device whose family the engine takes no events from, said as "X expected
        (why), found Y"; None when the engine takes it."""
        if profile.family in self.families:
            return None
        takes = " or ".join(
            ", ".join(f"{f.replace('_', ' ')}'s" for f in sorted(self.families)).rsplit(", ", 1)
        )
        why = self.refused.get(profile.family)
        return (
            f"a {takes} profile on a {game.replace('_', ' ')} table expected"
            f"{f' ({why})' if why else ''}, found device {device!r} of profile "
            f"{profile.model!r} ({profile.family})"
        )

    @property
    def games(self) -> tuple[str, ...]:
        """The `game:` values this definition plays, from its model's Literal."""
        return tuple(get_args(self.table.model_fields["game"].annotation))
