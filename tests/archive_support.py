"""Test support for `floord archive`: its config, a box made of hand-chained envelopes
that answers replays as floord does, and the archive's and a journal's streams read
back for comparison.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiomqtt
import yaml
from e2e_support import FP, FP_KEY, PREFIX

from floord.contract import Topics, format_ts
from floord.journal.chain import event_hash, genesis


def write_archive_config(
    tmp: Path, broker_url: str, *, database: str | None = None, **extra: Any
) -> Path:
    """An archive config signing replays as FP (every test box lists FP)."""
    (tmp / "archive-fp.key").write_bytes(FP_KEY + b"\n")
    config: dict[str, Any] = {
        "broker": {"url": broker_url, "topic_prefix": PREFIX},
        "operator": {"id": FP, "key_file": "archive-fp.key"},
        "sqlite": "archive.db",
        "client_id": f"floord-archive-{tmp.name[-20:]}".replace("_", "-"),
        "replay": {"grace_s": 0.2, "retry_s": 2.0},
        "batch": {"events": 100, "ms": 50},
        **extra,
    }
    if database is not None:
        config["database"] = database
    path = tmp / "archive.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def chained(site: str, stream: str, table: str, count: int, start: int = 1) -> list[dict[str, Any]]:
    """`count` envelopes of a stream, chained from its genesis (bodies as the journal's)."""
    bodies: list[dict[str, Any]] = []
    prev = genesis(site, stream)
    for seq in range(1, start + count):
        body = {
            "v": 1,
            "site": site,
            "table": table,
            "seq": seq,
            "ts": format_ts(datetime.now(UTC)),
            "type": "wheel.idle",
            "source": "engine" if "/" not in stream else "wheel",
            "data": {"n": seq},
            "rule": None,
            "round": None,
            "prev": prev,
        }
        body["hash"] = event_hash(body)
        prev = body["hash"]
        bodies.append(body)
    return bodies[start - 1 :] if start > 1 else bodies


class FakeBox:
    """One table's record published by hand: `publish(seqs)` sends those events; a
    signed `replay` on `P/replay/request` is answered as floord answers it."""

    def __init__(self, url: str, site: str, table: str, events: list[dict[str, Any]]) -> None:
        self.host, port = url.split("://", 1)[1].rsplit(":", 1)
        self.port = int(port)
        self.topics = Topics(PREFIX, site, table)
        self.events = {e["seq"]: e for e in events}
        self.replays: list[tuple[int, int]] = []
        self._task: asyncio.Task[None] | None = None
        self._client: aiomqtt.Client | None = None
        self._ready = asyncio.Event()

    async def __aenter__(self) -> FakeBox:
        self._task = asyncio.create_task(self._serve())
        await asyncio.wait_for(self._ready.wait(), 10)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task

    async def _serve(self) -> None:
        async with aiomqtt.Client(self.host, self.port) as client:
            self._client = client
            await client.subscribe(self.topics.replay_request, qos=1)
            self._ready.set()
            async for message in client.messages:
                command = json.loads(bytes(message.payload))
                first, last = command["args"]["from_seq"], command["args"]["to_seq"]
                self.replays.append((first, last))
                result = {"id": command["id"], "ok": True, "error": None}
                await client.publish(self.topics.cmd_result, json.dumps(result), qos=1)
                for seq in range(first, last + 1):
                    if seq in self.events:
                        body = json.dumps(self.events[seq])
                        await client.publish(self.topics.replay, body, qos=1)

    async def publish(
        self, seqs: Iterator[int] | list[int] | range, topic: str | None = None
    ) -> None:
        assert self._client is not None
        for seq in seqs:
            body = json.dumps(self.events[seq])
            await self._client.publish(topic or self.topics.events, body, qos=1)

    async def send_raw(self, topic: str, body: dict[str, Any]) -> None:
        assert self._client is not None
        await self._client.publish(topic, json.dumps(body), qos=1)


def read_archive(database: str | Path) -> dict[tuple[str, str, int], list[tuple[int, str, str]]]:
    """The archive's rows per (site, stream, epoch): (seq, hash, body), in seq order."""
    rows = _query(database, "SELECT site, stream, epoch, seq, hash, body FROM archive_events")
    found: dict[tuple[str, str, int], list[tuple[int, str, str]]] = {}
    for site, stream, epoch, seq, hash_, body in sorted(
        rows, key=lambda r: (r[0], r[1], r[2], r[3])
    ):
        found.setdefault((site, stream, int(epoch)), []).append((int(seq), hash_, body))
    return found


def read_breaks(database: str | Path) -> list[tuple[str, str, int, str]]:
    return [
        (r[0], r[1], int(r[2]), r[3])
        for r in _query(database, "SELECT site, stream, seq, kind FROM archive_breaks ORDER BY id")
    ]


def read_gaps(database: str | Path) -> list[tuple[str, str, int, int, bool]]:
    return [
        (r[0], r[1], int(r[2]), int(r[3]), bool(r[4]))
        for r in _query(
            database,
            "SELECT site, stream, from_seq, to_seq, fillable FROM archive_gaps "
            "ORDER BY site, stream, from_seq",
        )
    ]


def _query(database: str | Path, sql: str) -> list[tuple[Any, ...]]:
    if isinstance(database, Path):
        if not database.exists():
            return []
        with contextlib.closing(sqlite3.connect(database, timeout=10)) as db:
            try:
                return db.execute(sql).fetchall()
            except sqlite3.OperationalError:
                return []
    import psycopg

    with psycopg.connect(database) as db:
        try:
            return db.execute(sql).fetchall()
        except psycopg.errors.UndefinedTable:
            return []


def journal_streams(journal: Path) -> dict[str, list[tuple[int, str, str]]]:
    """A box's journal per stream: (seq, hash, body), in seq order."""
    with contextlib.closing(sqlite3.connect(f"file:{journal}?mode=ro", uri=True, timeout=10)) as db:
        rows = db.execute("SELECT stream, seq, body FROM events ORDER BY stream, seq").fetchall()
    found: dict[str, list[tuple[int, str, str]]] = {}
    for stream, seq, body in rows:
        found.setdefault(stream, []).append((int(seq), json.loads(body)["hash"], body))
    return found


async def wait_until(predicate: Any, timeout: float, what: str) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while asyncio.get_running_loop().time() < deadline:
        if await asyncio.to_thread(predicate):
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")
