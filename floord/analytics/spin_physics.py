"""The spin physics tests of one Roulette wheel, from what its device measures.

What a wheel reports (`docs/analytics.md`, "Spin physics"): a Cammegh SS2 sends the
rotor's direction and speed in every status frame, but nothing of the ball's speed or
its revolutions (only flag 2, a ball launched with the rotor); a sensor kit on a manual
wheel sends the rotor's direction and speed, the ball's revolutions on the track and,
with a rotor encoder, the release pocket. Each test below runs only on the spins that
carry its measurement:

- `rotor_direction`: the rotor turned the same way as in the game before. § 531.6(a)
  (58 Pa. Code) requires the ball to be spun opposite to the rotor, not the rotor to
  change direction; changing it every game, so a dealer cannot settle into one rhythm,
  is floord's policy (a table setting, off for a wheel that turns one way by design).
  Only results of consecutive games are compared (spin numbers one apart): a void or
  a gap in between may have turned the rotor in either direction.
- `rotor_speed`, `ball_revolutions` and `ball_speed` (a kit's laps over the time
  between the first and the last, `floord.engine.roulette.ball_speed`; off with
  `ball_speed: false` for a kit whose link delays its frames): the spin's measurement
  against an envelope
  learned on the wheel itself, the median of its last `envelope_spins` spins plus or
  minus `envelope_k` robust standard deviations (1.4826 times the median absolute
  deviation; 1.2533 times the mean absolute deviation when over half the spins measured
  the same, as a lap count often does), never narrower than `envelope_min` of the
  median. A ball spun much too hard laps the track many more times, and faster; a
  rotor far off its usual speed is a wheel to look at.
- `drop_zone`: the clockwise distance in pockets from the release pocket to the result,
  over the wheel's last `drop_zone_window` spins (all dealers together), in
  `drop_zone_bins` arcs, against uniform (Pearson chi-square, as the dealer signature
  test does per dealer): a wheel that drops the ball in the same zone of the rotor.

Each raises once per excursion, as the wheel's chi-square tests do.
"""

from __future__ import annotations

from bisect import insort
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import median
from typing import Any

from floord.analytics.dealer_signature import DealerSignature
from floord.analytics.saved_state import field, numbers, optional
from floord.analytics.sliding_chi_square import RunningTest
from floord.engine.core.copies import Fixed

SS2_LAST = 256  # an SS2's game counter runs 1 to 256, then wraps
MAD_TO_SD = 1.4826  # the median absolute deviation of a normal sample, times this, is its sd
MEAN_AD_TO_SD = 1.2533  # and its mean absolute deviation, times this


@dataclass(frozen=True)
class SpinSettings(Fixed):
    """How a table's spin physics tests are tuned (0 turns a test off)."""

    rotor_run: int = 2  # results of consecutive games turning the same way (0: off)
    envelope_spins: int = 100  # spins the envelope is learned on (0: off)
    envelope_k: float = 6.0
    envelope_min: float = 0.1  # the narrowest half-width, a fraction of the median
    drop_zone_window: int = 300
    drop_zone_bins: int = 8  # 0: off
    ball_speed: bool = True  # the envelope of the ball's speed (a kit's lap times)

    def __post_init__(self) -> None:
        if self.rotor_run == 1 or not 0 <= self.rotor_run <= 100:
            raise ValueError(f"rotor_run: 0 (off) or 2 to 100 expected, found {self.rotor_run}")
        if self.envelope_spins and not 20 <= self.envelope_spins <= 10_000:
            raise ValueError(
                f"envelope_spins: 0 (off) or 20 to 10000 expected, found {self.envelope_spins}"
            )
        if not self.envelope_k > 0 or not 0 <= self.envelope_min < 1:
            raise ValueError(
                "envelope_k > 0 and 0 <= envelope_min < 1 expected, found "
                f"{self.envelope_k}, {self.envelope_min}"
            )


