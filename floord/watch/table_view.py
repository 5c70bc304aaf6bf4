"""What the console knows of one table: its retained state, overlaid with its events.

The retained `P/state` is the table's own word on where it stands and always wins when it
arrives. Events in between move the view on at once (a `table.halted` turns the row red
before the next state is published). An event that only fills a gap is history: it goes
into the recent list and the counts, but does not move the table's state backwards.
"""

from __future__ import annotations

import bisect
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from floord.contract import Envelope, EventType
from floord.watch.streams import SeqTracker

RESULT_TYPES = frozenset({EventType.ROULETTE_RESULT, EventType.BIGSIX_RESULT})
WHEEL_RESULTS_KEPT = 20


def halt_text(reasons: Any) -> str:
    """`device_offline (wheel): silent 5 s; ...` from a list of halt reasons."""
    if not isinstance(reasons, list):
        return ""
    parts = []
    for reason in reasons:
        if not isinstance(reason, dict):
            parts.append(str(reason))
            continue
        code = str(reason.get("code", "?"))
        device = reason.get("device")
        detail = reason.get("detail")
        text = code + (f" ({device})" if device else "")
        parts.append(text + (f": {detail}" if detail else ""))
    return "; ".join(parts)


@dataclass(frozen=True)
class CommandOutcome:
    """A command the console signed for this table: `ok` None while it waits for the
    table's answer, then True (accepted) or False with the table's `error`."""

    name: str
    args: dict[str, Any]
    ok: bool | None = None
    error: str | None = None

    def text(self) -> str:
        shown = (v for k, v in self.args.items() if k != "note" and isinstance(v, str))
        what = self.name + "".join(f" {v}" for v in shown)
        if self.ok is None:
            return f"{what}: sent, waiting for the table's answer"
        return f"{what}: accepted" if self.ok else f"{what}: refused: {self.error or '?'}"


@dataclass
class WheelStats:
    """A wheel table's surveillance picture: its kind, recent results, latest test values."""

    kind: str | None = None
    results: deque[str] = field(default_factory=lambda: deque(maxlen=WHEEL_RESULTS_KEPT))
    spins_seen: int = 0
    tests: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def present(self) -> bool:
        return bool(self.kind or self.spins_seen or self.tests)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "recent_results": list(self.results),
            "spins_seen": self.spins_seen,
            "tests": {name: dict(body) for name, body in self.tests.items()},
        }


