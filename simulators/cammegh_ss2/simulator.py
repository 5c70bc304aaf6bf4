"""A behavioural twin of the Cammegh Slingshot 2 wheel's host port (port 1).

It plays a scenario (or random fair spins for ever) and speaks the wheel's exact bytes:
status frames every 500 ms while mode bit 128 is on, the winning-number line about 0.3 s
before the first state-5 frame that carries the same number, and replies to the host's
commands interleaved with the frames. Built from the protocol reference alone; it never
imports a driver, so one misreading of the protocol cannot hide in both.

Choices where the reference is silent or unclear (each one documented, none guessed at
run time):
- The field reports mode 1158 as a wheel that spins by itself although it has bit 2 ("wait
  for the host to start") set, so bit 2 never holds a game back here. With bit 2 set, a
  `*K` while the wheel idles in state 6 answers `*K OK` and cuts the idle short; any other
  `*K` identifies: `*K CAM`. `*u 1|3` sets the next game's direction (a scenario's own
  direction wins) and, while idle, starts it at once.
- `*R` always answers `*R OK`; it re-spins only a game voided by a same-direction ball.
- `*F` (self-test) answers at once rather than after minutes. Faults stay reported until
  a power cycle (`*P 0` then `*P 1`). While powered down the wheel still answers and
  sends state-6 frames with the rotor stopped; the scenario waits for `*P 1`.
- `*T` reads Z (pockets), S (rotor range) and H (games per hour); other letters and
  setting a value (lower case) are not modelled and get `*  NO`.
- `*w` answers `*w <chi-squared> <percent>` from the twin's own results; the percent is
  the chance a fair wheel scores worse. Mode bits 1024 and 2048 (games-per-hour delays)
  are not modelled: the phase lengths below are fixed.
- The number line is timed against the 500 ms rhythm (0.3 s before the next automatic
  frame, which is the first state-5 frame), so no state-4 frame falls in between; every
  state is held until at least one frame has shown it, whatever the speed.
- A lost ball (flag 1 in state 4) ends in state 7 with flag 1, then state 6: no result.
  A fault shows flag 4 in the current state, then `*F <code>` (mode bit 256), then
  state 6; a `permanent` fault also powers the wheel down.
- `power_cycle: <s>` is maintenance switching the wheel off and on: silent and deaf for
  s, then powered up with its faults cleared, idle in state 6.
- `cut: true` sends the head of the present frame as a line, its tail as a line, then
  the whole frame afresh.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections import Counter
from collections.abc import Awaitable, Callable

from floord.events import Simulator
from floord.profiles import DeviceProfile
from simulators.cammegh_ss2.host import Ss2HostCommands
from simulators.cammegh_ss2.wire import (
    CRLF,
    MODE_ALTERNATE_DIRECTION,
    MODE_AUTO_STATUS,
    MODE_FAULT_LINES,
    MODE_NO_NUMBER_LINE,
    MODE_RANDOM_SPEED_CHANGE,
    NO_REPLY,
    WARN_BALL_NOT_DETECTED,
    WARN_COMPONENT_FAULT,
    WARN_FAILED_LAUNCH,
    WARN_SAME_DIRECTION,
    Status,
    number_line,
    parse_command,
    reply,
    status_frame,
)
from simulators.link import Link
from simulators.scenario import FaultSpec, Scenario, SpinSpec, Step, pocket_labels
from simulators.waiting import wait_set

# Seconds of the wheel's own clock (divided by `speed`).
STATUS_INTERVAL_S = 0.5
OPENING_IDLE_S = 1.0  # state 6 after power-on, before the first step
PHASE_S = {1: 1.0, 2: 4.0, 3: 3.0, 4: 3.0, 5: 4.0}
NUMBER_LEAD_S = 0.3  # the number line comes this long before the first state-5 frame
WARN_FOR_S = {"same_direction": 5.0, "failed_launch": 4.0, "ball_not_detected": 6.0}
STOPPING_S = 1.0  # state 7 (ball not detected in the track) before the wheel idles
FAULT_FLAG_S = 1.5  # flag 4 stands this long before the wheel drops to state 6
FAULT_IDLE_S = 1.0
MAX_HOST_LINE = 64  # a longer host line without an end is noise: dropped, `*  NO`


class _Halted(Exception):
    """The host powered the wheel down: the step in progress is abandoned."""


class Ss2Simulator(Ss2HostCommands):
    """The wheel: its state, the scenario it plays and its answers to the host."""

    def __init__(
        self, profile: DeviceProfile, scenario: Scenario | None = None, *, speed: float = 1.0
    ) -> None:
        if not speed > 0:
            raise ValueError(f"speed > 0 expected, found {speed}")
        self.profile = profile
        self.scenario = scenario or Scenario.fair()
        self.speed = speed
        self.spins_completed = 0
        self.results: list[str] = []
        self._steps: list[Step] = list(self.scenario.steps) or [Step(spin=SpinSpec())]
        self._loop_steps = self.scenario.loop or not self.scenario.steps
        self._rng = random.Random(self.scenario.seed)
        self._labels = pocket_labels(self.scenario.pockets)
        self._counts: Counter[str] = Counter()
        self._mode = self.scenario.mode
        self._status_on = bool(self._mode & MODE_AUTO_STATUS)
        self._state = 6
        self._games = 0
        self._win = ""
        self._warn = 0
        self._rpm10 = self._draw_rpm10()
        self._ccw = False
        self._powered = True
        self._faults: list[int] = []
        self._muted = False
        self._awaiting_respin = False
        self._respin_requested = False
        self._start_requested = False
        self._next_ccw: bool | None = None
        self._frames_sent = 0
        self._next_tick = 0.0
        self._nudge = asyncio.Event()
        self._link: Link | None = None
        # Who runs each step of the scenario: `run_step`, unless a control channel
        # takes the steps over (`simulators.control`) to cut one short with its own.
        self.step_player: Callable[[Step], Awaitable[None]] = self.run_step

    # ----- running ---------------------------------------------------------------------

    async def run(self, link: Link) -> None:
        """Speak on `link` until the scenario ends (loop false) or the task is cancelled."""
        self._link = link
        tasks = [
            asyncio.create_task(self._read_host(link), name="ss2-sim-host"),
            asyncio.create_task(self._tick(), name="ss2-sim-status"),
        ]
        try:
            if self.scenario.power_on_quiet > 0:
                await self._mute_for(self.scenario.power_on_quiet)
            with contextlib.suppress(_Halted):
                await self._hold(OPENING_IDLE_S, until=lambda: self._start_requested)
            while True:
                for step in self._steps:
                    await self.step_player(step)
                if not self._loop_steps:
                    break
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            self._link = None

    async def run_step(self, step: Step) -> None:
        """One step of the scenario (`play_step`), the wheel powered off around it as
        the scenario says."""
        if not self._powered:
            await self._stay_off()
        try:
            await self.play_step(step)
        except _Halted:
            await self._stay_off()

    async def play_step(self, step: Step) -> None:
        """Play one scenario step on the wheel (the scenario's own, or one injected live
        through the control channel, `simulators/control.py`)."""
        if step.idle is not None:
            self._state = 6
            self._warn = 0
            await self._hold(step.idle, until=lambda: self._start_requested)
        elif step.spin is not None:
            await self._spin(step.spin)
        elif step.fault is not None:
            await self._fault(step.fault)
        elif step.raw is not None:
            await self._send(step.raw.encode("ascii") + CRLF)
        elif step.cut is not None:
            await self._cut_frame()
        elif step.silence is not None:
            await self._mute_for(step.silence)
        elif step.disconnect is not None:
            await self._disconnect(step.disconnect)
        elif step.power_cycle is not None:
            await self._power_cycle(step.power_cycle)

    # ----- time ------------------------------------------------------------------------

    async def _wait(self, seconds: float, until: Callable[[], bool] | None = None) -> bool:
        """Wait `seconds` of wheel time; True early if `until()` holds; _Halted if powered off."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds / self.speed
        while True:
            if not self._powered:
                raise _Halted
            if until is not None and until():
                return True
            remaining = deadline - loop.time()
            if remaining <= 0:
                return False
            self._nudge.clear()
            await wait_set(self._nudge, remaining)

    async def _hold(self, seconds: float, until: Callable[[], bool] | None = None) -> bool:
        """Keep the present state `seconds`, and until at least one frame has shown it."""
        mark = self._frames_sent
        early = await self._wait(seconds, until)
        if self._frames_sent == mark and self._status_on and not self._muted:
            await self._wait(2 * STATUS_INTERVAL_S, lambda: self._frames_sent != mark)
        return early

    async def _mute_for(self, seconds: float) -> None:
        self._muted = True
        try:
            await asyncio.sleep(seconds / self.speed)
        finally:
            self._muted = False

    async def _disconnect(self, seconds: float) -> None:
        assert self._link is not None
        self._muted = True
        try:
            await self._link.drop(seconds / self.speed)
        finally:
            self._muted = False

    async def _power_cycle(self, seconds: float) -> None:
        """Off (nothing sent, nothing heard) for `seconds`, then on with faults cleared."""
        self._power(on=False)
        await self._mute_for(seconds)
        self._power(on=True)

    async def _stay_off(self) -> None:
        while not self._powered:
            self._nudge.clear()
            await self._nudge.wait()

    # ----- output ----------------------------------------------------------------------

    async def _send(self, data: bytes) -> None:
        if self._muted or self._link is None:
            return
        await self._link.write(data)

    @property
    def powered(self) -> bool:
        """The wheel is switched on (a `power_cycle` step turns it off for a while)."""
        return self._powered

    @property
    def active_faults(self) -> list[int]:
        """The fault codes standing now (reported in `*F` lines and the warn flag)."""
        return list(self._faults)

    def current_status(self) -> Status:
        spin = (self._games - 1) % 256 + 1 if self._games else 1
        return Status(self._state, spin, self._win, self._warn, self._rpm10, self._ccw)

    async def _send_frame(self) -> None:
        if self._muted:
            return
        await self._send(status_frame(self.current_status()))
        self._frames_sent += 1
        self._nudge.set()

    async def _tick(self) -> None:
        loop = asyncio.get_running_loop()
        interval = STATUS_INTERVAL_S / self.speed
        self._next_tick = loop.time() + interval
        while True:
            delay = self._next_tick - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
                continue
            now = loop.time()
            self._next_tick += interval
            if self._next_tick <= now:
                self._next_tick = now + interval
            if self._status_on:
                await self._send_frame()

    async def _cut_frame(self) -> None:
        """A frame cut short (its head), the tail as a line of its own, then a fresh frame."""
        body = status_frame(self.current_status())[:-2]
        cut = self._rng.randint(3, len(body) - 3)
        await self._send(body[:cut] + CRLF)
        await self._send(body[cut:] + CRLF)
        await self._send_frame()

    # ----- games -----------------------------------------------------------------------

    def _draw_number(self, wanted: str | None) -> str:
        return (
            wanted if wanted is not None else self._labels[self._rng.randrange(len(self._labels))]
        )

    def _begin_game(self, direction: str | None) -> None:
        if direction is not None:
            ccw = direction == "ccw"
        elif self._next_ccw is not None:
            ccw = self._next_ccw
        elif self._mode & MODE_ALTERNATE_DIRECTION and self._games:
            ccw = not self._ccw
        else:
            ccw = False
        self._next_ccw = None
        self._start_requested = False
        self._games += 1
        self._ccw = ccw
        self._rpm10 = self._draw_rpm10()
        self._warn = 0
        self._state = 1

    async def _spin(self, spec: SpinSpec) -> None:
        warn_for = spec.warn_for if spec.warn_for is not None else WARN_FOR_S.get(spec.warn or "")
        self._begin_game(spec.direction)
        if spec.rpm is not None:
            self._rpm10 = round(spec.rpm * 10)
        await self._hold(PHASE_S[1])
        self._state = 2
        number = spec.number
        if spec.warn == "failed_launch":
            self._warn = WARN_FAILED_LAUNCH
            await self._hold(PHASE_S[2])
            self._state = 3
            await self._hold(warn_for or 0.0)
            self._warn = 0
        else:
            await self._hold(PHASE_S[2])
            self._state = 3
            if spec.warn == "same_direction" and await self._void_same_direction(warn_for or 0.0):
                number = spec.respin_number
        await self._hold(PHASE_S[3])
        self._state = 4
        if spec.warn == "ball_not_detected":
            await self._ball_lost(warn_for or 0.0)
            return
        if self._mode & MODE_RANDOM_SPEED_CHANGE:
            self._rpm10 = self._draw_rpm10()
        await self._hold(PHASE_S[4])
        await self._result(self._draw_number(number))
        await self._hold(PHASE_S[5])

    async def _void_same_direction(self, wait_s: float) -> bool:
        """Flag 2 in state 3 until `*R` (then re-spin from state 2) or `wait_s` passes."""
        self._warn = WARN_SAME_DIRECTION
        self._awaiting_respin = True
        self._respin_requested = False
        try:
            respun = await self._hold(wait_s, until=lambda: self._respin_requested)
        finally:
            self._awaiting_respin = False
            self._warn = 0
        if respun:
            self._state = 2
            await self._hold(PHASE_S[2])
            self._state = 3
        return respun

    async def _ball_lost(self, warn_s: float) -> None:
        """Flag 1 in state 4 for `warn_s`, then state 7 and 6: the wheel stops, no result."""
        self._warn = WARN_BALL_NOT_DETECTED
        await self._hold(warn_s)
        self._state = 7
        await self._hold(STOPPING_S)
        self._state = 6
        self._warn = 0
        await self._hold(STOPPING_S)

    async def _result(self, number: str) -> None:
        """The number line, timed so the next automatic frame (state 5) follows it by ~0.3 s."""
        if not self._mode & MODE_NO_NUMBER_LINE:
            if self._status_on:
                await self._wait(self._until_before_tick(NUMBER_LEAD_S))
            await self._send(number_line(number))
        self._state = 5
        self._win = number
        self._counts[number] += 1
        self.results.append(number)
        self.spins_completed += 1

    def _until_before_tick(self, lead_s: float) -> float:
        """Wheel seconds from now to `lead_s` before the next automatic frame that far off."""
        interval = STATUS_INTERVAL_S / self.speed
        now = asyncio.get_running_loop().time()
        target = self._next_tick - lead_s / self.speed
        while target < now:
            target += interval
        return (target - now) * self.speed

    async def _fault(self, spec: FaultSpec) -> None:
        if spec.code not in self._faults:
            self._faults.append(spec.code)
        self._warn |= WARN_COMPONENT_FAULT
        try:
            await self._hold(FAULT_FLAG_S)
        finally:
            self._warn &= ~WARN_COMPONENT_FAULT
        if self._mode & MODE_FAULT_LINES:
            await self._send(reply(f"*F {spec.code}"))
        self._state = 6
        if spec.permanent:
            self._power(on=False)
            raise _Halted
        await self._hold(FAULT_IDLE_S)

    # ----- the host --------------------------------------------------------------------

    async def _read_host(self, link: Link) -> None:
        pending = bytearray()
        while True:
            data = await link.read()
            if not data or self._muted:
                pending.clear()  # a reset line or a deaf wheel: half a command is lost
                continue
            pending += data
            while True:
                ends = [i for i in (pending.find(b"\r"), pending.find(b"\n")) if i >= 0]
                if not ends:
                    break
                line = bytes(pending[: min(ends)])
                del pending[: min(ends) + 1]
                if line:
                    await self._answer(line)
            if len(pending) > MAX_HOST_LINE:
                pending.clear()
                await self._send(reply(NO_REPLY))
            self._nudge.set()

    async def _answer(self, line: bytes) -> None:
        command = parse_command(line)
        if command is None:
            await self._send(reply(NO_REPLY))
            return
        if command.letter == "X":
            await self._send_frame()
            return
        for text in self._obey(command):
            await self._send(reply(text))


SIMULATOR: type[Simulator] = Ss2Simulator  # mypy checks it is a Simulator
