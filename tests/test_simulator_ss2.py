"""The Cammegh SS2 simulator, heard the way a host hears it: raw bytes from a real pty.

Every test runs the simulator fast (speed 40: a status frame every 12.5 ms) on a real
pseudo-terminal from `open_pty_link`, reads the slave side with os.read and parses the
bytes with its own regular expressions, written from the protocol reference, not from
any driver. Timeouts are upper bounds against a hang, never assertions on speed. Each
test checks that it leaves no asyncio task behind and closes every descriptor.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
from collections import Counter
from collections.abc import AsyncIterator, Callable

import pytest

from floord.profiles import load_profile
from simulators.cammegh_ss2.simulator import Ss2Simulator
from simulators.cammegh_ss2.stats import chi_squared, p_value
from simulators.link import open_pty_link
from simulators.scenario import FaultSpec, Scenario, SpinSpec, Step, pocket_labels

pytestmark = pytest.mark.system

PROFILE = load_profile("cammegh-ss2")
SPEED = 40.0
FRAME = re.compile(rb"\*X;([1-7]);(\d{3});(  | \d|\d\d);([0-9A-F]);(\d{3});([01])")
NUMBER = re.compile(rb" \d|\d\d")
VERSION = b"*V V2.50 Cammegh / Syoptic - SlingShot 2 Roulette Wheel (c) 03/12/18"
HANG_S = 15.0  # a guard against a hung test, not a claim about speed


class Frame:
    """One status frame as a host reads it."""

    def __init__(self, line: bytes) -> None:
        match = FRAME.fullmatch(line)
        assert match, f"not a status frame: {line!r}"
        state, spin, win, warn, speed, direction = match.groups()
        self.state = int(state)
        self.spin = int(spin)
        self.win = win.decode().strip()
        self.warn = int(warn, 16)
        self.speed = int(speed)
        self.ccw = direction == b"1"


def is_frame(line: bytes) -> bool:
    return FRAME.fullmatch(line) is not None


class Host:
    """The host's side of the pty: raw os.read on the slave, lines split at CR LF."""

    def __init__(self, path: str) -> None:
        self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        self.loop = asyncio.get_running_loop()
        self.raw = bytearray()
        self.lines: list[bytes] = []
        self.times: list[float] = []
        self.chunk_times: list[float] = []
        self._pending = bytearray()
        self._arrived = asyncio.Event()
        self.loop.add_reader(self.fd, self._readable)

    def _readable(self) -> None:
        try:
            data = os.read(self.fd, 4096)
        except BlockingIOError:
            return
        now = self.loop.time()
        self.chunk_times.append(now)
        self.raw += data
        self._pending += data
        while b"\r\n" in self._pending:
            line, _, rest = bytes(self._pending).partition(b"\r\n")
            self._pending = bytearray(rest)
            self.lines.append(line)
            self.times.append(now)
        self._arrived.set()

    def send(self, data: bytes) -> None:
        os.write(self.fd, data)

    async def wait_for(self, predicate: Callable[[bytes], bool], start: int = 0) -> int:
        """The index of the first line from `start` that satisfies `predicate`."""
        deadline = self.loop.time() + HANG_S
        while True:
            for index in range(start, len(self.lines)):
                if predicate(self.lines[index]):
                    return index
            remaining = deadline - self.loop.time()
            if remaining <= 0:
                raise AssertionError(f"no matching line; last lines: {self.lines[-8:]!r}")
            self._arrived.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._arrived.wait(), remaining)

    async def wait_line(self, line: bytes, start: int = 0) -> int:
        return await self.wait_for(lambda got: got == line, start)

    async def wait_frame(self, check: Callable[[Frame], bool], start: int = 0) -> int:
        return await self.wait_for(lambda got: is_frame(got) and check(Frame(got)), start)

    def frames(self, start: int = 0, end: int | None = None) -> list[Frame]:
        return [Frame(line) for line in self.lines[start:end] if is_frame(line)]

    def close(self) -> None:
        self.loop.remove_reader(self.fd)
        os.close(self.fd)


