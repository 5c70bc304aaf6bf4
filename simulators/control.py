"""A live control channel for `floord sim`: inject a scenario step while the device runs.

On a rig where most devices are real, a test engineer faults the simulated one mid-game
without restarting it: `floord sim cammegh-ss2 --pty --control unix:/run/sim.sock`, then
one command per line on the channel, in the vocabulary of the simulator's own scenario
steps (parsed and checked by the same scenario model, so a step the scenario file would
refuse is refused here with the same message):

    {fault: {code: 5}}          a YAML/JSON flow mapping, as in a scenario file
    fault: {code: 5}            a scenario step line without its `- `
    fault code=5 permanent=true a step and its keys
    fault 5                     a step whose value is one code (fault, clear, tamper, ...)
    silence 3                   a step whose value is a number or a word
    cut                         a step that takes no value
    help                        this simulator's steps and codes
    status                      what the device is doing

Each command gets one reply line, `ok ...` or `error: ...`; a blank line gets none.
Channels: `stdin` (replies on stdout), `unix:PATH` or `tcp:HOST:PORT` (loopback only:
the channel has no authentication, so it is never offered to the network).

How an injected step runs beside the scenario (which keeps playing):
- SS2 wheel: a step that is a game or the wheel's own condition (`idle`, `spin`, `fault`,
  `power_cycle`) interrupts the step in progress (a fault mid-game abandons that game, as
  on a real wheel); the scenario goes on with its next step afterwards. A line step
  (`raw`, `cut`, `silence`, `disconnect`) happens at once, beside the game.
- FLF/1 devices (reader, shoe, shuffler, Big Six, wheel sensor): the step's frames are
  planned at once against the device's state (so a fault is raised before the reply)
  and played beside the scenario's own steps.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import ipaddress
import json
import os
import random
import socket
import stat
import sys
from collections import deque
from collections.abc import Callable
from typing import Any

from simulators.cammegh_ss2.simulator import Ss2Simulator
from simulators.control_steps import (
    ControlError,
    describe,
    read_command,
    step_fields,
    validate_step,
)
from simulators.flf1.card_device import CardDevice, Send
from simulators.scenario import FAULT_CODES, ScenarioError

MAX_LINE = 4096

# ----- addresses -----------------------------------------------------------------------


def parse_control(spec: str) -> tuple[str, str | tuple[str, int] | None]:
    """`stdin`, `unix:PATH` or `tcp:HOST:PORT` (loopback) as (kind, where)."""
    if spec == "stdin":
        return "stdin", None
    kind, sep, rest = spec.partition(":")
    if sep and kind == "unix" and rest:
        return "unix", rest
    if sep and kind == "tcp":
        host, colon, port = rest.rpartition(":")
        host = host.strip("[]")
        if not colon or not port.isdigit() or not 0 <= int(port) <= 65535:
            raise ControlError(f"control: tcp:HOST:PORT expected, found {spec!r}")
        if not _loopback(host):
            raise ControlError(
                f"control: a loopback host (127.0.0.1, ::1, localhost) expected, found "
                f"{host!r}: the control channel has no authentication"
            )
        return "tcp", (host, int(port))
    raise ControlError(f"control: stdin, unix:PATH or tcp:HOST:PORT expected, found {spec!r}")


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


# ----- how each family takes a step ----------------------------------------------------


class _Ss2Control:
    """Injects steps into a running SS2 twin: game steps interrupt the step in progress."""

    INTERRUPTING = frozenset({"idle", "spin", "fault", "power_cycle"})

    def __init__(self, sim: Ss2Simulator) -> None:
        self.sim = sim
        self.scenario_model = type(sim.scenario)
        self.step_fields = step_fields(self.scenario_model)
        self.context = {"pockets": sim.scenario.pockets}
        # The twin plays its scenario through its `step_player`; taking it over lets an
        # injected step cut the present one short without the twin knowing about the channel.
        self._play = sim.run_step
        sim.step_player = self._scenario_step
        self._pending: deque[Any] = deque()
        self._current: asyncio.Task[None] | None = None
        self._current_kind = "opening"
        self._beside: set[asyncio.Task[None]] = set()

    def codes(self) -> str:
        return f"fault codes {','.join(str(c) for c in sorted(FAULT_CODES))}"

    def check(self, step: Any) -> None:
        return None  # the scenario model checks everything the wheel can do

    async def _scenario_step(self, step: Any) -> None:
        await self._run_pending()
        await self._run(step)
        await self._run_pending()

    async def _run_pending(self) -> None:
        while self._pending:
            await self._run(self._pending.popleft())

    async def _run(self, step: Any) -> None:
        task = asyncio.create_task(self._play(step), name=f"ss2-sim-{step.kind}")
        self._current, self._current_kind = task, step.kind
        try:
            await asyncio.wait({task})
        finally:
            if not task.done():  # the simulator itself is being stopped
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            self._current, self._current_kind = None, "between steps"
        if not task.cancelled():
            task.result()

    def inject(self, step: Any) -> str:
        if step.kind not in self.INTERRUPTING:
            task = asyncio.create_task(self.sim.play_step(step), name=f"ss2-sim-live-{step.kind}")
            self._beside.add(task)
            task.add_done_callback(self._beside.discard)
            return "now, beside the game"
        self._pending.append(step)
        current = self._current
        if current is not None and not current.done():
            current.cancel()
            return f"now, interrupting {self._current_kind}"
        return "at the start of the next step"

    def status(self) -> str:
        sim = self.sim
        frame = sim.current_status()
        return (
            f"state={frame.state} spin={frame.spin} warn={frame.warn} "
            f"powered={'yes' if sim.powered else 'no'} faults={sim.active_faults} "
            f"spins_completed={sim.spins_completed} step={self._current_kind} "
            f"queued={len(self._pending)}"
        )

    async def close(self) -> None:
        for task in list(self._beside):
            task.cancel()
        await asyncio.gather(*self._beside, return_exceptions=True)


class _CardControl:
    """Injects steps into a running FLF/1 device: planned at once, played beside the scenario."""

    def __init__(self, sim: CardDevice) -> None:
        self.sim = sim
        self.scenario_model = type(sim.scenario)
        self.step_fields = step_fields(self.scenario_model)
        # What a step is checked against beside itself: a wheel sensor's pockets.
        self.context = sim.scenario.model_dump(include={"pockets"})
        self._running: set[asyncio.Task[None]] = set()

    def codes(self) -> str:
        faults = ",".join(str(c) for c in sorted(self.sim.faults))
        tampers = ",".join(str(c) for c in sorted(self.sim.tampers))
        return f"fault codes {faults}; tamper codes {tampers}"

    def check(self, step: Any) -> None:
        """What the simulator checks of a scenario's step against its profile, dry-run."""
        problem = self.sim.step_problem(step)
        if problem:
            raise ControlError(f"{step.kind}: {problem}")
        state = copy.deepcopy(self.sim.state)
        try:
            for action in self.sim.plan(step, state, random.Random(0)):
                if isinstance(action, Send):
                    self.sim.check_frame(action.kind, action.fields, step.kind)
        except ScenarioError as exc:
            raise ControlError(str(exc)) from exc

    def inject(self, step: Any) -> str:
        channel = self.sim.channel
        if channel is None:
            raise ControlError("the device has not powered on yet")
        actions = self.sim.plan(step, self.sim.state, self.sim.rng)

        async def play() -> None:
            for action in actions:
                await self.sim.perform(channel, action)

        task = asyncio.create_task(play(), name=f"card-sim-live-{step.kind}")
        self._running.add(task)
        task.add_done_callback(self._running.discard)
        return "now, beside the scenario"

    def status(self) -> str:
        faults = {code: text for code, text in self.sim.state.faults.items()}
        return f"faults={json.dumps(faults)} live_steps_running={len(self._running)}"

    async def close(self) -> None:
        for task in list(self._running):
            task.cancel()
        await asyncio.gather(*self._running, return_exceptions=True)


