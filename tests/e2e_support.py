"""End-to-end helpers: real processes (simulator, daemon), a real pty, a real broker.

The simulator and the daemon run as `python -m floord ...` subprocesses, exactly as on a
rig, so a SIGKILL test kills a real daemon and a pty carries real bytes between them.
"""

from __future__ import annotations

import asyncio
import binascii
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiomqtt
import yaml

from floord.contract import Topics
from floord.mqtt.paho_hooks import take_disconnect_error
from floord.operator.commands import build_command
from floord.profiles import PROFILES_DIR
from floord_demo.child_end import ends_with_this_process

if TYPE_CHECKING:
    from floord.processes.daemon import Daemon

SITE = "test-casino"
PREFIX = "floor/v1"
FP = "FP-1001"
FP_KEY = b"floorperson-1001-secret"
DEALER = "DL-2001"
DEALER_KEY = b"dealer-2001-secret"
# Every floord child process a test started (see Process and reap_leftovers).
_STARTED: list[Process] = []


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONUNBUFFERED"] = "1"
    return env


def pty_alias(tmp: Path, pty: str) -> Path:
    """A name for a simulator's pty in the test's own directory, for the daemon's config;
    the test removes it before it stops the simulator. Linux hands a freed /dev/pts/N to
    the next pty made, and a daemon still reopening a bare path after its simulator ended
    (another test's, under `-n 2`) would lock that test's new pty: an alias that is gone
    is no such file."""
    link = tmp / f"pty-{time.monotonic_ns()}"
    link.symlink_to(pty)
    return link


class Process:
    """A child process that is always reaped, killed if need be.

    Every one started is remembered until reaped, so a test that fails before its own
    `finally` reaches a `kill()` still leaves no process behind (`reap_leftovers`, run
    after each test by tests/conftest.py)."""

    def __init__(
        self, args: list[str], *, stdout: int | None = subprocess.PIPE, python: str = sys.executable
    ) -> None:
        """`python`: the interpreter whose floord runs (another venv's, with a plugin)."""
        self.args = args
        # Its log lines (stderr), kept so a failing test can show them (tests/conftest.py).
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115 (closed by reap_leftovers)
        self.proc = subprocess.Popen(
            [python, "-m", "floord", *args],
            stdout=stdout,
            stderr=self.stderr,
            env=_env(),
            # Started from the main thread, it ends with the tests' process even when no
            # fixture runs (a worker killed outright): SIGTERM, a daemon's clean stop.
            preexec_fn=ends_with_this_process(),
        )
        # The per-test names of its pty (`alias`), removed before it is stopped.
        self.aliases: list[Path] = []
        _STARTED.append(self)

    def alias(self, tmp: Path, pty: str) -> str:
        """`pty_alias` for this simulator's pty, removed before it is stopped."""
        link = pty_alias(tmp, pty)
        self.aliases.append(link)
        return str(link)

    def _drop_aliases(self) -> None:
        for link in self.aliases:
            link.unlink(missing_ok=True)

    def stderr_tail(self, size: int = 4000) -> str:
        """The last `size` bytes the process wrote to stderr."""
        self.stderr.seek(0, os.SEEK_END)
        self.stderr.seek(max(0, self.stderr.tell() - size))
        return self.stderr.read().decode("utf-8", "replace")

    def said(self, event: str) -> list[dict[str, Any]]:
        """Its log lines (JSON, one a line off a terminal) whose `event` is `event`."""
        found = []
        for line in self.stderr_tail(1_000_000).splitlines():
            try:
                body = json.loads(line)
            except ValueError:
                continue
            if isinstance(body, dict) and body.get("event") == event:
                found.append(body)
        return found

    def until_said(self, event: str, timeout: float = 60.0) -> dict[str, Any]:
        """Its first log line whose `event` is `event`, waited for while it runs."""
        deadline = time.monotonic() + timeout
        while not (found := self.said(event)):
            assert self.proc.poll() is None, self.stderr_tail()
            assert time.monotonic() < deadline, f"no {event!r} in: {self.stderr_tail()}"
            time.sleep(0.1)
        return found[0]

    def terminate(self, timeout: float = 10.0) -> int:
        self._drop_aliases()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode

    def kill(self) -> None:
        self._drop_aliases()
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        with contextlib.suppress(Exception):
            if self.proc.stdout:
                self.proc.stdout.close()


