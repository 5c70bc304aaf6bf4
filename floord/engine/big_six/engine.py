"""The Big Six wheel engine: the dealer's call, the wheel's sensor, cited results.

The table (closed/open/halted, inspections, devices, fail-closed halts) is `TableState`'s;
this module adds what is chapter 533's own: a round opens on the dealer's `spin` command,
which records the "no more bets" call (§ 533.2(a)); the wheel's sensor reports the spin,
its revolutions and where the clapper rests. A spin of fewer than three revolutions
(§ 533.2(b)) or a clapper at rest on a divider (the second § 533.2(c)) is void and the
dealer spins again, after a new call; a clapper at rest in a section settles the round
(§ 533.2(c)) with the section's symbol, the odds of § 533.3(a) and the order of
settlement of § 533.2(d): losing wagers collected first, then winners paid.

Chapter 533 has no opening-inspection paragraph: floord asks for the physical
characteristics of § 533.1 to be checked before opening (its policy, cited to § 533.1).
The engine is pure: every input carries its `now`.
"""

from __future__ import annotations

from datetime import datetime, time
from typing import Any

from floord.contract import EventType, cite, format_ts
from floord.engine.big_six.layout import PAY_ODDS, SECTIONS, read_layout
from floord.engine.big_six.result_check import RESULT_COMMANDS, CheckedRests, SecondSource
from floord.engine.core.base import TableEngineBase, restart_policy, round_voided
from floord.engine.core.inspection import InspectionSpec
from floord.engine.core.snapshots import SnapshotError, check_header, json_copy
from floord.engine.core.table_commands import TABLE_COMMANDS
from floord.engine.core.table_state import FAIL_CLOSED_POLICY, PrimaryDevice
from floord.engine.core.types import CommandOutcome, Decision, EngineOutput, VerifiedCommand

SNAPSHOT_VERSION = 1
MIN_REVOLUTIONS = 3  # § 533.2(b)
WHEEL_EVENTS = frozenset(
    {
        EventType.BIGSIX_SPIN_STARTED,
        EventType.BIGSIX_REVOLUTION,
        EventType.BIGSIX_AT_REST,
        EventType.BIGSIX_BETWEEN_SECTIONS,
    }
)
RESTART_POLICY = restart_policy("result")
SECOND_SPIN_POLICY = (
    "floord policy, not a regulation: a wheel spun again before it came to rest voids the "
    'round; the dealer calls "no more bets" and spins again'
)
NOT_OPEN_POLICY = "floord policy, not a regulation: no spin counts while the table is not open"
NO_SPIN_POLICY = "floord policy, not a regulation: a rest without a spin seen is no result"
# The regulation has two paragraphs lettered (c); this is the second one.
BETWEEN_NOTE = "the second paragraph (c) of § 533.2 (the clapper at rest between two sections)"


