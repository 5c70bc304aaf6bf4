"""Pace and spin physics of one Roulette wheel: the tests of `pace` and `spin_physics`
run together over each result, live and in `floord report wheel`.

Both the live watch (`floord.table.surveillance`) and the report feed `WheelPhysics` the
same `SpinRecord`s, read from the same `roulette.result` fields (`docs/contract.md`):
the time the result was decided, the dealer, the game's spin number, the rotor's
direction and speed, the ball's revolutions and the release pocket. So the report
replays exactly the alerts the table raised live.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from floord.analytics.pace import PaceSettings, PaceWatch
from floord.analytics.spin_physics import (
    DropZone,
    Envelope,
    RotorAlternation,
    SpinSettings,
)
from floord.contract import parse_ts
from floord.engine.core.copies import Fixed

# Every surveillance alert has the chi-square tests' fields (`docs/contract.md`); a test
# that is not one has them null, not made up.
CHI_SQUARE_KEYS: dict[str, Any] = {
    "dof": None,
    "p_value": None,
    "level": None,
    "window": None,
    "over_represented": [],
}


@dataclass(frozen=True)
class SpinRecord(Fixed):
    """What the pace and spin physics tests read of one result (None: not reported)."""

    at: str
    result: str
    dealer: str | None = None
    spin: int | None = None
    rotor_direction: str | None = None
    rotor_rpm: float | None = None
    ball_revolutions: int | None = None
    release: str | None = None
    ball_rps: float | None = None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _number(value: Any) -> float | None:
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    return float(value) if ok else None


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def spin_record(data: dict[str, Any], ts: str) -> SpinRecord:
    """The record of one `roulette.result` body; `ts` is the event's time, used when
    the body has no `at` (a journal written before results carried it)."""
    return SpinRecord(
        at=_text(data.get("at")) or ts,
        result=str(data.get("number")),
        dealer=_text(data.get("dealer")),
        spin=_count(data.get("spin")),
        rotor_direction=_text(data.get("rotor_direction")),
        rotor_rpm=_number(data.get("rotor_rpm")),
        ball_revolutions=_count(data.get("ball_revolutions")),
        release=_text(data.get("release_pocket")),
        ball_rps=_number(data.get("ball_rps")),
    )


class WheelPhysics:
    """The pace and spin physics tests of one wheel (either may be off: None)."""

    def __init__(
        self,
        kind: str,
        order: Sequence[str],
        level: float,
        pace: PaceSettings | None,
        spin: SpinSettings | None,
    ) -> None:
        self.kind = kind
        self.pace = PaceWatch(pace) if pace is not None else None
        self.rotor: RotorAlternation | None = None
        self.envelopes: list[tuple[str, Envelope]] = []
        self.drop_zone: DropZone | None = None
        if spin is not None:
            if spin.rotor_run:
                self.rotor = RotorAlternation(spin.rotor_run)
            if spin.envelope_spins:
                measured = [("rotor_rpm", "rotor_speed"), ("ball_revolutions", "ball_revolutions")]
                if spin.ball_speed:
                    measured.append(("ball_rps", "ball_speed"))
                for field, test in measured:
                    envelope = Envelope(
                        test, spin.envelope_spins, spin.envelope_k, spin.envelope_min
                    )
                    self.envelopes.append((field, envelope))
            if spin.drop_zone_bins:
                self.drop_zone = DropZone(
                    kind, order, spin.drop_zone_window, level, spin.drop_zone_bins
                )

    def state(self) -> dict[str, Any]:
        """Each test's own (`None`: the test is off)."""
        return {
            "pace": None if self.pace is None else self.pace.state(),
            "rotor": None if self.rotor is None else self.rotor.state(),
            "envelopes": {f: envelope.state() for f, envelope in self.envelopes},
            "drop_zone": None if self.drop_zone is None else self.drop_zone.state(),
        }

    def load(self, state: Any) -> None:
        """Go on from a `state()`; ValueError when it does not fit these tests (a test
        turned on or off since, say). A test may be left loaded when a later one raises:
        the caller then builds the watch again and replays the record."""
        if not isinstance(state, dict):
            raise ValueError("a saved spin physics state must be an object")
        envelopes = state.get("envelopes")
        tests = (("pace", self.pace), ("rotor", self.rotor), ("drop_zone", self.drop_zone))
        if (
            any((state.get(k) is None) != (t is None) for k, t in tests)
            or not isinstance(envelopes, dict)
            or sorted(envelopes) != sorted(f for f, _ in self.envelopes)
        ):
            raise ValueError("a saved spin physics state does not fit its tests")
        for key, test in tests:
            if test is not None:
                test.load(state[key])
        for f, envelope in self.envelopes:
            envelope.load(envelopes[f])

    def add(self, record: SpinRecord) -> list[dict[str, Any]]:
        """Count one result; the alerts it raises, each naming its test and statistic."""
        alerts: list[dict[str, Any]] = []
        if self.pace is not None:
            alerts += self.pace.add(parse_ts(record.at), record.dealer)
        if self.rotor is not None:
            alerts += self.rotor.add(record.spin, record.rotor_direction)
        for field, envelope in self.envelopes:
            alerts += envelope.add(getattr(record, field))
        if self.drop_zone is not None:
            alerts += self.drop_zone.add(record.release, record.result)
        return [
            {**CHI_SQUARE_KEYS, **alert, "wheel": self.kind, "at": record.at} for alert in alerts
        ]


def physics_report(physics: WheelPhysics, results: Sequence[Any]) -> list[dict[str, Any]]:
    """The alerts `physics` raises over `results` (`WheelResult`s with a `spin` record),
    each with the seq and time of the result that raised it."""
    alerts = []
    for r in results:
        if r.spin is not None:
            alerts += [{**a, "seq": r.seq, "ts": r.ts} for a in physics.add(r.spin)]
    return alerts
