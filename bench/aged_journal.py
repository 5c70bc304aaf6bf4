"""A table box's journal after weeks of play, for `bench.startup --history-results N`.

A box's start reads its tables' records (the live wheel tests refill their windows from
every result), so a bench of a fresh journal says nothing of a box that has played for a
month. `age` takes a journal a real daemon wrote (its tables' snapshots and device
records as `floord run` leaves them) and appends to each table's stream N spins of a
single-zero wheel as floord records them: eleven events a spin (the wheel's game
started, ball launched, four revolutions, no more bets, number; the engine's round
started, result and round ended), the result with its dealer, release pocket, spin
physics and thirteen winning wagers, about 2.5 kB, as on `tests/golden` and a real
table (7,204 events and 642 results on a demo wheel's record: 11.2 a result). Each
batch is appended through floord's own `Journal` with the table's snapshot, so the
chain, the heads and the snapshot are as the daemon's start check expects them (the
table starts whole, not halted), and as published already (its watermark moved), as a
box's record of last month is: the start sends none of it again. Seeded: every run
builds the same journal.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from floord.analytics.wheel_watch import roulette_order
from floord.contract import Envelope
from floord.journal.store import Journal

SPIN_S = 90.0  # a busy single-zero wheel: 40 spins an hour
SPINS_A_BATCH = 100
ORDER = roulette_order("single_zero")
RED = {"1", "3", "5", "7", "9", "12", "14", "16", "18", "19", "21", "23", "25", "27", "30"}
RED |= {"32", "34", "36"}
WAGERS = [
    ("straight", 1, "35 to 1", "(1)"),
    ("split", 2, "17 to 1", "(2)"),
    ("split", 2, "17 to 1", "(2)"),
    ("split", 2, "17 to 1", "(2)"),
    ("three_numbers", 3, "11 to 1", "(3)"),
    ("four_numbers", 4, "8 to 1", "(4)"),
    ("six_numbers", 6, "5 to 1", "(6)"),
    ("column", 12, "2 to 1", "(7)"),
    ("dozen", 12, "2 to 1", "(8)"),
    ("red", 18, "1 to 1", "(9)"),
    ("odd", 18, "1 to 1", "(11)"),
    ("1-18", 18, "1 to 1", "(13)"),
    ("corner", 4, "8 to 1", "(4)"),
]


def _ts(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _spin(table: str, spin: int, at: datetime, rng: random.Random) -> list[tuple[Any, ...]]:
    """One spin's eleven events as (type, source, data, round, ts)."""
    number = rng.choice(ORDER)
    release = rng.choice(ORDER)
    rotor = rng.choice(("cw", "ccw"))
    rpm = round(rng.uniform(16, 24), 1)
    revolutions = rng.randint(3, 6)
    round_id = f"{table}-{at:%Y-%m-%d}-{spin:05d}"
    ts = _ts(at)
    wagers = [
        {
            "wager": wager,
            "numbers": [str((int(number) + k) % 37) for k in range(count)],
            "odds": odds,
            "rule": f"58 Pa. Code § 531.4(e){paragraph}",
        }
        for wager, count, odds, paragraph in WAGERS
    ]
    result = {
        "number": number,
        "colour": "green" if number == "0" else "red" if number in RED else "black",
        "pocket_index": ORDER.index(number),
        "spin": spin,
        "origin": "sensor",
        "wheel": "single_zero",
        "dealer": f"DL-{spin // 40 % 6 + 1:02d}",
        "release_pocket": release,
        "at": ts,
        "rotor_direction": rotor,
        "rotor_rpm": rpm,
        "ball_revolutions": revolutions,
        "ball_rps": round(rng.uniform(90, 130), 4),
        "winning_wagers": wagers,
        "losing_even_money": False,
        "even_money_wagers_lost": [],
        "even_money_rule": None,
        "settlement": [
            {"step": 1, "action": "collect", "of": "losing_wagers", "count": rng.randint(20, 150)},
            {"step": 2, "action": "pay", "of": "winning_wagers", "count": len(wagers)},
        ],
        "settlement_rule": "58 Pa. Code § 531.6(d)",
    }
    game = {"spin": spin, "state": 1, "rotor_direction": rotor, "rotor_rpm": rpm}
    started = {"n": spin, "wheel": "single_zero", "spin": spin, "dealer": result["dealer"]}
    launched = {"spin": spin, "rotor_direction": rotor, "ball_direction": "ccw"}
    return [
        ("wheel.game_started", "wheel", game, None, ts),
        ("round.started", "engine", started, round_id, ts),
        ("wheel.ball_launched", "wheel", {**launched, "release_pocket": release}, round_id, ts),
        *(
            ("wheel.ball_revolutions", "wheel", {"spin": spin, "count": c}, round_id, ts)
            for c in range(1, 5)
        ),
        ("wheel.no_more_bets", "wheel", {"spin": spin}, round_id, ts),
        ("wheel.number", "wheel", {"spin": spin, "number": number}, round_id, ts),
        ("roulette.result", "engine", result, round_id, ts),
        ("round.ended", "engine", {"number": number, "outcome": "result"}, round_id, ts),
    ]


def _build(site: str, table: str, event: tuple[Any, ...]) -> Callable[[int], Envelope]:
    etype, source, data, round_id, ts = event
    rule = "58 Pa. Code § 531.5(a)" if etype == "roulette.result" else None
    return lambda seq: Envelope(site, table, seq, ts, etype, source, data, rule, round_id)


def age(path: Path, site: str, tables: list[str], results: int) -> int:
    """Append `results` spins to each table's stream of the journal at `path` (no daemon
    holding it), chained and with the table's snapshot; the events appended in all."""
    rng = random.Random(36)
    journal = Journal(path)
    appended = 0
    try:
        for table in tables:
            state = journal.load_snapshot(table)
            if state is None:
                raise SystemExit(f"aged journal: {table} has no snapshot to keep")
            start = datetime(2026, 11, 1, 10, 0, tzinfo=UTC)
            for first in range(1, results + 1, SPINS_A_BATCH):
                builds = [
                    _build(site, table, event)
                    for spin in range(first, min(first + SPINS_A_BATCH, results + 1))
                    for event in _spin(table, spin, start + timedelta(seconds=SPIN_S * spin), rng)
                ]
                journal.append_many(table, builds, snapshot=(table, state), published=True)
                appended += len(builds)
    finally:
        journal.close()
    return appended
