"""A table's recorder: how a turn (`floord.table.turn`) goes on the record, and what
follows when the journal refuses it (docs/journal.md, "When the journal cannot be
written").

The runner (`floord.table.runner`) feeds the engine and holds one recorder, to which it
hands each turn. `commit` reads top to bottom:

1. the local devices' rows of the turn's inputs go first, each on its device's stream
   in the order the runner took them (`floord.adapters.device_rows`);
2. a halt decided while nothing could be recorded goes first, naming the inputs the
   journal refused meanwhile; then every step's decisions, then the snapshot;
3. all of it is ONE transaction, awaited on the journal's thread while the loop goes
   on (`P/state` shows the committed snapshot, the last turn's, meanwhile);
4. recorded: each row gets the number the journal gave it, the turn's snapshot is the
   committed state, the halt on the record is lifted from
   the pending list, the port is told (`floord.table.port`), then each step's effect
   runs (the engine's device commands are sent), in order;
5. refused: the engine is put back to the committed state (restored from the
   committed snapshot, `floord.table.engine_state`), the inputs are named for
   the halt (a row that went with the commit is on no stream: `device_seq` 0), and
   the table halts (fail closed).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from floord.adapters.device_rows import DeviceRows, Row
from floord.contract import Envelope
from floord.engine.core.types import Decision
from floord.journal.append import Build
from floord.journal.store import DISK_FULL, Journal, JournalError
from floord.table.engine_state import EngineState
from floord.table.port import Committed
from floord.table.state_lines import log_recorded
from floord.table.turn import Turn, builders
from floord.table.unrecorded import Unrecorded
from floord.table.watch_state import DuringPlay


class Recorder:
    def __init__(
        self,
        *,
        site: str,
        table: str,
        journal: Journal,
        live: EngineState,
        committed: Committed,
        clock: Callable[[], datetime],
        log: Any,
    ) -> None:
        self.site = site
        self.table = table
        self.live = live
        self._committed = committed
        self.journal = journal
        self._clock = clock
        self._log = log
        # Why the table cannot record (None: it can), and its code: `journal_disk_full`,
        # `journal_failure`, ...
        self.failure: str | None = None
        self.failure_code = "journal_failure"
        # The halt decided while the journal could not record, and the inputs it refused.
        self._halt: list[Decision] = []
        self._unrecorded = Unrecorded()
        # A commit is under way on the journal's thread.
        self.in_flight = False
        # When a commit also keeps the live tests (`floord.table.watch_state`).
        self.watch_kept = DuringPlay(table, clock)
        # The table stream's chain head, as of the last commit (for `P/state`).
        self.head: tuple[int, str] | None = None
        try:
            self.head = journal.chain_head(table)
        except JournalError:
            self.head = None

    @property
    def halted(self) -> bool:
        """Whether `P/state` says `halted`, read without building it."""
        return bool(self.failure) or self.live.committed.get("state") == "halted"

    def state(self) -> dict[str, Any]:
        """The retained `P/state` body, built from the committed snapshot (the last
        turn's, never the engine's state mid-turn: nothing is published before it is
        durable); a table that cannot record says it is halted."""
        snap = self.live.public()
        if self.failure:
            snap["state"] = "halted"
            reasons = list(snap.get("halt_reasons") or [])
            # The engine latched the same halt when the failure began: name it once.
            if all(r.get("code") != self.failure_code for r in reasons):
                reasons.append({"code": self.failure_code, "detail": self.failure})
            snap["halt_reasons"] = reasons
        # The chain head lets a subscriber check the events it saw (docs/journal.md).
        if self.head is not None:
            seq, head = self.head
            snap["chain"] = {"seq": seq, "hash": head}
        return snap

    # ----- the commit -------------------------------------------------------------

    async def commit(self, turn: Turn) -> list[Envelope]:
        """Record `turn` in ONE transaction; its envelopes, or [] if the journal refused."""
        streams = _by_stream(turn.rows)
        builds = self._builds(turn)
        # Taken now, with the watcher as the turn's events leave it (the loop goes on
        # feeding it while the commit is awaited).
        watch = self.watch_kept.due(self.live.surveillance)
        self.in_flight = True
        try:
            # A commit handed to the journal ends as the journal decides, not half-way,
            # even if this task is cancelled meanwhile (the appends run `whole`).
            if streams:
                # The local devices' rows of these inputs first, in the same transaction.
                written, devices = await self.journal.append_group_async(
                    self.table,
                    builds,
                    before=_before(streams),
                    snapshot=(self.table, turn.snapshot),
                    command_id=turn.command_id,
                    watch=watch,
                )
                _written(streams, devices)
            else:
                written = await self.journal.append_many_async(
                    self.table,
                    builds,
                    snapshot=(self.table, turn.snapshot),
                    command_id=turn.command_id,
                    watch=watch,
                )
        except JournalError as exc:
            _refused(streams, exc)
            self._not_recorded(turn, exc)
            return []
        finally:
            self.in_flight = False
        if watch is not None:
            self.watch_kept.kept()
        return self._recorded(turn, written)

    def _builds(self, turn: Turn) -> list[Build]:
        """The turn's events, each built once the journal numbers it."""
        builds = []
        if self._halt:
            halt = self._unrecorded.into_halt(self._halt)
            builds.extend(builders(self.site, self.table, halt, turn.steps[0].ts))
        for step in turn.steps:
            builds.extend(builders(self.site, self.table, step.decisions, step.ts))
        return builds

    def _recorded(self, turn: Turn, written: list[Envelope]) -> list[Envelope]:
        """The turn is on the record: its snapshot is the committed state now."""
        self.live.keep(turn.snapshot)
        self._halt = []
        self._unrecorded.clear()
        if written:
            self.head = (written[-1].seq, written[-1].hash or "")
        if self.failure:
            self._log.warning(
                "journal recording again; the table stays halted until resumed",
                code=self.failure_code,
            )
            self.failure = None
        log_recorded(self._log, written)
        self._committed.recorded()
        for step in turn.steps:
            if step.effect is not None:
                step.effect()
        return written

    def _not_recorded(self, turn: Turn, exc: JournalError) -> None:
        """The journal refused the turn: the engine forgets it, the table halts."""
        self.live.roll_back()
        if exc.code != DISK_FULL:
            # A journal that fails for anything but space cannot vouch for its head.
            self.head = None
        for step in turn.steps:
            if step.named is not None:
                self._unrecorded.note(step.named, step.row)
        self.fail_closed(exc.code, str(exc))

    # ----- device rows alone ------------------------------------------------------

    async def commit_rows(self, rows: Sequence[Row]) -> None:
        """Device rows whose inputs left nothing on the table's record (the table's
        record is closed, or no round may start): on their streams, on their own."""
        streams = _by_stream(rows)
        if not streams:
            return
        try:
            _, devices = await self.journal.append_group_async(
                self.table, [], before=_before(streams)
            )
        except JournalError as exc:
            _refused(streams, exc)
            return
        _written(streams, devices)
        self._committed.recorded()

    # ----- failing closed ---------------------------------------------------------

    def fail_closed(self, code: str, reason: str) -> None:
        """The table cannot record: it halts, and the halt goes on the record (naming
        what the journal refused meanwhile) as soon as the journal takes a turn."""
        first = self.failure is None
        self.failure = reason
        if first:
            self.failure_code = code
            if code == "journal_disk_full":
                self._log.critical("journal disk full: table halted", code=code, error=reason)
            else:
                self._log.critical("journal failure: table halted", code=code, error=reason)
            # The engine halts too; the halt is latched like any other until a
            # floorperson resumes the table. The halted state is what a later failed
            # commit puts back.
            halted = self.live.engine.halt(code, reason, self._clock())
            self._halt.extend(halted.events)
            self.live.keep()
        self._committed.state_changed()


# ----- device rows ----------------------------------------------------------------

Streams = dict[str, tuple[DeviceRows, list[Row]]]


def _by_stream(rows: Sequence[Row]) -> Streams:
    """`rows` by device stream, each stream's in the order the runner took them."""
    streams: Streams = {}
    for row in rows:
        streams.setdefault(row.rows.stream, (row.rows, []))[1].append(row)
    return streams


def _before(streams: Streams) -> list[tuple[str, list[Build]]]:
    """(stream, builds) for `Journal.append_group`."""
    return [(stream, [row.build for row in rows]) for stream, (_, rows) in streams.items()]


def _written(streams: Streams, devices: list[list[Envelope]]) -> None:
    """The rows are on the record: each gets the number the journal gave it."""
    for (rows, taken), envelopes in zip(streams.values(), devices, strict=True):
        for row, envelope in zip(taken, envelopes, strict=True):
            row.seq = envelope.seq
        rows.written(len(taken))


def _refused(streams: Streams, exc: JournalError) -> None:
    """The commit that held the rows failed: they are on no stream."""
    for rows, taken in streams.values():
        rows.refused(len(taken), str(exc))
