"""The History page in a real headless Chromium, on a real SQLite archive: the nav shows
History only when the console has an archive; the page lists a table's events newest
first, a page at a time, filters them by type, says a bad filter's reason; an archived
note that is markup is shown as text, on the History page and in the Alerts page's
acknowledged list (read from the archive), nothing of it run.

No broker is needed: the console keeps trying to reach one while it serves.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from test_web_browser import shot
from web_history_support import OFFICER, SITE, XSS, floor_archive, serving

from bench.cdp import Page, chromium, chromium_path

NO_CHROMIUM = "chromium is not installed (scripts/ensure-test-tools.sh installs it as root)"
pytestmark = [pytest.mark.system, pytest.mark.skipif(chromium_path() is None, reason=NO_CHROMIUM)]

ROWS = "document.querySelectorAll('#rows tr.event')"


async def rows(page: Page) -> list[dict[str, str]]:
    return await page.evaluate(
        f"[...{ROWS}].map((r) => ({{type: r.querySelector('.type').textContent, "
        "text: r.querySelector('.text').textContent, seq: r.dataset.seq}))"
    )


async def nothing_run(page: Page) -> None:
    assert await page.evaluate("document.querySelectorAll('main img').length") == 0
    assert await page.evaluate("window.__xss === undefined")
    thrown = [params for method, params in page.events if method == "Runtime.exceptionThrown"]
    assert not thrown, thrown


def test_the_history_page_lists_filters_and_shows_markup_as_text(tmp_path: Path) -> None:
    floor_archive(tmp_path)

    async def run() -> None:
        async with (
            serving(tmp_path, archive="archive.db") as web,
            serving(tmp_path / "plain") as plain,
            chromium(tmp_path) as browser,
        ):
            # Without an archive the nav has no History; with one it has.
            page = await browser.page()
            await page.goto(f"{plain.url}alerts")
            await page.wait_for("document.getElementById('viewer').textContent", what="whoami")
            assert not await page.evaluate("document.getElementById('history-link')")
            await page.goto(f"{web.url}alerts")
            await page.wait_for("document.getElementById('history-link')", what="History link")
            # The alerts page's acknowledged list, from the archive, the note as text.
            acked = "document.querySelector('#acked tr[data-alert=\"A00001\"]')"
            await page.wait_for(acked, what="the archived acknowledgement")
            listed = await page.evaluate(
                "[...document.querySelectorAll('#acked tr')].map((r) => r.innerText)"
            )
            mine = [row for row in listed if "RL-01" in row]
            assert len(mine) == 1 and OFFICER in mine[0] and XSS in mine[0], listed
            assert "archive" in await page.evaluate(
                "document.getElementById('acked-from').textContent"
            )
            await nothing_run(page)
            # A table's events, newest first, a page of 50.
            await page.evaluate("document.getElementById('history-link').click()")
            await page.wait_for("location.pathname === '/history'", what="the History page")
            await page.goto(f"{web.url}history?site={SITE}&table=RL-01")
            await page.wait_for(f"{ROWS}.length === 50", what="RL-01's first page")
            first = await rows(page)
            assert first[0]["type"] == "surveillance.alert_acknowledged"
            assert OFFICER in first[0]["text"] and XSS in first[0]["text"]
            assert [int(r["seq"]) for r in first[:3]] == [62, 61, 60]
            assert not await page.evaluate("document.getElementById('older').disabled")
            await nothing_run(page)
            await shot(page, "history")
            # The next page, then back.
            await page.evaluate("document.getElementById('older').click()")
            await page.wait_for(f"{ROWS}.length === 13", what="RL-01's last page")
            assert await page.evaluate("document.getElementById('older').disabled")
            await page.evaluate("document.getElementById('newer').click()")
            await page.wait_for(f"{ROWS}.length === 50", what="RL-01's first page again")
            # By type: the results only, every one of them.
            await page.evaluate(
                "document.getElementById('type').value = 'roulette.result';"
                "document.getElementById('show').click()"
            )
            await page.wait_for(
                f"{ROWS}.length === 30 && [...{ROWS}].every("
                "(r) => r.querySelector('.type').textContent === 'roulette.result')",
                what="RL-01's results only",
            )
            assert await page.evaluate("document.getElementById('older').disabled")
            assert "type=roulette.result" in await page.evaluate("location.search")
            # A filter the console refuses: its reason, shown as text.
            await page.evaluate(
                "document.getElementById('from').value = '2026-12-02T10:00:00';"
                "document.getElementById('to').value = '2026-12-01T10:00:00';"
                "document.getElementById('show').click()"
            )
            await page.wait_for(
                "document.getElementById('status').textContent.includes('a time before')",
                what="the refusal",
            )
            # Every table: the other site's RL-09 is listed too (no `sites` in the config).
            await page.goto(f"{web.url}history?type=surveillance.alert_acknowledged")
            await page.wait_for(f"{ROWS}.length === 2", what="both acknowledgements")
            tables = await page.evaluate(f"[...{ROWS}].map((r) => r.children[1].textContent)")
            assert tables == ["RL-01 (casino-1)", "RL-09 (casino-2)"], json.dumps(tables)
            await nothing_run(page)

    asyncio.run(run())
