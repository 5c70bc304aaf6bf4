"""`floord demo`: a demo floor on one machine, nothing to install.

Simulated roulette wheels (two Cammegh SS2, one manual wheel with the sensor kit), a Big
Six wheel and card tables (a Blackjack table with card reader,
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
voiding its round. A Big Six wheel B6-01 (its dealer calls "no more bets" with `spin`
before each spin) shows a spin at rest on a divider and one too short, both spun again
(`big_six_table`). RL-03 is a manual single-zero wheel with the sensor kit
(`sensor_wheel`): its dealer signs in (`dealer_in`), so each result carries the dealer
and the release pocket; now and then a spin is no spin (§ 531.7(a), (b)); and it is
biased towards one arc of pockets and spins in time-lapse (a dozen or so spins a second,
each only eight frames), so that the live wheel-integrity surveillance
(`sensor_wheel.SURVEILLANCE`) fills its window and raises a `surveillance.alert` within
half a minute.

The demo's files (config, keys, journal) go to a temporary directory in memory
(/dev/shm) where there is one: they are thrown away at the end, and the time-lapse
wheel's many commits a second need not wait for a disk. Stopping is bounded and goes in
order: the simulated devices fall silent (their ptys stay open), the daemon gets
`STOP_S` to stop cleanly (it is cancelled after), then the ptys and the demo's own tasks
close, each wait bounded, so the demo ends within seconds even mid-spin.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import tempfile
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import aiomqtt
import structlog
import yaml

from floord.config.load import load_config
from floord.contract import DEFAULT_TOPIC_PREFIX, Topics
from floord.demo.big_six_table import TABLE as BIG_SIX_TABLE
from floord.demo.big_six_table import BigSixHand, big_six_wheel
from floord.demo.big_six_table import table_config as big_six_config
from floord.demo.broker import demo_broker
from floord.demo.card_devices import DEMO_CARD_TABLES, CardFloor, pace_for, table_config
from floord.demo.dealer import VirtualDealer
from floord.demo.floorperson import VirtualFloorperson
from floord.demo.pty_device import PtyDevice
from floord.demo.seat import SignedOperator
from floord.demo.sensor_wheel import FAVOURED, SURVEILLANCE, time_lapse_wheel
from floord.demo.sensor_wheel import TABLE as SENSOR_TABLE
from floord.demo.sensor_wheel import WHEEL as SENSOR_WHEEL
from floord.demo.sensor_wheel import table_config as sensor_config
from floord.demo.stop_signals import StopSignals
from floord.demo.view import LiveView
from floord.operator.client import client_args
from floord.processes.daemon import Daemon
from floord.profiles import load_profile

SITE = "demo"
OPERATOR = "FP-DEMO"
DEALER = "DL-DEMO"
SCENARIOS = Path(__file__).resolve().parents[2] / "simulators" / "scenarios"
# The SS2 wheels: (table, wheel type, scenario file, pockets the simulated wheel has)
DEMO_TABLES = [
    ("RL-01", "double_zero_as_single", "demo.yaml", 38),
    ("RL-02", "single_zero", "fair.yaml", 37),
]
STOP_S = 10.0  # the daemon's clean stop; then it is cancelled
CLOSE_S = 3.0  # each later step of the teardown
# The embedded broker shares the demo's process: the time-lapse wheel spins slower there.
EMBEDDED_TIME_LAPSE = 4.0


def write_demo_config(
    directory: Path,
    url: str,
    ports: dict[str, str],
    card_ports: dict[str, dict[str, str]] | None = None,
    wheel_ports: dict[str, str] | None = None,
    journal: Path | None = None,
) -> Path:
    """The demo floor's config, as a table box would have it; the journal goes in
    `directory` unless `journal` names a file to keep."""
    (directory / "fp-demo.key").write_text("demo-floorperson-secret\n")
    (directory / "dl-demo.key").write_text("demo-dealer-secret\n")
    card_ports = card_ports or {}
    wheel_ports = wheel_ports or {}
    config = {
        "site": SITE,
        "broker": {"url": url},
        "journal": str(journal or directory / "journal.db"),
        "surveillance": dict(SURVEILLANCE),
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
            *([sensor_config(wheel_ports[SENSOR_TABLE])] if SENSOR_TABLE in wheel_ports else []),
            *([big_six_config(wheel_ports[BIG_SIX_TABLE])] if BIG_SIX_TABLE in wheel_ports else []),
        ],
    }
    path = directory / "floord-demo.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


async def _start_wheels(speed: float) -> tuple[dict[str, str], list[Any], list[asyncio.Task[Any]]]:
    from simulators.cammegh_ss2.simulator import Ss2Simulator
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


def _work_directory() -> tempfile.TemporaryDirectory[str]:
    """The demo's throwaway files, in memory where the machine has /dev/shm."""
    shm = Path("/dev/shm")
    where = str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None
    return tempfile.TemporaryDirectory(prefix="floord-demo-", dir=where)


