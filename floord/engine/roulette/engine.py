"""The Roulette engine: wheel events and operator commands in, cited decisions out.

The table itself (closed/open/halted, inspections, devices, fail-closed halts) is the
game-neutral `TableState`; this module adds what is Roulette's own (58 Pa. Code ch. 531):
the inspection checklist of § 531.3(a), the wheel's identity (§ 531.1(b)-(d)), rounds
that follow the wheel's game cycle, results with every winning wager (§ 531.4(e),
§ 531.5), and the "no spin" irregularities (§ 531.7, § 531.5(c)(2)).

The engine is pure: every input carries its `now`, and nothing here reads a clock.
"""

from __future__ import annotations

from datetime import datetime, time
from typing import Any

from floord.contract import EventType, cite
from floord.engine.core.base import TableEngineBase, restart_policy, round_voided
from floord.engine.core.gaming_day import require_utc
from floord.engine.core.snapshots import check_header, json_copy
from floord.engine.core.table_state import FAIL_CLOSED_POLICY, PrimaryDevice
from floord.engine.core.types import CommandOutcome, Decision, EngineOutput, VerifiedCommand
from floord.engine.roulette.ball import ball_replaced
from floord.engine.roulette.inspection import roulette_inspection
from floord.engine.roulette.irregularities import (
    DOUBLE_ZERO_ON_SINGLE,
    NO_ROUND_POLICY,
    OTHER_SPIN_POLICY,
    NoSpin,
    missing_signals,
    no_spin_for_warning,
    signals_not_seen,
)
from floord.engine.roulette.layout import on_wheel, wheel_spec
from floord.engine.roulette.result import result_of
from floord.engine.roulette.result_check import RESULT_COMMANDS, CheckedNumbers, SecondSource
from floord.engine.roulette.sensor import SENSOR_EVENTS, SensorJudgements, short_spin
from floord.engine.roulette.voids import (
    IDLE_POLICY,
    SUPERSEDED_POLICY,
    VOIDED_SPIN_POLICY,
    launch_after_void,
    voided_spin,
)
from floord.engine.roulette.wheel_service import SERVICE_COMMANDS, replaced_wheel, service_command
from floord.events import DeviceCommand

SNAPSHOT_VERSION = 1
WHEEL_EVENTS = frozenset(
    {
        EventType.WHEEL_GAME_STARTED,
        EventType.WHEEL_BALL_LAUNCHED,
        EventType.WHEEL_NO_MORE_BETS,
        EventType.WHEEL_NUMBER,
        EventType.WHEEL_WARNING,
        EventType.WHEEL_IDLE,
        *SENSOR_EVENTS,
    }
)
RESTART_POLICY = restart_policy("result")