def start_sim(tmp: Path, scenario: dict[str, Any], speed: float) -> tuple[Process, str]:
    """A simulated SS2 on a new pty; returns the process and the pty's path."""
    path = tmp / f"scenario-{time.monotonic_ns()}.yaml"
    path.write_text(yaml.safe_dump(scenario))
    sim = Process(["sim", "cammegh-ss2", "--pty", "--scenario", str(path), "--speed", str(speed)])
    assert sim.proc.stdout is not None
    line = sim.proc.stdout.readline().decode().strip()
    if not line.startswith("pty: "):
        sim.kill()
        raise RuntimeError(f"simulator did not announce its pty: {line!r}")
    return sim, sim.alias(tmp, line.split(": ", 1)[1])


def start_device_sim(
    tmp: Path,
    profile: str,
    scenario: dict[str, Any] | str,
    speed: float = 1.0,
    control: str | None = None,
    python: str = sys.executable,
) -> tuple[Process, str]:
    """`floord sim PROFILE --pty` with this scenario (a shipped one's name, or the steps
    written to a file); returns the process and the pty.

    With `control` (`unix:PATH`) the simulator also opens its live control channel
    (`docs/rigs.md`), so a test can deal a card when the round is ready for it."""
    if isinstance(scenario, str):
        named = scenario
    else:
        path = tmp / f"{profile}-{time.monotonic_ns()}.yaml"
        path.write_text(yaml.safe_dump(scenario))
        named = str(path)
    args = ["sim", profile, "--pty", "--scenario", named, "--speed", str(speed)]
    sim = Process(args + (["--control", control] if control else []), python=python)
    assert sim.proc.stdout is not None
    line = sim.proc.stdout.readline().decode().strip()
    if not line.startswith("pty: "):
        sim.kill()
        raise AssertionError(f"the {profile} simulator did not announce its pty: {line!r}")
    if control is not None:
        announced = sim.proc.stdout.readline().decode().strip()
        if announced != f"control: {control}":
            sim.kill()
            raise AssertionError(f"the {profile} simulator did not open {control}: {announced!r}")
    return sim, sim.alias(tmp, line.split(": ", 1)[1])


def bad_frame(seq: int) -> str:
    """A whole FLF/1 frame with a wrong checksum: exactly one protocol error, never two."""
    body = f"{seq % 256:02X}|HBT"
    assert f"{binascii.crc_hqx(body.encode(), 0xFFFF):04X}" != "0000"
    return f"\x02{body}\x030000\r\n"


def noisy_profile(tmp: Path, profile: str, **protocol_errors: float) -> Path:
    """A copy of a shipped device profile with its own `protocol_errors` policy (a test's
    window and fault threshold), for the daemon's config; returns the file's path."""
    raw = yaml.safe_load((PROFILES_DIR / f"{profile}.yaml").read_text())
    raw["protocol_errors"] = {**raw.get("protocol_errors", {}), **protocol_errors}
    path = tmp / f"noisy-{profile}.yaml"
    path.write_text(yaml.safe_dump(raw))
    return path


