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
half a minute; a little later its rotor once fails to change direction and its dealer
slows down for a few spins (`crafted_pace`), and the spin physics and pace tests
(`docs/analytics.md`) raise one alert each (the pace test's for the table and for the
dealer). Its spins, and the SS2 wheels' numbers, are drawn fresh in every run from
the run's seed (`--seed N` repeats a run's; `ss2_wheels`, `sensor_wheel`).

A Craps table CR-01 (a camera dice tracker) and a Pai Gow table PG-01 (a shaker) have a
crew (`dice_dealer`): each shooter's first throw is an invalid roll (a die off the
table, § 537.9(a)), a throw whose dice left the hand apart is called "no roll" by the
boxperson, and points of 4, 5, 6 and 8 make the Fire Bet's four unique points, which
notify surveillance (§ 537.12(a)(6)); the shaker names each Pai Gow hand's starting
position (`dice_tables`). A War table WR-01 is dealt from a counting shoe, its decks
received, inspected and cut, the cover card reshuffling them now and then (`war_table`,
`war_dealer`). The crew plays these devices by hand, through the simulators' live
control, each throw, load or draw only once the table has recorded what comes before.

First the demo says where its config is, which broker it uses, and the command lines
that open the console on it and acknowledge RL-03's alert (`header`); its operators
include a supervisor and a security officer, keys beside the config (`operators`), so
every command of `docs/contract.md` can be tried from another terminal.

The demo's files (config, keys, journal) go to a temporary directory in memory
(/dev/shm) where there is one: they are thrown away at the end, and the time-lapse
wheel's many commits a second need not wait for a disk. Stopping is bounded and goes in
order: the simulated devices fall silent (their ptys stay open), the daemon gets
`STOP_S` to stop cleanly (it is cancelled after), then the ptys and the demo's own tasks
close, each wait bounded, so the demo ends within seconds even mid-spin; the view is
closed once it has shown each table's `daemon.stopped` (or after `HEAR_STOP_S`).

The browser console (`floord web`, `web_console`) runs in the demo's process on loopback,
anonymous viewing allowed there; the header prints its address.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
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
from floord.operator.client import client_args
from floord.processes.daemon import Daemon
from floord_demo.archive import DemoArchive
from floord_demo.big_six_table import TABLE as BIG_SIX_TABLE
from floord_demo.big_six_table import BigSixHand, big_six_wheel
from floord_demo.big_six_table import table_config as big_six_config
from floord_demo.broker import demo_broker
from floord_demo.card_devices import DEMO_CARD_TABLES, CardFloor, pace_for, table_config
from floord_demo.dealer import VirtualDealer
from floord_demo.dice_dealer import Crew
from floord_demo.dice_tables import (
    CRAPS_TABLE,
    DICE_GAMES,
    PAI_GOW_TABLE,
    PROFILES,
    DeviceHand,
    craps_config,
    dice_devices,
    pai_gow_config,
)
from floord_demo.floorperson import VirtualFloorperson
from floord_demo.header import command_lines, header_lines, intro_lines, web_line
from floord_demo.operators import CREW, FLOORPERSON, write_operators
from floord_demo.operators import DEALER as DEALER_OPERATOR
from floord_demo.pty_device import PtyDevice
from floord_demo.seat import SignedOperator
from floord_demo.sensor_wheel import SURVEILLANCE, time_lapse_wheel
from floord_demo.sensor_wheel import TABLE as SENSOR_TABLE
from floord_demo.sensor_wheel import WHEEL as SENSOR_WHEEL
from floord_demo.sensor_wheel import table_config as sensor_config
from floord_demo.ss2_wheels import DEMO_TABLES, open_wheels, power_on, wheel_config
from floord_demo.stop_signals import StopSignals
from floord_demo.view import LiveView
from floord_demo.war_table import SHOE_PROFILE, WAR_TABLE, war_config, war_shoe
from floord_demo.web_console import start_web, unavailable

