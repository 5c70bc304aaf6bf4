"""Every kind of surveillance alert on the browser console's Alerts and Table pages, worded
as the terminal console words it: pace and spin physics by their `summary`, a shuffle
alert by its shoe, a held result by its round, never `None` for a statistic the kind
does not have; from the table's state, from the alert's event, and in the acknowledged
list from the alert an acknowledgement carries."""

from __future__ import annotations

from typing import Any

import pytest
from test_web_hub import floor
from watch_support import SITE, publish, state

from floord.contract import Envelope, EventType
from floord.watch.detail import detail_text
from floord.watch.sentences import sentence
from floord.web.views import table_detail

pytestmark = pytest.mark.unit

NO_STATS = {"statistic": None, "dof": None, "p_value": None, "level": None}
PHYSICS = {**NO_STATS, "over_represented": [], "wheel": "wheel", "at": "2026-12-05T08:00:00Z"}
PACE = "the table dealt 80.0 rounds an hour over its last 20 intervals (median 45.0 s), "
PACE += "above the band 20 to 60"
ROTOR = "the rotor turned clockwise in 5 consecutive games "
ROTOR += "(floord's policy: it changes direction every game)"
HELD_ROUND = "RL-01-2026-12-05-0002"
HELD_DETAIL = "wheel reported 5, dealer_call 6: the round is held until a floorperson rules"


def envelope_measure(test: str, value: float) -> dict[str, Any]:
    words = test.replace("_", " ")
    return {
        **PHYSICS,
        "test": test,
        "statistic": value,
        "value": value,
        "median": 30.0,
        "robust_sd": 1.5,
        "z": 7.4,
        "envelope": [25.0, 35.0],
        "window": 50,
        "side": "above",
        "summary": f"{words} {value:g} above the wheel's envelope 25 to 35 "
        "(median 30 of its last 50 spins)",
    }


SHUFFLE = {"p_value": 0.000213, "level": 0.001, "dof": None, "window": 3, "over_represented": []}
KINDS: dict[str, tuple[dict[str, Any], str]] = {
    "pace": (
        {
            **PHYSICS,
            "test": "pace",
            "statistic": 80.0,
            "rounds_per_hour": 80.0,
            "median_interval_s": 45.0,
            "window": 20,
            "band": [20, 60],
            "side": "above",
            "summary": PACE,
        },
        f"pace test: {PACE}",
    ),
    "rotor_direction": (
        {
            **PHYSICS,
            "test": "rotor_direction",
            "statistic": 5,
            "run": 5,
            "direction": "clockwise",
            "spin": 41,
            "window": None,
            "summary": ROTOR,
        },
        f"rotor direction test: {ROTOR}",
    ),
    "rotor_speed": (
        envelope_measure("rotor_speed", 41.2),
        "rotor speed test: rotor speed 41.2 above the wheel's envelope 25 to 35 "
        "(median 30 of its last 50 spins)",
    ),
    "ball_revolutions": (
        envelope_measure("ball_revolutions", 44),
        "ball revolutions test: ball revolutions 44 above the wheel's envelope 25 to 35 "
        "(median 30 of its last 50 spins)",
    ),
    "ball_speed": (
        envelope_measure("ball_speed", 39.5),
        "ball speed test: ball speed 39.5 above the wheel's envelope 25 to 35 "
        "(median 30 of its last 50 spins)",
    ),
    "drop_zone": (
        {
            **PHYSICS,
            "test": "drop_zone",
            "statistic": 61.0,
            "dof": 7,
            "p_value": 2.1e-5,
            "level": 0.001,
            "window": 200,
            "over_represented": [{"label": "3", "observed": 50, "expected": 25.0}],
            "summary": "drop zone test p = 2.1e-05 over 200 spins; distances over-represented: 3",
        },
        "drop zone test: drop zone test p = 2.1e-05 over 200 spins; distances over-represented: 3",
    ),
    "shuffle_slug": (
        {
            **SHUFFLE,
            "test": "shuffle_slug",
            "statistic": 6,
            "shoe": 4,
            "side": None,
            "cards": 7,
            "compared": [1, 2, 3],
            "run": {"cards": 6, "at": 2, "shoe": 3, "at_earlier": 16},
            "expected_runs": 0.01,
        },
        "shuffle slug in shoe 4 after 7 cards: a run of 6 cards from card 2 as dealt in "
        "shoe 3 from its card 16; p = 0.000213 below 0.001",
    ),
    "shuffle_correlation": (
        {
            **SHUFFLE,
            "test": "shuffle_correlation",
            "statistic": 70,
            "shoe": 4,
            "side": "left",
            "cards": 90,
            "compared": [3],
            "against": "previous_shoe",
            "pairs": {"observed": 70, "expected": 7.25},
        },
        "shuffle correlation in shoe 4 (left side) after 90 cards: 70 neighbours as in the "
        "previous shoe vs 7.25 expected; p = 0.000213 below 0.001",
    ),
    "shuffle_clumping": (
        {
            **SHUFFLE,
            "test": "shuffle_clumping",
            "statistic": 90,
            "shoe": 2,
            "side": None,
            "cards": 234,
            "compared": [1],
            "suits": {"observed": 90, "expected": 58.1},
            "ranks": {"observed": 20, "expected": 17.4},
        },
        "shuffle clumping in shoe 2 after 234 cards: same-suit neighbours 90 vs 58.1, "
        "same-rank 20 vs 17.4 expected; p = 0.000213 below 0.001",
    ),
    "result_disputed": (
        {
            **NO_STATS,
            "test": "result_disputed",
            "window": None,
            "over_represented": None,
            "round": HELD_ROUND,
            "primary": {"source": "wheel", "value": "5"},
            "second": {"source": "dealer_call", "value": "6"},
            "detail": HELD_DETAIL,
        },
        f"result disputed, round 2 ({HELD_DETAIL})",
    ),
    "result_silent": (
        {
            **NO_STATS,
            "test": "result_silent",
            "window": None,
            "over_represented": None,
            "round": HELD_ROUND,
            "primary": {"source": "wheel", "value": "5"},
            "second": None,
            "detail": "no second report within 5 s",
        },
        "result silent, round 2 (no second report within 5 s)",
    ),
}