@contextlib.asynccontextmanager
async def wheel(
    scenario: Scenario | None = None, speed: float = SPEED
) -> AsyncIterator[tuple[Ss2Simulator, Host, asyncio.Task[None]]]:
    """A simulator on a real pty, its host side open; everything closed afterwards."""
    fds_before = set(os.listdir("/proc/self/fd"))
    link, path = await open_pty_link()
    host = Host(path)
    sim = Ss2Simulator(PROFILE, scenario, speed=speed)
    task = asyncio.create_task(sim.run(link))
    try:
        yield sim, host, task
    finally:
        task.cancel()
        (outcome,) = await asyncio.gather(task, return_exceptions=True)
        host.close()
        await link.close()
        if isinstance(outcome, Exception):
            raise outcome
        assert asyncio.all_tasks() == {asyncio.current_task()}
        assert set(os.listdir("/proc/self/fd")) <= fds_before  # no descriptor left open


def scenario(*steps: Step, **settings: object) -> Scenario:
    return Scenario.model_validate({**settings, "steps": list(steps)})


def spin(**spec: object) -> Step:
    return Step(spin=SpinSpec.model_validate(spec))


# ----- status frames and the spin cycle --------------------------------------------------


def test_status_frames_arrive_by_themselves_and_parse() -> None:
    async def body() -> None:
        async with wheel() as (_sim, host, _task):
            await host.wait_for(lambda _line: len(host.frames()) >= 12)
            frames = host.frames()
            assert frames[0].state == 6 and frames[0].win == ""  # opening idle, no result yet
            assert all(f.warn == 0 and 160 <= f.speed <= 180 and not f.ccw for f in frames)
            # Every byte the wheel sent is a whole CR LF line of a known form.
            assert all(is_frame(line) or NUMBER.fullmatch(line) for line in host.lines)

    asyncio.run(body())


def test_a_full_cycle_sends_the_number_line_before_the_matching_state5_frame() -> None:
    async def body() -> None:
        async with wheel(scenario(spin(number="7"), spin(number="32"))) as (sim, host, task):
            await asyncio.wait_for(task, HANG_S)  # loop false: the scenario ends
            first = host.lines.index(b" 7")
            assert Frame(next(ln for ln in reversed(host.lines[:first]) if is_frame(ln))).state == 4
            after = host.frames(first)
            assert (after[0].state, after[0].win, after[0].spin) == (5, "7", 1)
            states = [f.state for f in host.frames()]
            collapsed = [s for i, s in enumerate(states) if i == 0 or states[i - 1] != s]
            assert collapsed == [6, 1, 2, 3, 4, 5, 1, 2, 3, 4, 5]
            second = host.lines.index(b"32")
            assert host.frames(second)[0].win == "32" and host.frames(second)[0].spin == 2
            assert host.frames(0, second)[-1].win == "7"  # the old result until state 5
            assert sim.spins_completed == 2 and sim.results == ["7", "32"]

    asyncio.run(body())


def test_double_zero_on_a_38_pocket_wheel() -> None:
    async def body() -> None:
        async with wheel(scenario(spin(number="00"), pockets=38)) as (_sim, host, task):
            host.send(b"*T Z\r")
            await host.wait_line(b"*T z 38")
            await asyncio.wait_for(task, HANG_S)
            at = host.lines.index(b"00")
            assert host.frames(at)[0].win == "00" and host.frames(at)[0].state == 5

    asyncio.run(body())


