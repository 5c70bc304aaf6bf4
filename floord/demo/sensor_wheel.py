"""The demo's manual wheel RL-03: a single-zero wheel with the sensor kit, biased
and time-lapsed, so that the live surveillance (`docs/analytics.md`) catches it.

The kit (`ref-wheel-sensor`, `simulators/flf1/wheel_sensor.py`) runs in the demo's process on
its own pty. Its scenario is generated here with a fixed seed (`SEED`): the wheel stands
still while the table opens (the virtual dealer signs in with `dealer_in` then), then
spins in time-lapse, a spin every `SPIN_S + GAP_S` seconds, each only `ROT`, `BAL` (with
the release pocket, for the dealer signature test), four `REV`, `NMB` and `POC`.
The FLF/1 link sends one frame at a time and waits for the daemon's `ACK`, so the wheel
never outruns the daemon: on a busy machine it simply spins slower.

The bias: a tilted rotor favours one arc of the wheel, `FAVOURED` (one of the eight
sector-test arcs of § 531.1(b)'s order): one result in four comes from it (25 %; 5 of 37
pockets, 13.5 %, on a fair wheel). Every group of four results holds one from the arc,
at a seeded place, and every block of `BLOCK` results holds each favoured pocket 5 times
and each other pocket 2 or 3 times, in a seeded order. So any `SURVEILLANCE["window"]`
consecutive results hold 67 or 68 from the arc, enough for the sector test (p < 0.001)
whenever the table opened; no single pocket stands out, and the pocket test sees nothing
unusual. The bias is that strong, and the wheel that fast, because the window cannot be
smaller: with a Big Six wheel on the floor, its pocket test needs 270 results (the joker
is 1 of 54 sections, and each cell must expect five).

Now and then the dealer's spin is no spin (§ 531.7), which is no result: a ball launched
with the rotor, which the dealer catches (`OFF`, § 531.7(a)), and a ball that rests after
three revolutions (§ 531.7(b)); one of each per block (`NO_SPINS`).
"""

from __future__ import annotations

import random
from typing import Any

from floord.analytics.wheel_watch import roulette_order, sector_arcs
from floord.demo.pty_device import PtyDevice

TABLE = "RL-03"
PROFILE = "ref-wheel-sensor"
WHEEL = "single_zero"
SEED = 531
# The kit's clock: 1, so its ACK timeout (0.5 s) and heartbeat keep the profile's values.
KIT_SPEED = 1.0
POWER_ON_QUIET_S = 1.0  # the daemon's driver opens its port first
OPENING_S = 3.5  # the wheel stands still: the floorperson opens, the dealer signs in
SPIN_S = 0.03  # a time-lapse spin, spread over its revolutions
GAP_S = 0.015  # between a rest and the next spin
# The live wheel-integrity tests (docs/analytics.md) of the demo floor. The smallest window
# the tests allow on every demo wheel: a Big Six pocket test needs 270 results.
SURVEILLANCE: dict[str, Any] = {"enabled": True, "window": 270, "level": 0.001,
                                "roulette_sectors": 8, "big_six_sectors": 6,
                                "dealer_window": 300, "dealer_bins": 8}  # fmt: skip
SINGLE_ZERO_ORDER = tuple(roulette_order(WHEEL))  # § 531.1(b)
# The second of the sector test's arcs: 4, 21, 2, 25, 17.
FAVOURED = tuple(
    SINGLE_ZERO_ORDER[p]
    for p in sector_arcs(SINGLE_ZERO_ORDER, SURVEILLANCE["roulette_sectors"])[1]
)
BLOCK = 100  # results per block
FAVOURED_PER_BLOCK = 25  # 25 % of results, where a fair wheel gives 13.5 %
NO_SPINS = ("with_rotor", "short")  # per block
BLOCKS = 3  # per loop of the scenario