def write_tables_config(
    tmp: Path, broker_url: str, tables: list[dict[str, Any]], *, rig: bool = False
) -> Path:
    """A box's config with the test operators (FP, DEALER) and these tables; `rig`: a
    test rig's (a device simulated inside the daemon, `usb://sim:`)."""
    (tmp / "fp.key").write_bytes(FP_KEY + b"\n")
    (tmp / "dealer.key").write_bytes(DEALER_KEY + b"\n")
    config = {
        "site": SITE,
        "broker": {"url": broker_url, "topic_prefix": PREFIX},
        "journal": str(tmp / "journal.db"),
        "operators": [
            {"id": FP, "role": "floorperson", "key_file": "fp.key"},
            {"id": DEALER, "role": "dealer", "key_file": "dealer.key"},
        ],
        "tables": tables,
        **({"rig": True} if rig else {}),
    }
    path = tmp / "floord.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def write_config(
    tmp: Path, broker_url: str, port: str, wheel: str = "single_zero", profile: str = "cammegh-ss2"
) -> Path:
    """One roulette table RL-01 whose wheel device is on `port`."""
    table = {
        "id": "RL-01",
        "game": "roulette",
        "rules": {"wheel": wheel},
        "devices": [{"id": "wheel", "profile": profile, "port": port}],
    }
    return write_tables_config(tmp, broker_url, [table])


def start_daemon(config: Path, python: str = sys.executable) -> Process:
    return Process(["run", "-c", str(config)], stdout=subprocess.DEVNULL, python=python)


@contextlib.asynccontextmanager
async def daemon_running(daemon: Daemon, stop_within: float) -> AsyncIterator[asyncio.Task[None]]:
    """A daemon in this process: `daemon.run()` as a task while the block runs; then it is
    asked to stop, and its stop waited for (at most `stop_within` seconds)."""
    run = asyncio.create_task(daemon.run())
    try:
        yield run
    finally:
        daemon.request_stop()
        await asyncio.wait_for(run, stop_within)


def topics(table: str = "RL-01") -> Topics:
    return Topics(PREFIX, SITE, table)


class Collector:
    """An MQTT subscriber that keeps every message it gets, by topic, in arrival order."""

    def __init__(self, url: str, table: Topics, client_id: str | None = None) -> None:
        self.host, self.port = url.split("://", 1)[1].rsplit(":", 1)
        self.table = table
        self.subscriptions = [f"{table.base}/#"]
        self.client_id = client_id
        self.messages: list[tuple[str, dict[str, Any], bool]] = []
        self._task: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()

    async def _run(self) -> None:
        while True:
            client = aiomqtt.Client(
                self.host,
                int(self.port),
                identifier=self.client_id,
                clean_session=self.client_id is None,
            )
            try:
                async with client:
                    for topic in self.subscriptions:
                        await client.subscribe(topic, qos=1)
                    self._ready.set()
                    async for message in client.messages:
                        body = json.loads(bytes(message.payload))
                        self.messages.append((str(message.topic), body, bool(message.retain)))
            except aiomqtt.MqttError:
                # The broker went away (a test killed it): note aiomqtt's disconnect
                # error as seen, so it is not reported as never retrieved, and retry.
                take_disconnect_error(client)
                await asyncio.sleep(0.1)

    async def __aenter__(self) -> Collector:
        self._task = asyncio.create_task(self._run())
        await asyncio.wait_for(self._ready.wait(), 10)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task

    async def event(
        self,
        kind: str,
        where: Callable[[dict[str, Any]], bool] | None = None,
        timeout: float = 30.0,
    ) -> dict[str, Any]:
        """The first event of type `kind` on the table's record (`P/events`), waiting for it."""
        events = self.table.events
        return await self.wait_for(
            lambda tp, b: tp == events and b.get("type") == kind and (where is None or where(b)),
            timeout,
            what=kind,
        )

    def events(self, topic: str) -> list[dict[str, Any]]:
        return [body for t, body, _ in self.messages if t == topic]

    async def wait_for(self, predicate, timeout: float = 30.0, what: str = "") -> dict[str, Any]:
        """The first message body matching predicate(topic, body), waiting for it."""
        deadline = time.monotonic() + timeout
        seen = 0
        while time.monotonic() < deadline:
            for topic, body, _ in self.messages[seen:]:
                if predicate(topic, body):
                    return body
            await asyncio.sleep(0.05)
        kinds = [b.get("type") for t, b, _ in self.messages if t.endswith("/events")][-40:]
        raise AssertionError(f"timed out waiting for {what}; recent events: {kinds}")


