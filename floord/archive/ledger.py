"""What the archive holds of each stream, and what an arriving event is to it.

Each stream (a table's record, or one device's) is numbered 1, 2, 3, ... and chained by
hash (docs/contract.md, "Tamper-evident journal"). For every event taken the ledger says
whether it is new (and opens a gap when numbers were skipped), fills a gap, or is
already held (dropped; held with another hash, a fork, recorded as a break), and checks
its links: its own hash, its `prev` against the event before it, and the `prev` of the
event after it when it fills a hole. What it decides goes into the `Batch` the writer
commits; the ledger's own state moves at once, so the next event of the same batch is
judged against it.

A restored journal (`journal.restored`) starts a new epoch on the table's stream and on
each device stream it names: the stream goes on from the backup's head, and what the
archive holds past it stays, as the replaced record (docs/contract.md, "Restores").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from floord.archive.arrivals import Arrival
from floord.archive.batch import Batch, BreakRow, Epoch, Gap, Head, StreamKey
from floord.journal.chain import event_hash, genesis

# (hash, prev) of the event held at a `seq`, or None: where the ledger looks up a link.
Link = tuple[str, str]
Lookup = Callable[[StreamKey, int], Link | None]


@dataclass
class EpochState:
    """One stream's record from `after_seq` on: its highest `seq` held and the gaps."""

    epoch: int
    after_seq: int
    after_hash: str | None
    high: int
    head_hash: str | None
    gaps: list[Gap] = field(default_factory=list)
    restored_hash: str | None = None


@dataclass(frozen=True)
class GapNotice:
    """A gap just opened, for the log line."""

    site: str
    stream: str
    epoch: int
    first: int
    last: int
    fillable: bool


