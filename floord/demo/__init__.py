"""`floord demo`: a demo floor on one machine, nothing to install.

Simulated SS2 roulette wheels and card tables (a Blackjack table with card reader,
card-recognition shoe and batch shuffler; a Spanish 21 table with reader and shoe; a
Baccarat table with a card-reading shoe; a Mississippi Stud table with an automated
shoe and a counting shuffler) on
real pseudo-terminals, the real daemon (adapters, engine, journal, MQTT) in this
process, a broker (private Mosquitto, embedded amqtt, or the one given), a virtual
floorperson who inspects, opens and resumes the tables, a virtual dealer who plays the
card tables' rounds, and a live view. The scenarios inject faults now and then so the
procedures show: ball spun with the rotor, ball lost, failed launch, a wheel fault,
`00` on a double-zero wheel used as single zero; a card reader that fails and halts
its table until it is replaced and the table resumed, a shuffler batch counted one card
short, and a shuffler jam; a Baccarat dealer who now and then draws a third card the
tableau forbids; a Mississippi Stud shuffler that jams and a shoe that stops mid-deal,
voiding its round.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiomqtt
import yaml

from floord.config import load_config
from floord.contract import DEFAULT_TOPIC_PREFIX, Topics
from floord.daemon import Daemon
from floord.demo.broker import demo_broker
from floord.demo.card_devices import DEMO_CARD_TABLES, CardFloor, pace_for, table_config
from floord.demo.dealer import VirtualDealer
from floord.demo.floorperson import VirtualFloorperson
from floord.demo.view import LiveView
from floord.operator_client import client_args
from floord.profiles import load_profile

SITE = "demo"
OPERATOR = "FP-DEMO"
DEALER = "DL-DEMO"
SCENARIOS = Path(__file__).resolve().parents[2] / "simulators" / "scenarios"
# (table, wheel type, scenario file, pockets the simulated wheel has)
DEMO_TABLES = [
    ("RL-01", "double_zero_as_single", "demo.yaml", 38),
    ("RL-02", "single_zero", "fair.yaml", 37),
]


def write_demo_config(
    directory: Path,
    url: str,
    ports: dict[str, str],
    card_ports: dict[str, dict[str, str]] | None = None,
) -> Path:
    """The demo floor's config, as a table box would have it."""
    (directory / "fp-demo.key").write_text("demo-floorperson-secret\n")
    (directory / "dl-demo.key").write_text("demo-dealer-secret\n")
    card_ports = card_ports or {}
    config = {
        "site": SITE,
        "broker": {"url": url},
        "journal": str(directory / "journal.db"),
        "operators": [
            {"id": OPERATOR, "role": "floorperson", "key_file": "fp-demo.key"},
            {"id": DEALER, "role": "dealer", "key_file": "dl-demo.key"},
        ],
        "tables": [
            *(
                {
                    "id": table,
                    "game": "roulette",
                    "rules": {"wheel": wheel},
                    "devices": [{"id": "wheel", "profile": "cammegh-ss2", "port": ports[table]}],
                }
                for table, wheel, _, _ in DEMO_TABLES
            ),
            *(table_config(t, card_ports[t.id]) for t in DEMO_CARD_TABLES if t.id in card_ports),
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


async def _watch(url: str, listeners: list[Callable[[str, bytes], None]]) -> None:
    topic = f"{DEFAULT_TOPIC_PREFIX}/{SITE}/+"
    while True:
        try:
            async with aiomqtt.Client(**client_args(url, None, None)) as client:
                for suffix in ("events", "state", "status"):
                    await client.subscribe(f"{topic}/{suffix}", qos=1)
                async for message in client.messages:
                    for listener in listeners:
                        listener(str(message.topic), bytes(message.payload))
        except aiomqtt.MqttError:
            await asyncio.sleep(0.5)


async def run_demo(*, seconds: float | None, broker_url: str | None, speed: float) -> int:
    view = LiveView()
    started = time.monotonic()
    tables = [t for t, *_ in DEMO_TABLES] + [t.id for t in DEMO_CARD_TABLES]
    with tempfile.TemporaryDirectory(prefix="floord-demo-") as tmp:
        async with demo_broker(broker_url) as (url, what):
            cards = CardFloor(pace_for(speed))
            wheels: list[asyncio.Task[Any]] = []
            links: list[Any] = []
            tasks: list[asyncio.Task[Any]] = []
            runner: asyncio.Task[Any] | None = None
            daemon: Daemon | None = None
            try:
                ports, links, wheels = await _start_wheels(speed)
                await cards.open()
                loaded = load_config(write_demo_config(Path(tmp), url, ports, cards.ports))
                daemon = Daemon(loaded)
                host_port = url.split("://", 1)[1]
                host, _, port = host_port.rpartition(":")
                view.header = [
                    f"floord demo: site {SITE!r}, tables {', '.join(tables)}, "
                    f"broker {url} ({what})",
                    "Subscribe from another terminal:",
                    f"  mosquitto_sub -h {host} -p {port} -t '{DEFAULT_TOPIC_PREFIX}/{SITE}/#' -v",
                    f"  (or: {sys.executable} -m floord.demo.tail {url})",
                ]
                for line in view.header:
                    view.write(line + "\n")
                topics = {t: Topics(DEFAULT_TOPIC_PREFIX, SITE, t) for t in tables}
                fp = VirtualFloorperson(
                    url=url,
                    operator=OPERATOR,
                    key=loaded.operator_key(OPERATOR),
                    topics=topics,
                    wheels={t: w for t, w, *_ in DEMO_TABLES},
                    games={t.id: t.game for t in DEMO_CARD_TABLES},
                    state_of=view.states.get,
                )
                dealer = VirtualDealer(
                    url=url,
                    operator=DEALER,
                    key=loaded.operator_key(DEALER),
                    topics={t.id: topics[t.id] for t in DEMO_CARD_TABLES},
                    boxes={t.id: t.boxes for t in DEMO_CARD_TABLES},
                    games={t.id: t.game for t in DEMO_CARD_TABLES},
                    pace=cards.pace,
                )
                tasks = [
                    asyncio.create_task(_watch(url, [view.on_message, dealer.on_message])),
                    *(asyncio.create_task(fp.tend(t)) for t in tables),
                    *(asyncio.create_task(dealer.deal(t.id)) for t in DEMO_CARD_TABLES),
                ]
                runner = asyncio.create_task(daemon.run())
                await asyncio.sleep(0.2)  # the drivers open their ports
                cards.start()
                while seconds is None or time.monotonic() - started < seconds:
                    view.render(time.monotonic() - started)
                    await asyncio.sleep(0.5)
                    if runner.done():
                        break
            finally:
                if daemon is not None:
                    daemon.request_stop()
                if runner is not None:
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(runner, 10)
                for task in [*tasks, *wheels]:
                    task.cancel()
                await asyncio.gather(*tasks, *wheels, return_exceptions=True)
                await cards.close()
                for link in links:
                    with contextlib.suppress(Exception):
                        await link.close()
    view.write(
        f"floord demo: stopped after {time.monotonic() - started:.1f} s, "
        f"{view.events_seen} table events seen\n"
    )
    return 0