SITE = "demo"
OPERATOR = FLOORPERSON.id
DEALER = DEALER_OPERATOR.id
CONFIG_NAME = "floord.yaml"  # short: its path is in the command lines the demo prints
STOP_S = 10.0  # the daemon's clean stop; then it is cancelled
CLOSE_S = 3.0  # each later step of the teardown
HEAR_STOP_S = 5.0  # the view's wait for each table's `daemon.stopped` (a loaded machine's)
# The tables whose crew plays their device by hand (`dice_dealer.Crew`), and its profile.
CREW_GAMES = {**DICE_GAMES, WAR_TABLE: "war"}
CREW_PROFILES = {**PROFILES, WAR_TABLE: SHOE_PROFILE}
# The embedded broker shares the demo's process: the time-lapse wheel spins slower there.
EMBEDDED_TIME_LAPSE = 4.0


def write_demo_config(
    directory: Path,
    url: str,
    ports: dict[str, str],
    card_ports: dict[str, dict[str, str]] | None = None,
    wheel_ports: dict[str, str] | None = None,
    journal: Path | None = None,
    crew_ports: dict[str, str] | None = None,
) -> Path:
    """The demo floor's config, as a table box would have it, and its operators' key
    files beside it; the journal goes in `directory` unless `journal` names a file to
    keep."""
    operators = write_operators(directory)
    card_ports = card_ports or {}
    wheel_ports = wheel_ports or {}
    crew_ports = crew_ports or {}  # the dice tables' and the War table's devices
    config = {
        "site": SITE,
        "rig": True,  # every device of the demo floor is a simulator
        "broker": {"url": url},
        "journal": str(journal or directory / "journal.db"),
        "surveillance": dict(SURVEILLANCE),
        "operators": operators,
        "tables": [
            *(wheel_config(table, wheel, ports[table]) for table, wheel, _, _ in DEMO_TABLES),
            *(table_config(t, card_ports[t.id]) for t in DEMO_CARD_TABLES if t.id in card_ports),
            *([sensor_config(wheel_ports[SENSOR_TABLE])] if SENSOR_TABLE in wheel_ports else []),
            *([big_six_config(wheel_ports[BIG_SIX_TABLE])] if BIG_SIX_TABLE in wheel_ports else []),
            *([craps_config(crew_ports[CRAPS_TABLE])] if CRAPS_TABLE in crew_ports else []),
            *([pai_gow_config(crew_ports[PAI_GOW_TABLE])] if PAI_GOW_TABLE in crew_ports else []),
            *([war_config(crew_ports[WAR_TABLE])] if WAR_TABLE in crew_ports else []),
        ],
    }
    path = directory / CONFIG_NAME
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


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


async def _heard_stop(view: LiveView, tables: list[str], seconds: float) -> None:
    """Wait (at most `seconds`) until the view has shown each table's `daemon.stopped`, so
    the record's last event is on the screen before the watch closes (on a loaded machine
    the broker's messages come in behind the stop)."""
    deadline = time.monotonic() + seconds
    while not view.stopped >= set(tables) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)


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