# ----- the channel ---------------------------------------------------------------------


class Controller:
    """Turns command lines into replies for one running simulator."""

    def __init__(self, simulator: Any, profile_name: str) -> None:
        if isinstance(simulator, Ss2Simulator):
            self.family: _Ss2Control | _CardControl = _Ss2Control(simulator)
        elif isinstance(simulator, CardDevice):
            self.family = _CardControl(simulator)
        else:
            raise ControlError(f"control: not available for {type(simulator).__name__}")
        self.profile_name = profile_name
        self.injected = 0

    def vocabulary(self) -> str:
        fields = self.family.step_fields
        steps = " | ".join(describe(k, f.annotation) for k, f in fields.items())
        return f"steps: {steps}; {self.family.codes()}; also: help, status"

    def handle(self, line: str) -> str | None:
        """The reply to one line (None for a blank line); never raises for bad input."""
        text = line.strip()
        if not text:
            return None
        if text == "help":
            return f"ok {self.profile_name}: {self.vocabulary()}"
        if text == "status":
            return f"ok {self.profile_name}: {self.family.status()} injected={self.injected}"
        try:
            if len(text) > MAX_LINE:
                raise ControlError(f"a line of at most {MAX_LINE} characters expected")
            mapping = read_command(text, self.family.step_fields)
            step = validate_step(self.family.scenario_model, self.family.context, mapping)
            self.family.check(step)
            when = self.family.inject(step)
        except ValueError as exc:  # ControlError, ScenarioError: what was wrong, in one line
            return f"error: {_one_line(str(exc))}"
        self.injected += 1
        body = json.dumps(step.model_dump(exclude_none=True)[step.kind])
        return f"ok {step.kind} {body}: {when}"

    async def close(self) -> None:
        await self.family.close()


