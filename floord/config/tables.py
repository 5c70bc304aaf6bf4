"""The tables a config can hold: each game's Rules Submission options and its devices.

Split from `floord/config/load.py` so that adding a game adds a model here; the checks
that need several fields or the device profiles stay in `config.py`'s cross-checks.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"


class StrictModel(BaseModel):
    """Every config model: an unknown key is an error, and a loaded config is frozen."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class DeviceConfig(StrictModel):
    """A device of a table: on a port this box opens, or `adapter: remote` when its
    adapter runs as its own process (`floord adapter`) and reaches the daemon over MQTT.
    The profile is named either way: the engine needs the device's family and quirks."""

    id: str = Field(pattern=ID_PATTERN)
    profile: str
    port: str | None = Field(default=None, min_length=1)
    adapter: Literal["remote"] | None = None
    required: bool = True
    # The USB identity `floord udev` matches to name the port /dev/floord/<table>-<device>
    # (docs/deployment.md, "udev"): the serial number, and optionally the hex ids.
    usb_serial: str | None = Field(default=None, pattern=r"^[A-Za-z0-9._:+-]{1,126}$")
    usb_vid: str | None = Field(default=None, pattern=r"^[0-9a-fA-F]{4}$")
    usb_pid: str | None = Field(default=None, pattern=r"^[0-9a-fA-F]{4}$")

    @model_validator(mode="after")
    def _port_or_remote(self) -> DeviceConfig:
        if (self.port is None) == (self.adapter is None):
            found = "both" if self.port is not None else "neither"
            raise ValueError(f"exactly one of port or adapter: remote expected, found {found}")
        return self

    @property
    def remote(self) -> bool:
        return self.adapter == "remote"


class RouletteRules(StrictModel):
    """Rules Submission options of a Roulette table (58 Pa. Code § 521.2, ch. 531)."""

    wheel: Literal["single_zero", "double_zero", "double_zero_as_single"]


class CardTableRules(StrictModel):
    """Rules Submission options of a Blackjack or Spanish 21 table (58 Pa. Code ch. 549, 551).

    Checks that need the game (six or eight decks for Spanish 21) are in `_cross_checks`.
    """

    decks: int = Field(ge=1, le=8, description="decks in the shoe; in each side of a double shoe")
    shoe: Literal["single", "double"] = "single"
    # § 549.7(d)(1): the suits that tell which side a round is dealt from.
    hearts_diamonds_side: Literal["left", "right"] = "left"
    shuffler: Literal["none", "batch", "continuous"] = "none"
    # § 549.3(d)(2): the two batches' back colours (or ids), alternated in and out of play.
    batch_backs: list[str] | None = None
    boxes: int = Field(default=7, ge=1, le=9)
    max_adjacent_boxes: int = Field(default=2, ge=1, le=9, description="§ 549.14")
    deck_change_warn_minutes: int = Field(default=60, ge=0, le=24 * 60)
    # Spanish 21's additional payouts (§ 551.6(g), (h): not in floord's sources), each
    # {name, paragraph, odds, cards | min_cards | ranks, suits}; checked by the engine's
    # `spanish21.pay_table_problems` in `_cross_checks`.
    spanish21_payouts: list[dict[str, Any]] | None = None


class RouletteTableConfig(StrictModel):
    id: str = Field(pattern=ID_PATTERN)
    game: Literal["roulette"]
    rules: RouletteRules
    devices: list[DeviceConfig] = Field(min_length=1)


class CardTableConfig(StrictModel):
    id: str = Field(pattern=ID_PATTERN)
    game: Literal["blackjack", "spanish21"]
    rules: CardTableRules
    devices: list[DeviceConfig] = Field(min_length=1)


class BaccaratRules(StrictModel):
    """Rules Submission options of a Mini-, Midi- or Baccarat table (ch. 541, 543, 545)."""

    decks: int = Field(default=8, ge=6, le=8, description="decks in the shoe")
    vigorish_percent: Literal[4, 5] = 5  # § 545.13(c)
    ez_baccarat: bool = False  # § 545.8, § 545.13(d): the Dragon 7
    dragon_bonus_table: Literal["A", "B", "C"] | None = None  # § 541.13(d)
    tie_pays: int = Field(default=8, ge=8)  # § 545.13(b): at least 8 to 1
    # § 545.13(f): vigorish collected with the payout, or deferred (collected before a new shoe).
    vigorish_collection: Literal["at_payout", "deferred"] = "at_payout"