def alert(kind: str) -> tuple[dict[str, Any], str]:
    data, words = KINDS[kind]
    return {"id": "A00007", **data}, f"alert A00007: {words}"


def clean(text: str) -> None:
    assert "None" not in text and "null" not in text and "p = ?" not in text, text


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_an_alert_known_from_the_state_reads_as_in_the_terminal(kind: str) -> None:
    data, expected = alert(kind)
    model, hub = floor()
    state(model, "RL-01", {"game": "roulette", "state": "open", "alerts": [data]})
    view = model.tables[(SITE, "RL-01")]
    [shown] = table_detail(view)["alert_list"]
    [listed] = hub.alerts_page()["open"]
    assert shown["text"] == listed["text"] == expected
    clean(shown["text"])
    # The terminal's detail view says the same of it (its own layout of the numbers).
    if "summary" in data:
        piece = f"{data['test']} test: {data['summary']}"
    elif kind.startswith("result_"):
        piece = f"{kind.replace('_', ' ')}, round 2 ("
    else:
        piece = f"p = 0.000213 (level 0.001, shoe {data['shoe']})"
    assert piece in detail_text(view).plain


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_an_alert_seen_as_its_event_reads_as_the_terminals_event_line(kind: str) -> None:
    data, expected = alert(kind)
    model, hub = floor()
    state(model, "RL-01", {"game": "roulette", "state": "open"})
    # A held result's alert comes with its round on the envelope; the others with none.
    held = kind.startswith("result_")
    publish(model, "RL-01", 3, "surveillance.alert", data, round_id=HELD_ROUND if held else None)
    hub.flush()
    view = model.tables[(SITE, "RL-01")]
    [shown] = table_detail(view)["alert_list"]
    [listed] = hub.alerts_page()["open"]
    assert shown["text"] == listed["text"] == expected
    kind_ = EventType.SURVEILLANCE_ALERT
    event = Envelope(
        SITE, "RL-01", 3, "", kind_, "engine", data, None, HELD_ROUND if held else None
    )
    assert sentence(event) == expected, "the terminal's event line"


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_an_acknowledged_alert_the_console_never_saw_reads_from_the_ack(kind: str) -> None:
    data, expected = alert(kind)
    model, hub = floor()
    state(model, "RL-01", {"game": "roulette", "state": "open"})
    ack = {"id": "A00007", "by": "SE-3001", "note": "checked", "alert": data}
    publish(model, "RL-01", 9, "surveillance.alert_acknowledged", ack)
    [acked] = hub.acknowledged
    assert acked["text"] == expected
    clean(acked["text"])


def test_an_alert_without_its_numbers_says_question_marks_never_none() -> None:
    model, hub = floor()
    bare = {"id": "A00009", "test": "pocket", "p_value": None, "level": None, "window": None}
    state(model, "RL-01", {"game": "roulette", "state": "open", "alerts": [bare]})
    [listed] = hub.alerts_page()["open"]
    assert listed["text"] == "alert A00009: pocket test p = ? below ? over ? results"
