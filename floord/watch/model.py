"""The floor as the console sees it: every table, built from the contract's MQTT topics.

Pure: it is handed each message's topic and bytes (and a monotonic `now` when it matters)
and answers with `Notice`s; it never touches the network or a clock. The feed asks it
which replays to request (`take_requests`), the UI which rows changed (`take_dirty`).

Gaps and staleness (docs/console.md):
- the table's record (`P/events`) is checked `seq` by `seq`. A gap makes the table
  stale and, when the console can sign a `replay` command, is asked for again and again
  (every `retry_s`) until the missing events arrive on `P/replay`; then stale clears.
  Without an operator key the gap is reported as unfilled and the table stays stale.
- a device's own stream (`P/devices/<d>/events`) is checked too, but `replay` covers only
  the table's record, which already holds every device event the engine received; a
  device-stream gap is therefore a note on the row, not staleness.
- a table whose `P/status` says offline (its last will, or a clean stop) is stale until
  it says online again; so is every table while the console itself is disconnected.
- a `P/status` `online: true` with `lost` says the daemon's previous connection was
  lost (a node that died took that connection's last will with it): a `link_lost`
  notice and a note on the row (node, when lost, when back) until a status without it.
- a `seq` already seen is a duplicate (at-least-once delivery) and is dropped silently,
  except after a `journal.restored` on the table's record (docs/contract.md, "Restores"):
  the table's streams go on from the backup's heads it names, so the seqs after them are
  new again, and the row says so (`notes["restored"]`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from floord.contract import REPLAY_MAX_EVENTS, STATUS_LOST, Envelope, EventType
from floord.untrusted import read_json, storable
from floord.watch.streams import DUPLICATE, FILL
from floord.watch.table_view import CommandOutcome, TableView

Key = tuple[str, str]
TABLE_STREAM = "events"
DEFAULT_RETRY_S = 5.0


@dataclass(frozen=True)
class Notice:
    """Something worth telling: an event, a state change, a gap, a stale table, ..."""

    kind: str
    site: str | None
    table: str | None
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        """One JSON line, UTF-8 text whatever came from the broker: a lone surrogate in
        a message's text (which UTF-8 cannot write) is escaped as floord stores it."""
        body = {"kind": self.kind, "site": self.site, "table": self.table, **self.data}
        return json.dumps(storable(body), separators=(",", ":"), ensure_ascii=False, default=str)


@dataclass(frozen=True)
class ReplayRequest:
    """Ask a table to republish `from_seq..to_seq` of its record."""

    site: str
    table: str
    from_seq: int
    to_seq: int

    def notice(self) -> Notice:
        span = {"from_seq": self.from_seq, "to_seq": self.to_seq}
        return Notice("replay_requested", self.site, self.table, span)


@dataclass
class _Replay:
    asked_at: float | None = None
    refused: str | None = None


@dataclass(frozen=True)
class Totals:
    tables: int
    open: int
    halted: int
    alerts: int
    stale: int


# Tables a console keeps: a floor's hundreds and room. Anyone who can publish under the
# prefix could otherwise make a table of every name it makes up, each kept for good.
MAX_TABLES = 2_000


class _TooManyTables(Exception):
    """A message of a new table past `FloorModel.max_tables`."""


