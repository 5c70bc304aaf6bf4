"""The archive's writer: its own thread, the one that talks to the database.

The MQTT side hands over each event it took (`put`) and goes on reading; this thread
gathers them into batches (`batch_events`, or what came within `batch_ms` of the
first, and then whatever is already waiting, up to `MAX_BATCH`), judges each against
the ledger and commits the batch in one transaction. A database that fails (down,
restarting, a full disk) keeps the batch in hand: the writer logs it once, reconnects
with back-off and commits the same batch again, so nothing taken is dropped and nothing
is written twice. What stays unfillable is only what a crash took from memory: the next
start asks the tables for it again.
"""

from __future__ import annotations

import queue
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import structlog

from floord.archive.arrivals import Arrival
from floord.archive.batch import Batch, Gap
from floord.archive.ledger import Ledger, Link
from floord.archive.store import ArchiveDatabaseError, Store
from floord.mqtt.backoff import Backoff

log = structlog.get_logger("floord.archive")

# How many of the latest events' lags (received to committed) the writer keeps.
LAG_WINDOW = 10_000
# How long a head a table's state names may stay ahead of the events held before it is
# a gap: its events are usually on their way.
TAIL_GRACE_S = 1.0
# The longest the writer waits for an event before it looks at the owed heads again.
IDLE_S = 0.5
# A batch closes when no event came for this long: under a broker's bound on the messages
# in flight to the archive (each acknowledged once stored) the next ones wait for it.
IDLE_CLOSE_S = 0.02
# The most one commit takes: what is already waiting when a batch closes goes with it,
# so a backlog (a slow disk, a database back after a restart) is taken in big commits
# instead of growing behind small ones.
MAX_BATCH = 10_000


@dataclass(frozen=True)
class Tail:
    """A table's retained state named its record's head: `seq`, `hash`."""

    site: str
    table: str
    seq: int
    hash: str
    at: float = field(default_factory=time.monotonic)


_STOP = object()