async def command(
    url: str,
    name: str,
    args: dict[str, Any],
    *,
    by: str = FP,
    key: bytes = FP_KEY,
    table: str = "RL-01",
    timeout: float = 15.0,
) -> dict[str, Any]:
    """Send a signed command and return the table's reply."""
    t = topics(table)
    host, port = url.split("://", 1)[1].rsplit(":", 1)
    cmd = build_command(name, by, args, key, datetime.now(UTC))
    async with aiomqtt.Client(host, int(port)) as client:
        await client.subscribe(t.cmd_result, qos=1)
        await client.publish(t.cmd, json.dumps(cmd), qos=1)
        async with asyncio.timeout(timeout):
            async for message in client.messages:
                body = json.loads(bytes(message.payload))
                if body.get("id") == cmd["id"]:
                    return body
    raise AssertionError("no command result")


async def new_decks_inspected(
    url: str, table: str, spread: tuple[dict[str, str], ...] = ({},)
) -> None:
    """The dealer inspects the decks a `change_decks` (or `decks_received`) recorded, the
    floorperson verifies them (§ 549.5(a), § 551.4(a), (b), § 571.4(a), (b)), then the
    dealer spreads them for the first player, washed and stacked, each part of `spread`
    apart (a double shoe's `side`, a shuffler's `batch`, § 549.5(b)-(e), § 571.4(b)-(d))."""
    for by, key in ((DEALER, DEALER_KEY), (FP, FP_KEY)):
        args = {"defects_found": False}
        reply = await command(url, "decks_inspected", args, by=by, key=key, table=table)
        assert reply["ok"], reply
    for part in spread:
        args = {"defects_found": False, "washed": True, **part}
        reply = await command(url, "decks_spread", args, by=DEALER, key=DEALER_KEY, table=table)
        assert reply["ok"], reply


async def stack_cut(url: str, table: str, *, shuffle: bool = False, **args: Any) -> None:
    """The dealer's cut of the next stack, before the shoe is loaded (§ 549.6(b)-(d),
    § 54x.5(c), (d)): no player accepted it. `shuffle`: the dealer's shuffle first (the
    Baccarat family records it, § 545.5(a))."""
    if shuffle:
        reply = await command(url, "shuffle", {}, by=DEALER, key=DEALER_KEY, table=table)
        assert reply["ok"], reply
    body = {"cards": 12, "by": "dealer", **args}
    reply = await command(url, "cut", body, by=DEALER, key=DEALER_KEY, table=table)
    assert reply["ok"], reply


CHECKLIST = {
    "no_magnet_or_contrivance": True,
    "wheel_level_and_free": True,
    "parts_secure": True,
    "ball_nonmagnetic": True,
    "ball_nonmetallic_and_size": True,
}


async def open_table(url: str, wheel: str = "single_zero") -> None:
    checklist = dict(CHECKLIST)
    if wheel == "double_zero_as_single":
        checklist["layout_and_signage"] = True
    result = await command(url, "inspect", {"checklist": checklist, "note": "e2e"})
    assert result["ok"], result
    result = await command(url, "open", {})
    assert result["ok"], result


@contextlib.asynccontextmanager
async def collecting(
    url: str, table: str = "RL-01", client_id: str | None = None
) -> AsyncIterator[Collector]:
    async with Collector(url, topics(table), client_id) as c:
        yield c


def started_logs() -> list[tuple[str, str]]:
    """Each floord child process of this test: its command line and its stderr's tail."""
    return [(" ".join(p.args), p.stderr_tail()) for p in _STARTED if not p.stderr.closed]


def reap_leftovers() -> list[str]:
    """Kill every floord child process still running; the command lines of those killed."""
    left = [p for p in _STARTED if p.proc.poll() is None]
    for p in left:
        p.kill()
    for p in _STARTED:
        p.stderr.close()
    _STARTED.clear()
    return [" ".join(p.args) for p in left]