class FloorModel:
    """Every table under `prefix` (optionally one `site`), and what the console must do."""

    def __init__(
        self,
        prefix: str,
        site: str | None = None,
        *,
        can_replay: bool = False,
        recent: int = 200,
        retry_s: float = DEFAULT_RETRY_S,
        max_tables: int = MAX_TABLES,
    ) -> None:
        self.prefix = prefix.strip("/")
        self.max_tables = max_tables
        # Messages of tables past `max_tables`, ignored (the first one said so).
        self.ignored = 0
        self.site = site
        self.can_replay = can_replay
        self.recent = recent
        self.retry_s = retry_s
        self.tables: dict[Key, TableView] = {}
        self.connected = False
        self.connection_detail = "not connected yet"
        self._dirty: set[Key] = set()
        self._replays: dict[Key, _Replay] = {}

    # ----- what the UI and the feed ask ------------------------------------------

    def take_dirty(self) -> set[Key]:
        """The tables changed since the last call (and forget them)."""
        dirty, self._dirty = self._dirty, set()
        return dirty

    def totals(self) -> Totals:
        views = self.tables.values()
        return Totals(
            tables=len(self.tables),
            open=sum(1 for v in views if v.state == "open"),
            halted=sum(1 for v in views if v.halted),
            alerts=sum(len(v.alerts) for v in views),
            stale=sum(1 for v in views if v.is_stale),
        )

    def take_requests(self, now: float) -> list[ReplayRequest]:
        """Replays to send now: a table's first missing range (up to the contract's limit),
        for every gapped table not asked within `retry_s` and not refused."""
        if not self.can_replay:
            return []
        wanted = []
        for key, replay in self._replays.items():
            if replay.refused is not None:
                continue
            if replay.asked_at is not None and now - replay.asked_at < self.retry_s:
                continue
            tracker = self.tables[key].tracker(TABLE_STREAM)
            if tracker.complete:
                continue
            first = tracker.missing[0][0]
            last = min(tracker.missing[-1][1], first + REPLAY_MAX_EVENTS - 1)
            replay.asked_at = now
            wanted.append(ReplayRequest(key[0], key[1], first, last))
        return wanted

    def replay_answered(self, site: str, table: str, ok: bool, error: str | None) -> list[Notice]:
        """The table's `P/cmd/result` to our replay: a refusal ends the asking."""
        key = (site, table)
        replay = self._replays.get(key)
        if replay is None:
            return []
        if ok:
            return [Notice("replay_accepted", site, table, {})]
        replay.refused = error or "refused"
        view = self.tables[key]
        self._describe_gap(view, TABLE_STREAM)
        self._dirty.add(key)
        return [
            Notice("replay_refused", site, table, {"error": replay.refused}),
            self._stale_notice(view),
        ]

    # ----- the console's own commands (`ack_alert`) ------------------------------------

    def command_sent(self, site: str, table: str, name: str, args: dict[str, Any]) -> list[Notice]:
        """The console signed `name` for this table: shown as waiting for its answer."""
        view = self._view(site, table)
        view.command = CommandOutcome(name, dict(args))
        return [Notice("command_sent", site, table, {"name": name, "args": dict(args)})]

    def command_answered(self, site: str, table: str, ok: bool, error: str | None) -> list[Notice]:
        """The table's `P/cmd/result` to the console's command (or no answer in time)."""
        view = self._view(site, table)
        asked = view.command
        name, args = (asked.name, asked.args) if asked is not None else ("command", {})
        view.command = CommandOutcome(name, args, ok, None if ok else error or "refused")
        kind = "command_accepted" if ok else "command_refused"
        return [Notice(kind, site, table, {"name": name, "args": args, "error": error})]

    # ----- the connection -----------------------------------------------------------

    def set_connected(self, connected: bool, detail: str) -> list[Notice]:
        """The console's own broker connection: while it is down every table is stale."""
        self.connected = connected
        self.connection_detail = detail
        notices = [Notice("connection", None, None, {"connected": connected, "detail": detail})]
        for view in self.tables.values():
            had = view.stale_text()
            if connected:
                view.stale.pop("feed", None)
            else:
                view.stale["feed"] = f"console disconnected: {detail}"
            if view.stale_text() != had:
                self._dirty.add(view.key)
                notices.append(self._stale_notice(view))
        return notices

    # ----- messages -----------------------------------------------------------------

    def parse_topic(self, topic: str) -> tuple[str, str, str] | None:
        """(site, table, rest) of a topic under the prefix, or None if it is not one."""
        head = self.prefix + "/"
        if not topic.startswith(head):
            return None
        parts = topic[len(head) :].split("/", 2)
        if len(parts) < 3 or not parts[0] or not parts[1]:
            return None
        if self.site is not None and parts[0] != self.site:
            return None
        return parts[0], parts[1], parts[2]

    def on_message(self, topic: str, payload: bytes) -> list[Notice]:
        """One MQTT message; anything malformed is a `bad_message` notice, never a crash."""
        where = self.parse_topic(topic)
        if where is None:
            return []
        site, table, rest = where
        if rest in ("cmd", "cmd/result") or not payload:
            # Commands are not ours to show; an empty payload clears a retained topic.
            return []
        try:
            body = read_json(payload)
            if not isinstance(body, dict):
                raise ValueError(f"a JSON object expected, found {type(body).__name__}")
            return self._route(site, table, rest, body)
        except _TooManyTables as exc:
            self.ignored += 1
            if self.ignored > 1:
                return []
            return [Notice("bad_message", site, table, {"topic": topic, "error": str(exc)})]
        except (ValueError, KeyError, TypeError) as exc:
            detail = {"topic": topic, "error": f"{type(exc).__name__}: {exc}"}
            return [Notice("bad_message", site, table, detail)]

    def _view(self, site: str, table: str) -> TableView:
        key = (site, table)
        view = self.tables.get(key)
        if view is None:
            if len(self.tables) >= self.max_tables:
                raise _TooManyTables(
                    f"more than {self.max_tables} tables under {self.prefix}: the messages "
                    "of tables past them are ignored (said once)"
                )
            view = self.tables[key] = TableView(site, table, recent_limit=self.recent)
        self._dirty.add(key)
        return view

    def _route(self, site: str, table: str, rest: str, body: dict[str, Any]) -> list[Notice]:
        if rest in ("events", "replay"):
            return self._on_event(site, table, TABLE_STREAM, body)
        if rest == "state":
            view = self._view(site, table)
            view.apply_state(body)
            return [Notice("state", site, table, {"summary": view.summary()})]
        if rest == "status":
            return self._on_status(self._view(site, table), body)
        if rest.startswith("devices/"):
            parts = rest.split("/")
            if len(parts) == 2 and parts[1]:
                view = self._view(site, table)
                view.apply_device(parts[1], body)
                return [Notice("device", site, table, {"device": parts[1], "body": body})]
            if len(parts) == 3 and parts[1] and parts[2] == "events":
                return self._on_event(site, table, f"devices/{parts[1]}", body)
        return []

    def _on_status(self, view: TableView, body: dict[str, Any]) -> list[Notice]:
        online = body.get("online")
        if not isinstance(online, bool):
            raise ValueError("status without a boolean 'online'")
        had = view.stale_text()
        view.online = online
        view.status_reason = str(body.get("reason", ""))
        if online:
            view.stale.pop("status", None)
        else:
            since = body.get("ts")
            view.stale["status"] = f"table offline: {view.status_reason or '?'} (since {since})"
        notices = [Notice("status", view.site, view.table, {"online": online, "body": body})]
        if online:
            notices += self._on_lost(view, body)
        if view.stale_text() != had:
            notices.append(self._stale_notice(view))
        return notices

    def _on_lost(self, view: TableView, body: dict[str, Any]) -> list[Notice]:
        """An `online: true` status: its `lost` (the connection lost before it), once."""
        lost = body.get(STATUS_LOST)
        if not isinstance(lost, dict):
            view.lost = None
            view.notes.pop("link", None)
            return []
        if lost == view.lost:
            return []  # the same retained status again (the console resubscribed)
        view.lost = lost
        view.notes["link"] = (
            f"link lost on {lost.get('broker')} at {lost.get('lost_ts')}, "
            f"back on {body.get('broker')} at {lost.get('back_ts')}"
        )
        data = {"lost": lost, "broker": body.get("broker")}
        return [Notice("link_lost", view.site, view.table, data)]

    def _on_event(self, site: str, table: str, stream: str, body: dict[str, Any]) -> list[Notice]:
        env = Envelope.from_json(json.dumps(body))
        if env.site != site or env.table != table:
            raise ValueError(f"envelope of {env.site}/{env.table} on the topic of {site}/{table}")
        if not isinstance(env.type, str) or not isinstance(env.source, str):
            raise ValueError("envelope type and source must be strings")
        key = (site, table)
        if key not in self.tables:
            self._view(site, table)
        view = self.tables[key]
        tracker = view.tracker(stream)
        if stream == TABLE_STREAM and env.type == EventType.JOURNAL_RESTORED:
            self._restored(view, env)
        seen = tracker.accept(env.seq)
        if seen.kind == DUPLICATE:
            return []
        self._dirty.add(key)
        latest = seen.kind != FILL
        if stream == TABLE_STREAM:
            view.apply_event(env, latest)
            view.remember(env)
        elif latest and env.type in ("device.online", "device.offline"):
            view.devices[env.source] = env.type == "device.online"
        notices = [
            Notice("event", site, table, {"stream": stream, "filled": not latest, **env.to_dict()})
        ]
        if seen.gap is not None:
            notices.extend(self._gap_opened(view, stream, seen.gap))
        if seen.kind == FILL and tracker.complete:
            notices.extend(self._gap_closed(view, stream))
        elif seen.kind == FILL:
            self._describe_gap(view, stream)
        if latest and env.type in ("table.halted", "table.resumed", "table.opened", "table.closed"):
            notices.append(Notice("state", site, table, {"summary": view.summary()}))
        return notices

    def _restored(self, view: TableView, env: Envelope) -> None:
        """The table's journal was restored: each stream goes on after the head named."""
        taken = env.hash or f"{env.seq} {env.ts}"
        if taken in view.restores:
            return
        view.restores.add(taken)
        data = env.data if isinstance(env.data, dict) else {}
        heads = {TABLE_STREAM: data.get("head")}
        streams = data.get("streams")
        for name, head in streams.items() if isinstance(streams, dict) else []:
            if isinstance(name, str) and name.startswith(f"{env.table}/"):
                heads[name[len(env.table) + 1 :]] = head
        for stream, head in heads.items():
            seq = head.get("seq") if isinstance(head, dict) else None
            if stream == TABLE_STREAM:
                seq = env.seq - 1  # this event follows the backup's head
            if isinstance(seq, int) and not isinstance(seq, bool) and seq >= 0:
                view.tracker(stream).restart(seq)
        if view.tracker(TABLE_STREAM).complete:
            view.stale.pop("gap", None)
            self._replays.pop(view.key, None)
        view.notes["restored"] = (
            f"journal restored from a backup at {env.ts}: the record goes on after seq "
            f"{env.seq - 1}"
        )

    def _gap_opened(self, view: TableView, stream: str, gap: tuple[int, int]) -> list[Notice]:
        fillable = stream == TABLE_STREAM and self.can_replay
        span = {"stream": stream, "from_seq": gap[0], "to_seq": gap[1], "fillable": fillable}
        notices = [Notice("gap", view.site, view.table, span)]
        if fillable:
            self._replays[view.key] = _Replay()
        self._describe_gap(view, stream)
        if stream == TABLE_STREAM:
            notices.append(self._stale_notice(view))
        return notices

    def _describe_gap(self, view: TableView, stream: str) -> None:
        """Say on the row what is still missing, and what is being done about it."""
        missing = view.tracker(stream).describe()
        if stream != TABLE_STREAM:
            view.notes[stream] = f"{stream} missed {missing} (not replayable; the record has them)"
            return
        replay = self._replays.get(view.key)
        if not self.can_replay:
            doing = "unfilled (no operator key to replay)"
        elif replay is not None and replay.refused is not None:
            doing = f"replay refused: {replay.refused}"
        else:
            doing = "replay requested"
        view.stale["gap"] = f"events {missing} missing; {doing}"

    def _gap_closed(self, view: TableView, stream: str) -> list[Notice]:
        notices = [Notice("gap_filled", view.site, view.table, {"stream": stream})]
        if stream != TABLE_STREAM:
            view.notes.pop(stream, None)
            return notices
        self._replays.pop(view.key, None)
        view.stale.pop("gap", None)
        notices.append(self._stale_notice(view))
        return notices

    @staticmethod
    def _stale_notice(view: TableView) -> Notice:
        if view.is_stale:
            return Notice("stale", view.site, view.table, {"reasons": dict(view.stale)})
        return Notice("fresh", view.site, view.table, {})
