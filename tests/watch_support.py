"""Helpers for the console's screen tests: a small floor built from contract messages,
and the text a terminal would show (what `App.export_screenshot` draws, as plain text)."""

from __future__ import annotations

import io
import json
import time
from collections.abc import Callable
from typing import Any

from rich.console import Console
from textual.app import App

from floord.contract import Envelope, Topics
from floord.watch.model import FloorModel

PREFIX = "floor/v1"
SITE = "casino-1"
TS = "2026-11-29T19:17:40.123456Z"


def screen_text(app: App[Any]) -> str:
    """The app's screen as the plain text of its cells, one line per terminal row."""
    width, height = app.size
    console = Console(
        width=width,
        height=height,
        file=io.StringIO(),
        force_terminal=True,
        color_system="truecolor",
        record=True,
        legacy_windows=False,
        safe_box=False,
    )
    console.print(app.screen._compositor.render_update(full=True))
    return console.export_text()


async def until(pilot: Any, ready: Callable[[], object], *, within_s: float = 10.0) -> None:
    """Let the app run until `ready()` holds, at most `within_s` (a loaded machine may need
    more than a few refreshes). It does not fail by itself: the caller's assertion after
    it says what never came."""
    deadline = time.monotonic() + within_s
    await pilot.pause()
    while not ready() and time.monotonic() < deadline:
        await pilot.pause(0.01)


def publish(
    model: FloorModel,
    table: str,
    seq: int,
    kind: str,
    data: dict[str, Any],
    *,
    source: str = "engine",
    rule: str | None = None,
    round_id: str | None = None,
) -> None:
    env = Envelope(SITE, table, seq, TS, kind, source, data, rule, round_id)
    model.on_message(Topics(PREFIX, SITE, table).events, env.to_json().encode())


def state(model: FloorModel, table: str, body: dict[str, Any]) -> None:
    model.on_message(Topics(PREFIX, SITE, table).state, json.dumps(body).encode())
