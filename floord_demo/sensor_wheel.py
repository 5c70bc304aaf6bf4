"""The demo's manual wheel RL-03: a single-zero wheel with the sensor kit, biased
and time-lapsed, so that the live surveillance (`docs/analytics.md`) catches it.

The kit (`ref-wheel-sensor`, `simulators/flf1/wheel_sensor.py`) runs in the demo's process on
its own pty. Its spins are generated here as it plays (`FreshSpinsKit`), from a random
generator seeded once per run (`floord demo --seed N` repeats a run's spins): the wheel
stands still while the table opens (the virtual dealer signs in with `dealer_in` then),
then spins in time-lapse, a spin every `SPIN_S + GAP_S` seconds, each only `ROT`, `BAL`
(with the release pocket, for the dealer signature test), four `REV`, `NMB` and `POC`,
for as long as the demo runs and never in a loop. The FLF/1 link sends one frame at a
time and waits for the daemon's `ACK`, so the wheel never outruns the daemon: on a busy
machine it simply spins slower.

The bias: a tilted rotor favours one arc of the wheel, `FAVOURED` (one of the eight
sector-test arcs of § 531.1(b)'s order): one result in four comes from it (25 %; 5 of 37
pockets, 13.5 %, on a fair wheel). Every group of four results holds one from the arc,
at a random place, and every block of `BLOCK` results holds each favoured pocket 5 times
and each other pocket 2 or 3 times, in a random order. So any `SURVEILLANCE["window"]`
consecutive results hold 67 or 68 from the arc, enough for the sector test (p < 0.001)
whenever the table opened; no single pocket stands out, and the pocket test sees nothing
unusual. The bias is that strong, and the wheel that fast, because the window cannot be
smaller: with a Big Six wheel on the floor, its pocket test needs 270 results (the joker
is 1 of 54 sections, and each cell must expect five).

The dealer is fair, and evenly so: every `len(SINGLE_ZERO_ORDER)` results hold each
release-to-result distance once, in a random order (the release pocket is worked back
from the result), so the dealer signature test's arcs stay near their expected counts
and it never flags the demo's dealer. (A scenario that looped its few hundred spins did:
over a few minutes the same distances came round again and again.)

Now and then the dealer's spin is no spin (§ 531.7), which is no result: a ball launched
with the rotor, which the dealer catches (`OFF`, § 531.7(a)), and a ball that rests after
three revolutions (§ 531.7(b)); one of each per block (`NO_SPINS`).

Once a run, past the sector test's spins, the wheel's rotor fails to change direction
and the dealer slows down (`crafted_pace`): the pace and spin physics tests alert.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from floord.analytics.wheel_watch import roulette_order, sector_arcs
from floord_demo import crafted_pace
from floord_demo.pty_device import PtyDevice
from simulators.flf1.wheel_sensor import WheelSensorSimulator
from simulators.flf1.wheel_sensor_scenarios import WheelSensorStep

TABLE = "RL-03"
PROFILE = "ref-wheel-sensor"
WHEEL = "single_zero"
# The kit's clock: 1, so its ACK timeout (0.5 s) and heartbeat keep the profile's values.
KIT_SPEED = 1.0
POWER_ON_QUIET_S = 1.0  # the daemon's driver opens its port first
OPENING_S = 3.5  # the wheel stands still: the floorperson opens, the dealer signs in
SPIN_S = 0.03  # a time-lapse spin, spread over its revolutions
GAP_S = 0.015  # between a rest and the next spin
# The live wheel-integrity tests (docs/analytics.md) of the demo floor. The smallest window
# the tests allow on every demo wheel: a Big Six pocket test needs 270 results.
SURVEILLANCE: dict[str, Any] = {
    "enabled": True,
    "window": 270,
    "level": 0.001,
    "roulette_sectors": 8,
    "big_six_sectors": 6,
    "dealer_window": 300,
    "dealer_bins": 8,
}
SINGLE_ZERO_ORDER = tuple(roulette_order(WHEEL))  # § 531.1(b)
# The second of the sector test's arcs: 4, 21, 2, 25, 17.
FAVOURED = tuple(
    SINGLE_ZERO_ORDER[p]
    for p in sector_arcs(SINGLE_ZERO_ORDER, SURVEILLANCE["roulette_sectors"])[1]
)
BLOCK = 100  # results per block
FAVOURED_PER_BLOCK = 25  # 25 % of results, where a fair wheel gives 13.5 %
NO_SPINS = ("with_rotor", "short")  # per block


def _block_numbers(rng: random.Random) -> list[str]:
    """One block's results: one in every `BLOCK // FAVOURED_PER_BLOCK` from the favoured
    arc (at a random place in its group), spread evenly over the arc's pockets and over
    the others (each 2 or 3 times), in a random order."""
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


class _FairDealer:
    """Where the dealer releases the ball: each distance to the result once per deal of
    all `len(SINGLE_ZERO_ORDER)` distances, in a random order."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self._deal: list[int] = []

    def release_for(self, pocket: str) -> str:
        if not self._deal:
            self._deal = list(range(len(SINGLE_ZERO_ORDER)))
            self._rng.shuffle(self._deal)
        distance = self._deal.pop()
        where = SINGLE_ZERO_ORDER.index(pocket) - distance
        return SINGLE_ZERO_ORDER[where % len(SINGLE_ZERO_ORDER)]


