"""The one subscription, shared: the floor model, the browsers it is pushed to, the acks.

The server subscribes to the floor once (`floord.watch.feed.WatchFeed`, the surveillance
login, `broker.urls` failover); the model keeps every table from the retained state and
the `seq` of its record, and asks for replays of a gap. Every `FLUSH_S` the tables that
changed go out to each browser as the page it shows needs them: tiles to a floor page,
the whole table to a table page, the alerts to the alerts page. A browser that
(re)connects is sent the page's whole picture first (`snapshot`), never a change on top
of what it had.

The alerts page's acknowledged list is each `surveillance.alert_acknowledged` on a
table's record, with who, when and the note: those the console saw, and, when the config
names an archive, those the archive holds (`merge_archived`, reread every
`ARCHIVE_ACKS_S`), one entry per alert whichever told it first.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import structlog

from floord.contract import EventType
from floord.watch.feed import WatchFeed
from floord.watch.model import FloorModel, Notice
from floord.web.forward import CommandLogin, forward_signed
from floord.web.views import alert_raised, alert_text, alert_words, table_detail, tile

FLUSH_S = 0.1
SEND_TIMEOUT_S = 5.0
ACKS_KEPT = 500
ARCHIVE_ACKS_S = 30.0
Key = tuple[str, str]


@dataclass(eq=False)
class Viewer:
    """One browser's live connection: the page it shows and how to send to it."""

    send: Callable[[dict[str, Any]], Any]
    # Ends the connection (the server stopping: the browser reconnects to the next one).
    close: Callable[[], Any] | None = None
    page: str = "floor"
    key: Key | None = None
    user: str = ""
    seq: int = 0
    queue: asyncio.Queue[dict[str, Any]] = field(default_factory=lambda: asyncio.Queue(256))