class ArchiveWriter:
    """Owns the store and the ledger; `start()`, `put()` from any thread, `stop()`."""

    def __init__(
        self,
        open_store: Callable[[], Store],
        *,
        batch_events: int = 100,
        batch_ms: float = 200.0,
        backoff: Backoff | None = None,
        on_commit: Callable[[], None] | None = None,
    ) -> None:
        self._open_store = open_store
        self._batch_events = batch_events
        self._batch_s = batch_ms / 1000.0
        self._backoff = backoff if backoff is not None else Backoff(0.5, 10.0)
        self._on_commit = on_commit
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._store: Store | None = None
        self._ledger: Ledger | None = None
        self._stopped = threading.Event()
        self.failure: BaseException | None = None
        # Read by the MQTT side and the metrics: replaced whole, never changed in place.
        self.wanted: dict[tuple[str, str], list[Gap]] = {}
        self.held = 0
        self.duplicates = 0
        self.breaks = 0
        self.missing = 0
        self.streams = 0
        self.lags: deque[float] = deque(maxlen=LAG_WINDOW)
        # How long each of the latest commits took (the database's side of the lag).
        self.commits: deque[float] = deque(maxlen=1000)
        self.down_since: float | None = None
        # Told (from this thread) the acknowledgements of the messages a commit stored.
        self.on_stored: Callable[[list[tuple[int, int]]], None] | None = None

    def open(self) -> Store:
        """Open the database, migrate it and load the ledger (blocking: call before the
        loop starts, or from a thread)."""
        store = self._open_store()
        try:
            store.migrate()
            self._ledger = Ledger(store.heads(), store.gaps(), store.epochs(), _now)
            self.held = store.count()
        except BaseException:
            store.close()
            raise
        self._store = store
        self._publish()
        return store

    def start(self) -> None:
        if self._store is None:
            self.open()
        self._thread = threading.Thread(target=self._run, name="archive writer", daemon=True)
        self._thread.start()

    def put(self, item: Arrival | Tail) -> None:
        self._queue.put(item)

    def stop(self, timeout: float = 30.0) -> None:
        """Commit what was handed over, then close the database."""
        if self._thread is not None:
            self._queue.put(_STOP)
            self._thread.join(timeout)
            self._thread = None
        if self._store is not None:
            self._store.close()
            self._store = None

    @property
    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def lag_p99(self) -> float | None:
        """The 99th percentile of the latest events' time from receipt to commit."""
        return _p99(self.lags)

    def commit_p99(self) -> float | None:
        """The 99th percentile of the latest commits' time."""
        return _p99(self.commits)

    def _run(self) -> None:
        try:
            stopping = False
            while not stopping:
                items, stopping = self._gather()
                batch = self._judge(items)
                if items or batch.writes:
                    self._commit(batch)
                    self._stored(items)
        except BaseException as exc:
            self.failure = exc
            log.error("archive writer failed", error=str(exc) or type(exc).__name__)

    def _gather(self) -> tuple[list[Arrival | Tail], bool]:
        try:
            first = self._queue.get(timeout=IDLE_S)
        except queue.Empty:
            return [], False
        if first is _STOP:
            return [], True
        items = [first]
        deadline = time.monotonic() + self._batch_s
        while len(items) < self._batch_events:
            wait = deadline - time.monotonic()
            try:
                item = (
                    self._queue.get(timeout=min(wait, IDLE_CLOSE_S))
                    if wait > 0
                    else self._queue.get_nowait()
                )
            except queue.Empty:
                break
            if item is _STOP:
                return items, True
            items.append(item)
        while len(items) < MAX_BATCH:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if item is _STOP:
                return items, True
            items.append(item)
        return items, False

    def _judge(self, items: list[Arrival | Tail]) -> Batch:
        assert self._ledger is not None
        batch = Batch()
        for item in items:
            if isinstance(item, Tail):
                self._ledger.tail(item.site, item.table, item.seq, item.hash, item.at)
            else:
                self._ledger.take(item, batch, self._lookup)
        self._ledger.settle(batch, time.monotonic(), TAIL_GRACE_S)
        return batch

    def _lookup(self, key: tuple[str, str, int], seq: int) -> Link | None:
        while True:
            store = self._store or self._reconnect()
            try:
                return store.link_at(key, seq)
            except ArchiveDatabaseError as exc:
                self._lost(exc)

    def _commit(self, batch: Batch) -> None:
        assert self._ledger is not None
        if batch.writes:
            while True:
                store = self._store or self._reconnect()
                try:
                    began = time.monotonic()
                    store.write(batch, _now())
                    self.commits.append(time.monotonic() - began)
                    break
                except ArchiveDatabaseError as exc:
                    self._lost(exc)
            if self.down_since is not None:
                log.info(
                    "archive database back",
                    database=store.where,
                    down_s=round(time.monotonic() - self.down_since, 1),
                )
                self.down_since = None
                self._backoff.reset()
        self._ledger.committed()
        done = time.monotonic()
        self.lags.extend(done - a.received for _, a in batch.events)
        self.held += len(batch.events)
        self.duplicates += batch.duplicates
        self.breaks += len(batch.breaks)
        self._say(batch)
        self._publish()
        if self._on_commit is not None:
            self._on_commit()

    def _stored(self, items: list[Arrival | Tail]) -> None:
        """The messages of a committed batch may be acknowledged now: stored, dropped as
        held, or recorded as a break."""
        tokens = [i.ack for i in items if isinstance(i, Arrival) and i.ack is not None]
        if tokens and self.on_stored is not None:
            self.on_stored(tokens)

    def _say(self, batch: Batch) -> None:
        """One line per gap opened, epoch started and break found."""
        assert self._ledger is not None
        for gap in self._ledger.notices:
            log.warning(
                "archive gap",
                site=gap.site,
                stream=gap.stream,
                epoch=gap.epoch,
                from_seq=gap.first,
                to_seq=gap.last,
                fill="replay"
                if gap.fillable
                else "none: a device stream has no replay for the archive's login",
            )
        self._ledger.notices.clear()
        for epoch in batch.epochs:
            log.warning(
                "archive stream restored",
                site=epoch.site,
                stream=epoch.stream,
                epoch=epoch.epoch,
                after_seq=epoch.after_seq,
            )
        for found in batch.breaks:
            log.error(
                "archive chain break",
                site=found.site,
                stream=found.stream,
                epoch=found.epoch,
                seq=found.seq,
                kind=found.kind,
                detail=found.detail,
            )

    def _publish(self) -> None:
        assert self._ledger is not None
        self.wanted = self._ledger.wanted()
        self.missing = self._ledger.missing()
        self.streams = self._ledger.streams()

    def _lost(self, exc: ArchiveDatabaseError) -> None:
        """The database failed: drop the connection, say so once, wait the back-off."""
        if self._store is not None:
            self._store.close()
            self._store = None
        delay = self._backoff.next()
        if self.down_since is None:
            self.down_since = time.monotonic()
            log.error("archive database unreachable", error=str(exc), retry_in_s=delay)
        else:
            log.debug("archive database still unreachable", error=str(exc), retry_in_s=delay)
        time.sleep(delay)

    def _reconnect(self) -> Store:
        while True:
            try:
                self._store = self._open_store()
                return self._store
            except ArchiveDatabaseError as exc:
                self._lost(exc)


def _p99(values: deque[float]) -> float | None:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] if ordered else None


def _now() -> datetime:
    return datetime.now(UTC)