class RouletteEngine(CheckedNumbers, SensorJudgements, TableEngineBase):
    """One Roulette table: see the module docstring and `docs/rules.md`."""

    RESTART_POLICY = RESTART_POLICY
    RESTART_DETAIL = "the result was not observed by floord"

    def __init__(
        self,
        table_id: str,
        *,
        wheel: str,
        wheel_device: str,
        required_devices: list[str],
        gaming_day_starts: time,
        timezone: str,
        snapshot: dict[str, Any] | None = None,
        second_source: SecondSource | None = None,
    ) -> None:
        self.wheel = wheel_spec(wheel)
        self.wheel_device = wheel_device
        self._init_check(second_source, wheel_device, snapshot)
        super().__init__(
            table_id,
            inspection=roulette_inspection(wheel),
            primary=PrimaryDevice(
                wheel_device,
                self.wheel.identity_problem,
                "wheel_mismatch",
                cite(self.wheel.layout_section),
            ),
            required_devices=required_devices,
            gaming_day_starts=gaming_day_starts,
            timezone=timezone,
        )
        self.last_result: dict[str, Any] | None = None
        # The last spin declared void, so that its late number is not taken as a result.
        self.voided: dict[str, Any] | None = None
        # The last spin reported while the table was not open (one violation per spin).
        self.unopened_spin: Any = None
        # The dealer signed in with `dealer_in` (for the dealer signature test).
        self.dealer: str | None = None
        if snapshot is not None:
            self._restore(snapshot)

    # ----- public interface -------------------------------------------------------

    def on_command(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        now = self._touch(now)
        if command.name == "dealer_in":
            return self._dealer_in(command)
        if command.name in SERVICE_COMMANDS:
            return service_command(self.table, command, now)
        if command.name == "ball_replaced":
            return ball_replaced(self.table, command, now)
        if command.name in RESULT_COMMANDS:
            return self._result_command(command, now)
        return self._table_command(
            command,
            now,
            f"unknown table command {command.name!r}: the engine knows inspect, "
            "open, close, resume, ball_replaced, " + ", ".join(SERVICE_COMMANDS),
        )

    def on_device_event(
        self, device: str, type: str, data: dict[str, Any], now: datetime
    ) -> EngineOutput:
        """A wheel that identifies as another wheel is a replacement (§ 531.3(d))."""
        before = None
        if device == self.wheel_device and type == EventType.DEVICE_IDENTIFIED:
            before = self.table.devices.get(device).identity
        out = super().on_device_event(device, type, data, now)
        if before is not None and isinstance(data, dict):
            out.extend(replaced_wheel(self.table, before, data, device, require_utc(now)))
        return out

    def snapshot(self) -> dict[str, Any]:
        head = {"game": "roulette", "wheel": self.wheel.kind, "wheel_device": self.wheel_device}
        return {
            **self._snapshot_head(SNAPSHOT_VERSION, head),
            "last_result": json_copy(self.last_result),
            "voided": json_copy(self.voided),
            "unopened_spin": self.unopened_spin,
            "dealer": self.dealer,
            "result_check": self._check_snapshot(),
        }

    # ----- helpers ----------------------------------------------------------------

    def _game_event(
        self, device: str, type: str, data: dict[str, Any], now: datetime
    ) -> EngineOutput:
        if (checked := self._second_source_event(device, type, data, now)) is not None:
            return checked
        owners = [(WHEEL_EVENTS, self.wheel_device)]
        misrouted = self._misrouted(device, type, owners, what="wheel_event_from_other_device")
        if misrouted is not None:
            return misrouted
        handlers = {
            EventType.WHEEL_GAME_STARTED: self._game_started,
            EventType.WHEEL_BALL_LAUNCHED: self._ball_launched,
            EventType.WHEEL_NO_MORE_BETS: self._no_more_bets,
            EventType.WHEEL_NUMBER: self._number,
            EventType.WHEEL_WARNING: self._warning,
            EventType.WHEEL_IDLE: self._idle,
            EventType.WHEEL_BALL_REVOLUTIONS: self._revolutions,
            EventType.WHEEL_BALL_OFF: self._ball_off,
            EventType.WHEEL_FOREIGN_OBJECT: self._foreign_object,
        }
        return handlers[EventType(type)](data, now)

    def _start_round(self, opened_by: str, data: dict[str, Any], now: datetime) -> Decision:
        assert self.gaming_day is not None
        launched = opened_by == EventType.WHEEL_BALL_LAUNCHED
        fields = {
            "spin": data.get("spin"),
            "opened_by": str(opened_by),
            "rotor_direction": data.get("rotor_direction"),
            "rotor_rpm": data.get("rotor_rpm"),
            "launches": 1 if launched else 0,
            "no_more_bets": False,
            "dealer": self.dealer,
            "release_pocket": data.get("release_pocket") if launched else None,
        }
        rnd = self.rounds.start(self.gaming_day, now, fields)
        body = {
            "n": rnd["n"],
            "gaming_day": rnd["gaming_day"],
            "wheel": self.wheel.kind,
            **fields,
        }
        return Decision(EventType.ROUND_STARTED, body, None, rnd["id"])

    def _void_round(
        self,
        reason: str,
        rule: str | None,
        *,
        detail: str,
        policy: str | None = None,
        spun_again: bool = False,
        **more: Any,
    ) -> Decision:
        rnd = self.rounds.finish()
        self.voided = voided_spin(rnd["id"], rnd.get("spin"), reason, rule, spun_again)
        body: dict[str, Any] = {"reason": reason, "detail": detail, "spin": rnd.get("spin"), **more}
        return round_voided(rnd["id"], body, rule, policy)

    def _void_under_policy(self, reason: str, detail: str, policy: str) -> EngineOutput:
        return EngineOutput([self._void_round(reason, None, detail=detail, policy=policy)])

    def _no_spin(self, no_spin: NoSpin, spin: Any, **more: Any) -> EngineOutput:
        """`roulette.no_spin` then `round.voided` (same rule), and a re-spin if called for."""
        round_id = self.rounds.current_id
        out = EngineOutput(
            [
                Decision(
                    EventType.ROULETTE_NO_SPIN,
                    no_spin.data(spin=spin, **more),
                    no_spin.rule,
                    round_id,
                )
            ]
        )
        if round_id is not None:
            out.events.append(
                self._void_round(
                    no_spin.reason,
                    no_spin.rule,
                    detail=no_spin.detail,
                    spun_again=no_spin.spun_again,
                )
            )
        else:
            self.voided = voided_spin(None, spin, no_spin.reason, no_spin.rule, no_spin.spun_again)
        if no_spin.respin:
            out.device_commands.append(DeviceCommand(device=self.wheel_device, name="respin"))
        return out

    # ----- wheel events -----------------------------------------------------------

    def _game_started(self, data: dict[str, Any], now: datetime) -> EngineOutput:
        out = EngineOutput()
        if not self.table.is_open:
            return out
        current = self.rounds.current
        if current is not None:
            if current.get("spin") == data.get("spin"):
                return out
            out.events.append(
                self._void_round(
                    "superseded",
                    None,
                    detail=f"the wheel started game {data.get('spin')!r} without a number",
                    policy=SUPERSEDED_POLICY,
                )
            )
        out.events.append(self._start_round(EventType.WHEEL_GAME_STARTED, data, now))
        return out

    def _ball_launched(self, data: dict[str, Any], now: datetime) -> EngineOutput:
        spin = data.get("spin")
        if not self.table.is_open:
            if spin is not None and spin == self.unopened_spin:
                return EngineOutput()
            self.unopened_spin = spin
            state = self.table.state
            if state == "closed":
                return self._violation(
                    "spin_while_not_open",
                    rule=cite("531.3(f)"),
                    state=state,
                    spin=spin,
                    detail="the wheel must be covered and locked while the table is not open",
                )
            return self._violation(
                "spin_while_not_open",
                policy=FAIL_CLOSED_POLICY,
                state=state,
                spin=spin,
                detail="the table is halted: no spin counts until it is resumed",
            )
        current = self.rounds.current
        if current is None:
            refused = launch_after_void(self.voided, spin)
            if refused is not None:
                return self._violation("launch_after_void", policy=VOIDED_SPIN_POLICY, **refused)
            started = EngineOutput([self._start_round(EventType.WHEEL_BALL_LAUNCHED, data, now)])
            return self._launch_direction(data, started)
        current["launches"] += 1
        self._launched_again(current, data)
        if current.get("spin") is None:
            current["spin"] = spin
        return self._launch_direction(data, EngineOutput())

    def _no_more_bets(self, data: dict[str, Any], now: datetime) -> EngineOutput:
        current = self.rounds.current
        if self.table.is_open and current is not None:
            current["no_more_bets"] = True
        return EngineOutput()

    def _warning(self, data: dict[str, Any], now: datetime) -> EngineOutput:
        no_spin = no_spin_for_warning(data)
        if no_spin is None or not self.table.is_open:
            return EngineOutput()
        spin = data.get("spin")
        if self.rounds.current is None and self.voided and self.voided["spin"] == spin:
            return EngineOutput()  # this spin was already declared void
        return self._no_spin(no_spin, spin, flags=data.get("flags"), code=data.get("code"))

    def _idle(self, data: dict[str, Any], now: datetime) -> EngineOutput:
        if self.rounds.current is None:
            return EngineOutput()
        return EngineOutput(
            [self._void_round("wheel_idle", None, detail="the wheel went idle", policy=IDLE_POLICY)]
        )

    def _number(self, data: dict[str, Any], now: datetime) -> EngineOutput:
        if not self.table.is_open:
            return EngineOutput()
        number, spin = data.get("number"), data.get("spin")
        current = self.rounds.current
        if not isinstance(number, str) or not on_wheel(self.wheel.kind, number):
            out = self._violation(
                "impossible_number",
                rule=cite(self.wheel.layout_section),
                number=number if isinstance(number, str) else repr(number),
                spin=spin,
                wheel=self.wheel.kind,
                detail=f"{number!r} is not a pocket of a {self.wheel.kind} wheel",
            )
            if current is not None:
                out.events.append(
                    self._void_round(
                        "impossible_number",
                        cite(self.wheel.layout_section),
                        detail=f"the wheel reported {number!r}",
                    )
                )
            return out
        if current is None:
            if self.voided and self.voided["spin"] == spin:
                return self._violation(
                    "number_after_void",
                    rule=self.voided["rule"],
                    policy=FAIL_CLOSED_POLICY,
                    number=number,
                    spin=spin,
                    voided_round=self.voided["round"],
                    detail="the spin was already declared void; its number is no result",
                )
            return self._violation(
                "number_without_round",
                policy=NO_ROUND_POLICY,
                number=number,
                spin=spin,
                detail="no round was in play for this number: it is no result",
            )
        if current.get("spin") is not None and spin != current.get("spin"):
            return self._void_under_policy(
                "other_spin",
                f"the wheel reported a number for spin {spin!r}; the round follows spin "
                f"{current.get('spin')!r}",
                OTHER_SPIN_POLICY,
            )
        missing = missing_signals(current)
        if (short := short_spin(current)) is not None:
            more = {"missing": missing} if missing else {}
            return self._no_spin(
                short, spin, number=number, revolutions=current["ball_revolutions"], **more
            )
        out = signals_not_seen(self.rounds.current_id, missing, number, spin)
        if number == "00" and self.wheel.kind == "double_zero_as_single":
            out.extend(self._no_spin(DOUBLE_ZERO_ON_SINGLE, spin, number=number))
        else:
            out.extend(self._checked_number(number, data, now))
        return out

    def _result(self, number: str, data: dict[str, Any], now: datetime) -> EngineOutput:
        out, self.last_result = result_of(self.wheel, self.rounds.finish(), number, data, now)
        return out

    # ----- restore ----------------------------------------------------------------

    def _restore(self, snap: dict[str, Any]) -> None:
        check_header(snap, SNAPSHOT_VERSION, {"table": self.table_id, "wheel": self.wheel.kind})
        self._restore_table(snap)
        self.last_result = snap.get("last_result")
        self.voided = snap.get("voided")
        self.unopened_spin = snap.get("unopened_spin")
        self.dealer = snap.get("dealer")
