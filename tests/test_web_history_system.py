"""The browser console's History API over a real socket, on a real SQLite archive filled
as `floord archive` fills one: a table's events newest first, filtered by type and time,
a page at a time, pinned to its first answer; every bad parameter a 400 with its reason;
an archive that cannot be read a 503; the alerts page's acknowledged list read from the
archive; a console without an archive has no History at all.

No broker is needed: the console keeps trying to reach one while it serves.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from web_history_support import OFFICER, SITE, XSS, at, floor_archive, serving

from floord.web.passwords import set_password

pytestmark = pytest.mark.system


async def get(http: aiohttp.ClientSession, url: str, **params: str) -> tuple[int, Any]:
    async with http.get(url, params=params) as answer:
        return answer.status, await answer.json()


def test_a_tables_events_from_the_archive(tmp_path: Path) -> None:
    floor_archive(tmp_path)

    async def run() -> None:
        async with serving(tmp_path, archive="archive.db", sites=[SITE]) as console:
            api = f"{console.url}api/history"
            async with aiohttp.ClientSession() as http:
                who = await (await http.get(f"{console.url}api/whoami")).json()
                assert who["archive"] is True
                page = await http.get(f"{console.url}history")
                assert page.status == 200 and "history.js" in await page.text()
                status, filters = await get(http, f"{api}/filters")
                assert status == 200
                # Only the sites the console shows: casino-2's RL-09 is not offered.
                assert filters["tables"] == [
                    {"site": SITE, "table": "RL-01"},
                    {"site": SITE, "table": "RL-02"},
                ]
                assert "surveillance.alert_acknowledged" in filters["types"]
                # RL-01 newest first, a page of 20 at a time, each event in words.
                status, first = await get(http, api, site=SITE, table="RL-01", limit="20")
                assert status == 200 and first["more"] and first["offset"] == 0
                ack = first["events"][0]
                assert ack["type"] == "surveillance.alert_acknowledged"
                assert OFFICER in ack["text"] and XSS in ack["text"]
                assert {e["table"] for e in first["events"]} == {"RL-01"}
                seen = [(e["ts"], e["seq"], e["source"]) for e in first["events"]]
                offset = 20
                while True:
                    status, more = await get(
                        http,
                        api,
                        table="RL-01",
                        limit="20",
                        offset=str(offset),
                        to=first["until"],
                    )
                    assert status == 200
                    seen += [(e["ts"], e["seq"], e["source"]) for e in more["events"]]
                    offset += 20
                    if not more["more"]:
                        break
                assert len(seen) == len(set(seen)) == 63
                # By type, and by time.
                status, results = await get(
                    http, api, table="RL-01", type="roulette.result", limit="200"
                )
                assert len(results["events"]) == 30
                assert all(e["text"].startswith("17") for e in results["events"]), results
                status, window = await get(
                    http, api, table="RL-01", type="roulette.result", **{"from": at(5), "to": at(8)}
                )
                assert [e["ts"] for e in window["events"]] == [at(7), at(6), at(5)]
                # The other site's table is never read back, even when asked by name.
                status, other = await get(http, api, table="RL-09")
                assert status == 200 and other["events"] == []
                status, refused = await get(http, api, site="casino-2")
                assert status == 400 and "a site this console shows" in refused["error"]

    asyncio.run(run())


def test_every_bad_parameter_is_a_400_with_its_reason(tmp_path: Path) -> None:
    floor_archive(tmp_path)
    bad = [
        ({"table": "<script>"}, "table: an id of"),
        ({"type": "nope"}, "type: an event type"),
        ({"from": "2026-13-40"}, "from: a date"),
        ({"to": "2026-12-01T18:00:00"}, "to: a time with its zone"),
        ({"limit": "100000"}, "limit: a whole number"),
        ({"offset": "x"}, "offset: a whole number"),
        ({"sql": "1; DROP TABLE archive_events"}, "'sql': not a History parameter"),
        ({"from": "2999-01-01"}, "from: a time before now expected"),
    ]

    async def run() -> None:
        async with (
            serving(tmp_path, archive=f"sqlite://{tmp_path / 'archive.db'}") as console,
            aiohttp.ClientSession() as http,
        ):
            for params, words in bad:
                status, body = await get(http, f"{console.url}api/history", **params)
                assert status == 400 and body["error"].startswith(words), (params, body)
            status, body = await get(http, f"{console.url}api/history/filters", x="1")
            assert status == 400
            twice = f"{console.url}api/history?table=RL-01&table=RL-02"
            async with http.get(twice) as answer:
                assert answer.status == 400
                assert (await answer.json())["error"].startswith("'table': once expected")

    before = (tmp_path / "archive.db").read_bytes()
    asyncio.run(run())
    # The console only reads: the archive is as it was.
    assert (tmp_path / "archive.db").read_bytes() == before


def test_the_alerts_page_lists_the_archives_acknowledgements(tmp_path: Path) -> None:
    floor_archive(tmp_path)

    async def run() -> None:
        async with serving(tmp_path, archive="archive.db") as console:
            origin = {"Origin": console.url.rstrip("/")}
            async with (
                aiohttp.ClientSession() as http,
                http.ws_connect(f"{console.url}live?page=alerts", headers=origin) as ws,
            ):
                acked: list[dict[str, Any]] = []
                while len(acked) < 2:
                    body = json.loads((await ws.receive(timeout=20)).data)
                    if body["type"] in ("snapshot", "alerts"):
                        assert body["alerts"]["acknowledged_from"] == "archive"
                        acked = body["alerts"]["acknowledged"]
                by_table = {a["table"]: a for a in acked}
                assert set(by_table) == {"RL-01", "RL-09"}
                assert by_table["RL-01"]["note"] == XSS
                assert by_table["RL-01"]["by"] == OFFICER
                assert by_table["RL-01"]["ts"] == at(32)
                assert by_table["RL-01"]["text"].startswith("alert A00001: pocket test p = ")

    asyncio.run(run())


def test_an_archive_that_cannot_be_read_is_a_503_and_no_archive_no_history(
    tmp_path: Path,
) -> None:
    async def run() -> None:
        async with (
            serving(tmp_path, archive="missing.db") as console,
            aiohttp.ClientSession() as http,
        ):
            status, body = await get(http, f"{console.url}api/history", table="RL-01")
            assert status == 503 and body["error"].startswith("the archive cannot be read")
            assert "no such file" in body["error"]
            status, body = await get(http, f"{console.url}api/history/filters")
            assert status == 503
        async with serving(tmp_path) as console, aiohttp.ClientSession() as http:
            who = await (await http.get(f"{console.url}api/whoami")).json()
            assert who["archive"] is False
            for path in ("history", "api/history", "api/history/filters"):
                assert (await http.get(f"{console.url}{path}")).status == 404

    asyncio.run(run())


def test_the_history_needs_a_viewer(tmp_path: Path) -> None:
    floor_archive(tmp_path)
    set_password(tmp_path / "web.passwd", "ops", "the ops desk secret")

    async def run() -> None:
        async with (
            serving(
                tmp_path, archive="archive.db", anonymous=False, passwords="web.passwd"
            ) as console,
            aiohttp.ClientSession() as http,
        ):
            for path in ("api/history", "api/history/filters"):
                assert (await http.get(f"{console.url}{path}")).status == 401
            page = await http.get(f"{console.url}history", allow_redirects=False)
            assert page.status == 303 and page.headers["Location"] == "/login"

    asyncio.run(run())