def _spin(
    rng: random.Random, n: int, pocket: str | None, release: str, **changes: Any
) -> dict[str, Any]:
    """A spin as the kit reports it; the rotor turns each way in turn, the ball against."""
    rotor = "cw" if n % 2 == 0 else "ccw"
    spin: dict[str, Any] = {
        "rotor": rotor,
        "rpm": round(rng.uniform(16.0, 24.0), 1),
        "ball": "ccw" if rotor == "cw" else "cw",
        "revolutions": 4,  # the fewest a spin may have (§ 531.7(b)): fewest frames
        "release": release,
        "seconds": SPIN_S,
    }
    if pocket is None:
        spin["off"] = True
    else:
        spin["pocket"] = pocket
    return {**spin, **changes}


def no_spin(rng: random.Random, n: int, which: str) -> dict[str, Any]:
    """A § 531.7 no spin: `with_rotor` (a), caught by the dealer; `short` (b)."""
    release = rng.choice(SINGLE_ZERO_ORDER)
    if which == "with_rotor":
        rotor = "cw" if n % 2 == 0 else "ccw"
        return _spin(rng, n, None, release, ball=rotor)
    return _spin(rng, n, rng.choice(SINGLE_ZERO_ORDER), release, revolutions=3)


def spins(seed: int) -> Iterator[dict[str, Any]]:
    """The wheel's spins (scenario `spin` bodies), results and no spins, block after
    block for ever: the same `seed` gives the same spins."""
    rng = random.Random(seed)
    dealer = _FairDealer(rng)
    n = 0
    previous: dict[str, Any] | None = None  # the spin before, when it was a result
    slip_done = False
    while True:
        block: list[tuple[str, str]] = [("result", number) for number in _block_numbers(rng)]
        for which in NO_SPINS:
            block.insert(rng.randrange(5, len(block)), ("no_spin", which))
        for kind, what in block:
            if kind == "no_spin":
                previous = None
                yield no_spin(rng, n, what)
            else:
                spin = _spin(rng, n, what, dealer.release_for(what))
                if previous is not None and not slip_done and n >= crafted_pace.SLIP_AT:
                    spin, slip_done = crafted_pace.slipped(spin, previous), True
                previous = spin
                yield spin
            n += 1


def _steps(seed: int, time_lapse: float) -> Iterator[dict[str, Any]]:
    """The kit's steps after the opening: each spin, then a moment's rest."""
    for n, spin in enumerate(spins(seed)):
        yield {"spin": {**spin, "seconds": spin["seconds"] * time_lapse * KIT_SPEED}}
        yield {"idle": (GAP_S * time_lapse + crafted_pace.pause_after(n)) * KIT_SPEED}


def scenario_body(seed: int, time_lapse: float = 1.0) -> dict[str, Any]:
    """The kit's scenario (`simulators.flf1.wheel_sensor_scenarios`) as it starts: stand
    still while the table opens, then the first block's spins; `FreshSpinsKit` goes on
    from there. `time_lapse` above 1 slows the spins (the embedded broker shares the
    demo's process)."""
    steps = _steps(seed, time_lapse)
    first = [next(steps) for _ in range(2 * (BLOCK + len(NO_SPINS)))]
    return {
        "pockets": 37,
        "power_on_quiet": POWER_ON_QUIET_S * KIT_SPEED,
        "loop": False,
        "steps": [{"idle": OPENING_S * KIT_SPEED}, *first],
    }


class FreshSpinsKit(WheelSensorSimulator):
    """The kit playing `scenario_body(seed)`, then the spins that follow it, for ever.

    A scenario is a list the simulator plays (and loops); this wheel's spins never end,
    so after the scenario's own steps (dry-run checked by the simulator like any
    scenario's) it takes each next step from the same generator, checked by the same
    step model."""

    def __init__(self, profile: Any, seed: int, time_lapse: float = 1.0) -> None:
        self._later = _steps(seed, time_lapse)
        body = scenario_body(seed, time_lapse)
        for _ in body["steps"][1:]:
            next(self._later)  # the scenario holds these; go on after them
        scenario = WheelSensorSimulator.SCENARIO.model_validate(body)
        super().__init__(profile, scenario, speed=KIT_SPEED)

    def _passes(self, steps: list[Any], used: int) -> Iterator[Any]:
        yield from steps[used:]
        for step in self._later:
            yield WheelSensorStep.model_validate(step)


def build_simulator(seed: int, time_lapse: float = 1.0) -> FreshSpinsKit:
    """The kit's simulator, its first steps validated against the scenario model."""
    from floord.profiles import load_profile

    return FreshSpinsKit(load_profile(PROFILE), seed, time_lapse)


def table_config(port: str) -> dict[str, Any]:
    """RL-03's entry in the demo's config (`docs/configuration.md`)."""
    return {
        "id": TABLE,
        "game": "roulette",
        "rules": {"wheel": WHEEL},
        "devices": [{"id": "wheel", "profile": PROFILE, "port": port}],
        "pace": dict(crafted_pace.PACE),
        "spin_physics": dict(crafted_pace.SPIN_PHYSICS),
    }


def time_lapse_wheel(seed: int, time_lapse: float = 1.0) -> PtyDevice:
    """RL-03's kit on its pty, not yet powered on."""
    return PtyDevice(lambda: build_simulator(seed, time_lapse))
