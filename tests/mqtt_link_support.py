"""Helpers for the MQTT link tests: a recording subscriber, a gated relay, a harness."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import aiomqtt
from support import free_port

from floord.contract import Envelope, Topics
from floord.journal.store import Journal
from floord.mqtt import Backoff, TableLink
from floord.mqtt.paho_hooks import take_disconnect_error

REPO = Path(__file__).resolve().parent.parent
TOPICS = Topics(prefix="floor/v1", site="s1", table="t1")
DEVICE_STREAM = "t1/devices/wheel"
STREAMS = {"t1": TOPICS.events, DEVICE_STREAM: TOPICS.device_events("wheel")}
DEADLINE_S = 20.0


def builder(stream: str) -> Callable[[int], Envelope]:
    """An event of `stream` for the journal to number (`build(seq)`)."""

    def build(seq: int) -> Envelope:
        return Envelope(
            site="s1",
            table="t1",
            seq=seq,
            ts="2024-05-01T12:00:00.000000Z",
            type="wheel.number",
            source=stream,
            data={"number": str(seq % 37)},
        )

    return build


def append(journal: Journal, stream: str = "t1", n: int = 1) -> list[Envelope]:
    return [journal.append(stream, builder(stream)) for _ in range(n)]


async def until(what: str, check: Callable[[], bool]) -> None:
    """Wait for a condition; the deadline only guards against a hang."""
    loop = asyncio.get_running_loop()
    end = loop.time() + DEADLINE_S
    while not check():
        if loop.time() > end:
            raise AssertionError(f"gave up waiting for: {what}")
        await asyncio.sleep(0.01)


async def no_tasks_left() -> None:
    me = asyncio.current_task()
    await until("every task to end", lambda: asyncio.all_tasks() == {me})


class Subscriber:
    """A test client that records what it receives: (topic, payload text, retained)."""

    def __init__(
        self, port: int, topics: list[str], client_id: str | None = None, qos: int = 1
    ) -> None:
        self.port = port
        self.topics = topics
        self.client_id = client_id
        self.qos = qos
        self.got: list[tuple[str, str, bool]] = []
        self._client: aiomqtt.Client | None = None
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> Subscriber:
        persistent = self.client_id is not None
        self._client = aiomqtt.Client(
            "127.0.0.1",
            self.port,
            identifier=self.client_id,
            clean_session=not persistent,
        )
        await self._client.__aenter__()
        for topic in self.topics:
            await self._client.subscribe(topic, qos=self.qos)
        self._task = asyncio.create_task(self._collect())
        return self

    async def _collect(self) -> None:
        assert self._client is not None
        with contextlib.suppress(aiomqtt.MqttError):
            async for m in self._client.messages:
                self.got.append((str(m.topic), m.payload.decode(), m.retain))

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None and self._client is not None
        self._task.cancel()
        await asyncio.wait([self._task])
        with contextlib.suppress(aiomqtt.MqttError):
            await self._client.__aexit__(None, None, None)
        # A test that killed the broker under it: aiomqtt's disconnect error, seen, is
        # not logged as never retrieved during a later test.
        take_disconnect_error(self._client)

    def on(self, topic: str) -> list[str]:
        return [p for t, p, _ in self.got if t == topic]

    def seqs(self, topic: str) -> list[int]:
        return [json.loads(p)["seq"] for p in self.on(topic)]


class GatedProxy:
    """A TCP relay to the broker whose gate the test shuts and opens.

    After a broker restart, the test's subscriber must be subscribed before the link
    publishes again (a broker without persistence forgets subscriptions); shutting the
    gate (not listening: connection refused) keeps the link out until then, without
    touching the link.
    """

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = free_port()
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    async def open(self) -> None:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", self.port)

    async def shut(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None

    async def __aenter__(self) -> GatedProxy:
        await self.open()
        return self

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            try:
                up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
            except OSError:
                return
            try:
                pipes = [
                    asyncio.create_task(self._pipe(reader, up_writer)),
                    asyncio.create_task(self._pipe(up_reader, writer)),
                ]
                try:
                    await asyncio.wait(pipes, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    for p in pipes:
                        p.cancel()
                    await asyncio.wait(pipes)
            finally:
                up_writer.close()
        finally:
            writer.close()
            self._tasks.discard(task)

    @staticmethod
    async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()

    async def __aexit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.wait(list(self._tasks))
        await self.shut()


class Harness:
    """A journal and a link wired the way the daemon wires them."""

    def __init__(self, tmp_path: Path, url: str, **kw: Any) -> None:
        self.journal = Journal(tmp_path / "journal.db")
        self.state: dict[str, Any] = {"phase": "closed", "round": None}
        self.device_bodies: dict[str, dict[str, Any]] = {"wheel": {"online": True}}
        self.commands: list[bytes] = []
        self.replay_only: list[bool] = []  # per command: came on P/replay/request
        self.log_lines: list[str] = []
        self.link = TableLink(
            url=url,
            username=None,
            password=None,
            topics=TOPICS,
            journal=self.journal,
            streams=STREAMS,
            state=lambda: self.state,
            devices=lambda: self.device_bodies,
            on_command=kw.pop("on_command", self._command),
            backoff=Backoff(0.05, 0.4),
            log=_ListLog(self.log_lines),
            **kw,
        )

    async def _command(self, raw: bytes, replay_only: bool) -> None:
        self.commands.append(raw)
        self.replay_only.append(replay_only)

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[asyncio.Task[None]]:
        task = asyncio.create_task(self.link.run())
        try:
            yield task
        finally:
            await asyncio.wait_for(self.link.stop(), DEADLINE_S)
            task.cancel()
            await asyncio.wait([task])
            self.journal.close()
        if not task.cancelled() and task.exception() is not None:
            raise task.exception()  # type: ignore[misc]


class _ListLog:
    def __init__(self, lines: list[str]) -> None:
        self.lines = lines

    def _add(self, msg: str, *args: object, **kw: object) -> None:
        self.lines.append(msg)

    debug = info = warning = error = exception = _add


def run(coro: Callable[[], Awaitable[None]]) -> None:
    async def main() -> None:
        await coro()
        await no_tasks_left()

    asyncio.run(main())


def public_interfaces_only(monkeypatch: Any) -> None:
    """As if the installed aiomqtt and paho-mqtt were not those `floord.mqtt.paho_hooks`
    was written for: every batch goes through aiomqtt's public `publish`."""
    from floord.mqtt import paho_hooks

    monkeypatch.setattr(paho_hooks, "WRITTEN_FOR", {"aiomqtt": "0.0", "paho-mqtt": "0.0"})
