"""A second source for every result: two reports agree before a round settles.

A table may name a second source for its results: a device that reports them (a camera,
a second sensor) or the dealer's spoken call, recorded as the dealer's signed
`call_result`. The game's own device reports the result first or second, in any order;
the game hands each report here and settles only what this check lets through:

- both agree within the table's window: `result.confirmed`, the result settles;
- they disagree: `result.disputed`, the round stays unsettled (held) until a
  floorperson's signed `rule_result` names the value, on the record (`result.ruled`);
- the second source says nothing within the window: `result.silent`, and the table's
  `on_silence` says what then: `warn` (the result stands and settles) or `hold` (it
  waits for a ruling as a dispute does).

None of this is a regulation (the chapters say who announces a result, not that it is
checked against a device), so every decision is floord's policy, `rule` null. The check
is pure: the window closes on the clock ticks the table's bus feeds the engine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from floord.contract import EventType, format_ts, parse_ts
from floord.engine.core.rulings import policy_decision
from floord.engine.core.snapshots import SnapshotError, json_copy
from floord.engine.core.types import Decision

ON_SILENCE = ("warn", "hold")
DEALER_CALL = "dealer_call"
WINDOW_MAX_S = 600.0
# A datetime's resolution: the window is closed once more than it has passed.
_RESOLUTION = timedelta(microseconds=1)
POLICY = (
    "floord policy, not a regulation: a table with a second source settles a result only "
    "when both sources agree within the window, or on a floorperson's ruling"
)
WARN_POLICY = (
    "floord policy, not a regulation: the table's on_silence is warn: a result whose "
    "second source is silent past the window stands, and the silence is recorded"
)
HOLD_POLICY = (
    "floord policy, not a regulation: the table's on_silence is hold: a result whose "
    "second source is silent past the window waits for a floorperson's ruling"
)


@dataclass(frozen=True)
class SecondSource:
    """A table's second source: `device` (the id of the device whose reports count), or
    None for the dealer's call; the window both reports must fall within, and what a
    silent second source does (`warn` or `hold`)."""

    device: str | None
    window_s: float
    on_silence: str

    def __post_init__(self) -> None:
        if not 0 < self.window_s <= WINDOW_MAX_S:
            raise ValueError(f"window_s must be 0 < s <= {WINDOW_MAX_S:g}, found {self.window_s}")
        if self.on_silence not in ON_SILENCE:
            raise ValueError(f"on_silence must be warn or hold, found {self.on_silence!r}")

    @property
    def name(self) -> str:
        """The source as the events name it: the device id, or `dealer_call`."""
        return self.device if self.device is not None else DEALER_CALL


@dataclass
class Verdict:
    """What a report, a tick or a ruling decided: events to record, and the value the
    game settles now (None: nothing settles) with what the game carried with the
    primary report; `void` when a ruling voids the round instead."""

    events: list[Decision] = field(default_factory=list)
    settle: str | None = None
    carried: dict[str, Any] = field(default_factory=dict)
    void: bool = False


class Refused(Exception):
    """A call or a ruling the check cannot take; the message says why to the operator."""


class ResultCheck:
    """One table's check of its results against the second source (see the module)."""

    def __init__(self, source: SecondSource, primary: str) -> None:
        self.source = source
        self.primary_device = primary
        # The result awaiting its second report, or held: {round, primary, second,
        # state ("awaiting" | "disputed" | "silent"), carried}.
        self.pending: dict[str, Any] | None = None
        # A second report that came before the primary one: {round, source, value, at}.
        self.early: dict[str, Any] | None = None

    # ----- what the game asks ----------------------------------------------------

    @property
    def holding(self) -> bool:
        """A result is awaiting its second report or a ruling: no new round starts."""
        return self.pending is not None

    def primary(self, round_id: str, value: str, now: datetime, carried: dict[str, Any]) -> Verdict:
        """The game's own device reported `value` for `round_id`."""
        report = {"source": self.primary_device, "value": value, "at": format_ts(now)}
        self.pending = {
            "round": round_id,
            "primary": report,
            "second": None,
            "state": "awaiting",
            "carried": dict(carried),
        }
        early, self.early = self.early, None
        in_time = early is not None and abs(now - parse_ts(early["at"])) <= self._window
        if early is not None and in_time and early["round"] == round_id:
            return self._compare({k: v for k, v in early.items() if k != "round"})
        return Verdict()

    def second(
        self, round_id: str | None, value: str, now: datetime, *, by: str | None = None
    ) -> Verdict:
        """The second source reported `value` (`by`: the dealer who called it); raises
        `Refused` when no report is awaited."""
        report = {"source": self.source.name, "value": value, "at": format_ts(now)}
        if by is not None:
            report["by"] = by
        pending = self.pending
        if pending is None:
            if round_id is None:
                raise Refused("no round is in play: there is no result to call")
            if self.early is not None and self.early["round"] == round_id:
                raise Refused(f"the result of round {round_id} was already called")
            self.early = {"round": round_id, **report}
            return Verdict()
        if pending["state"] != "awaiting":
            raise Refused(
                f"the result of round {pending['round']} is held ({pending['state']}): "
                "a floorperson's rule_result decides it"
            )
        if now - parse_ts(pending["primary"]["at"]) > self._window:
            # The next tick records the silence; nothing changes on a refusal.
            raise Refused(
                f"too late: the window of {self.source.window_s:g} s for round "
                f"{pending['round']} has passed"
            )
        return self._compare(report)

    def tick(self, now: datetime) -> Verdict:
        """The window of an awaited result closed with no second report: silence."""
        pending = self.pending
        if pending is None or pending["state"] != "awaiting":
            return Verdict()
        if now - parse_ts(pending["primary"]["at"]) <= self._window:
            return Verdict()
        return self._silent()

    def rule(self, args: dict[str, Any], by: str, role: str, valid: set[str] | None) -> Verdict:
        """A floorperson's `rule_result {round, value | void: true, note}` on a held
        result; `valid`: the values the game's result may take (None: any non-empty text)."""
        pending = self.pending
        if pending is None or pending["state"] == "awaiting":
            raise Refused("no result is held for a ruling")
        if args.get("round") != pending["round"]:
            raise Refused(f"round must name the held round {pending['round']!r}")
        note = args.get("note")
        if not isinstance(note, str) or not note.strip():
            raise Refused("note must say why the floorperson rules so")
        void, value = args.get("void"), args.get("value")
        if void is not None and void is not True:
            raise Refused("void must be true when given")
        if void and value is not None:
            raise Refused("a ruling names a value or voids the round, not both")
        if not void and (not isinstance(value, str) or (valid is not None and value not in valid)):
            raise Refused(f"value must be one of the results this table can have, found {value!r}")
        sources = {"primary": pending["primary"], "second": pending["second"]}
        agrees = [k for k, r in sources.items() if r is not None and r["value"] == value]
        body = {
            "value": None if void else value,
            "void": bool(void),
            "by": by,
            "role": role,
            "note": note,
            "held": pending["state"],
            **sources,
            "agrees_with": agrees,
        }
        self.pending = None
        decided = policy_decision(EventType.RESULT_RULED, POLICY, pending["round"], **body)
        if void:
            return Verdict([decided], void=True)
        return Verdict([decided], settle=value, carried=pending["carried"])

    def window_closes(self) -> datetime | None:
        """The first instant at which `tick` finds the awaited result's window closed
        (None: no result awaits its second report)."""
        pending = self.pending
        if pending is None or pending["state"] != "awaiting":
            return None
        return parse_ts(pending["primary"]["at"]) + self._window + _RESOLUTION

    def stale(self, round_id: str | None) -> bool:
        """Whether `forget_unless(round_id)` would forget anything."""
        pending, early = self.pending, self.early
        return (pending is not None and pending["round"] != round_id) or (
            early is not None and early["round"] != round_id
        )

    def forget_unless(self, round_id: str | None) -> None:
        """Forget what belonged to a round other than `round_id`, the one in play: a
        round that ended another way (voided) awaits nothing any longer."""
        if self.pending is not None and self.pending["round"] != round_id:
            self.pending = None
        if self.early is not None and self.early["round"] != round_id:
            self.early = None

    def snapshot(self) -> dict[str, Any]:
        """A copy: the runner keeps the committed snapshot while the check goes on."""
        return {"pending": json_copy(self.pending), "early": json_copy(self.early)}

    def restore(self, body: dict[str, Any]) -> None:
        """What the snapshot held; a body of another shape is a `SnapshotError`."""
        pending, early = body.get("pending"), body.get("early")
        if pending is not None and not _pending_shape(pending):
            raise SnapshotError(f"snapshot: result_check.pending is malformed: {pending!r}")
        if early is not None and not (isinstance(early, dict) and _report_shape(early)):
            raise SnapshotError(f"snapshot: result_check.early is malformed: {early!r}")
        self.pending = dict(pending) if pending is not None else None
        self.early = dict(early) if early is not None else None

    def public(self) -> dict[str, Any] | None:
        """What `P/state` shows of a result awaited or held (None: none)."""
        pending = self.pending
        if pending is None:
            return None
        keys = ("round", "state", "primary", "second")
        return {**{k: pending[k] for k in keys}, "source": self.source.name}

    # ----- helpers ----------------------------------------------------------------

    @property
    def _window(self) -> timedelta:
        return timedelta(seconds=self.source.window_s)

    def _compare(self, second: dict[str, Any]) -> Verdict:
        pending = self.pending
        assert pending is not None
        pending["second"] = second
        primary = pending["primary"]
        common = {
            "primary": primary,
            "second": second,
            "window_s": self.source.window_s,
        }
        if second["value"] == primary["value"]:
            self.pending = None
            body = {"value": primary["value"], **common}
            held = pending["round"]
            confirmed = policy_decision(EventType.RESULT_CONFIRMED, POLICY, held, **body)
            return Verdict([confirmed], settle=primary["value"], carried=pending["carried"])
        pending["state"] = "disputed"
        detail = (
            f"{primary['source']} reported {primary['value']}, {second['source']} "
            f"{second['value']}: the round is held until a floorperson rules"
        )
        body = {**common, "held": True, "detail": detail}
        disputed = policy_decision(EventType.RESULT_DISPUTED, POLICY, pending["round"], **body)
        return Verdict([disputed])

    def _silent(self) -> Verdict:
        pending = self.pending
        assert pending is not None
        hold = self.source.on_silence == "hold"
        what = "waits for a floorperson's ruling" if hold else "stands"
        body = {
            "primary": pending["primary"],
            "second_source": self.source.name,
            "window_s": self.source.window_s,
            "on_silence": self.source.on_silence,
            "held": hold,
            "detail": f"{self.source.name} reported no result within "
            f"{self.source.window_s:g} s: the result {what}",
        }
        policy = HOLD_POLICY if hold else WARN_POLICY
        silent = policy_decision(EventType.RESULT_SILENT, policy, pending["round"], **body)
        if hold:
            pending["state"] = "silent"
            return Verdict([silent])
        self.pending = None
        return Verdict([silent], settle=pending["primary"]["value"], carried=pending["carried"])


def _report_shape(report: Any) -> bool:
    """`{source, value, at}` with `at` a timestamp, as a report is kept."""
    if not isinstance(report, dict):
        return False
    fields = (report.get("source"), report.get("value"), report.get("at"))
    if not all(isinstance(f, str) for f in fields):
        return False
    try:
        parse_ts(report["at"])
    except ValueError:
        return False
    return True


def _pending_shape(pending: Any) -> bool:
    """A result awaited or held, as `primary` keeps it."""
    return (
        isinstance(pending, dict)
        and isinstance(pending.get("round"), str)
        and pending.get("state") in ("awaiting", "disputed", "silent")
        and _report_shape(pending.get("primary"))
        and (pending.get("second") is None or _report_shape(pending.get("second")))
        and isinstance(pending.get("carried"), dict)
    )
