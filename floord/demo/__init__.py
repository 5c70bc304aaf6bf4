"""`floord demo`: a demo floor on one machine, nothing to install.

Simulated SS2 roulette wheels on real pseudo-terminals, the real daemon (adapters,
engine, journal, MQTT) in this process, a broker (private Mosquitto, embedded amqtt,
or the one given), a virtual floorperson who inspects, opens and resumes the tables,
and a live view. The wheels' scenario injects faults now and then so the procedures
show: ball spun with the rotor, ball lost, failed launch, a wheel fault, and `00` on a
double-zero wheel used as single zero.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiomqtt
import yaml

from floord.config import load_config
from floord.contract import DEFAULT_TOPIC_PREFIX, Topics
from floord.daemon import Daemon
from floord.demo.broker import demo_broker
from floord.demo.floorperson import VirtualFloorperson
from floord.demo.view import LiveView
from floord.operator_client import client_args
from floord.profiles import load_profile

SITE = "demo"
OPERATOR = "FP-DEMO"
SCENARIOS = Path(__file__).resolve().parents[2] / "simulators" / "scenarios"
# (table, wheel type, scenario file, pockets the simulated wheel has)
DEMO_TABLES = [
    ("RL-01", "double_zero_as_single", "demo.yaml", 38),
    ("RL-02", "single_zero", "fair.yaml", 37),
]


def write_demo_config(directory: Path, url: str, ports: dict[str, str]) -> Path:
    """The demo floor's config, as a table box would have it."""
    (directory / "fp-demo.key").write_text("demo-floorperson-secret\n")
    config = {
        "site": SITE,
        "broker": {"url": url},
        "journal": str(directory / "journal.db"),
        "operators": [{"id": OPERATOR, "role": "floorperson", "key_file": "fp-demo.key"}],
        "tables": [
            {
                "id": table,
                "game": "roulette",
                "rules": {"wheel": wheel},
                "devices": [{"id": "wheel", "profile": "cammegh-ss2", "port": ports[table]}],
            }
            for table, wheel, _, _ in DEMO_TABLES
        ],
    }
    path = directory / "floord-demo.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


async def _start_wheels(speed: float) -> tuple[dict[str, str], list[Any], list[asyncio.Task[Any]]]:
    from simulators.cammegh_ss2 import Ss2Simulator
    from simulators.link import open_pty_link
    from simulators.scenario import load_scenario

    profile = load_profile("cammegh-ss2")
    ports: dict[str, str] = {}
    links: list[Any] = []
    tasks: list[asyncio.Task[Any]] = []
    for table, _, scenario_file, pockets in DEMO_TABLES:
        scenario = load_scenario(SCENARIOS / scenario_file)
        if scenario.pockets != pockets:
            scenario = scenario.model_copy(update={"pockets": pockets})
        link, path = await open_pty_link()
        links.append(link)
        ports[table] = path
        tasks.append(asyncio.create_task(Ss2Simulator(profile, scenario, speed=speed).run(link)))
    return ports, links, tasks


async def _watch(url: str, view: LiveView) -> None:
    topic = f"{DEFAULT_TOPIC_PREFIX}/{SITE}/+"
    while True:
        try:
            async with aiomqtt.Client(**client_args(url, None, None)) as client:
                for suffix in ("events", "state", "status"):
                    await client.subscribe(f"{topic}/{suffix}", qos=1)
                async for message in client.messages:
                    view.on_message(str(message.topic), bytes(message.payload))
        except aiomqtt.MqttError:
            await asyncio.sleep(0.5)


async def run_demo(*, seconds: float | None, broker_url: str | None, speed: float) -> int:
    view = LiveView()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="floord-demo-") as tmp:
        async with demo_broker(broker_url) as (url, what):
            ports, links, wheels = await _start_wheels(speed)
            loaded = load_config(write_demo_config(Path(tmp), url, ports))
            daemon = Daemon(loaded)
            host_port = url.split("://", 1)[1]
            host, _, port = host_port.rpartition(":")
            view.header = [
                f"floord demo: site {SITE!r}, tables {', '.join(t for t, *_ in DEMO_TABLES)}, "
                f"broker {url} ({what})",
                "Subscribe from another terminal:",
                f"  mosquitto_sub -h {host} -p {port} -t '{DEFAULT_TOPIC_PREFIX}/{SITE}/#' -v",
                f"  (or: {sys.executable} -m floord.demo.tail {url})",
            ]
            for line in view.header:
                print(line, flush=True)
            fp = VirtualFloorperson(
                url=url,
                operator=OPERATOR,
                key=loaded.operator_key(OPERATOR),
                topics={t: Topics(DEFAULT_TOPIC_PREFIX, SITE, t) for t, *_ in DEMO_TABLES},
                wheels={t: w for t, w, *_ in DEMO_TABLES},
                state_of=view.states.get,
            )
            tasks = [
                asyncio.create_task(_watch(url, view)),
                *(asyncio.create_task(fp.tend(t)) for t, *_ in DEMO_TABLES),
            ]
            runner = asyncio.create_task(daemon.run())
            try:
                while seconds is None or time.monotonic() - started < seconds:
                    view.render(time.monotonic() - started)
                    await asyncio.sleep(0.5)
                    if runner.done():
                        break
            finally:
                daemon.request_stop()
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(runner, 10)
                for task in [*tasks, *wheels]:
                    task.cancel()
                await asyncio.gather(*tasks, *wheels, return_exceptions=True)
                for link in links:
                    with contextlib.suppress(Exception):
                        await link.close()
    print(
        f"floord demo: stopped after {time.monotonic() - started:.1f} s, "
        f"{view.events_seen} table events seen",
        flush=True,
    )
    return 0
