"""Which `replay` to ask for next: the gaps of the tables' records, one request a table.

The writer publishes the gaps it holds (`ArchiveWriter.wanted`); this picks, every tick,
the tables whose oldest gap is older than the grace (its events may still be on their
way: a redelivery, the state's head published before the event), with no request of
theirs still waiting, up to a bound on the requests out at once. A request asks for at
most `REPLAY_MAX_EVENTS` (the contract's limit); a table that refuses is asked again
later, with back-off, so a refusal never becomes a storm of commands on its record.
Pure: the clock is given.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from floord.archive.batch import Gap
from floord.contract import REPLAY_MAX_EVENTS

# The longest a refused table waits before it is asked again.
MAX_RETRY_S = 300.0


@dataclass(frozen=True)
class Ask:
    """One replay request to send: `site`/`table`, `first`..`last`."""

    site: str
    table: str
    first: int
    last: int


@dataclass
class _Out:
    ask: Ask
    at: float
    command_id: str | None = None


class ReplayPlanner:
    def __init__(self, *, grace_s: float, retry_s: float, max_outstanding: int) -> None:
        self._grace = timedelta(seconds=grace_s)
        self._retry_s = retry_s
        self._max = max_outstanding
        self._out: dict[tuple[str, str], _Out] = {}
        self._refused_until: dict[tuple[str, str], tuple[float, float]] = {}

    def due(
        self, wanted: Mapping[tuple[str, str], list[Gap]], now: float, wall: datetime
    ) -> list[Ask]:
        """The requests to send now."""
        for table, out in list(self._out.items()):
            gaps = wanted.get(table, [])
            still = any(g.first <= out.ask.last and g.last >= out.ask.first for g in gaps)
            if not still or now - out.at >= self._retry_s:
                del self._out[table]
        asks: list[Ask] = []
        for table, gaps in wanted.items():
            if len(self._out) >= self._max:
                break
            if table in self._out:
                continue
            refused = self._refused_until.get(table)
            if refused is not None and now < refused[0]:
                continue
            ripe = [g for g in gaps if wall - g.noticed_at >= self._grace]
            if not ripe:
                continue
            gap = ripe[0]
            ask = Ask(
                table[0], table[1], gap.first, min(gap.last, gap.first + REPLAY_MAX_EVENTS - 1)
            )
            self._out[table] = _Out(ask, now)
            asks.append(ask)
        return asks

    def sent(self, ask: Ask, command_id: str) -> None:
        out = self._out.get((ask.site, ask.table))
        if out is not None and out.ask == ask:
            out.command_id = command_id

    def answered(self, command_id: str, ok: bool, now: float) -> Ask | None:
        """A table's `P/cmd/result` for one of ours: the request it answers, or None.
        A refusal holds that table back (doubling up to `MAX_RETRY_S`)."""
        for table, out in self._out.items():
            if out.command_id == command_id:
                if ok:
                    self._refused_until.pop(table, None)
                    return out.ask
                del self._out[table]
                wait = min(
                    MAX_RETRY_S, self._refused_until.get(table, (0.0, self._retry_s / 2))[1] * 2
                )
                self._refused_until[table] = (now + wait, wait)
                return out.ask
        return None

    @property
    def outstanding(self) -> int:
        return len(self._out)
