"""The demo's dice tables: Craps CR-01 (a camera dice tracker) and Pai Gow PG-01 (a shaker).

Like the Big Six wheel (`big_six_table`), each device is an FLF/1 simulator in this
process on its own pty, its clock at `DEVICE_SPEED`, and it throws nothing by itself: its
scenario only reports the dice at the table (CR-01's five, § 537.7(a)) and then stands
still. The dice are thrown by the crew's hand (`DeviceHand`: the next throw, injected into
the running simulator through its live control, as a rig engineer would), and only
after the table has recorded what came before (`dice_dealer`): however loaded the
machine, a throw never races the calls the script expects before it.

CR-01's shooter (`SHOOTER_THROWS`) plays the come out to the loser 7 in thirteen
throws: an invalid roll first, a die off the table (§ 537.9(a)); points made on 4, 5, 6
and 8, so the Fire Bet's four unique points notify surveillance (§ 537.12(a)(6)); the
first throw that makes the 5, called at once, judged improper by the boxperson, whose
"no roll" reverses the roll (§ 537.9(b)(6), (d)(1)): the point 5 is on again and the
next throw makes it; a throw whose dice left the hand apart, held and called "no roll"
by the boxperson (§ 537.9(b)(1), (d)(1)); then a point of 9 and the loser 7 that passes the dice
(§ 537.11(a)(1)) and settles the Fire Bet (§ 537.12(a)(5)). The next shooter plays the
same. PG-01 shakes three dice before each hand (§ 535.2(d)); the dealer deals from the
position they name (`SHAKES`).
"""

from __future__ import annotations

import json
from typing import Any

from floord_demo.card_devices import DEVICE_SPEED, POWER_ON_QUIET_S
from floord_demo.pty_device import PtyDevice

CRAPS_TABLE = "CR-01"
PAI_GOW_TABLE = "PG-01"
TRACKER_PROFILE = "ref-dice-tracker"
SHAKER_PROFILE = "ref-paigow-shaker"
DICE_SET = ["D1", "D2", "D3", "D4", "D5"]  # the fewest § 537.7(a) allows
SHOOTERS_DICE = ["D2", "D4"]
FIRE_BET = {"seat": 3, "amount": 5}  # brought in by the dealer before each come out
SHOOTER_SEATS = (1, 2, 4, 5)  # the dice go round the table, one shooter after another
# Pai Gow: the positions counted around the table, the dealer counted 1 (the Rules
# Submission's `count_order`, § 535.2(d) saying only that the dice decide).
COUNT_ORDER: list[int | str] = ["dealer", 1, 2, 3, 4, 5, 6]
IDLE_S = 60.0  # real seconds of one idle step: the dice rest between throws
THROW_S = 0.3  # real seconds the dice are in the air
GAP_S = 0.5  # real seconds the crew waits after a decision before the next throw


def _throw(faces: tuple[int, int], *, together: bool = True) -> dict[str, Any]:
    throw: dict[str, Any] = {"faces": list(faces), "seconds": THROW_S * DEVICE_SPEED}
    if not together:
        throw["together"] = False
    return {"throw": throw}


def _off_the_table(face: int) -> dict[str, Any]:
    """The second die leaves the table: an invalid roll (§ 537.9(a))."""
    dice = [{"face": face}, {"rest": "off"}]
    return {"throw": {"dice": dice, "seconds": THROW_S * DEVICE_SPEED}}


# The throw the boxperson considers improper (§ 537.9(b)(6)): floord calls it at once (the
# point 5 made), then the boxperson's "no roll" voids the roll and all it decided.
IMPROPER_THROW = _throw((1, 4))
# One shooter, come out to loser 7 (the module's docstring says what each throw shows).
SHOOTER_THROWS: list[dict[str, Any]] = [
    _off_the_table(5),
    _throw((2, 2)),  # point 4
    _throw((1, 3)),  # made: unique point 1
    _throw((2, 3)),  # point 5
    IMPROPER_THROW,  # made, called at once; "no roll" reverses it: the point 5 is on again
    _throw((1, 4)),  # made: 2
    _throw((3, 3)),  # point 6
    _throw((5, 2), together=False),  # held: the boxperson calls "no roll"
    _throw((2, 4)),  # made: 3
    _throw((4, 4)),  # point 8
    _throw((5, 3)),  # made: 4, surveillance notified
    _throw((4, 5)),  # point 9
    _throw((3, 4)),  # loser 7: the dice pass
]
# Pai Gow shakes, one per hand: totals naming different positions around the table.
SHAKES: list[list[int]] = [[4, 2, 6], [1, 1, 2], [6, 5, 4], [2, 2, 2], [3, 1, 1], [5, 6, 6]]


