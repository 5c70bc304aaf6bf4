"""A gaming table's state, shared by every game: closed, open or halted, and why.

Nothing here knows Roulette. A game engine hands in its inspection checklist, its
primary device (the wheel, a card shoe, ...) with a check of that device's identity,
and a hook that ends whatever round is in play when the table stops being open; this
module keeps what the table's commands (`table_commands.py`) decide on:

- the state, and a halt latched with a list of reasons that survives restarts through
  the snapshot: a device's trouble halts the table (fail closed: floord's policy, not a
  regulation), and only `resume` lifts it, once the devices are healthy again;
- the devices, and why they keep play from starting (`readiness_problems`);
- the last inspection, and whether it still counts: it stops counting when something
  since calls for a new one (`require_inspection`: a Roulette table closed, its wheel
  replaced or adjusted), and only a new passed inspection counts again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from floord.contract import EventType, format_ts
from floord.engine.core.copies import Fixed
from floord.engine.core.devices import CLEARS_WHEN, DeviceBook, fault_cleared
from floord.engine.core.gaming_day import GamingDay
from floord.engine.core.inspection import InspectionSpec
from floord.engine.core.types import Decision, EngineOutput

FAIL_CLOSED_POLICY = (
    "fail closed (floord policy, not a regulation): a table whose devices cannot be "
    "trusted stops play until a floorperson resumes it"
)
# A frame the device sent that could not be read: one recorded, or a count of them that
# the adapter's limiter recorded instead (floord/adapters/protocol_limiter.py).
PROTOCOL_TROUBLE = frozenset({EventType.DEVICE_PROTOCOL_ERROR, EventType.DEVICE_PROTOCOL_ERRORS})


def protocol_trouble_reason(data: dict[str, Any]) -> str:
    """The reason of a protocol error, or of the sample of a count of them."""
    sample = data.get("sample")
    if "reason" not in data and isinstance(sample, dict):
        return f"{data.get('count')!r} protocol errors, such as: {sample.get('reason', '')}"
    return str(data.get("reason", ""))


@dataclass(frozen=True)
class PrimaryDevice(Fixed):
    """The device a game cannot be played without, and how to tell it is the right one.

    `check_identity` returns None when a `device.identified` body fits the table, else a
    sentence saying why not; `mismatch_code` and `mismatch_rule` name the halt it causes,
    or, with no rule, `mismatch_policy` the policy sentence it carries (floord's
    fail-closed policy when None).
    """

    id: str
    check_identity: Callable[[dict[str, Any]], str | None]
    mismatch_code: str
    mismatch_rule: str | None
    mismatch_policy: str | None = None


# Called when an open table stops being open: (reason code, detail) -> the game's
# decisions, such as voiding the round in play.
LeaveOpenHook = Callable[[str, str], EngineOutput]


class TableState:
    """States, halts, inspections and devices; the commands that change them are
    `floord.engine.core.table_commands`'s."""

    def __init__(
        self,
        table_id: str,
        *,
        inspection: InspectionSpec,
        primary: PrimaryDevice | None,
        required_devices: list[str],
        gaming_day: GamingDay,
        on_leave_open: LeaveOpenHook,
        device_rules: dict[str, str] | None = None,
        extra_readiness: Callable[[], list[str]] | None = None,
    ) -> None:
        self.table_id = table_id
        # The citation of a halt a device's own trouble causes (a card reader's
        # malfunction is § 549.16(k)); a device not listed halts under floord's policy.
        self.device_rules = dict(device_rules or {})
        # A game's own conditions for play (a card reader's failed self-test, say).
        self.extra_readiness = extra_readiness
        self.spec = inspection
        self.primary = primary
        self.gaming_day = gaming_day
        self.on_leave_open = on_leave_open
        # A table may have no device at all (cards shuffled and dealt by hand).
        first = [primary.id] if primary is not None else []
        required = list(dict.fromkeys([*first, *required_devices]))
        self.devices = DeviceBook(required)
        self.underlying = "closed"  # what the table is when no halt is latched
        self.halt_reasons: list[dict[str, Any]] = []
        self.inspection: dict[str, Any] | None = None  # the last one recorded
        # Why the last inspection no longer counts ({"why", "rule", "since"}), until a
        # new one passes; None when it still does.
        self.inspection_required: dict[str, Any] | None = None

    # ----- state ------------------------------------------------------------------

    @property
    def state(self) -> str:
        return "halted" if self.halt_reasons else self.underlying

    @property
    def is_open(self) -> bool:
        """Open for play: opened and not halted."""
        return self.state == "open"

    def halt(
        self,
        code: str,
        *,
        device: str | None,
        detail: str,
        now: datetime,
        rule: str | None = None,
        extra: dict[str, Any] | None = None,
    ) -> EngineOutput:
        """Latch a halt reason; a reason already latched for the same device adds nothing."""
        out = EngineOutput()
        if any(r["code"] == code and r["device"] == device for r in self.halt_reasons):
            return out
        was_open = self.is_open
        reason = {
            "code": code,
            "device": device,
            "detail": detail,
            "since": format_ts(now),
            "rule": rule,
        }
        self.halt_reasons.append(reason)
        data = {
            "code": code,
            "device": device,
            "detail": detail,
            "reasons": [dict(r) for r in self.halt_reasons],
            "table_was": self.underlying,
            "policy": FAIL_CLOSED_POLICY,
            **(extra or {}),
        }
        out.events.append(Decision(EventType.TABLE_HALTED, data, rule=rule))
        if was_open:
            out.extend(self.on_leave_open("table_halted", f"{code}: {detail}"))
        return out

    # ----- devices ----------------------------------------------------------------

    def _device_halt(
        self, code: str, device: str, fault: dict[str, Any], now: datetime
    ) -> EngineOutput:
        """Record a fault of `device` (cleared only by a fresh connection) and halt."""
        state = self.devices.faulted(device, fault, now)
        if not state.required:
            return EngineOutput()
        detail = fault["text"] or f"fault code {fault['code']}"
        return self.halt(
            code, device=device, detail=detail, now=now, rule=self.device_rules.get(device)
        )

    def on_device_event(
        self, device: str, type: str, data: dict[str, Any], now: datetime
    ) -> EngineOutput | None:
        """Handle a `device.*` event; None means it is not the table's (a game event)."""
        if type == EventType.DEVICE_ONLINE:
            # An adapter process saying again that a session it kept is up (`announced`,
            # for a daemon that restarted) is not a new connection of the device.
            self.devices.went_online(device, now, new_session=not data.get("announced"))
            return EngineOutput()
        if type == EventType.DEVICE_OFFLINE:
            state = self.devices.went_offline(device, now)
            if not state.required:
                return EngineOutput()
            detail = str(data.get("reason") or data.get("detail") or "the device went silent")
            return self.halt(
                "device_offline",
                device=device,
                detail=detail,
                now=now,
                rule=self.device_rules.get(device),
            )
        if type == EventType.DEVICE_FAULT:
            fault = {"code": data.get("code"), "text": str(data.get("text", ""))}
            fault["origin"] = data.get("origin")
            return self._device_halt("device_fault", device, fault, now)
        if type == EventType.DEVICE_TAMPER:
            text = str(data.get("text", "")) or "the device reports tampering"
            fault = {"code": data.get("code"), "text": text, "origin": "tamper"}
            return self._device_halt("device_tamper", device, fault, now)
        if type == EventType.DEVICE_HEARTBEAT_LOST:
            text = f"heartbeat lost ({data.get('missed')!r} missed)"
            fault = {"code": None, "text": text, "origin": "heartbeat"}
            return self._device_halt("device_heartbeat_lost", device, fault, now)
        if type == EventType.DEVICE_IDENTIFIED:
            _, cleared = self.devices.identified(device, data, now)
            out = EngineOutput([fault_cleared(device, fault) for fault in cleared])
            if self.primary is None or device != self.primary.id:
                return out
            problem = self.primary.check_identity(data)
            if problem is None:
                return out
            policy = self.primary.mismatch_policy
            out.extend(
                self.halt(
                    self.primary.mismatch_code,
                    device=device,
                    detail=problem,
                    now=now,
                    rule=self.primary.mismatch_rule,
                    extra={"policy": policy} if policy is not None else None,
                )
            )
            return out
        if type in PROTOCOL_TROUBLE or type == EventType.DEVICE_COMMAND_RESULT:
            self.devices.seen(device, now)
            return EngineOutput()
        return None

    def readiness_problems(self) -> list[str]:
        """Why play cannot start now, one sentence per device problem; empty when ready."""
        problems: list[str] = []
        for device_id, state in sorted(self.devices.devices.items()):
            if not state.required:
                continue
            if not state.online:
                seen = f"last seen {state.last_seen}" if state.last_seen else "not seen yet"
                problems.append(f"device {device_id} is offline ({seen})")
            for fault in state.faults:
                what = fault.text or f"code {fault.code}"
                problems.append(
                    f"device {device_id} has an active fault ({what}); {CLEARS_WHEN[fault.clears]}"
                )
            if self.primary is not None and device_id == self.primary.id:
                if state.identity is None:
                    problems.append(f"device {device_id} has not identified itself")
                else:
                    problem = self.primary.check_identity(state.identity)
                    if problem:
                        problems.append(f"device {device_id}: {problem}")
        if self.extra_readiness is not None:
            problems += self.extra_readiness()
        return problems

    # ----- inspections ------------------------------------------------------------

    def inspection_valid(self, now: datetime) -> bool:
        """A passed inspection is on record for the gaming day of `now`, and nothing
        since has called for a new one."""
        last = self.inspection
        if self.inspection_required is not None:
            return False
        return bool(last and last["passed"] and last["gaming_day"] == self.gaming_day.label(now))

    def require_inspection(self, why: str, rule: str | None, now: datetime) -> None:
        """The last inspection no longer counts: the next opening (or the resume of an
        open table) needs a new passed one. The first cause is the one refusals name;
        later ones are kept in `also`, so the inspection that answers says all of them."""
        cause = {"why": why, "rule": rule, "since": format_ts(now)}
        if self.inspection_required is None:
            self.inspection_required = {**cause, "also": []}
        else:
            self.inspection_required.setdefault("also", []).append(cause)

    # ----- persistence ------------------------------------------------------------

    def forget_connections(self) -> None:
        self.devices.forget_connections()

    def snapshot(self) -> dict[str, Any]:
        return {
            "state": self.state,
            "underlying": self.underlying,
            "halt_reasons": [dict(r) for r in self.halt_reasons],
            "devices": self.devices.snapshot(),
            "inspection": dict(self.inspection) if self.inspection else None,
            "inspection_required": (
                dict(self.inspection_required) if self.inspection_required else None
            ),
        }

    def restore(self, body: dict[str, Any]) -> None:
        underlying = body.get("underlying")
        if underlying not in ("open", "closed"):
            raise ValueError(f"snapshot: underlying must be open or closed, found {underlying!r}")
        reasons = body.get("halt_reasons") or []
        if not isinstance(reasons, list) or not all(isinstance(r, dict) for r in reasons):
            raise ValueError("snapshot: halt_reasons must be a list of objects")
        self.underlying = underlying
        self.halt_reasons = [
            {
                "code": str(r.get("code")),
                "device": r.get("device"),
                "detail": str(r.get("detail", "")),
                "since": r.get("since"),
                "rule": r.get("rule"),
            }
            for r in reasons
        ]
        self.devices.restore(body.get("devices") or {})
        self.inspection = body.get("inspection")
        required = body.get("inspection_required")
        if required is not None and not isinstance(required, dict):
            raise ValueError("snapshot: inspection_required must be an object or null")
        self.inspection_required = required