@dataclass
class TableView:
    """One table's row and panel: state, round, alerts, voids, devices, recent events."""

    site: str
    table: str
    recent_limit: int = 200
    game: str | None = None
    state: str | None = None
    underlying: str | None = None
    halt_reason: str = ""
    round: str | None = None
    last_event: dict[str, Any] | None = None
    alerts: dict[str, dict[str, Any]] = field(default_factory=dict)
    voids: int = 0
    last_void: str | None = None
    violations: int = 0
    last_violation: str | None = None
    devices: dict[str, bool] = field(default_factory=dict)
    online: bool | None = None
    status_reason: str | None = None
    # The `lost` of the latest `online: true` status: the daemon's connection lost before.
    lost: dict[str, Any] | None = None
    wheel: WheelStats = field(default_factory=WheelStats)
    stale: dict[str, str] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)
    streams: dict[str, SeqTracker] = field(default_factory=dict)
    # The `journal.restored` events taken (by hash): a second delivery restarts nothing.
    restores: set[str] = field(default_factory=set)
    recent: list[Envelope] = field(default_factory=list)
    # The console's last command to this table (an `ack_alert`) and its answer, if any.
    command: CommandOutcome | None = None

    @property
    def key(self) -> tuple[str, str]:
        return (self.site, self.table)

    @property
    def halted(self) -> bool:
        return self.state == "halted"

    @property
    def is_stale(self) -> bool:
        return bool(self.stale)

    def stale_text(self) -> str:
        return "; ".join(self.stale[k] for k in sorted(self.stale))

    def tracker(self, stream: str) -> SeqTracker:
        found = self.streams.get(stream)
        if found is None:
            found = self.streams[stream] = SeqTracker()
        return found

    # ----- events -----------------------------------------------------------------

    def remember(self, env: Envelope) -> None:
        """Keep the table record's last `recent_limit` events in `seq` order."""
        seqs = [e.seq for e in self.recent]
        at = bisect.bisect_left(seqs, env.seq)
        if len(self.recent) >= self.recent_limit and at == 0:
            return
        self.recent.insert(at, env)
        del self.recent[: max(0, len(self.recent) - self.recent_limit)]

    def apply_event(self, env: Envelope, latest: bool) -> None:
        """Count what the event tells; move the table's state only if it is the latest."""
        kind = env.type
        data = env.data if isinstance(env.data, dict) else {}
        if kind == EventType.SURVEILLANCE_ALERT and isinstance(data.get("id"), str):
            self.alerts[data["id"]] = dict(data)
            test = data.get("test")
            # A dice or a shuffle alert, or a held result's, is no wheel's test.
            wheel_test = "dice_set" not in data and "shoe" not in data and not held_result(data)
            if isinstance(test, str) and wheel_test:
                self.wheel.tests[test] = {
                    k: data.get(k) for k in ("id", "p_value", "level", "statistic", "window")
                }
        elif kind == EventType.SURVEILLANCE_ALERT_ACKNOWLEDGED:
            self.alerts.pop(str(data.get("id")), None)
        elif kind == EventType.ROUND_VOIDED:
            self.voids += 1
            self.last_void = str(data.get("reason", "?"))
        elif kind == EventType.PROCEDURE_VIOLATION:
            self.violations += 1
            self.last_violation = str(data.get("what", "?"))
        elif kind in RESULT_TYPES:
            self.wheel.spins_seen += 1
            shown = data.get("number", data.get("symbol"))
            if latest and shown is not None:
                self.wheel.results.append(str(shown))
        if latest:
            self.last_event = {"seq": env.seq, "type": kind, "ts": env.ts, "source": env.source}
            self._move(kind, env, data)

    def _move(self, kind: str, env: Envelope, data: dict[str, Any]) -> None:
        if kind == EventType.TABLE_HALTED:
            self.state = "halted"
            self.halt_reason = halt_text(data.get("reasons")) or str(data.get("detail", ""))
        elif kind == EventType.TABLE_OPENED:
            self.state = self.underlying = "open"
            self.halt_reason = ""
        elif kind == EventType.TABLE_CLOSED:
            self.underlying = "closed"
            if self.state != "halted":
                self.state = "closed"
        elif kind == EventType.TABLE_RESUMED:
            self.state = self.underlying or "closed"
            self.halt_reason = ""
        elif kind == EventType.ROUND_STARTED:
            self.round = env.round
        elif kind in (EventType.ROUND_ENDED, EventType.ROUND_VOIDED):
            self.round = None
        elif kind in (EventType.DEVICE_ONLINE, EventType.DEVICE_OFFLINE):
            self.devices[env.source] = kind == EventType.DEVICE_ONLINE

    # ----- retained topics --------------------------------------------------------

    def apply_state(self, body: dict[str, Any]) -> None:
        """The retained `P/state`: the table's own account, which replaces the overlay."""
        if isinstance(body.get("game"), str):
            self.game = body["game"]
        if isinstance(body.get("state"), str):
            self.state = body["state"]
        if isinstance(body.get("underlying"), str):
            self.underlying = body["underlying"]
        self.halt_reason = halt_text(body.get("halt_reasons")) if self.halted else ""
        rnd = body.get("round")
        self.round = rnd.get("id") if isinstance(rnd, dict) else None
        devices = body.get("devices")
        if isinstance(devices, dict):
            for device, state in devices.items():
                if isinstance(state, dict) and "online" in state:
                    self.devices[str(device)] = bool(state["online"])
        if isinstance(body.get("wheel"), str):
            self.wheel.kind = body["wheel"]
        if "alerts" in body and isinstance(body["alerts"], list):
            self.alerts = {str(a.get("id")): dict(a) for a in body["alerts"] if isinstance(a, dict)}
            for alert in self.alerts.values():
                test = alert.get("test")
                if "dice_set" in alert or "shoe" in alert or held_result(alert):
                    continue  # a dice, shuffle or held result's alert: no wheel test
                if isinstance(test, str) and test not in self.wheel.tests:
                    self.wheel.tests[test] = {
                        k: alert.get(k) for k in ("id", "p_value", "level", "statistic", "window")
                    }
        voided = body.get("voided")
        if isinstance(voided, dict) and self.last_void is None:
            self.last_void = str(voided.get("reason", "?"))
        last = body.get("last_result")
        if isinstance(last, dict) and not self.wheel.results:
            shown = last.get("number", last.get("symbol"))
            if shown is not None:
                self.wheel.results.append(str(shown))

    def apply_device(self, device: str, body: dict[str, Any]) -> None:
        if "online" in body:
            self.devices[device] = bool(body["online"])

    def summary(self) -> dict[str, Any]:
        """The row as data (the `--json` state notice and the tests read this)."""
        return {
            "game": self.game,
            "state": self.state,
            "halt_reason": self.halt_reason or None,
            "round": self.round,
            "last_event": self.last_event,
            "alerts": sorted(self.alerts),
            "voids": self.voids,
            "last_void": self.last_void,
            "violations": self.violations,
            "last_violation": self.last_violation,
            "devices": dict(sorted(self.devices.items())),
            "online": self.online,
            "stale": dict(self.stale),
            "notes": dict(self.notes),
            "wheel": self.wheel.to_dict() if self.wheel.present else None,
        }


def held_result(alert: dict[str, Any]) -> bool:
    """An alert a result held for a floorperson's ruling raised (no statistical test)."""
    return alert.get("test") in ("result_disputed", "result_silent")
