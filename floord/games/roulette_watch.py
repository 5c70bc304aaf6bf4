"""A Roulette table's pace band and spin physics tuning, as its config sets them.

Both are table settings, not floor-wide ones: a live studio's automatic wheel deals
about 76 rounds an hour, a busy manual table half that, and only some wheels report
what the spin physics tests read (`docs/analytics.md`). A table without the key runs
neither test; `pace: {}` or `spin_physics: {}` runs it with the defaults below.
"""

from __future__ import annotations

import math

from pydantic import Field, model_validator

from floord.analytics.pace import PaceSettings
from floord.analytics.spin_physics import SpinSettings
from floord.games.table_model import StrictModel


class PaceConfig(StrictModel):
    """Rounds an hour, per table and per dealer, against `low`..`high`."""

    low: float = Field(default=PaceSettings.low, gt=0, le=1_000_000)
    high: float = Field(default=PaceSettings.high, gt=0, le=1_000_000)
    window: int = Field(default=PaceSettings.window, ge=3, le=10_000)
    break_s: float = Field(default=PaceSettings.break_s, gt=0, le=86_400)

    @model_validator(mode="after")
    def _band(self) -> PaceConfig:
        if self.low >= self.high:
            raise ValueError(f"low ({self.low:g}) must be below high ({self.high:g})")
        return self

    def settings(self) -> PaceSettings:
        return PaceSettings(self.low, self.high, self.window, self.break_s)


class SpinPhysicsConfig(StrictModel):
    """The rotor direction, envelope and drop zone tests (0 turns one off)."""

    rotor_run: int = Field(default=SpinSettings.rotor_run, ge=0, le=100)
    envelope_spins: int = Field(default=SpinSettings.envelope_spins, ge=0, le=10_000)
    envelope_k: float = Field(default=SpinSettings.envelope_k, gt=0, le=100)
    envelope_min: float = Field(default=SpinSettings.envelope_min, ge=0, lt=1)
    drop_zone_window: int = Field(default=SpinSettings.drop_zone_window, ge=40, le=100_000)
    drop_zone_bins: int = Field(default=SpinSettings.drop_zone_bins, ge=0, le=37)
    ball_speed: bool = SpinSettings.ball_speed

    @model_validator(mode="after")
    def _sizes(self) -> SpinPhysicsConfig:
        if self.rotor_run == 1:
            raise ValueError("rotor_run: 0 (off) or 2 or more games expected, found 1")
        if 0 < self.envelope_spins < 20:
            raise ValueError(
                f"envelope_spins: 0 (off) or 20 or more spins expected, found {self.envelope_spins}"
            )
        bins = self.drop_zone_bins
        if bins == 1:
            raise ValueError("drop_zone_bins: 0 (off) or from 2 to 37 arcs expected, found 1")
        if bins:
            least = min((pockets // bins) / pockets for pockets in (37, 38))
            if self.drop_zone_window * least < 5:
                raise ValueError(
                    f"{bins} drop zone arcs need a drop_zone_window of at least "
                    f"{math.ceil(5 / least)} spins (every arc must expect five), found "
                    f"{self.drop_zone_window}"
                )
        return self

    def settings(self) -> SpinSettings:
        return SpinSettings(
            self.rotor_run,
            self.envelope_spins,
            self.envelope_k,
            self.envelope_min,
            self.drop_zone_window,
            self.drop_zone_bins,
            self.ball_speed,
        )