def shake_steps() -> list[dict[str, Any]]:
    """The shaker's throws the dealer gives, one per hand; the hand starts over after."""
    return [{"throw": {"faces": faces, "seconds": THROW_S * DEVICE_SPEED}} for faces in SHAKES]


def select_step() -> dict[str, Any]:
    """The new shooter takes two dice of the set (§ 537.7(c))."""
    return {"select": {"dice": list(SHOOTERS_DICE)}}


def tracker_scenario() -> dict[str, Any]:
    """CR-01's tracker: the dice at the table reported at power-on (and again each
    `IDLE_S`, the same five: recorded, nothing changed), else still until thrown."""
    return {
        "power_on_quiet": POWER_ON_QUIET_S * DEVICE_SPEED,
        "loop": True,
        "steps": [{"dice_set": {"dice": list(DICE_SET)}}, {"idle": IDLE_S * DEVICE_SPEED}],
    }


def shaker_scenario() -> dict[str, Any]:
    """PG-01's shaker: still (heartbeats only) until the dealer shakes it."""
    return {
        "power_on_quiet": POWER_ON_QUIET_S * DEVICE_SPEED,
        "loop": True,
        "steps": [{"idle": IDLE_S * DEVICE_SPEED}],
    }


def build_simulator(profile: str) -> Any:
    """The tracker's or shaker's simulator, its scenario validated against the model."""
    from floord.profiles import load_profile
    from simulators.flf1.dice_tracker import DiceTrackerSimulator

    body = tracker_scenario() if profile == TRACKER_PROFILE else shaker_scenario()
    scenario = DiceTrackerSimulator.SCENARIO.model_validate(body)
    return DiceTrackerSimulator(load_profile(profile), scenario, speed=DEVICE_SPEED)


def craps_config(port: str) -> dict[str, Any]:
    """CR-01's entry in the demo's config: Craps with the Fire Bet's Table A (§ 537.5(g))."""
    return {
        "id": CRAPS_TABLE,
        "game": "craps",
        "rules": {"fire_bet": "A"},
        "devices": [{"id": "dice", "profile": TRACKER_PROFILE, "port": port}],
    }


def pai_gow_config(port: str) -> dict[str, Any]:
    """PG-01's entry in the demo's config: the count order of its Rules Submission."""
    return {
        "id": PAI_GOW_TABLE,
        "game": "pai_gow",
        "rules": {"count_order": list(COUNT_ORDER)},
        "devices": [{"id": "shaker", "profile": SHAKER_PROFILE, "port": port}],
    }


DICE_GAMES = {CRAPS_TABLE: "craps", PAI_GOW_TABLE: "pai_gow"}
PROFILES = {CRAPS_TABLE: TRACKER_PROFILE, PAI_GOW_TABLE: SHAKER_PROFILE}


def dice_devices() -> dict[str, PtyDevice]:
    """Each dice table's device on its pty, not yet powered on, by table."""
    return {
        CRAPS_TABLE: PtyDevice(lambda: build_simulator(TRACKER_PROFILE)),
        PAI_GOW_TABLE: PtyDevice(lambda: build_simulator(SHAKER_PROFILE)),
    }


class DeviceHand:
    """The crew's hand on one table's device: `give(step)` plays a scenario step (a throw, a
    selection) on the running simulator, through its live control channel's own parser
    and checks."""

    def __init__(self, device: PtyDevice, profile: str) -> None:
        self._device = device
        self._profile = profile

    def give(self, step: dict[str, Any]) -> str:
        """Play `step` now; the control channel's reply (`ok ...` or `error: ...`)."""
        from simulators.control import Controller

        simulator = self._device.simulator
        if simulator is None:
            return "error: the device is not powered on"
        reply = Controller(simulator, self._profile).handle(json.dumps(step))
        return reply or "error: no reply"