def test_without_a_scenario_numbers_are_fair_and_directions_follow_mode_bit_1() -> None:
    sim = Ss2Simulator(PROFILE, Scenario.fair(seed=3))
    draws = Counter(sim._draw_number(None) for _ in range(37 * 200))
    assert set(draws) == set(pocket_labels(37))
    assert p_value(chi_squared(draws, pocket_labels(37)), 36) > 0.001
    alternating = Ss2Simulator(PROFILE, Scenario(mode=1159))
    directions = []
    for _ in range(4):
        alternating._begin_game(None)
        directions.append(alternating._ccw)
    assert directions == [False, True, False, True]


def test_the_spin_counter_wraps_from_256_to_1() -> None:
    async def body() -> None:
        async with wheel(scenario(spin(number="1"), spin(number="2"))) as (sim, host, task):
            sim._games = 255
            await asyncio.wait_for(task, HANG_S)
            assert [f.spin for f in host.frames() if f.state == 5][-1] == 1
            assert 256 in {f.spin for f in host.frames()}

    asyncio.run(body())


# ----- replies -----------------------------------------------------------------------


def test_replies_to_identification_and_settings_with_any_line_ending() -> None:
    async def body() -> None:
        async with wheel(scenario(Step(idle=60.0), spin())) as (_sim, host, _task):
            await host.wait_frame(lambda f: f.state == 6)
            host.send(b"*V\r*S\n*T Z\r\n*T S\r*O\r*X\r")
            await host.wait_line(VERSION)
            await host.wait_line(b"*S V2.50")
            await host.wait_line(b"*T z 37")
            await host.wait_line(b"*T s 16.0 18.0")
            await host.wait_line(b"*O 6 1 60 1158")
            host.send(b"*w\r*K\r*o 1159\r*O\r")
            await host.wait_line(b"*w 0.00 100.0")
            await host.wait_line(b"*K OK")  # mode 1158 has bit 2: *K starts the game
            await host.wait_line(b"*o 1159")
            await host.wait_line(b"*O 6 1 60 1159")
            await host.wait_frame(lambda f: f.state == 1)  # the idle was cut short

    asyncio.run(body())


@pytest.mark.parametrize(
    "bad",
    [b"*Z", b"X", b"*T", b"*u 2", b"*X ", b"*o", b"*o 99999", b"*P 2", b"*q", b"*V\xff", b"*T q"],
)
def test_malformed_commands_get_star_two_spaces_no(bad: bytes) -> None:
    async def body() -> None:
        async with wheel(scenario(Step(idle=60.0))) as (_sim, host, _task):
            await host.wait_frame(lambda f: True)
            host.send(bad + b"\r\n*S\r\n")
            no = await host.wait_line(b"*  NO")
            assert await host.wait_line(b"*S V2.50") > no  # the line after is still heard

    asyncio.run(body())


def test_a_host_line_too_long_is_dropped_with_no() -> None:
    async def body() -> None:
        async with wheel(scenario(Step(idle=60.0))) as (_sim, host, _task):
            await host.wait_frame(lambda f: True)
            host.send(b"*" * 100)
            await host.wait_line(b"*  NO")

    asyncio.run(body())


def test_busy_replies_while_a_game_runs_and_status_output_stops_on_q0() -> None:
    async def body() -> None:
        async with wheel(scenario(spin(number="3"), Step(idle=60.0))) as (_sim, host, _task):
            at = await host.wait_frame(lambda f: f.state == 2)
            host.send(b"*F\r*o 1158\r*w\r*K\r")
            await host.wait_line(b"*F BUSY", at)
            await host.wait_line(b"*o BUSY", at)
            await host.wait_line(b"*w BUSY", at)
            await host.wait_line(b"*K CAM", at)
            stopped = await host.wait_frame(lambda f: f.state == 6, at)
            host.send(b"*q 0\r*S\r")
            quiet = await host.wait_line(b"*S V2.50", stopped)
            await asyncio.sleep(10 * 0.5 / SPEED)
            assert host.frames(quiet + 1) == []  # no automatic frames
            host.send(b"*X\r")
            polled = await host.wait_frame(lambda f: f.state == 6, quiet + 1)
            host.send(b"*q 1\r")
            await host.wait_for(lambda _l: len(host.frames(polled + 1)) >= 3)

    asyncio.run(body())