async def _bounded(tasks: list[asyncio.Task[Any]], seconds: float) -> None:
    """Cancel `tasks` and wait at most `seconds` for them to end (never for ever: a task
    that ignores its cancellation is left behind, not waited on)."""
    for task in tasks:
        task.cancel()
    if tasks:
        await asyncio.wait(tasks, timeout=seconds)


async def _stop_daemon(daemon: Daemon | None, runner: asyncio.Task[Any] | None) -> None:
    """Ask the daemon to stop cleanly; cancel it if it has not within `STOP_S`."""
    if daemon is not None:
        daemon.request_stop()
    if runner is None:
        return
    done, _ = await asyncio.wait({runner}, timeout=STOP_S)
    if not done:
        # Say what the daemon was still waiting for: a stop this slow is a daemon bug.
        print(f"floord demo: the daemon did not stop within {STOP_S} s:", file=sys.stderr)
        for task in asyncio.all_tasks():
            if not task.done() and task is not asyncio.current_task():
                task.print_stack(limit=4, file=sys.stderr)
        await _bounded([runner], CLOSE_S)


async def within(closing: Coroutine[Any, Any, Any], seconds: float) -> None:
    """Run a teardown step for at most `seconds`; one that overruns is cancelled and left
    (asyncio.wait_for would wait for the cancellation to be honoured, maybe for ever)."""
    task = asyncio.ensure_future(closing)
    done, _ = await asyncio.wait({task}, timeout=seconds)
    if not done:
        task.cancel()
    elif not task.cancelled() and task.exception() is not None:
        structlog.get_logger("floord.demo").warning(
            "teardown step failed", error=str(task.exception())
        )


async def _close_devices(devices: list[PtyDevice], links: list[Any]) -> None:
    for device in devices:
        await within(device.close(), CLOSE_S)
    for link in links:
        with contextlib.suppress(Exception):
            await link.close()


def _header(url: str, what: str, tables: list[str]) -> list[str]:
    host_port = url.split("://", 1)[1]
    host, _, port = host_port.rpartition(":")
    return [
        f"floord demo: site {SITE!r}, tables {', '.join(tables)}, broker {url} ({what})",
        f"{SENSOR_TABLE} is a time-lapse wheel (a manual wheel with the sensor kit, many spins "
        f"a second; its wheel events are not shown): biased towards {'-'.join(FAVOURED)}, "
        f"flagged by the sector test once {SURVEILLANCE['window']} results are in",
        "Subscribe from another terminal:",
        f"  mosquitto_sub -h {host} -p {port} -t '{DEFAULT_TOPIC_PREFIX}/{SITE}/#' -v",
        f"  (or: {sys.executable} -m floord.demo.tail {url})",
    ]


