"""The Cammegh SS2 simulator's TCP link and `run_simulator` on a pty. Its scenario files
and wire forms are in `test_simulator_ss2_links.py`.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from pathlib import Path

import pytest
from test_simulator_ss2_links import HANG_S, _tcp_line, is_frame

from floord.profiles import load_profile
from simulators.cammegh_ss2.simulator import SIMULATOR, Ss2Simulator
from simulators.link import serve_tcp
from simulators.run import load_simulator, run_simulator
from simulators.scenario import Scenario, Step

pytestmark = pytest.mark.system


PROFILE = load_profile("cammegh-ss2")

SPEED = 40.0

VERSION = b"*V V2.50 Cammegh / Syoptic - SlingShot 2 Roulette Wheel (c) 03/12/18"


def scenario(*steps: Step, **settings: object) -> Scenario:
    return Scenario.model_validate({**settings, "steps": list(steps)})


async def _tcp_client_hearing_frames(
    port: int,
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Connect until the wheel serves us (it turns clients away while unplugged)."""
    deadline = asyncio.get_running_loop().time() + HANG_S
    while True:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            await _tcp_line(reader, is_frame)
            return reader, writer
        except asyncio.IncompleteReadError:
            writer.close()
            await writer.wait_closed()
            assert asyncio.get_running_loop().time() < deadline, "never served again"


def test_tcp_link_serves_one_client_at_a_time_and_drops_on_disconnect() -> None:
    steps = (Step(idle=40.0), Step(disconnect=8.0), Step(idle=60.0))

    async def body() -> None:
        link = await serve_tcp("127.0.0.1", 0)
        sim = Ss2Simulator(PROFILE, scenario(*steps), speed=SPEED)
        task = asyncio.create_task(sim.run(link))
        first_r, first_w = await asyncio.open_connection("127.0.0.1", link.port)
        second_r, second_w = await asyncio.open_connection("127.0.0.1", link.port)
        try:
            await _tcp_line(first_r, is_frame)
            assert await asyncio.wait_for(second_r.read(), HANG_S) == b""  # turned away
            first_w.write(b"*V\r\n")
            assert await _tcp_line(first_r, lambda ln: ln.startswith(b"*V")) == VERSION
            with pytest.raises(asyncio.IncompleteReadError):  # the disconnect step
                await _tcp_line(first_r, lambda _ln: False)
            third_r, third_w = await _tcp_client_hearing_frames(link.port)
            third_w.write(b"*S\r")
            assert await _tcp_line(third_r, lambda ln: ln.startswith(b"*S")) == b"*S V2.50"
            third_w.close()
            await third_w.wait_closed()
        finally:
            for writer in (first_w, second_w):
                writer.close()
                with contextlib.suppress(ConnectionError):
                    await writer.wait_closed()
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            await link.close()
        assert asyncio.all_tasks() == {asyncio.current_task()}

    asyncio.run(body())


def test_run_simulator_announces_and_ends_with_its_scenario(tmp_path: Path) -> None:
    path = tmp_path / "short.yaml"
    path.write_text('steps:\n  - spin: {number: "5"}\n', encoding="utf-8")
    said: list[str] = []

    async def body() -> None:
        code = await run_simulator(
            "cammegh-ss2", pty=False, tcp="127.0.0.1:0", scenario_path=str(path),
            speed=SPEED, announce=said.append,
        )  # fmt: skip
        assert code == 0
        pty_code = await run_simulator(
            "cammegh-ss2", pty=True, tcp=None, scenario_path=str(path),
            speed=SPEED, announce=said.append,
        )  # fmt: skip
        assert pty_code == 0
        assert asyncio.all_tasks() == {asyncio.current_task()}

    asyncio.run(body())
    assert re.fullmatch(r"tcp: 127\.0\.0\.1:\d+", said[0]) and said[1].startswith("pty: /dev/")
    assert load_simulator(PROFILE) is SIMULATOR is Ss2Simulator