async def run_demo(
    *,
    seconds: float | None,
    broker_url: str | None,
    speed: float,
    journal: Path | None = None,
    seed: int | None = None,
) -> int:
    """Run the demo floor for `seconds` (None: until stopped); `seed` (default: a fresh
    one) draws the wheels' spins."""
    seed = secrets.randbelow(1_000_000) if seed is None else seed
    view = LiveView(time_lapse=frozenset({SENSOR_TABLE}))
    view.no_alerts = (
        f"none open ({SENSOR_TABLE}'s sector test flags its bias once "
        f"{SURVEILLANCE['window']} results are in)"
    )
    started = time.monotonic()
    wheel_tables = [SENSOR_TABLE, BIG_SIX_TABLE]
    crew_tables = list(CREW_GAMES)
    tables = [t for t, *_ in DEMO_TABLES] + [t.id for t in DEMO_CARD_TABLES] + wheel_tables
    tables += crew_tables
    stopping: float | None = None
    signals = StopSignals()
    with signals.installed(), _work_directory() as tmp:
        async with demo_broker(broker_url) as (url, what):
            cards = CardFloor(pace_for(speed))
            lapse = EMBEDDED_TIME_LAPSE if "embedded" in what else 1.0
            big_six = big_six_wheel()
            crewed = {**dice_devices(), WAR_TABLE: war_shoe()}
            wheel_devices = [time_lapse_wheel(seed, lapse), big_six]
            devices = [*wheel_devices, *crewed.values()]
            wheels: list[asyncio.Task[Any]] = []
            links: list[Any] = []
            tasks: list[asyncio.Task[Any]] = []
            runner: asyncio.Task[Any] | None = None
            operators: list[SignedOperator] = []
            daemon: Daemon | None = None
            archive: DemoArchive | None = None
            web: Any = None
            web_task: asyncio.Task[Any] | None = None
            try:
                ports, links, ss2 = await open_wheels(speed, seed)
                await cards.open()
                for device in devices:
                    await device.open()
                wheel_ports = {t: d.port for t, d in zip(wheel_tables, wheel_devices, strict=True)}
                crew_ports = {t: d.port for t, d in crewed.items()}
                config = write_demo_config(
                    Path(tmp), url, ports, cards.ports, wheel_ports, journal, crew_ports
                )
                loaded = load_config(config)
                # The archive first: it takes the floor's records from their first event.
                archive = DemoArchive(Path(tmp), url, SITE, embedded="embedded" in what)
                archive.start()
                daemon = await Daemon.open(loaded)
                web_text = unavailable()
                if web_text is None:
                    web = await start_web(url, config, archive.path)
                    web_text = web_line(web.url)
                view.header = header_lines(url=url, what=what, config=config, web=web_text)
                view.intro = intro_lines(site=SITE, seed=seed, url=url, tables=tables)
                view.whole = command_lines([*view.header, *view.intro])
                if not view.interactive:
                    view.announce()
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
                    games=games | CREW_GAMES,
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
                # The crews of the dice and War tables: the dealer, and at Craps the
                # stickperson and the boxperson, at War the floorperson's part in the
                # decks, each signing the calls that are theirs (`dice_dealer`).
                crew = Crew(
                    url=url,
                    dealer=(DEALER, loaded.operator_key(DEALER)),
                    crew={op.role: (op.id, loaded.operator_key(op.id)) for op in CREW},
                    topics={t: topics[t] for t in crew_tables},
                    games=dict(CREW_GAMES),
                    device_hands={t: DeviceHand(d, CREW_PROFILES[t]) for t, d in crewed.items()},
                )
                operators = [fp, dealer, crew]
                listeners: list[Callable[[str, bytes], None]] = [view.on_message]
                listeners += [dealer.on_message, crew.on_message]
                tasks = [
                    asyncio.create_task(_watch(url, listeners)),
                    *(asyncio.create_task(fp.tend(t)) for t in tables),
                    *(asyncio.create_task(dealer.deal(t)) for t in dealt),
                    *(asyncio.create_task(crew.deal(t)) for t in crew_tables),
                ]
                if web is not None:
                    web_task = asyncio.create_task(web.run())
                runner = asyncio.create_task(daemon.run())
                await asyncio.sleep(0.2)  # the drivers open their ports
                signals.install()  # over the daemon's own: the demo stops it, in order
                cards.start()
                wheels = power_on(ss2, links)
                for device in devices:
                    device.start()
                while seconds is None or time.monotonic() - started < seconds:
                    view.archive_line = archive.line()
                    view.render(time.monotonic() - started)
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(0.5):
                            await signals.requested.wait()
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
                await _heard_stop(view, tables, HEAR_STOP_S)
                if archive is not None:
                    await within(archive.stop(), STOP_S)
                if web is not None:
                    web.stop()
                    if web_task is not None:
                        await asyncio.wait({web_task}, timeout=CLOSE_S)
                    else:
                        await within(web.close(), CLOSE_S)
                await _bounded(tasks, CLOSE_S)
                await within(cards.close(), CLOSE_S)
                await _close_devices(devices, links)
    stop_s = time.monotonic() - stopping if stopping is not None else 0.0
    if archive is not None:
        view.write(f"floord demo: the archive held {archive.held} events\n")
    view.write(
        f"floord demo: stopped after {time.monotonic() - started:.1f} s "
        f"(stopping took {stop_s:.1f} s), {view.events_seen} table events seen\n"
    )
    return 0