class BaccaratTableConfig(StrictModel):
    id: str = Field(pattern=ID_PATTERN)
    game: Literal["minibaccarat", "midibaccarat", "baccarat"]
    rules: BaccaratRules = BaccaratRules()
    devices: list[DeviceConfig] = Field(min_length=1)


class StudRules(StrictModel):
    """Rules Submission options of a Mississippi Stud table (ch. 571).

    Which combinations chapter 571 allows (cards dealt from the hand need a shuffler,
    § 571.9(a)(1); two decks need two back colours, § 571.3(b)) is checked by the
    engine's own rule table in `_cross_checks`.
    """

    dealing: Literal["hand", "manual_shoe", "automated_shoe"] = "hand"  # § 571.8 to 571.10
    shuffler: Literal["none", "counting", "non_counting"] = "counting"
    decks: Literal[1, 2] = 1
    deck_backs: list[str] | None = None
    boxes: int = Field(default=6, ge=1, le=6)  # § 571.2(a)
    aggregate_payout_limit: int = Field(default=50_000, ge=50_000)  # § 571.12(b)
    deck_change_warn_minutes: int = Field(default=30, ge=0, le=240)


class StudTableConfig(StrictModel):
    id: str = Field(pattern=ID_PATTERN)
    game: Literal["mississippi_stud"]
    rules: StudRules = StudRules()
    devices: list[DeviceConfig] = Field(default_factory=list)


class CarnivalRules(StrictModel):
    """Rules of a carnival poker table (ch. 555-565: only § 55x.4, § 55x.5 are in our seeds).

    Two decks are used with an automated shuffler (§ 55x.4(d)); the engine's own rule
    table checks that in `_cross_checks`.
    """

    shuffler: Literal["none", "counting", "non_counting"] = "counting"  # § 55x.5(a), (b)
    decks: Literal[1, 2] = 1
    deck_backs: list[str] | None = None
    boxes: int = Field(default=7, ge=1, le=7)


class CarnivalTableConfig(StrictModel):
    id: str = Field(pattern=ID_PATTERN)
    game: Literal[
        "caribbean_stud",
        "four_card_poker",
        "let_it_ride",
        "pai_gow_poker",
        "texas_holdem_bonus",
        "three_card_poker",
    ]
    rules: CarnivalRules = CarnivalRules()
    devices: list[DeviceConfig] = Field(default_factory=list)


class BigSixRules(StrictModel):
    """A Big Six wheel's layout (58 Pa. Code § 533.1): 54 symbols clockwise from the joker
    (default: the order of § 533.1(b)), and approved themed symbols (§ 533.1(c)) mapped to
    the pay class each stands for (`$1`, `$2`, `$5`, `$10`, `$20`, `flag`, `joker`).
    The counts and the order are checked by the engine's layout module in `_cross_checks`."""

    layout: list[str] | None = None
    symbols: dict[str, str] | None = None


class BigSixTableConfig(StrictModel):
    id: str = Field(pattern=ID_PATTERN)
    game: Literal["big_six"]
    rules: BigSixRules = BigSixRules()
    devices: list[DeviceConfig] = Field(min_length=1)


GAMES = (
    "roulette",
    "blackjack",
    "spanish21",
    "minibaccarat",
    "midibaccarat",
    "baccarat",
    "mississippi_stud",
    "caribbean_stud",
    "four_card_poker",
    "let_it_ride",
    "pai_gow_poker",
    "texas_holdem_bonus",
    "three_card_poker",
    "big_six",
)
TableConfig = Annotated[
    RouletteTableConfig
    | CardTableConfig
    | BaccaratTableConfig
    | StudTableConfig
    | CarnivalTableConfig
    | BigSixTableConfig,
    Field(discriminator="game"),
]