class Ledger:
    """Every stream's epochs; fed by the writer thread only."""

    def __init__(
        self,
        heads: dict[StreamKey, Head],
        gaps: dict[StreamKey, list[Gap]],
        epochs: list[Epoch],
        clock: Callable[[], datetime],
    ) -> None:
        self._clock = clock
        self._streams: dict[tuple[str, str], list[EpochState]] = {}
        for e in epochs:
            self._epochs(e.site, e.stream).append(
                EpochState(
                    e.epoch,
                    e.after_seq,
                    e.after_hash,
                    e.after_seq,
                    e.after_hash,
                    restored_hash=e.restored_hash,
                )
            )
        for (site, stream, epoch), head in heads.items():
            state = self._epoch_state(site, stream, epoch)
            state.high, state.head_hash = head.high, head.hash
        for (site, stream, epoch), held in gaps.items():
            self._epoch_state(site, stream, epoch).gaps = list(held)
        self._pending: dict[tuple[StreamKey, int], Link] = {}
        # Heads the tables' states named, not yet held: (seq, hash, when seen).
        self._owed: dict[tuple[str, str], tuple[int, str, float]] = {}
        self.notices: list[GapNotice] = []

    def _epochs(self, site: str, stream: str) -> list[EpochState]:
        found = self._streams.get((site, stream))
        if found is None:
            found = self._streams[(site, stream)] = [EpochState(0, 0, None, 0, None)]
        return found

    def _epoch_state(self, site: str, stream: str, epoch: int) -> EpochState:
        states = self._epochs(site, stream)
        for state in states:
            if state.epoch == epoch:
                return state
        state = EpochState(epoch, 0, None, 0, None)
        states.append(state)
        states.sort(key=lambda s: s.epoch)
        return state

    def committed(self) -> None:
        """The batch is in the database: its links are found there from now on."""
        self._pending.clear()

    def streams(self) -> int:
        return len(self._streams)

    def wanted(self) -> dict[tuple[str, str], list[Gap]]:
        """The gaps a `replay` can fill (a table's record), per (site, table)."""
        found: dict[tuple[str, str], list[Gap]] = {}
        for (site, stream), states in self._streams.items():
            if "/" in stream:
                continue
            gaps = [g for s in states for g in s.gaps if g.fillable]
            if gaps:
                found[(site, stream)] = sorted(gaps, key=lambda g: g.first)
        return found

    def missing(self) -> int:
        """How many `seq`s the archive knows it does not hold."""
        return sum(
            g.last - g.first + 1
            for states in self._streams.values()
            for s in states
            for g in s.gaps
        )

    # Taking events.

    def take(self, a: Arrival, batch: Batch, lookup: Lookup) -> None:
        """Judge `a` and put what it means into `batch`."""
        states = self._epochs(a.site, a.stream)
        restored = a.device is None and a.type == "journal.restored"
        if restored and not any(s.restored_hash == a.hash for s in states):
            self._restored(a, batch)
        state = next(s for s in reversed(states) if s.after_seq < a.seq)
        key = (a.site, a.stream, state.epoch)
        if event_hash(a.body) != a.hash:
            self._break(batch, key, a, "edited", "its content does not hash to its `hash`")
        if a.seq > state.high:
            self._new(a, batch, key, state)
        elif self._fill(state, a.seq):
            batch.gaps[key] = list(state.gaps)
            if a.seq == state.high and state.head_hash is None:
                state.head_hash = a.hash
            elif a.seq == state.high and state.head_hash != a.hash:
                self._break(
                    batch,
                    key,
                    a,
                    "head_mismatch",
                    f"the table's state named {state.head_hash} as the hash of its head",
                )
            self._link_before(a, batch, key, state, lookup)
            after = self._link(key, a.seq + 1, lookup) if a.seq < state.high else None
            if after is not None and after[1] != a.hash:
                self._break(
                    batch,
                    key,
                    a,
                    "next_mismatch",
                    f"seq {a.seq + 1} held links to {after[1]}, not to this event",
                )
            self._store(a, batch, key, state)
        else:
            held = self._link(key, a.seq, lookup)
            if held is None:
                self._link_before(a, batch, key, state, lookup)
                self._store(a, batch, key, state)
            elif held[0] == a.hash:
                batch.duplicates += 1
            else:
                self._break(
                    batch,
                    key,
                    a,
                    "fork",
                    f"seq {a.seq} is held with hash {held[0]} and no journal.restored "
                    "before it: an edit or a fork",
                )

    def tail(self, site: str, table: str, seq: int, hash_: str, at: float) -> None:
        """The table's retained state says its record's head is `seq`, hash `hash_` (at
        `at`, time.monotonic): owed until `settle` finds it still ahead of what the
        archive holds. The state is often ahead of the event it names by a moment."""
        self._owed[(site, table)] = (seq, hash_, at)

    def settle(self, batch: Batch, now: float, grace_s: float) -> None:
        """Heads named by a state `grace_s` ago and still not reached become gaps."""
        for (site, table), (seq, hash_, at) in list(self._owed.items()):
            if now - at >= grace_s:
                del self._owed[(site, table)]
                self._owe(site, table, seq, hash_, batch)

    def _owe(self, site: str, table: str, seq: int, hash_: str, batch: Batch) -> None:
        """What the archive lacks up to a table's head is a gap, and the next event must
        link to that head."""
        states = self._epochs(site, table)
        state = states[-1]
        if seq > state.high:
            # Not a notice line: a gap still open when the replay is asked is logged then.
            key = (site, table, state.epoch)
            state.gaps.append(Gap(state.high + 1, seq, True, self._clock()))
            batch.gaps[key] = list(state.gaps)
            state.high = seq
            state.head_hash = hash_
            batch.heads[(site, table, state.epoch)] = Head(state.high, state.head_hash)

    def _restored(self, a: Arrival, batch: Batch) -> None:
        """A new epoch on the table's stream and on each device stream the event names."""
        data: dict[str, Any] = a.body.get("data", {})
        head = data.get("head") if isinstance(data.get("head"), dict) else {}
        after_seq = head.get("seq") if isinstance(head, dict) else None
        if isinstance(after_seq, bool) or not isinstance(after_seq, int) or after_seq != a.seq - 1:
            after_seq = a.seq - 1
        heads = {a.stream: (after_seq, a.prev)}
        streams = data.get("streams")
        if isinstance(streams, dict):
            for name, h in streams.items():
                if (
                    isinstance(name, str)
                    and name.startswith(f"{a.table}/devices/")
                    and isinstance(h, dict)
                    and isinstance(h.get("seq"), int)
                    and isinstance(h.get("hash"), str)
                ):
                    heads[name] = (h["seq"], h["hash"])
        now = self._clock()
        for stream, (seq, hash_) in heads.items():
            states = self._epochs(a.site, stream)
            last = states[-1]
            for gap in last.gaps:
                # Past the head, a missing event belonged to the replaced record: the
                # box set it aside with that record, no replay brings it now.
                if gap.last > seq:
                    last.gaps[last.gaps.index(gap)] = Gap(
                        gap.first, gap.last, False, gap.noticed_at
                    )
            batch.gaps[(a.site, stream, last.epoch)] = list(last.gaps)
            state = EpochState(last.epoch + 1, seq, hash_, seq, hash_, restored_hash=a.hash)
            states.append(state)
            batch.epochs.append(Epoch(a.site, stream, state.epoch, seq, hash_, a.hash, now))
            batch.heads[(a.site, stream, state.epoch)] = Head(seq, hash_)

    def _new(self, a: Arrival, batch: Batch, key: StreamKey, state: EpochState) -> None:
        if a.seq == state.high + 1:
            self._check_prev(
                a, batch, key, self._hash_before(a, state, state.high, state.head_hash)
            )
        else:
            self._open_gap(batch, key, state, state.high + 1, a.seq - 1, a.device is None)
        state.high, state.head_hash = a.seq, a.hash
        self._store(a, batch, key, state)

    def _hash_before(self, a: Arrival, state: EpochState, seq: int, held: str | None) -> str | None:
        if seq == 0:
            return genesis(a.site, a.stream)
        if seq == state.after_seq:
            return state.after_hash
        return held

    def _link_before(
        self, a: Arrival, batch: Batch, key: StreamKey, state: EpochState, lookup: Lookup
    ) -> None:
        before = self._link(key, a.seq - 1, lookup) if a.seq - 1 > state.after_seq else None
        held = before[0] if before is not None else None
        self._check_prev(a, batch, key, self._hash_before(a, state, a.seq - 1, held))

    def _check_prev(self, a: Arrival, batch: Batch, key: StreamKey, expected: str | None) -> None:
        if expected is not None and a.prev != expected:
            self._break(
                batch,
                key,
                a,
                "prev_mismatch",
                f"its prev {a.prev} is not the hash {expected} of seq {a.seq - 1}",
            )

    def _link(self, key: StreamKey, seq: int, lookup: Lookup) -> Link | None:
        pending = self._pending.get((key, seq))
        return pending if pending is not None else lookup(key, seq)

    def _fill(self, state: EpochState, seq: int) -> bool:
        for index, gap in enumerate(state.gaps):
            if gap.first <= seq <= gap.last:
                pieces = [
                    Gap(lo, hi, gap.fillable, gap.noticed_at)
                    for lo, hi in ((gap.first, seq - 1), (seq + 1, gap.last))
                    if lo <= hi
                ]
                state.gaps[index : index + 1] = pieces
                return True
        return False

    def _open_gap(
        self, batch: Batch, key: StreamKey, state: EpochState, first: int, last: int, fillable: bool
    ) -> None:
        state.gaps.append(Gap(first, last, fillable, self._clock()))
        batch.gaps[key] = list(state.gaps)
        self.notices.append(GapNotice(key[0], key[1], key[2], first, last, fillable))

    def _store(self, a: Arrival, batch: Batch, key: StreamKey, state: EpochState) -> None:
        self._pending[(key, a.seq)] = (a.hash, a.prev)
        batch.events.append((state.epoch, a))
        batch.heads[key] = Head(state.high, state.head_hash)

    def _break(self, batch: Batch, key: StreamKey, a: Arrival, kind: str, detail: str) -> None:
        batch.breaks.append(
            BreakRow(
                a.site, a.stream, key[2], a.seq, kind, detail, a.hash, a.body_text, self._clock()
            )
        )
