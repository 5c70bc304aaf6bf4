"""A Baccarat table whose dealer's announcement is the second source (§ 545.12(a)).

The dealer calling the game announces which hand won; with `second_source: {command:
dealer_call}` that call is checked against the winner floord reads from the cards at
`round_end`. A dispute holds the coup until a floorperson settles it as the cards were
read or voids it (floord policy).
"""

from __future__ import annotations

from datetime import time, timedelta
from typing import Any

import pytest
from test_engine_baccarat_support import SHOE, TABLE, Table, card, rules, types
from test_engine_support import Clock

from floord.contract import EventType
from floord.engine import BaccaratEngine
from floord.engine.core.second_source import SecondSource

pytestmark = pytest.mark.unit


def table(on_silence: str = "hold") -> Table:
    engine = BaccaratEngine(
        TABLE,
        rules=rules("baccarat"),
        shoe_device=SHOE,
        shoe_reports_cards=True,
        required_devices=[SHOE],
        gaming_day_starts=time(6, 0),
        timezone="America/New_York",
        second_source=SecondSource(None, 5.0, on_silence),
    )
    t = Table(engine, Clock())
    t.ready()
    return t


def ended(t: Table) -> Any:
    """A coup the Player wins 9 over 7: round_start, the four cards, round_end."""
    started = t.start()
    assert started.ok, started.error
    t.draws(card(4), card(3), card(5), card(4))
    return t.end()


def call(t: Table, value: str):
    return t.dealer("call_result", {"value": value})


def test_the_dealers_announcement_that_agrees_settles_the_coup() -> None:
    t = table()
    end = ended(t)
    assert end.ok and types(end.output) == [], "held for the announcement"
    called = call(t, "player")
    assert called.ok, called.error
    said = types(called.output)
    assert said[:2] == ["result.confirmed", "baccarat.result"] and "round.ended" in said
    assert t.engine.current_round is None


def test_a_disagreement_holds_the_coup_until_the_floorperson_rules() -> None:
    t = table()
    ended(t)
    round_id = t.engine.current_round
    assert types(call(t, "banker").output) == ["result.disputed"]
    assert not t.end().ok, "the coup is held"
    assert not t.start().ok
    other = t.command("rule_result", {"round": round_id, "value": "banker", "note": "n"})
    assert not other.ok and "as its cards were read" in (other.error or "")
    ruled = t.command("rule_result", {"round": round_id, "value": "player", "note": "video"})
    assert ruled.ok, ruled.error
    assert types(ruled.output)[:2] == ["result.ruled", "baccarat.result"]
    assert t.engine.current_round is None


def test_silence_that_warns_settles_as_the_cards_say() -> None:
    t = table("warn")
    ended(t)
    t.clock.now += timedelta(seconds=6)
    out = t.engine.tick(t.clock.now)
    assert types(out)[:2] == ["result.silent", "baccarat.result"]
    assert EventType.ROUND_ENDED in [d.type for d in out.events]