def _one_line(text: str) -> str:
    return " ".join(text.split())


class ControlChannel:
    """The listening side: stdin, a unix socket or a loopback TCP port."""

    def __init__(self, controller: Controller, spec: str) -> None:
        self.controller = controller
        self.kind, self.where = parse_control(spec)
        self.address = spec
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._unix_path: str | None = None

    async def start(self, announce: Callable[[str], None]) -> None:
        if self.kind == "stdin":
            self._spawn(self._serve_stdin())
        elif self.kind == "unix":
            assert isinstance(self.where, str)
            _remove_stale_socket(self.where)
            self._server = await asyncio.start_unix_server(self._on_client, self.where)
            self._unix_path = self.where
            self.address = f"unix:{self.where}"
        else:
            assert isinstance(self.where, tuple)
            self._server = await asyncio.start_server(self._on_client, *self.where)
            host, port = self._server.sockets[0].getsockname()[:2]
            self.address = f"tcp:{host}:{port}"
        announce(f"control: {self.address}")

    def _spawn(self, coro: Any) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _serve_lines(self, reader: asyncio.StreamReader, reply: Callable[[str], Any]) -> None:
        while True:
            try:
                raw = await reader.readline()
            except ValueError:  # a line over the reader's limit: refuse it, keep serving
                await reply("error: line too long")
                continue
            except ConnectionError:
                return
            if not raw:
                return
            answer = self.controller.handle(raw.decode("utf-8", "replace"))
            if answer is not None:
                await reply(answer)

    async def _on_client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)

        async def reply(text: str) -> None:
            writer.write(text.encode() + b"\n")
            await writer.drain()

        try:
            await self._serve_lines(reader, reply)
        except ConnectionError:
            pass
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError, OSError, asyncio.CancelledError):
                await writer.wait_closed()
            if task is not None:
                self._tasks.discard(task)

    async def _serve_stdin(self) -> None:
        async def reply(text: str) -> None:
            print(text, flush=True)

        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=MAX_LINE * 2)
        try:
            transport, _ = await loop.connect_read_pipe(
                lambda: asyncio.StreamReaderProtocol(reader), sys.stdin
            )
        except ValueError:  # a regular file on stdin: its commands, in order
            for line in sys.stdin.read().splitlines():
                answer = self.controller.handle(line)
                if answer is not None:
                    await reply(answer)
            return
        try:
            await self._serve_lines(reader, reply)
        finally:
            transport.close()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()
            self._server = None
        if self._unix_path is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self._unix_path)
        await self.controller.close()


def _remove_stale_socket(path: str) -> None:
    """A socket left by a killed simulator is removed; any other file is an error."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(mode):
        raise ControlError(f"control: {path} exists and is not a socket")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(path)
        except OSError:
            os.unlink(path)  # nobody listens: left by a simulator that was killed
            return
    raise ControlError(f"control: {path}: another simulator is listening there")


async def open_control(
    spec: str, simulator: Any, profile_name: str, announce: Callable[[str], None]
) -> ControlChannel:
    """Start the control channel `spec` for a built simulator and announce its address."""
    channel = ControlChannel(Controller(simulator, profile_name), spec)
    try:
        await channel.start(announce)
    except OSError as exc:
        raise ControlError(f"control: cannot listen on {spec}: {exc}") from exc
    return channel
