"""The demo's War table WR-01: a counting dealing shoe, scripted, on a pty.

Like the dice tables (`dice_tables`), the shoe is an FLF/1 simulator in this process,
its clock at `DEVICE_SPEED`, and it does nothing by itself: the crew's hand
(`dice_tables.DeviceHand`, the simulator's live control) loads the cut stack and draws
each round's cards only once the table has recorded what comes before (`war_dealer`).
Six decks are received, inspected deck by deck by the dealer and verified by the
floorperson (58 Pa. Code § 567.4(a)), shuffled by hand (§ 567.5(a)), cut by the first
player (§ 567.5(b)(1), the cover card at least 10 cards in, (d)), placed in the shoe
after the cut (§ 567.5(e)); then rounds of three boxes are dealt, a card each and the
dealer's. In every `ROUNDS_PER_SHOE`-th round the second cover card comes out on box
`COVER_BOX`: the round's end names it, the cards are reshuffled before the next round
(§ 567.5(g)) and that box's player is offered the cut (§ 567.5(b)(2)).
"""

from __future__ import annotations

from typing import Any

from floord_demo.card_devices import DEVICE_SPEED, POWER_ON_QUIET_S
from floord_demo.pty_device import PtyDevice

WAR_TABLE = "WR-01"
SHOE_PROFILE = "ref-shoe-manual"
DECKS = 6  # § 567.4(a): six or more
STACK = DECKS * 52
CUT_CARDS = 120  # the second cover card, well over 10 cards in (§ 567.5(d))
BOXES = [1, 2, 3]
ROUNDS_PER_SHOE = 4  # the second cover card comes out in every fourth round
COVER_BOX = 3  # the betting area it appears on: that box's player cuts next (b)(2)
IDLE_S = 60.0
DRAW_INTERVAL_S = 0.15  # real seconds between the cards of a round


def load_step() -> dict[str, Any]:
    """The cut stack placed in the shoe (§ 567.5(e))."""
    return {"load": {"side": "-", "cards": STACK}}


def draw_step() -> dict[str, Any]:
    """A round's cards: one to each box and one to the dealer."""
    return {"draw": {"count": len(BOXES) + 1, "interval": DRAW_INTERVAL_S * DEVICE_SPEED}}


def cover_card_step() -> dict[str, Any]:
    """The second cover card comes out of the shoe (§ 567.5(b)(2), (g))."""
    return {"cutting_card": {}}


def shoe_scenario() -> dict[str, Any]:
    """WR-01's shoe: still (heartbeats only) until the dealer loads it and draws."""
    return {
        "power_on_quiet": POWER_ON_QUIET_S * DEVICE_SPEED,
        "loop": True,
        "steps": [{"idle": IDLE_S * DEVICE_SPEED}],
    }


def build_simulator() -> Any:
    """The shoe's simulator, its scenario validated against the model."""
    from floord.profiles import load_profile
    from simulators.flf1.dealing_shoe import DealingShoeSimulator

    scenario = DealingShoeSimulator.SCENARIO.model_validate(shoe_scenario())
    return DealingShoeSimulator(load_profile(SHOE_PROFILE), scenario, speed=DEVICE_SPEED)


def war_config(port: str) -> dict[str, Any]:
    """WR-01's entry in the demo's config: six decks shuffled by hand."""
    return {
        "id": WAR_TABLE,
        "game": "war",
        "rules": {"decks": DECKS},
        "devices": [{"id": "shoe", "profile": SHOE_PROFILE, "port": port}],
    }


def war_shoe() -> PtyDevice:
    """WR-01's shoe on its pty, not yet powered on."""
    return PtyDevice(build_simulator)
