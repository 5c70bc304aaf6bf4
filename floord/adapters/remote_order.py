"""The order of a remote device's stream: each seq delivered once, in order, and a gap
asked for again, or the stream refused when it cannot be the one on record.

A `RemoteDevice` takes its adapter's events over QoS 0 subscriptions at no cost: a clean
session (each connection's) loses what is sent while it is away or in flight at any
QoS, a live one resends nothing at QoS 1, and a broker drops either for a subscriber far
behind; the seq loses nothing. A gap is replayed from the next seq (asked on each
connection, on an early event or a status's `last_seq` ahead, again after the replay
timeout), a lost status is followed by the next heartbeat, a lost will by the silence
watch. On NATS a QoS 1 subscription is a JetStream consumer, which a cluster that lost
a node cannot create until it has new leaders.

This class decides from the seqs alone what to deliver now, what to hold back, when to
ask for a replay and from which seq, and when the adapter's stream no longer continues
the daemon's copy (fail closed); the device does the MQTT, the journal and the table's
bus through the callables it hands in. No I/O and no clock here: the loop's time is
passed to what needs it.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from floord.contract import REPLAY_MAX_EVENTS, Envelope


class StreamOrder:
    """One device stream followed from the adapter; see the module docstring.

    `deliver` takes the next envelope in seq order, `ask` sends a replay request (it
    calls `request` for its id and first seq), `broke` hears once why the stream cannot
    be followed."""

    def __init__(
        self,
        stream: str,
        next_seq: int,
        first_ts: Any,
        *,
        deliver: Callable[[Envelope], None],
        ask: Callable[[], None],
        broke: Callable[[str], None],
    ) -> None:
        self.stream = stream
        # The next seq to deliver, and early arrivals held back.
        self.next = next_seq
        self.early: dict[int, Envelope] = {}
        # The `ts` of the stream's first event on record (what the adapter's must match).
        self.first_ts = first_ts
        # When the replay request in flight went (the loop's time), if one is.
        self.asked_at: float | None = None
        # The replay request last sent: its id, and the last seq on record when it went.
        self.asked: tuple[str, int] | None = None
        # A status said less than is on record: the seq on record a replay answer must
        # reach (deliveries wait for it; `check_continuity`).
        self.verify_have: int | None = None
        self.adapter_last = 0
        self.broken: str | None = None
        self._deliver = deliver
        self._ask = ask
        self._broke = broke

    def break_off(self, reason: str) -> None:
        """The adapter's stream does not continue the one on record: fail closed."""
        if self.broken is None:
            self.broken = reason
            self._broke(reason)

    def accept(self, env: Envelope) -> None:
        """Deliver in seq order: drop what is known, hold back what comes early."""
        if self.broken or env.seq < self.next:
            return
        if env.seq > self.next or self.verify_have is not None:
            if len(self.early) < REPLAY_MAX_EVENTS:
                self.early[env.seq] = env
            self._ask()
            return
        self._deliver_next(env)
        self.deliver_held()

    def deliver_held(self) -> None:
        """What was held back and now follows on, delivered (none while a shorter stream
        is suspected)."""
        if self.verify_have is not None:
            return
        while self.next in self.early:
            self._deliver_next(self.early.pop(self.next))
        self.early = {s: e for s, e in self.early.items() if s >= self.next}

    def _deliver_next(self, env: Envelope) -> None:
        self.next = env.seq + 1
        if env.seq == 1:
            self.first_ts = env.ts
        self._deliver(env)

    def request(self, now: float) -> tuple[str, int] | None:
        """The id and first seq of a replay request to send now, for everything from the
        first missing seq; None while the stream is broken or a request is in flight
        (one at a time)."""
        if self.broken or self.asked_at is not None:
            return None
        self.asked_at = now
        self.asked = (uuid.uuid4().hex, self.next - 1)
        return self.asked[0], self.next

    def verified(self, answer_id: Any, last: int) -> bool:
        """Whether the stream can still be followed after this replay answer.

        The answer's `last_seq` was read from the adapter's journal after the request
        came, so an answer to the request last sent is the proof a status cannot be: an
        adapter publishes an event only once it is in its journal, so every seq on record
        when the request went is there, unless its journal lost them."""
        asked, need = self.asked, self.verify_have
        if need is None or asked is None or answer_id != asked[0] or asked[1] < need:
            return True  # nothing to prove, or an answer to an older request
        if last < asked[1]:
            self.break_off(f"the adapter's stream ends at seq {last}; {asked[1]} are on record")
            return False
        self.verify_have = None
        return True

    def replayed(self, first: int, last: int, answer_id: Any = None) -> None:
        """A replay answer's events (`first` to `last` asked) were accepted: deliver what
        they freed, and ask again for what is still missing, or fail closed when the
        adapter no longer holds the first seq asked for. An answer to the request last
        sent says where the adapter's journal ended then, whatever a status claimed
        before (a forged one, far ahead, would have the daemon ask for ever)."""
        self.deliver_held()
        current = self.asked is not None and answer_id == self.asked[0]
        self.adapter_last = last if current else max(self.adapter_last, last)
        if self.verify_have is not None:
            self._ask()  # the proof is still to come: an answer to a request sent now
        elif self.next == first and first <= last:
            self.break_off(f"the adapter's journal no longer holds seq {first} of {self.stream}")
        elif self.next <= self.adapter_last:
            self._ask()

    def status(self, last: int, first_ts: Any) -> bool:
        """An online status saying the adapter's stream ends at `last` and begins with
        `first_ts`: checked against the copy; True when it shows a gap to ask for."""
        self.check_continuity(last, first_ts)
        self.adapter_last = max(self.adapter_last, last)
        return self.next <= last

    def check_continuity(self, last: int, first_ts: Any) -> None:
        """The adapter's stream must be the one on record: never shorter, same first event."""
        have = self.next - 1
        if have and first_ts is not None and self.first_ts not in (None, first_ts):
            self.break_off("the adapter's stream is not the one on record (seq 1 differs)")
        elif last < have and self.verify_have is None:
            # A status can be older than events already here: the retained one a new
            # subscription gets, or a heartbeat whose head was read before its latest
            # events went out. So a shorter stream is only suspected here, and proved or
            # cleared by a replay answer (`verified`); deliveries wait for it.
            self.verify_have = have
            self._ask()

    def retry(self, now: float, timeout_s: float) -> None:
        """A replay request unanswered for `timeout_s` is forgotten, and asked again if
        anything is still missing."""
        if self.asked_at is not None and now - self.asked_at > timeout_s:
            self.asked_at = None
            if self.early or self.next <= self.adapter_last or self.verify_have:
                self._ask()
