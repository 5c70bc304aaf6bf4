"""A table's record: how the runner commits what the engine decided, and what it does
when the journal refuses (docs/journal.md, "When the journal cannot be written").

The runner (`floord.table.runner`) feeds the engine; this is its other half. Each input's
events, with the table's new snapshot, go to the journal in ONE transaction, awaited on
the journal's own thread while the loop goes on (`_record_async`, `_commit`), or, for a
caller off the loop (start-up, a test, a tool), committed at once (`_record`). Only once
they are on the record does anything follow: the link is told to publish them, the
engine's device commands are sent. While a commit is under way `P/state` shows the
committed state.

The engine acts only on inputs the journal holds: a failed commit puts the committed
state back (an input the journal refused leaves no trace in the engine), halts the table
(fail closed), and the halt, once recorded, names the refused inputs.
"""

from __future__ import annotations

import abc
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import Any, Protocol, TypeVar

from floord.adapters.local import Received
from floord.contract import Envelope, format_ts
from floord.engine.core.copies import deep_copy
from floord.engine.core.types import EngineOutput
from floord.journal.store import DISK_FULL, Journal, JournalError
from floord.table.bus import Tick
from floord.table.commit_group import Entry, PendingRows, builders
from floord.table.state_lines import log_recorded
from floord.table.surveillance import AlertKeeper
from floord.table.unrecorded import Pending, Unrecorded
from floord.table.vocabulary import TableEngine as TableEngine

T = TypeVar("T")


class Link(Protocol):
    def notify(self) -> None: ...
    def state_changed(self) -> None: ...
    async def publish_result(self, payload: dict[str, Any]) -> None: ...
    async def publish_replay(self, payloads: list[str]) -> None: ...