def _block_numbers(rng: random.Random) -> list[str]:
    """One block's results: one in every `BLOCK // FAVOURED_PER_BLOCK` from the favoured
    arc (at a seeded place in its group), spread evenly over the arc's pockets and over
    the others (each 2 or 3 times), in a seeded order."""
    others = [p for p in SINGLE_ZERO_ORDER if p not in FAVOURED]
    favoured = [FAVOURED[i % len(FAVOURED)] for i in range(FAVOURED_PER_BLOCK)]
    rest = BLOCK - FAVOURED_PER_BLOCK
    unfavoured = [others[i % len(others)] for i in range(rest - rest % len(others))]
    unfavoured += rng.sample(others, rest % len(others))
    rng.shuffle(favoured)
    rng.shuffle(unfavoured)
    group = BLOCK // FAVOURED_PER_BLOCK
    numbers: list[str] = []
    for pocket in favoured:
        chunk = [unfavoured.pop() for _ in range(group - 1)]
        chunk.insert(rng.randrange(group), pocket)
        numbers += chunk
    return numbers


def _spin(rng: random.Random, n: int, pocket: str | None, **changes: Any) -> dict[str, Any]:
    """A spin as the kit reports it; the rotor turns each way in turn, the ball against."""
    rotor = "cw" if n % 2 == 0 else "ccw"
    spin: dict[str, Any] = {
        "rotor": rotor,
        "rpm": round(rng.uniform(16.0, 24.0), 1),
        "ball": "ccw" if rotor == "cw" else "cw",
        "revolutions": 4,  # the fewest a spin may have (§ 531.7(b)): fewest frames
        "release": rng.choice(SINGLE_ZERO_ORDER),
        "seconds": SPIN_S,
    }
    if pocket is None:
        spin["off"] = True
    else:
        spin["pocket"] = pocket
    return {**spin, **changes}


def no_spin(rng: random.Random, n: int, which: str) -> dict[str, Any]:
    """A § 531.7 no spin: `with_rotor` (a), caught by the dealer; `short` (b)."""
    if which == "with_rotor":
        rotor = "cw" if n % 2 == 0 else "ccw"
        return _spin(rng, n, None, ball=rotor)
    return _spin(rng, n, rng.choice(SINGLE_ZERO_ORDER), revolutions=3)


def spins(seed: int = SEED) -> list[dict[str, Any]]:
    """One loop of the wheel's spins (scenario `spin` bodies), results and no spins."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    for _ in range(BLOCKS):
        block: list[tuple[str, str]] = [("result", number) for number in _block_numbers(rng)]
        for which in NO_SPINS:
            block.insert(rng.randrange(5, len(block)), ("no_spin", which))
        for kind, what in block:
            n = len(out)
            out.append(no_spin(rng, n, what) if kind == "no_spin" else _spin(rng, n, what))
    return out


def scenario_body(time_lapse: float = 1.0) -> dict[str, Any]:
    """The kit's scenario (`simulators.flf1.wheel_sensor_scenarios`): stand still while the
    table opens, then the spins; loops for ever. `time_lapse` above 1 slows the spins
    (the embedded broker shares the demo's process)."""
    steps: list[dict[str, Any]] = [{"idle": OPENING_S * KIT_SPEED}]
    for spin in spins():
        steps.append({"spin": {**spin, "seconds": spin["seconds"] * time_lapse * KIT_SPEED}})
        steps.append({"idle": GAP_S * time_lapse * KIT_SPEED})
    return {
        "pockets": 37,
        "power_on_quiet": POWER_ON_QUIET_S * KIT_SPEED,
        "loop": True,
        "steps": steps,
    }


def build_simulator(time_lapse: float = 1.0) -> Any:
    """The kit's simulator, its scenario validated against the model."""
    from floord.profiles import load_profile
    from simulators.flf1.wheel_sensor import WheelSensorSimulator

    scenario = WheelSensorSimulator.SCENARIO.model_validate(scenario_body(time_lapse))
    return WheelSensorSimulator(load_profile(PROFILE), scenario, speed=KIT_SPEED)


def table_config(port: str) -> dict[str, Any]:
    """RL-03's entry in the demo's config (`docs/configuration.md`)."""
    return {
        "id": TABLE,
        "game": "roulette",
        "rules": {"wheel": WHEEL},
        "devices": [{"id": "wheel", "profile": PROFILE, "port": port}],
    }


def time_lapse_wheel(time_lapse: float = 1.0) -> PtyDevice:
    """RL-03's kit on its pty, not yet powered on."""
    return PtyDevice(lambda: build_simulator(time_lapse))
