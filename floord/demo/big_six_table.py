"""The demo's Big Six table B6-01: its simulated wheel sensor, scripted, on a pty.

Like the card devices (`card_devices`), the wheel is an FLF/1 simulator running in this
process, its clock at `DEVICE_SPEED` (the link's heartbeat and ACK timings scale with
it). The wheel spins on a fixed script; the virtual dealer (`big_six_dealer`) calls "no
more bets" with `spin` (58 Pa. Code § 533.2(a)) as soon as the table is open with no
round in play, so each call comes in the pause before the next spin. The script shows
what chapter 533 asks of a spin: valid spins settled with the section's odds, a clapper
at rest on a divider (the second § 533.2(c): no spin, spun again) and a spin of fewer
than three revolutions (§ 533.2(b): no spin, spun again).
"""

from __future__ import annotations

from typing import Any

from floord.demo.card_devices import DEVICE_SPEED, POWER_ON_QUIET_S
from floord.demo.pty_device import PtyDevice

TABLE = "B6-01"
PROFILE = "ref-big-six"
OPENING_S = 4.0  # real seconds the wheel stands still after power-on: the table opens
GAP_S = 1.0  # real seconds between a rest and the next spin: the dealer calls in them
SPIN_S = 1.0  # real seconds a spin takes


def _spin(section: int, revolutions: int, direction: str, *, between: bool = False) -> dict:
    spin: dict[str, Any] = {
        "direction": direction,
        "revolutions": revolutions,
        "section": section,
        "seconds": SPIN_S * DEVICE_SPEED,
    }
    if between:
        spin["between"] = True
    return {"spin": spin}


# (section, revolutions, direction, on a divider): the layout is § 533.1(b)'s order.
SPINS: list[tuple[int, int, str, bool]] = [
    (13, 4, "cw", False),  # $20, 20 to 1
    (20, 3, "ccw", True),  # on the divider between 20 and 21: no spin, re-spun
    (0, 5, "cw", False),  # the joker, 45 to 1
    (7, 2, "ccw", False),  # two revolutions only: no spin, re-spun
    (1, 4, "cw", False),  # $1, 1 to 1
    (27, 3, "ccw", False),  # the flag, 45 to 1
]


def scenario_body() -> dict[str, Any]:
    """The wheel's scenario (`simulators.flf1.big_six_scenarios`, wheel seconds): stand still
    while the table opens, then the spins, a pause before each; loops for ever."""
    steps: list[dict[str, Any]] = [{"idle": OPENING_S * DEVICE_SPEED}]
    for section, revolutions, direction, between in SPINS:
        steps.append(_spin(section, revolutions, direction, between=between))
        steps.append({"idle": GAP_S * DEVICE_SPEED})
    return {"power_on_quiet": POWER_ON_QUIET_S * DEVICE_SPEED, "loop": True, "steps": steps}


def build_simulator() -> Any:
    """The wheel's simulator, its scenario validated against the model."""
    from floord.profiles import load_profile
    from simulators.flf1.big_six import BigSixSimulator

    scenario = BigSixSimulator.SCENARIO.model_validate(scenario_body())
    return BigSixSimulator(load_profile(PROFILE), scenario, speed=DEVICE_SPEED)


def table_config(port: str) -> dict[str, Any]:
    """B6-01's entry in the demo's config (`docs/configuration.md`): the § 533.1(b) layout."""
    return {
        "id": TABLE,
        "game": "big_six",
        "devices": [{"id": "wheel", "profile": PROFILE, "port": port}],
    }


def big_six_wheel() -> PtyDevice:
    """B6-01's wheel on its pty, not yet powered on."""
    return PtyDevice(build_simulator)
