"""A floor's archive for the History page's tests: three tables' records (and a device
stream) loaded into the archive's own table as `floord archive` stores them, with an
alert and its acknowledgement whose note is markup."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import yaml
from archive_fixture import build_archive
from support import free_port

from floord.contract import Envelope, format_ts
from floord.journal.store import Journal
from floord.web.server import WebConsole, build
from floord.web.settings import load_web_config

SITE = "casino-1"
# Two days ago on the hour: within the week the console reads acknowledgements back.
T0 = (datetime.now(UTC) - timedelta(days=2)).replace(minute=0, second=0, microsecond=0)
XSS = '<img src=x onerror="window.__xss=1">'
OFFICER = "SE-3001"
ALERT = {"id": "A00001", "test": "pocket", "p_value": 0.000213, "level": 0.001, "window": 270}


def at(minute: int) -> str:
    return format_ts(T0 + timedelta(minutes=minute))


def roulette_record(
    table: str, rounds: int, ack_note: str | None
) -> list[tuple[str, str, dict[str, Any]]]:
    """(ts, type, data) of a roulette table: `rounds` results a minute apart, then an
    alert and (with `ack_note`) its acknowledgement by OFFICER."""
    record: list[tuple[str, str, dict[str, Any]]] = []
    for n in range(1, rounds + 1):
        record.append((at(n), "round.started", {"n": n, "dealer": "DL-7"}))
        record.append((at(n), "roulette.result", {"number": "17", "colour": "red"}))
    record.append((at(rounds + 1), "surveillance.alert", ALERT))
    if ack_note is not None:
        ack = {"id": "A00001", "by": OFFICER, "note": ack_note, "alert": ALERT}
        record.append((at(rounds + 2), "surveillance.alert_acknowledged", ack))
    return record


def box(path: Path, site: str, table: str, record: list[tuple[str, str, dict[str, Any]]]) -> Path:
    journal = Journal(path)
    try:
        for ts, kind, data in record:
            journal.append(
                table,
                lambda seq, ts=ts, kind=kind, data=data: Envelope(
                    site, table, seq, ts, kind, "engine", data
                ),
            )
        journal.append(
            f"{table}/devices/wheel",
            lambda seq: Envelope(site, table, seq, at(0), "device.online", "wheel", {"port": "p"}),
        )
    finally:
        journal.close()
    return path


def floor_archive(folder: Path) -> Path:
    """RL-01 (30 rounds, its alert acknowledged with a note that is markup), RL-02
    (2 rounds, its alert open) on SITE, and RL-09 on another site: the archive file."""
    journals = [
        box(folder / "rl01.db", SITE, "RL-01", roulette_record("RL-01", 30, XSS)),
        box(folder / "rl02.db", SITE, "RL-02", roulette_record("RL-02", 2, None)),
        box(folder / "rl09.db", "casino-2", "RL-09", roulette_record("RL-09", 1, "other site")),
    ]
    path = folder / "archive.db"
    build_archive(path, journals)
    return path


@asynccontextmanager
async def serving(folder: Path, **settings: Any) -> AsyncIterator[WebConsole]:
    """`floord web` serving anonymously on a free loopback port with `settings` (its
    config written in `folder`); no broker: it keeps trying to reach one meanwhile."""
    folder.mkdir(exist_ok=True)
    path = folder / "web.yaml"
    broker = {"url": f"mqtt://127.0.0.1:{free_port()}"}  # nobody there: it keeps trying
    body = {"listen": "127.0.0.1:0", "anonymous": True, "broker": broker, **settings}
    path.write_text(yaml.safe_dump(body))
    console = WebConsole(build(load_web_config(path)))
    await console.start()
    task = asyncio.create_task(console.run())
    try:
        yield console
    finally:
        console.stop()
        await task