class RotorAlternation:
    """Runs of results of consecutive games whose rotor turned the same way."""

    def __init__(self, run: int) -> None:
        self.run = run
        self._last: tuple[int, str] | None = None
        self._length = 0
        self.armed = True

    def state(self) -> dict[str, Any]:
        last = None if self._last is None else list(self._last)
        return {"last": last, "length": self._length, "armed": self.armed}

    def load(self, state: Any) -> None:
        last, length = optional(state, "last", list), field(state, "length", int)
        armed = field(state, "armed", bool)
        if last is not None and (
            len(last) != 2 or type(last[0]) is not int or last[1] not in ("cw", "ccw")
        ):
            raise ValueError("a saved rotor run needs the last game's spin and direction")
        if length < 0:
            raise ValueError("a saved rotor run's length is negative")
        self._last = None if last is None else (last[0], last[1])
        self._length, self.armed = length, armed

    def add(self, spin: Any, direction: Any) -> list[dict[str, Any]]:
        if direction not in ("cw", "ccw") or isinstance(spin, bool) or not isinstance(spin, int):
            self._last, self._length = None, 0
            return []
        last, self._last = self._last, (spin, direction)
        consecutive = last is not None and (spin == last[0] + 1 or (spin, last[0]) == (1, SS2_LAST))
        if consecutive and last is not None and last[1] == direction:
            self._length += 1
        else:
            self._length = 1
            self.armed = True
        if self._length < self.run or not self.armed:
            return []
        self.armed = False
        return [
            {
                "test": "rotor_direction",
                "statistic": self._length,
                "run": self._length,
                "direction": direction,
                "spin": spin,
                "summary": f"the rotor turned {direction} in {self._length} consecutive games "
                "(floord's policy: it changes direction every game)",
            }
        ]


class Envelope:
    """One measurement against the envelope learned on the wheel's last spins."""

    def __init__(self, test: str, spins: int, k: float, least: float) -> None:
        self.test, self.spins, self.k, self.least = test, spins, k, least
        self._recent: deque[float] = deque()
        self._sorted: list[float] = []
        self.armed = True

    def state(self) -> dict[str, Any]:
        return {"recent": list(self._recent), "armed": self.armed}

    def load(self, state: Any) -> None:
        recent = numbers(field(state, "recent", list), f"{self.test} envelope")
        if len(recent) > self.spins:
            raise ValueError(f"a saved {self.test} envelope holds more than its spins")
        self.armed = field(state, "armed", bool)
        self._recent = deque(recent)
        self._sorted = sorted(recent)

    def bounds(self) -> tuple[float, float, float, float] | None:
        """(median, robust sd, low, high) once the reference is full, else None."""
        if len(self._recent) < self.spins:
            return None
        mid = median(self._sorted)
        deviations = [abs(v - mid) for v in self._sorted]
        scale = MAD_TO_SD * median(deviations)
        if scale == 0:  # over half the spins measured the same (a count, a rounded speed)
            scale = MEAN_AD_TO_SD * sum(deviations) / len(deviations)
        half = max(self.k * scale, self.least * abs(mid))
        return mid, scale, mid - half, mid + half

    def add(self, value: Any) -> list[dict[str, Any]]:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return []
        value = float(value)
        found = self._judge(value)
        self._recent.append(value)
        insort(self._sorted, value)
        if len(self._recent) > self.spins:
            self._sorted.remove(self._recent.popleft())
        return found

    def _judge(self, value: float) -> list[dict[str, Any]]:
        bounds = self.bounds()
        if bounds is None:
            return []
        mid, scale, low, high = bounds
        if low <= value <= high:
            self.armed = True
            return []
        if not self.armed:
            return []
        self.armed = False
        side = "above" if value > high else "below"
        z = (value - mid) / scale if scale > 0 else None
        return [
            {
                "test": self.test,
                "statistic": value,
                "value": value,
                "median": mid,
                "robust_sd": round(scale, 6),
                "z": None if z is None else round(z, 3),
                "envelope": [round(low, 6), round(high, 6)],
                "window": self.spins,
                "side": side,
                "summary": f"{self.test.replace('_', ' ')} {value:g} {side} the wheel's envelope "
                f"{low:.4g} to {high:.4g} (median {mid:g} of its last {self.spins} spins)",
            }
        ]


class DropZone:
    """Release-to-result distances of the wheel's spins, all dealers together."""

    def __init__(self, kind: str, order: Sequence[str], window: int, level: float, bins: int):
        self._geometry = DealerSignature(kind, order, window, level, bins)
        self.test = RunningTest("drop_zone", self._geometry.categories, window, level)

    def state(self) -> dict[str, Any]:
        return self.test.state()

    def load(self, state: Any) -> None:
        self.test.load(state)

    def add(self, release: Any, result: str) -> list[dict[str, Any]]:
        if not isinstance(release, str):
            return []
        found = self.test.push(self._geometry.arc(release, result))
        if found is None:
            return []
        top = ", ".join(c["label"] for c in found["over_represented"])
        return [
            {
                **found,
                "summary": f"drop zone test p = {found['p_value']:.3g} over "
                f"{found['window']} spins; distances over-represented: {top}",
            }
        ]
