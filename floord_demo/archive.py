"""The demo floor's archive: `floord archive` on a SQLite file in the demo's folder.

The same code a floor runs on PostgreSQL (docs/archive.md), in the demo's process: it
subscribes to the demo site's records and device streams, stores each event once and
fills what it missed with replays signed by the security officer (`SEC-DEMO`, who may
ask a table for a replay like any operator). The view says how many events it holds.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import yaml

from floord.archive.service import Archive
from floord.archive.settings import load_archive_config
from floord.contract import DEFAULT_TOPIC_PREFIX
from floord_demo.operators import SECURITY

ARCHIVE_CONFIG = "archive.yaml"
ARCHIVE_FILE = "archive.db"


def write_archive_config(directory: Path, url: str, site: str, *, embedded: bool) -> Path:
    """The demo archive's config beside the floor's (the operators' keys are there). On
    the embedded amqtt broker, which holds the floor's other clients back while one
    acknowledges, the archive acknowledges at receipt (a demo loses nothing by it)."""
    config = {
        "broker": {"url": url, "topic_prefix": DEFAULT_TOPIC_PREFIX},
        "sites": [site],
        "sqlite": ARCHIVE_FILE,
        "operator": {"id": SECURITY.id, "key_file": SECURITY.key_file},
        "client_id": f"floord-archive-{site}",
        "acknowledge": "received" if embedded else "stored",
    }
    path = directory / ARCHIVE_CONFIG
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


class DemoArchive:
    """The archive running beside the demo's daemon, until `stop()`."""

    def __init__(self, directory: Path, url: str, site: str, *, embedded: bool) -> None:
        loaded = load_archive_config(write_archive_config(directory, url, site, embedded=embedded))
        self.path = loaded.sqlite_path
        self.archive = Archive.build(loaded)
        self._stop = asyncio.Event()
        self._task: asyncio.Task[int] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self.archive.run(stop=self._stop))

    @property
    def held(self) -> int:
        return self.archive.writer.held

    def line(self) -> str:
        """The view's line: what the archive holds and where."""
        writer = self.archive.writer
        missing = f", {writer.missing} missing (asked for)" if writer.missing else ""
        return f"archive: {writer.held} events held{missing} in {self.path}"

    async def stop(self) -> None:
        """Commit what it took and close the file."""
        self._stop.set()
        if self._task is not None:
            await self._task
