"""The demo's Big Six table B6-01: its simulated wheel sensor, scripted, on a pty.

Like the card devices (`card_devices`), the wheel is an FLF/1 simulator running in this
process, its clock at `DEVICE_SPEED` (the link's heartbeat and ACK timings scale with
it). A Big Six wheel is spun by the dealer's hand, after the call, so the simulated
wheel stands still until the virtual dealer (`big_six_dealer`) has called "no more bets"
with `spin` (58 Pa. Code § 533.2(a)) and the table has recorded the call; then the dealer
spins it (`BigSixHand`: the next spin of `SPINS`, injected into the running simulator
through its live control, as a rig engineer would). Nothing races: however loaded the
machine, the call is on the record before the wheel turns. The spins show what chapter
533 asks of a spin: valid spins settled with the section's odds, a clapper at rest on a
divider (the second § 533.2(c): no spin, spun again) and a spin of fewer than three
revolutions (§ 533.2(b): no spin, spun again).
"""

from __future__ import annotations

import json
from typing import Any

from floord_demo.card_devices import DEVICE_SPEED, POWER_ON_QUIET_S
from floord_demo.pty_device import PtyDevice

TABLE = "B6-01"
PROFILE = "ref-big-six"
IDLE_S = 60.0  # real seconds of one idle step: the wheel stands still between spins
GAP_S = 1.0  # real seconds the dealer waits after a rest before the next call
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


def spin_steps() -> list[dict[str, Any]]:
    """The spins the dealer's hand gives, in order (`simulators.flf1.big_six_scenarios`
    steps, wheel seconds); the hand starts over after the last."""
    return [_spin(*spin[:3], between=spin[3]) for spin in SPINS]


def scenario_body() -> dict[str, Any]:
    """The wheel's own scenario: it stands still (heartbeats only) until a hand spins it."""
    return {
        "power_on_quiet": POWER_ON_QUIET_S * DEVICE_SPEED,
        "loop": True,
        "steps": [{"idle": IDLE_S * DEVICE_SPEED}],
    }


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


class BigSixHand:
    """The dealer's hand on B6-01's wheel: each `spin()` gives the wheel the next spin of
    `SPINS`, through the simulator's live control channel's own parser and checks."""

    def __init__(self, device: PtyDevice) -> None:
        self._device = device
        self._next = 0

    def spin(self) -> str:
        """Spin the wheel; the control channel's reply (`ok ...` or `error: ...`)."""
        from simulators.control import Controller

        simulator = self._device.simulator
        if simulator is None:
            return "error: the wheel is not powered on"
        step = spin_steps()[self._next % len(SPINS)]
        self._next += 1
        reply = Controller(simulator, PROFILE).handle(json.dumps(step))
        return reply or "error: no reply"