# ----- warnings and the re-spin ------------------------------------------------------


def test_same_direction_waits_for_r_then_respins_from_state_2() -> None:
    step = spin(number="4", warn="same_direction", warn_for=60.0, respin_number="23")

    async def body() -> None:
        async with wheel(scenario(step)) as (sim, host, task):
            flagged = await host.wait_frame(lambda f: f.state == 3 and f.warn == 2)
            await host.wait_for(lambda _l: len(host.frames(flagged)) >= 5)
            assert {(f.state, f.warn) for f in host.frames(flagged)} == {(3, 2)}  # it waits
            host.send(b"*R\r\n")
            ok = await host.wait_line(b"*R OK", flagged)
            await asyncio.wait_for(task, HANG_S)
            after = host.frames(ok)
            states = [f.state for f in after if f.state != 3 or f.warn == 0]
            assert states[0] == 2 and 3 in states and 4 in states
            assert {f.spin for f in after} == {1}  # the same game, re-spun
            assert b"23" in host.lines[ok:] and b" 4" not in host.lines
            assert next(f.win for f in after if f.state == 5) == "23"
            assert sim.results == ["23"]

    asyncio.run(body())


def test_same_direction_without_r_finishes_the_spin() -> None:
    async def body() -> None:
        step = spin(number="4", warn="same_direction", warn_for=1.0, respin_number="23")
        async with wheel(scenario(step)) as (sim, host, task):
            await asyncio.wait_for(task, HANG_S)
            states = [f.state for f in host.frames() if f.warn == 0]
            assert 2 in states and 4 in states and sim.results == ["4"]
            assert b" 4" in host.lines and b"23" not in host.lines

    asyncio.run(body())


def test_failed_launch_and_ball_not_detected_flags() -> None:
    steps = (
        spin(number="9", warn="failed_launch", warn_for=2.0),
        spin(warn="ball_not_detected", warn_for=3.0),
    )

    async def body() -> None:
        async with wheel(scenario(*steps)) as (sim, host, task):
            await asyncio.wait_for(task, HANG_S)
            seen = [(f.spin, f.state, f.warn) for f in host.frames()]
            assert (1, 2, 8) in seen and (1, 3, 8) in seen and (1, 3, 0) in seen
            assert (2, 4, 1) in seen and (2, 7, 1) in seen
            game2 = [(s, w) for g, s, w in seen if g == 2]
            assert game2[-1] == (6, 0) and 5 not in [s for s, _w in game2]
            assert sim.results == ["9"]  # the lost ball gives no number

    asyncio.run(body())


# ----- faults, raw lines, cut frames ----------------------------------------------------


def test_fault_sets_flag_4_sends_f_and_stays_until_a_power_cycle() -> None:
    steps = (Step(idle=1.0), Step(fault=FaultSpec(code=5)), Step(idle=60.0))

    async def body() -> None:
        async with wheel(scenario(*steps, mode=1414)) as (_sim, host, _task):
            flagged = await host.wait_frame(lambda f: f.warn & 4 != 0)
            unsolicited = await host.wait_line(b"*F 5", flagged)
            idle = await host.wait_frame(lambda f: f.state == 6 and f.warn == 0, unsolicited)
            host.send(b"*F\r")
            await host.wait_line(b"*F 5", idle)
            host.send(b"*P 1\r*P 0\r*P 0\r")
            answers = await host.wait_line(b"*P NO", idle)
            await host.wait_line(b"*P OK", answers)
            stopped = await host.wait_frame(lambda f: f.speed == 0, idle)
            host.send(b"*O\r*F\r*P 1\r*F\r")
            await host.wait_line(b"*O 6 0 60 1414", stopped)
            still = await host.wait_line(b"*F 5", stopped)
            cleared = await host.wait_line(b"*F 0", still)
            assert b"*P OK" in host.lines[still:cleared]

    asyncio.run(body())


