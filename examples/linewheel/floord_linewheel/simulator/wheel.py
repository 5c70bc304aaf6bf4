"""The device side of LW/1 (`protocol.md`): a roulette wheel result reporter's twin.

It speaks the protocol's exact bytes on whatever link `floord sim` gives it (a pty or a
TCP port): a heartbeat every second, each scripted spin as `SPIN`, `BALL`, `NMB`, `RES`,
and the answer to `ID?`. It never imports the driver, so a misreading of the page
cannot hide in both. A scenario file (`floord sim linewheel-rw1 --scenario FILE`):

    pockets: 37            # or 38: the wheel's kind, answered in ID
    steps:
      - idle: 2            # seconds of heartbeats
      - spin: {rotor: cw, ball: ccw, pocket: "17"}
      - fault: {code: 1}   # FLT 1 pocket sensor failed
      - garble: {}         # one line with a wrong checksum

Without one, it spins for ever, a random pocket every few seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from functools import reduce
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from floord.events import Simulator
from floord.profiles import DeviceProfile, load_strict_yaml

FAULTS = {1: "pocket sensor failed", 2: "rotor sensor failed", 3: "ball sensor failed"}
HEARTBEAT_S = 1.0


def pocket_labels(pockets: int) -> frozenset[str]:
    """0 to 36, and 00 on a double-zero wheel."""
    return frozenset({str(n) for n in range(37)} | ({"00"} if pockets == 38 else set()))


class ScenarioError(ValueError):
    """A scenario file that cannot be played; the message names the file and the key."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Spin(_Strict):
    rotor: Literal["cw", "ccw"] = "cw"
    ball: Literal["cw", "ccw"] = "ccw"
    rpm: float = Field(default=24.5, ge=0.1, le=99.9)
    pocket: str | None = Field(default=None, description="None: the dealer stopped the spin")
    seconds: float = Field(default=2.0, ge=0, le=60, description="launch to rest")


class Fault(_Strict):
    code: int = Field(ge=1, le=99)


class Step(_Strict):
    idle: float | None = Field(default=None, ge=0)
    spin: Spin | None = None
    fault: Fault | None = None
    garble: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> Step:
        given = [k for k in ("idle", "spin", "fault", "garble") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(f"exactly one of idle, spin, fault, garble expected, found {given}")
        return self


class Scenario(_Strict):
    pockets: Literal[37, 38] = 37
    serial: str = Field(default="LW-0001", pattern=r"^[!-~]{1,16}$")
    firmware: str = Field(default="1.0", pattern=r"^[!-~]{1,16}$")
    seed: int = 0
    steps: list[Step] = Field(default_factory=list)

    @model_validator(mode="after")
    def _pockets_of_the_wheel(self) -> Scenario:
        labels = pocket_labels(self.pockets)
        for step in self.steps:
            if step.spin and step.spin.pocket is not None and step.spin.pocket not in labels:
                pocket = step.spin.pocket
                raise ValueError(
                    f"pocket {pocket!r} is not a pocket of a {self.pockets}-pocket wheel"
                )
        return self


def line(body: str) -> bytes:
    """One LW/1 line: the body, its xor checksum, CR LF."""
    raw = body.encode("ascii")
    return raw + f"*{reduce(lambda acc, byte: acc ^ byte, raw, 0):02X}\r\n".encode()


class LineWheelSimulator:
    """An LW/1 wheel playing a scenario on a link (floord.events.Simulator)."""

    def __init__(self, profile: DeviceProfile, scenario: Scenario | None, speed: float) -> None:
        self.profile = profile
        self.scenario = scenario or Scenario()
        self.speed = speed
        self.spin = 0
        self._rng = random.Random(self.scenario.seed)
        self._lock = asyncio.Lock()
        self._last_sent = 0.0

    @classmethod
    def load_scenario(cls, path: Path) -> Scenario:
        return load_strict_yaml(path, Scenario, ScenarioError)

    async def run(self, link: Any) -> None:
        """Answer the host and keep the line alive while the steps play; return after them."""
        helpers = [asyncio.create_task(self._answer(link)), asyncio.create_task(self._beat(link))]
        try:
            if self.scenario.steps:
                for step in self.scenario.steps:
                    await self._play(link, step)
            else:
                while True:
                    pocket = self._rng.choice(sorted(pocket_labels(self.scenario.pockets)))
                    await self._play(link, Step(spin=Spin(pocket=pocket)))
                    await self._play(link, Step(idle=3.0))
        finally:
            for task in helpers:
                task.cancel()
            for task in helpers:
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    async def _send(self, link: Any, body: str) -> None:
        async with self._lock:
            await link.write(line(body))
            self._last_sent = asyncio.get_running_loop().time()

    async def _wait(self, seconds: float) -> None:
        await asyncio.sleep(seconds / self.speed)

    async def _play(self, link: Any, step: Step) -> None:
        if step.idle is not None:
            await self._wait(step.idle)
        elif step.fault is not None:
            code = step.fault.code
            await self._send(link, f"FLT {code} {FAULTS.get(code, 'internal error')}")
        elif step.garble is not None:
            async with self._lock:
                await link.write(b"HB*00\r\n")
        elif step.spin is not None:
            spin = step.spin
            self.spin = self.spin % 99999 + 1
            await self._send(link, f"SPIN {self.spin} {spin.rotor} {round(spin.rpm * 10)}")
            await self._wait(0.2)
            await self._send(link, f"BALL {self.spin} {spin.ball}")
            await self._wait(spin.seconds * 0.7)
            await self._send(link, f"NMB {self.spin}")
            await self._wait(spin.seconds * 0.3)
            if spin.pocket is not None:
                await self._send(link, f"RES {self.spin} {spin.pocket}")

    async def _beat(self, link: Any) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(HEARTBEAT_S / 4)
            if loop.time() - self._last_sent >= HEARTBEAT_S:
                await self._send(link, "HB")

    async def _answer(self, link: Any) -> None:
        """`ID?` is answered; anything else the host sends is ignored, as the page says."""
        pending = b""
        while True:
            data = await link.read()
            if not data:
                pending = b""  # the line was reset: a new host
                continue
            pending = (pending + data)[-256:]
            while b"\n" in pending:
                raw, pending = pending.split(b"\n", 1)
                if raw.rstrip(b"\r") == line("ID?").rstrip(b"\r\n"):
                    s = self.scenario
                    await self._send(link, f"ID {s.serial} {s.firmware} {s.pockets}")


SIMULATOR: type[Simulator] = LineWheelSimulator  # mypy checks it is a Simulator
