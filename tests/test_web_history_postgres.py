"""The History page's reads on a real PostgreSQL archive, as the read-only role the
deployment gives the console (docs/deployment.md, "The web console"): the same pages,
newest first, as from the SQLite archive of the same events, its filters, the
acknowledgements, and nothing written.

The server is the one `tests/test_floor_report_postgres.py` starts (Debian's
`postgresql`, initdb in a temporary folder); skipped, saying why, without it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from test_floor_report_postgres import load, server
from web_history_support import SITE, T0, XSS, at, floor_archive

from floord.archive.reader import open_archive
from floord.web.history import History, history_row
from floord.web.history_query import parse_query

pytestmark = pytest.mark.system
__all__ = ["server"]


def test_pages_from_postgresql_are_those_from_sqlite(
    server: tuple[int, Path], tmp_path: Path
) -> None:
    port, socket_dir = server
    archive = floor_archive(tmp_path)
    load(port, socket_dir, archive)
    url = f"postgresql://floord_report:report-secret@127.0.0.1:{port}/floord"

    def pages(where: str) -> list[tuple[str, int, str]]:
        found, offset = [], 0
        with open_archive(where) as reader:
            while True:
                page = reader.newest(25, offset, sites=[SITE], table="RL-01")
                found += [(e["ts"], e["seq"], e["source"]) for e in page.events]
                offset += 25
                if not page.more:
                    return found

    from_pg = pages(url)
    assert from_pg == pages(str(archive)) and len(from_pg) == 63

    async def run() -> None:
        history = History(url, frozenset({SITE}))
        query = parse_query(
            {"table": "RL-01", "type": "roulette.result", "from": at(5), "to": at(8)}, None
        )
        page = await history.page(query)
        assert [e["ts"] for e in page.events] == [at(7), at(6), at(5)]
        acks = await history.acknowledgements(10, T0)
        assert [(e["table"], e["data"]["note"]) for e in acks] == [("RL-01", XSS)]
        assert await history.tables() == [(SITE, "RL-01"), (SITE, "RL-02")]
        assert XSS in history_row(acks[0])["text"]

    asyncio.run(run())
    # The console's role can read, never write.
    import psycopg

    with psycopg.connect(url) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute("DELETE FROM archive_events")