class TableRecord(abc.ABC):
    """The runner's record keeping; `TableRunner` sets these up and feeds the engine."""

    site: str
    table: str
    engine: TableEngine
    surveillance: AlertKeeper | None
    link: Link | None
    record_failure: str | None
    record_failure_code: str
    _journal: Journal
    _clock: Callable[[], datetime]
    _log: Any
    _unrecorded_halt: list[Pending]
    _unrecorded: Unrecorded
    _committed: tuple[TableEngine, AlertKeeper | None]
    # The watcher last copied into `_committed`, its `changes` count then, and that copy.
    _kept_watcher: tuple[AlertKeeper, int, AlertKeeper] | None = None
    _group: list[Entry] | None
    # The local devices' rows numbered for the next commit (`floord.adapters.device_rows`).
    _rows: PendingRows
    _in_flight: bool
    # The table stream's chain head as of the last commit; None while unknown.
    _head: tuple[int, str] | None

    @property
    def halted(self) -> bool:
        """Whether `state()` says `halted`, read without building it (the daemon's
        status line asks of every table each second)."""
        engine = self._committed[0] if self._in_flight else self.engine
        return bool(self.record_failure) or engine.halted

    def _record(
        self,
        items: list[Pending],
        now: datetime,
        unrecorded: dict[str, Any] | None = None,
        then: Callable[[], None] | None = None,
    ) -> list[Envelope]:
        """Journal `items` atomically with the engine's snapshot; fail closed on error.

        `unrecorded` names the input `items` carry, for the halt's list of refused inputs
        should the append fail (the engine is then put back to the committed state);
        `then` runs once they are on the record. While a commit is being gathered (the
        run loop's, `_record_async`'s) the items join it, committed off the loop; else
        (start-up, a test, a tool) they are committed here, the caller waiting.
        """
        entry = Entry(items, format_ts(now), unrecorded, then)
        if self._group is not None:
            self._group.append(entry)
            return []
        builds, snapshot = self._to_append([entry])
        rows = self._take_rows()
        try:
            if rows:
                written, devices = self._journal.append_group(
                    self.table, builds, before=rows.before(), snapshot=snapshot
                )
                rows.written(devices)
            else:
                written = self._journal.append_many(self.table, builds, snapshot=snapshot)
        except JournalError as exc:
            self._not_recorded([entry], exc, rows)
            return []
        return self._recorded([entry], written)

    async def _record_async(
        self,
        items: list[Pending],
        now: datetime,
        unrecorded: dict[str, Any] | None = None,
        *,
        command_id: str | None = None,
        then: Callable[[], None] | None = None,
    ) -> list[Envelope]:
        """`_record`, its commit awaited while the loop goes on; `command_id`, an operator
        command's, is recorded as used in the same transaction as the command's record."""
        self._group = []
        try:
            self._record(items, now, unrecorded, then)
        finally:
            entries, self._group = self._group, None
        used = None if command_id is None else (command_id, format_ts(now))
        return await self._commit(entries, used)

    async def _commit(
        self, entries: list[Entry], command_id: tuple[str, str] | None = None
    ) -> list[Envelope]:
        """Commit the gathered entries in ONE transaction, on the journal's thread."""
        rows = self._take_rows()
        if not entries:
            if rows:
                await self._commit_rows(rows)
            return []
        builds, snapshot = self._to_append(entries)
        self._in_flight = True
        try:
            # A commit handed to the journal ends as the journal decides, not half-way,
            # even if this task is cancelled meanwhile (the appends run `whole`).
            if rows:
                # The local devices' rows of these inputs first, in the same transaction.
                written, devices = await self._journal.append_group_async(
                    self.table,
                    builds,
                    before=rows.before(),
                    snapshot=snapshot,
                    command_id=command_id,
                )
                rows.written(devices)
            else:
                written = await self._journal.append_many_async(
                    self.table, builds, snapshot=snapshot, command_id=command_id
                )
        except JournalError as exc:
            self._not_recorded(entries, exc, rows)
            return []
        finally:
            self._in_flight = False
        return self._recorded(entries, written)

    async def _settle(self, gathered: list[Received | Tick]) -> None:
        """Run `gathered` through the engine (the runner's `_run_group`) and commit what
        they caused in ONE transaction, with the rows of the local devices' events among
        them on their streams (numbered here, in order: `floord.adapters.device_rows`),
        written whatever the engine makes of them."""
        await self._run_group([self._numbered(item) for item in gathered])
        if self._rows.rows:
            await self._commit([])  # rows of inputs that left nothing on the record

    @abc.abstractmethod
    async def _run_group(self, gathered: list[Received | Tick]) -> None:
        """Run `gathered` through the engine in order: the runner's (`TableRunner`)."""

    def _numbered(self, item: T) -> T:
        """A local device's event with its row's seq, the row taken into the next commit."""
        if isinstance(item, Received) and item.row is not None:
            return replace(item, device_seq=self._rows.add(item.device, item.row))
        return item

    def _take_rows(self) -> PendingRows | None:
        """The local devices' rows numbered since the last commit, for this one."""
        if not self._rows.rows:
            return None
        rows, self._rows = self._rows, PendingRows()
        return rows

    async def _commit_rows(self, rows: PendingRows) -> None:
        """Device rows whose inputs left nothing on the table's record (the table's
        record is closed, or no round may start): on their streams, on their own."""
        try:
            _, devices = await self._journal.append_group_async(
                self.table, [], before=rows.before()
            )
        except JournalError as exc:
            rows.refused(str(exc))
            return
        rows.written(devices)
        if self.link:
            self.link.notify()
            self.link.state_changed()

    def _to_append(
        self, entries: list[Entry]
    ) -> tuple[list[Callable[[int], Envelope]], tuple[str, dict[str, Any]]]:
        """What goes in the transaction: the events of `entries`, and the snapshot."""
        builds = []
        if self._unrecorded_halt:
            # A halt decided while nothing could be recorded goes on the record first,
            # naming the inputs the journal refused meanwhile.
            halt = self._unrecorded.into_halt(self._unrecorded_halt)
            builds.extend(builders(self.site, self.table, halt, entries[0].ts))
        for entry in entries:
            builds.extend(builders(self.site, self.table, entry.items, entry.ts))
        return builds, (self.table, self._snapshot())

    def _recorded(self, entries: list[Entry], written: list[Envelope]) -> list[Envelope]:
        """The entries are on the record: they are the committed state now."""
        self._keep_committed()
        self._unrecorded_halt = []
        self._unrecorded.clear()
        if written:
            self._head = (written[-1].seq, written[-1].hash or "")
        if self.record_failure:
            self._log.warning(
                "journal recording again; the table stays halted until resumed",
                code=self.record_failure_code,
            )
            self.record_failure = None
        log_recorded(self._log, written)
        if self.link:
            self.link.notify()
            self.link.state_changed()
        for entry in entries:
            if entry.then is not None:
                entry.then()
        return written

    def _not_recorded(
        self, entries: list[Entry], exc: JournalError, rows: PendingRows | None = None
    ) -> None:
        """The journal refused the entries: the engine forgets them, the table halts."""
        self._roll_back()
        if exc.code != DISK_FULL:
            # A journal that fails for anything but space cannot vouch for its head.
            self._head = None
        lost = set() if rows is None else rows.refused(str(exc))
        for entry in entries:
            if entry.named is not None:
                # A device event whose row went with them is on no stream: seq 0.
                named = entry.named
                if (named.get("source"), named.get("device_seq")) in lost:
                    named = {**named, "device_seq": 0}
                self._unrecorded.note(named)
        self._fail_closed(exc.code, str(exc))

    def _snapshot(self) -> dict[str, Any]:
        """What restores the table: the engine's snapshot, and the open alerts."""
        snap = self.engine.snapshot()
        if self.surveillance is not None:
            snap = {**snap, "surveillance": self.surveillance.snapshot()}
        return snap

    def _copy_state(self) -> tuple[TableEngine, AlertKeeper | None]:
        """A copy of the engine and the watcher (the committed state, kept after every
        commit for `_roll_back` and for `state()` while the next commit is in flight), so
        `deep_copy`: what `copy.deepcopy` gives, at about half its cost
        (`floord.engine.core.copies`)."""
        return deep_copy((self.engine, self.surveillance))

    def _keep_committed(self) -> None:
        """Keep the live state as the committed one: the engine copied; the watcher copied
        only if it changed since the copy kept last (its `changes` count), else that copy
        kept again. Most inputs feed the watcher nothing (a result comes once a spin, a
        roll once a throw), and the kept copy is never changed (a roll-back takes a copy
        of it), so keeping it again is as good as a new copy; the watcher's copy is more
        than half of a full copy's cost (`bench/state_copy.py`)."""
        kept, watcher = self._kept_watcher, self.surveillance
        if kept is not None and kept[0] is watcher and kept[1] == kept[0].changes:
            self._committed = (deep_copy(self.engine), kept[2])
            return
        self._committed = self._copy_state()
        copied = self._committed[1]
        if watcher is None or copied is None:
            self._kept_watcher = None
        else:
            self._kept_watcher = (watcher, watcher.changes, copied)

    def _roll_back(self) -> None:
        """Put the committed state back: the engine forgets what the journal refused."""
        self.engine, self.surveillance = deep_copy(self._committed)

    def _fail_closed(self, code: str, reason: str) -> None:
        first = self.record_failure is None
        self.record_failure = reason
        if first:
            self.record_failure_code = code
            if code == "journal_disk_full":
                self._log.critical("journal disk full: table halted", code=code, error=reason)
            else:
                self._log.critical("journal failure: table halted", code=code, error=reason)
            # The engine halts too; the halt goes on the record as soon as it can, and is
            # latched like any other until a floorperson resumes the table. The halted
            # state is what a later failed append puts back.
            halted = self.engine.halt(code, reason, self._clock())
            self._unrecorded_halt.extend(self._decisions(halted))
            self._keep_committed()
        if self.link:
            self.link.state_changed()

    @staticmethod
    def _decisions(output: EngineOutput) -> list[Pending]:
        return [(d.source, str(d.type), d.data, d.rule, d.round) for d in output.events]