def test_a_permanent_fault_powers_down_until_p1() -> None:
    steps = (Step(fault=FaultSpec(code=6, permanent=True)), spin(number="12"))

    async def body() -> None:
        async with wheel(scenario(*steps)) as (sim, host, task):
            down = await host.wait_frame(lambda f: f.state == 6 and f.speed == 0)
            await host.wait_for(lambda _l: len(host.frames(down)) >= 6)
            assert {f.state for f in host.frames(down)} == {6} and sim.spins_completed == 0
            assert b"*F 6" not in host.lines  # mode 1158 has no bit 256: silent
            host.send(b"*F\r*P 1\r")
            await host.wait_line(b"*F 6", down)
            await asyncio.wait_for(task, HANG_S)
            assert sim.results == ["12"]

    asyncio.run(body())


def test_raw_goes_out_verbatim_and_cut_sends_head_tail_and_a_fresh_frame() -> None:
    steps = (Step(idle=1.0), Step(raw="00;0"), Step(cut=True), Step(idle=1.0))

    async def body() -> None:
        async with wheel(scenario(*steps)) as (_sim, host, task):
            await asyncio.wait_for(task, HANG_S)
            assert b"\r\n00;0\r\n" in host.raw
            at = host.lines.index(b"00;0")
            head, tail, fresh = host.lines[at + 1 : at + 4]
            assert not is_frame(head) and head.startswith(b"*X;") and is_frame(fresh)
            assert head + tail == fresh

    asyncio.run(body())


@pytest.mark.parametrize("kind", ["silence", "disconnect", "power_cycle"])
def test_silence_and_a_dead_pty_send_nothing_and_ignore_input(kind: str) -> None:
    quiet_s = 12.0  # 0.3 s at speed 40
    steps = (Step(idle=1.0), Step(raw="MARK"), Step(**{kind: quiet_s}), Step(raw="BACK"))

    async def body() -> None:
        async with wheel(scenario(*steps, Step(idle=1.0))) as (_sim, host, task):
            mark = await host.wait_line(b"MARK")
            host.send(b"*V\r")
            back = await host.wait_line(b"BACK", mark)
            await asyncio.wait_for(task, HANG_S)
            assert back == mark + 1  # not one byte in between
            assert host.times[back] - host.times[mark] >= 0.9 * quiet_s / SPEED
            assert VERSION not in host.lines  # what the host said meanwhile was ignored
            host_after = host.lines[back + 1 :]
            assert host_after and all(is_frame(line) for line in host_after)

    asyncio.run(body())


def test_a_power_cycle_clears_the_faults_the_self_test_reported() -> None:
    steps = (Step(fault=FaultSpec(code=12)), Step(power_cycle=4.0), Step(idle=6.0))

    async def body() -> None:
        async with wheel(scenario(*steps)) as (_sim, host, task):
            faulted = await host.wait_frame(lambda f: f.warn & 4 == 4)
            idle = await host.wait_frame(lambda f: f.state == 6 and f.warn == 0, faulted)
            host.send(b"*F\r")
            await host.wait_line(b"*F 12", idle)
            await asyncio.sleep(6.0 / SPEED)  # past the power cycle
            mark = len(host.lines)
            host.send(b"*F\r")
            await host.wait_line(b"*F 0", mark)
            await asyncio.wait_for(task, HANG_S)

    asyncio.run(body())


def test_power_on_quiet_sends_nothing_at_first() -> None:
    async def body() -> None:
        async with wheel(scenario(Step(idle=1.0), power_on_quiet=8.0)) as (_sim, host, task):
            started = host.loop.time()
            await asyncio.wait_for(task, HANG_S)
            assert host.chunk_times[0] - started >= 0.9 * 8.0 / SPEED

    asyncio.run(body())
