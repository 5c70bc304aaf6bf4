"""The models every table's config is made of: strict, frozen, and a table's devices.

Each game's table model (`floord/games/<game>.py`) is a `GameTable` with its own `game`
names, `rules` and device slots; the box's config (`floord/config/`) holds a list of them.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"
ID_WORDS = "an id of 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit"


class StrictModel(BaseModel):
    """Every config model: an unknown key is an error, and a loaded config is frozen."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class DeviceConfig(StrictModel):
    """A device of a table: on a port this box opens, or `adapter: remote` when its
    adapter runs as its own process (`floord adapter`) and reaches the daemon over MQTT.
    The profile is named either way: the engine needs the device's family and quirks.

    A remote device may also name its `port`: the port its adapter process opens on the
    adapter's host, so `floord adapter` (and the shipped `floord-adapter@.service`) runs
    from the same config the daemon reads. The daemon itself never opens it."""

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
        if self.port is None and self.adapter is None:
            raise ValueError("a port, or adapter: remote, expected, found neither")
        return self

    @property
    def remote(self) -> bool:
        return self.adapter == "remote"


class ShuffleQualityConfig(StrictModel):
    """The shuffle-quality tests of a table dealt from a card-recognition shoe
    (`floord.analytics.shuffle_watch`, docs/analytics.md): a level per test, the
    shortest run of cards that may be called a slug, the earlier shoes compared and
    the fewest cards a shoe must deal to be tested at its end."""

    enabled: bool = True
    level_slug: float = Field(default=0.001, gt=0, lt=0.5)
    level_correlation: float = Field(default=0.001, gt=0, lt=0.5)
    level_clumping: float = Field(default=0.001, gt=0, lt=0.5)
    min_slug: int = Field(default=5, ge=3, le=52)
    history: int = Field(default=8, ge=1, le=50)
    min_cards: int = Field(default=30, ge=10, le=1000)


class GameTable(StrictModel):
    """What every table has, whatever its game; a game's model narrows `game` to its
    names (the config's discriminator) and `rules` to its options."""

    id: str = Field(pattern=ID_PATTERN)
    game: str
    rules: BaseModel
    devices: list[DeviceConfig]
    # Run only where a shoe reads each card (`floord.games.shuffle`); ignored elsewhere.
    shuffle_quality: ShuffleQualityConfig = ShuffleQualityConfig()