def big_six_inspection() -> InspectionSpec:
    """The § 533.1 characteristics checked before opening (floord policy: ch. 533 has no
    inspection paragraph, but a table must not open on a wheel it does not describe)."""
    return InspectionSpec(
        items={
            "sections_glass_covered": cite("533.1(a)"),
            "payout_odds_displayed": cite("533.1(d)"),
            "clapper_working": cite("533.1(e)"),
            "layout_approved": cite("533.1(g)"),
        },
        rule=cite("533.1"),
    )


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class BigSixEngine(CheckedRests, TableEngineBase):
    """One Big Six table: see the module docstring and `docs/rules.md`."""

    RESTART_POLICY = RESTART_POLICY
    RESTART_DETAIL = "the result was not observed by floord"

    def __init__(
        self,
        table_id: str,
        *,
        layout: list[str] | None = None,
        symbols: dict[str, str] | None = None,
        wheel_device: str,
        required_devices: list[str],
        gaming_day_starts: time,
        timezone: str,
        snapshot: dict[str, Any] | None = None,
        second_source: SecondSource | None = None,
    ) -> None:
        self.layout = read_layout(layout, symbols)
        self.wheel_device = wheel_device
        self._init_check(second_source, wheel_device, snapshot)
        super().__init__(
            table_id,
            inspection=big_six_inspection(),
            primary=PrimaryDevice(
                wheel_device, self._identity_problem, "wheel_mismatch", cite("533.1(e)")
            ),
            required_devices=required_devices,
            gaming_day_starts=gaming_day_starts,
            timezone=timezone,
        )
        self.last_result: dict[str, Any] | None = None
        # A spin the wheel reported with no round for it (no "no more bets" called): its
        # rest is no result. Cleared when it comes to rest.
        self.unannounced: dict[str, Any] | None = None
        if snapshot is not None:
            self._restore(snapshot)

    # ----- public interface -------------------------------------------------------

    def on_command(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        now = self._touch(now)
        if command.name == "spin":
            return self._spin_command(command, now)
        if command.name in RESULT_COMMANDS:
            return self._result_command(command, now)
        known = ", ".join([*TABLE_COMMANDS, "spin", *RESULT_COMMANDS])
        return self._table_command(
            command, now, f"unknown table command {command.name!r}: a Big Six table knows {known}"
        )

    def snapshot(self) -> dict[str, Any]:
        head = {
            "game": "big_six",
            "layout": [s.symbol for s in self.layout.sections],
            "wheel_device": self.wheel_device,
        }
        return {
            **self._snapshot_head(SNAPSHOT_VERSION, head),
            "last_result": json_copy(self.last_result),
            "unannounced": json_copy(self.unannounced),
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
        if not self.table.is_open:
            if type == EventType.BIGSIX_SPIN_STARTED:
                return self._violation(
                    "spin_while_not_open",
                    policy=NOT_OPEN_POLICY if self.table.state == "closed" else FAIL_CLOSED_POLICY,
                    state=self.table.state,
                    direction=data.get("direction"),
                )
            return EngineOutput()
        handlers = {
            EventType.BIGSIX_SPIN_STARTED: self._spin_started,
            EventType.BIGSIX_REVOLUTION: self._revolution,
            EventType.BIGSIX_AT_REST: self._at_rest,
            EventType.BIGSIX_BETWEEN_SECTIONS: self._between,
        }
        return handlers[EventType(type)](data, now)

    def _identity_problem(self, identity: dict[str, Any]) -> str | None:
        caps = identity.get("capabilities")
        if isinstance(caps, list) and "clapper" in caps:
            return None
        return (
            f"the wheel does not say it reports the clapper's rest (capabilities {caps!r}); "
            f"a Big Six wheel selects a section with its clapper ({cite('533.1(e)')})"
        )

    def _void(self, reason: str, rule: str | None, detail: str, policy: str | None) -> Decision:
        rnd = self.rounds.finish()
        return round_voided(rnd["id"], {"reason": reason, "detail": detail}, rule, policy)

    def _void_under_policy(self, reason: str, detail: str, policy: str) -> EngineOutput:
        return EngineOutput([self._void(reason, None, detail, policy)])

    def _leave_open(self, code: str, detail: str) -> EngineOutput:
        self.unannounced = None  # the table stops play: a turning wheel's rest is no one's
        return super()._leave_open(code, detail)

    # ----- the dealer -------------------------------------------------------------

    def _spin_command(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        rule = cite("533.2(a)")
        if command.args:
            keys = ", ".join(sorted(map(str, command.args)))
            return CommandOutcome(False, f"spin takes no arguments, found {keys}")
        if not self.table.is_open:
            return CommandOutcome(False, f"the table is not open (it is {self.table.state})")
        if (held := self._held_refusal()) is not None:
            return held
        if self.rounds.current is not None:
            return CommandOutcome(
                False, f"round {self.rounds.current_id} is in play: the wheel has not come to rest"
            )
        if self.unannounced is not None:
            return CommandOutcome(
                False, 'the wheel is turning (spun without "no more bets"): wait for its rest'
            )
        assert self.gaming_day is not None
        fields = {
            "no_more_bets": True,
            "called_by": command.by,
            "direction": None,
            "spun": False,
            "revolutions": 0,
        }
        rnd = self.rounds.start(self.gaming_day, now, fields)
        body = {"n": rnd["n"], "gaming_day": rnd["gaming_day"], "opened_by": "spin", **fields}
        started = Decision(EventType.ROUND_STARTED, body, rule, rnd["id"])
        return CommandOutcome(True, output=EngineOutput([started]))

    # ----- wheel events -----------------------------------------------------------

    def _spin_started(self, data: dict[str, Any], now: datetime) -> EngineOutput:
        direction = data.get("direction")
        current = self.rounds.current
        if current is None:
            self.unannounced = {"direction": direction, "at": format_ts(now)}
            return self._violation(
                "spin_without_no_more_bets",
                rule=cite("533.2(a)"),
                direction=direction,
                detail='the wheel was spun before the dealer called "no more bets"',
            )
        if current["spun"]:
            out = self._violation(
                "spun_again_before_rest", policy=SECOND_SPIN_POLICY, direction=direction
            )
            out.events.append(
                self._void(
                    "spun_again",
                    None,
                    "the wheel was spun again before it came to rest",
                    SECOND_SPIN_POLICY,
                )
            )
            self.unannounced = {"direction": direction, "at": format_ts(now)}
            return out
        current["spun"], current["direction"] = True, direction
        return EngineOutput()

    def _revolution(self, data: dict[str, Any], now: datetime) -> EngineOutput:
        count, current = _int(data.get("count")), self.rounds.current
        if current is None or not current["spun"]:
            return EngineOutput()  # an unannounced spin's revolutions are no one's count
        if count is None or count <= current["revolutions"]:
            return self._violation(
                "revolution_count_out_of_order",
                count=data.get("count"),
                after=current["revolutions"],
            )
        current["revolutions"] = count
        return EngineOutput()

    def _rest_problem(self) -> EngineOutput | None:
        """No result for a rest outside an announced, seen spin: why, or None."""
        current = self.rounds.current
        if current is None:
            self.unannounced = None
            body = {
                "reason": "no_more_bets_not_called",
                "respin": True,
                "detail": 'the wheel came to rest on a spin with no "no more bets"',
            }
            return EngineOutput([Decision(EventType.BIGSIX_NO_SPIN, body, cite("533.2(a)"), None)])
        if not current["spun"]:
            detail = "the wheel reported a rest without reporting a spin"
            body = {
                "reason": "spin_not_seen",
                "respin": True,
                "policy": NO_SPIN_POLICY,
                "detail": detail,
            }
            out = EngineOutput([Decision(EventType.BIGSIX_NO_SPIN, body, None, current["id"])])
            out.events.append(self._void("spin_not_seen", None, detail, NO_SPIN_POLICY))
            return out
        return None

    def _no_spin(self, reason: str, rule: str, detail: str, **more: Any) -> EngineOutput:
        """`bigsix.no_spin` then `round.voided` (same rule): the dealer spins again."""
        current = self.rounds.current
        assert current is not None
        body = {
            "reason": reason,
            "respin": True,
            "detail": detail,
            "revolutions": current["revolutions"],
            "direction": current["direction"],
            **more,
        }
        out = EngineOutput([Decision(EventType.BIGSIX_NO_SPIN, body, rule, current["id"])])
        out.events.append(self._void(reason, rule, detail, None))
        return out

    def _between(self, data: dict[str, Any], now: datetime) -> EngineOutput:
        problem = self._rest_problem()
        if problem is not None:
            return problem
        left, right = _int(data.get("left")), _int(data.get("right"))
        return self._no_spin(
            "between_sections",
            cite("533.2(c)"),
            "the clapper came to rest between two sections: the spin is void and re-spun",
            left=left,
            right=right,
            paragraph=BETWEEN_NOTE,
        )

    def _at_rest(self, data: dict[str, Any], now: datetime) -> EngineOutput:
        problem = self._rest_problem()
        if problem is not None:
            return problem
        current = self.rounds.current
        assert current is not None
        index = _int(data.get("section"))
        if index is None or not 0 <= index < SECTIONS:
            out = self._violation(
                "impossible_section",
                rule=cite("533.1(a)"),
                section=data.get("section"),
                detail=f"a wheel has sections 0 to {SECTIONS - 1}",
            )
            out.events.append(
                self._void(
                    "impossible_section",
                    cite("533.1(a)"),
                    f"the wheel reported section {data.get('section')!r}",
                    None,
                )
            )
            return out
        if current["revolutions"] < MIN_REVOLUTIONS:
            return self._no_spin(
                "fewer_than_three_revolutions",
                cite("533.2(b)"),
                f"the wheel made {current['revolutions']} revolution(s); "
                f"a valid spin makes at least {MIN_REVOLUTIONS}",
                section=index,
            )
        return self._checked_rest(index, now)

    def _result(self, index: int, now: datetime) -> EngineOutput:
        rnd = self.rounds.finish()
        section = self.layout.section(index)
        odds = f"{section.odds} to 1"
        losing = [
            {"symbol": self.layout.symbol_of(c), "pay_class": c}
            for c in PAY_ODDS
            if c != section.pay_class
        ]
        body = {
            "section": index,
            "symbol": section.symbol,
            "pay_class": section.pay_class,
            "odds": odds,
            "odds_to_one": section.odds,
            "direction": rnd["direction"],
            "revolutions": rnd["revolutions"],
            # § 533.2(d): losing wagers are collected first, then the winners are paid.
            "settlement": [
                {"step": 1, "action": "collect", "wagers": losing},
                {
                    "step": 2,
                    "action": "pay",
                    "wagers": [
                        {"symbol": section.symbol, "pay_class": section.pay_class, "odds": odds}
                    ],
                },
            ],
            "settlement_rule": cite("533.2(d)"),
            "settled_under": cite("533.2(c)"),
        }
        self.last_result = {
            "round": rnd["id"],
            "section": index,
            "symbol": section.symbol,
            "at": format_ts(now),
        }
        ended = {"outcome": "result", "section": index, "symbol": section.symbol}
        return EngineOutput(
            [
                Decision(EventType.BIGSIX_RESULT, body, cite("533.3(a)"), rnd["id"]),
                Decision(EventType.ROUND_ENDED, ended, None, rnd["id"]),
            ]
        )

    # ----- restore ----------------------------------------------------------------

    def _restore(self, snap: dict[str, Any]) -> None:
        check_header(snap, SNAPSHOT_VERSION, {"table": self.table_id, "game": "big_six"})
        if snap.get("layout") != [s.symbol for s in self.layout.sections]:
            raise SnapshotError("the snapshot is for another wheel layout than this table's")
        self._restore_table(snap)
        self.last_result = snap.get("last_result")
        self.unannounced = snap.get("unannounced")
