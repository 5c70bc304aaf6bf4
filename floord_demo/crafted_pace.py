"""What the demo's manual wheel RL-03 does wrong on purpose for the pace and spin
physics tests (`docs/analytics.md`), once each run, after its sector alert.

- The rotor does not change direction: the first result from spin `SLIP_AT` on whose
  spin followed a result turns the rotor the way the spin before it did (the ball still
  against it, so the spin is valid), and the rotor direction test alerts on it.
- A slow dealer: after each of the `SLOW_SPINS` spins from `SLOW_FROM` the dealer waits
  `SLOW_GAP_S` real seconds, whatever the time-lapse, so `PACE["window"]` intervals in a
  row fall below the band and the pace test alerts (for the table, and for the dealer
  who signed in).

RL-03 runs in time-lapse, a spin every few hundredths of a second, so its band is in
time-lapse terms too (`PACE`): from one round a second up. The ball speed envelope is
off (`SPIN_PHYSICS`): a time-lapse kit's laps come a millisecond or two apart, timed by
a busy demo process, and are no measure of the ball. Both come after result 300, past
the spins the sector test needs (270), so they do not delay the demo's first alert.
"""

from __future__ import annotations

from typing import Any

SLIP_AT = 300
SLOW_FROM = 320
SLOW_SPINS = 4
SLOW_GAP_S = 1.5
PACE: dict[str, Any] = {"low": 3600, "high": 1_000_000, "window": 3}
SPIN_PHYSICS: dict[str, Any] = {"ball_speed": False}


def slipped(spin: dict[str, Any], previous: dict[str, Any]) -> dict[str, Any]:
    """`spin` with its rotor turning the way the `previous` spin's did, the ball against."""
    rotor = previous["rotor"]
    return {**spin, "rotor": rotor, "ball": "ccw" if rotor == "cw" else "cw"}


def pause_after(n: int) -> float:
    """Real seconds the dealer waits after spin `n`, on top of the usual gap."""
    return SLOW_GAP_S if SLOW_FROM <= n < SLOW_FROM + SLOW_SPINS else 0.0