async def run_demo(
    *, seconds: float | None, broker_url: str | None, speed: float, journal: Path | None = None
) -> int:
    view = LiveView(time_lapse=frozenset({SENSOR_TABLE}))
    started = time.monotonic()
    wheel_tables = [SENSOR_TABLE, BIG_SIX_TABLE]
    tables = [t for t, *_ in DEMO_TABLES] + [t.id for t in DEMO_CARD_TABLES] + wheel_tables
    stopping: float | None = None
    signals = StopSignals()
    with signals.installed(), _work_directory() as tmp:
        async with demo_broker(broker_url) as (url, what):
            cards = CardFloor(pace_for(speed))
            lapse = EMBEDDED_TIME_LAPSE if "embedded" in what else 1.0
            big_six = big_six_wheel()
            devices = [time_lapse_wheel(lapse), big_six]
            wheels: list[asyncio.Task[Any]] = []
            links: list[Any] = []
            tasks: list[asyncio.Task[Any]] = []
            runner: asyncio.Task[Any] | None = None
            operators: list[SignedOperator] = []
            daemon: Daemon | None = None
            try:
                ports, links, wheels = await _start_wheels(speed)
                await cards.open()
                for device in devices:
                    await device.open()
                wheel_ports = {t: d.port for t, d in zip(wheel_tables, devices, strict=True)}
                loaded = load_config(
                    write_demo_config(Path(tmp), url, ports, cards.ports, wheel_ports, journal)
                )
                daemon = Daemon(loaded)
                view.header = _header(url, what, tables)
                for line in view.header:
                    view.write(line + "\n")
                topics = {t: Topics(DEFAULT_TOPIC_PREFIX, SITE, t) for t in tables}
                games = {t.id: t.game for t in DEMO_CARD_TABLES}
                games |= {BIG_SIX_TABLE: "big_six", SENSOR_TABLE: "roulette"}
                dealt = list(games)  # the tables with a virtual dealer
                fp = VirtualFloorperson(
                    url=url,
                    operator=OPERATOR,
                    key=loaded.operator_key(OPERATOR),
                    topics=topics,
                    wheels={t: w for t, w, *_ in DEMO_TABLES} | {SENSOR_TABLE: SENSOR_WHEEL},
                    games=games,
                    state_of=view.states.get,
                )
                dealer = VirtualDealer(
                    url=url,
                    operator=DEALER,
                    key=loaded.operator_key(DEALER),
                    topics={t: topics[t] for t in dealt},
                    boxes={t.id: t.boxes for t in DEMO_CARD_TABLES}
                    | dict.fromkeys(wheel_tables, ()),
                    games=games,
                    pace=cards.pace,
                    hands={BIG_SIX_TABLE: BigSixHand(big_six).spin},
                )
                operators = [fp, dealer]
                tasks = [
                    asyncio.create_task(_watch(url, [view.on_message, dealer.on_message])),
                    *(asyncio.create_task(fp.tend(t)) for t in tables),
                    *(asyncio.create_task(dealer.deal(t)) for t in dealt),
                ]
                runner = asyncio.create_task(daemon.run())
                await asyncio.sleep(0.2)  # the drivers open their ports
                signals.install()  # over the daemon's own: the demo stops it, in order
                cards.start()
                for device in devices:
                    device.start()
                while seconds is None or time.monotonic() - started < seconds:
                    view.render(time.monotonic() - started)
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(signals.requested.wait(), 0.5)
                    if runner.done() or signals.requested.is_set():
                        break
            finally:
                stopping = time.monotonic()
                # The devices fall silent first: a driver that is being cancelled while
                # its device talks can miss the cancellation (asyncio.wait_for on Python
                # 3.11 drops it when the read completes at the same moment), and the
                # daemon would wait on it for as long as the device goes on talking.
                await _bounded(wheels, CLOSE_S)
                for device in devices:
                    await within(device.power_off(), CLOSE_S)
                await within(cards.power_off(), CLOSE_S)
                # The operators leave before the daemon stops: none of their commands
                # reaches it while it is stopping (it would refuse them, `stopping`).
                for operator in operators:
                    await operator.leave(CLOSE_S)
                await _stop_daemon(daemon, runner)
                await _bounded(tasks, CLOSE_S)
                await within(cards.close(), CLOSE_S)
                await _close_devices(devices, links)
    stop_s = time.monotonic() - stopping if stopping is not None else 0.0
    view.write(
        f"floord demo: stopped after {time.monotonic() - started:.1f} s "
        f"(stopping took {stop_s:.1f} s), {view.events_seen} table events seen\n"
    )
    return 0