class Hub:
    def __init__(
        self,
        model: FloorModel,
        feed: WatchFeed,
        sites: list[str] | None,
        command_login: CommandLogin | None = None,
    ) -> None:
        self.model = model
        self.feed = feed
        self.command_login = command_login
        self.sites = frozenset(sites) if sites else None
        self.epoch = secrets.token_hex(8)
        self.viewers: set[Viewer] = set()
        self.acknowledged: deque[dict[str, Any]] = deque(maxlen=ACKS_KEPT)
        self._acked: set[tuple[str, str, str]] = set()
        # Grows with every acknowledgement taken: the alerts page is pushed when it moves.
        self._acks_taken = 0
        # Where the acknowledged list comes from: what the console saw, or the archive too.
        self.acks_source = "console"
        # An open alert's sentence and when it was raised, kept while it is open.
        self._alert_texts: dict[tuple[str, str, str], tuple[str, str]] = {}
        self._alerts_mark: tuple[frozenset[tuple[str, str, str]], int] = (frozenset(), 0)
        self._connection_changed = False
        self._was_connected: bool | None = None
        self._log = structlog.get_logger("floord.web")

    # ----- what the feed tells ------------------------------------------------------

    def on_notices(self, notices: list[Notice]) -> None:
        for notice in notices:
            if notice.kind == "connection":
                self._connection_changed = True
                if notice.data.get("connected") == self._was_connected:
                    continue  # a retry that failed again: said once, when it went
                self._was_connected = notice.data.get("connected") is True
                self._log.info(
                    "web.broker",
                    connected=notice.data.get("connected"),
                    detail=notice.data.get("detail"),
                )
            elif notice.kind == "event" and notice.data.get("type") == (
                EventType.SURVEILLANCE_ALERT_ACKNOWLEDGED
            ):
                self._remember_ack(notice)
            elif notice.kind in ("event", "state") and notice.site and notice.table:
                self._remember_alerts((notice.site, notice.table))

    def _remember_alerts(self, key: Key) -> None:
        """Each open alert's sentence while it is open: by the time it is acknowledged
        the table has dropped it, and its event may have left the recent list."""
        view = self.model.tables.get(key)
        if view is None:
            return
        for alert in view.alerts:
            mark = (key[0], key[1], alert)
            if mark not in self._alert_texts:
                raised = alert_raised(view, alert) or ""
                self._alert_texts[mark] = (alert_text(view, alert), raised)

    def _remember_ack(self, notice: Notice) -> None:
        data = notice.data.get("data")
        if not isinstance(data, dict) or notice.site is None or notice.table is None:
            return
        self._take_ack(notice.site, notice.table, str(notice.data.get("ts", "")), data)

    def merge_archived(self, events: list[dict[str, Any]]) -> int:
        """The archive's acknowledgements (envelopes as stored) beside the live ones: an
        alert already listed is not listed again. How many were new."""
        taken = 0
        for event in events:
            site, table, data = event.get("site"), event.get("table"), event.get("data")
            if event.get("type") != EventType.SURVEILLANCE_ALERT_ACKNOWLEDGED:
                continue
            if not isinstance(site, str) or not isinstance(table, str):
                continue
            if not isinstance(data, dict) or not self.shown((site, table)):
                continue
            taken += self._take_ack(site, table, str(event.get("ts", "")), data)
        return taken

    def _take_ack(self, site: str, table: str, ts: str, data: dict[str, Any]) -> bool:
        alert = str(data.get("id"))
        mark = (site, table, alert)
        if mark in self._acked:
            return False
        self._acked.add(mark)
        view = self.model.tables.get((site, table))
        known = self._alert_texts.pop(mark, None)
        closed = data.get("alert")
        if known is not None:
            text = known[0]
        elif isinstance(closed, dict) and closed:  # the alert it closes, as the table had it
            text = alert_words(site, table, {"id": alert, **closed})
        else:
            text = alert_text(view, alert) if view is not None else f"alert {alert}"
        entry = {
            "site": site,
            "table": table,
            "id": alert,
            "by": str(data.get("by", "?")),
            "ts": ts,
            "note": str(data.get("note", "")),
            "text": text,
        }
        # Newest first, the newest ACKS_KEPT: an old one the archive tells late finds
        # its place, or is not kept when older than all of them.
        entries = sorted([entry, *self.acknowledged], key=lambda a: a["ts"], reverse=True)
        self.acknowledged = deque(entries[:ACKS_KEPT], maxlen=ACKS_KEPT)
        self._acks_taken += 1
        return True

    # ----- pages --------------------------------------------------------------------

    def shown(self, key: Key) -> bool:
        return self.sites is None or key[0] in self.sites

    def tiles(self, keys: Any = None) -> list[dict[str, Any]]:
        chosen = sorted(self.model.tables if keys is None else keys)
        return [
            tile(self.model.tables[k]) for k in chosen if k in self.model.tables and self.shown(k)
        ]

    def open_alerts(self) -> list[dict[str, Any]]:
        found = []
        for key, view in self.model.tables.items():
            if not self.shown(key):
                continue
            for alert in view.alerts:
                known = self._alert_texts.get((key[0], key[1], alert))
                text, raised = known if known else (alert_text(view, alert), "")
                found.append(
                    {
                        "site": key[0],
                        "table": key[1],
                        "id": alert,
                        "text": text,
                        "raised": raised or alert_raised(view, alert) or "",
                    }
                )
        found.sort(key=lambda a: (a["raised"], a["id"]), reverse=True)
        return found

    def alerts_page(self) -> dict[str, Any]:
        return {
            "open": self.open_alerts(),
            "acknowledged": list(self.acknowledged),
            "acknowledged_from": self.acks_source,
        }

    def connection(self) -> dict[str, Any]:
        return {
            "connected": self.model.connected,
            "detail": self.model.connection_detail,
            "node": self.feed.node,
        }

    def snapshot(self, viewer: Viewer) -> dict[str, Any]:
        """The whole of `viewer`'s page as it stands now."""
        body: dict[str, Any] = {"type": "snapshot", "epoch": self.epoch, **self.connection()}
        if viewer.page == "table" and viewer.key is not None:
            view = self.model.tables.get(viewer.key)
            body["table"] = (
                table_detail(view) if view is not None and self.shown(viewer.key) else None
            )
        elif viewer.page == "alerts":
            body["alerts"] = self.alerts_page()
        else:
            body["tiles"] = self.tiles()
        return body

    # ----- pushing ------------------------------------------------------------------

    def join(self, viewer: Viewer) -> None:
        self.viewers.add(viewer)
        self.push(viewer, self.snapshot(viewer))

    def leave(self, viewer: Viewer) -> None:
        self.viewers.discard(viewer)

    def push(self, viewer: Viewer, body: dict[str, Any]) -> None:
        """Queue a message for `viewer`; one that cannot keep up is sent a fresh snapshot
        instead of a backlog (its queue is emptied first)."""
        viewer.seq += 1
        try:
            viewer.queue.put_nowait({**body, "seq": viewer.seq})
        except asyncio.QueueFull:
            while not viewer.queue.empty():
                viewer.queue.get_nowait()
            viewer.seq += 1
            viewer.queue.put_nowait({**self.snapshot(viewer), "seq": viewer.seq})

    def flush(self) -> None:
        """Push what changed since the last flush to every viewer."""
        dirty = {k for k in self.model.take_dirty() if self.shown(k)}
        mark = (
            frozenset((s, t, a) for (s, t), v in self.model.tables.items() for a in v.alerts),
            self._acks_taken,
        )
        alerts_changed = mark != self._alerts_mark
        self._alerts_mark = mark
        connection = self._connection_changed
        self._connection_changed = False
        tiles = self.tiles(dirty) if dirty else []
        alerts = self.alerts_page() if alerts_changed else None
        for viewer in list(self.viewers):
            if connection:
                self.push(viewer, {"type": "connection", **self.connection()})
            if viewer.page == "floor" and tiles:
                self.push(viewer, {"type": "tiles", "tiles": tiles})
            elif viewer.page == "table" and viewer.key in dirty and viewer.key is not None:
                view = self.model.tables[viewer.key]
                self.push(viewer, {"type": "table", "table": table_detail(view)})
            elif viewer.page == "alerts" and alerts is not None:
                self.push(viewer, {"type": "alerts", "alerts": alerts})

    async def run(self) -> None:
        """Flush every FLUSH_S until cancelled."""
        while True:
            self.flush()
            await asyncio.sleep(FLUSH_S)

    @staticmethod
    async def pump(viewer: Viewer) -> None:
        """Send `viewer`'s queue in order until its connection fails or is cancelled."""
        while True:
            body = await viewer.queue.get()
            async with asyncio.timeout(SEND_TIMEOUT_S):
                await viewer.send(body)

    # ----- commands -------------------------------------------------------------------

    async def forward(
        self, viewer: str, site: str, table: str, command: dict[str, Any], timeout_s: float
    ) -> tuple[bool, str | None]:
        """Send a command the browser signed; the table's answer (or why it was not sent)."""
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[tuple[bool, str | None]] = loop.create_future()

        def answered(ok: bool, error: str | None) -> None:
            if not answer.done():
                answer.set_result((ok, error))

        if self.command_login is not None:
            self._log_forward(viewer, site, table, command, None)
            name, args = command["name"], command["args"]
            self.on_notices(self.model.command_sent(site, table, name, args))
            ok, error = await forward_signed(self.command_login, site, table, command, timeout_s)
            self.on_notices(self.model.command_answered(site, table, ok, error))
            return ok, error
        why = self.feed.forward(site, table, command, answered)
        self._log_forward(viewer, site, table, command, why)
        if why is not None:
            return False, why
        started = time.monotonic()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout_s):
                return await answer
        return False, f"no answer within {time.monotonic() - started:.0f} s"

    def _log_forward(
        self, viewer: str, site: str, table: str, command: dict[str, Any], why: str | None
    ) -> None:
        self._log.info(
            "web.command_forwarded",
            viewer=viewer,
            by=command.get("by"),
            name=command.get("name"),
            site=site,
            table=table,
            id=command.get("id"),
            sent=why is None,
            login=self.command_login.username if self.command_login else "broker",
        )
