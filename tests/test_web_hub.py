"""What each page of the browser console is pushed, from contract messages alone: the
tiles in words, a table told as sentences, the alerts newest first, the acknowledgements
seen, the snapshot a (re)connecting page gets first, and a forwarded command's answer."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from watch_support import SITE, publish, state

from floord.contract import Envelope, Topics
from floord.watch.feed import WatchFeed
from floord.watch.model import FloorModel
from floord.web.hub import Hub, Viewer
from floord.web.views import tile

pytestmark = pytest.mark.unit

RULE = "58 Pa. Code § 531.5(a)"


def floor() -> tuple[FloorModel, Hub]:
    model = FloorModel("floor/v1")
    feed = WatchFeed(model, url="mqtt://127.0.0.1:1")
    hub = Hub(model, feed, None)
    feed_notices = hub.on_notices
    model_on = model.on_message

    def on_message(topic: str, payload: bytes) -> Any:
        notices = model_on(topic, payload)
        feed_notices(notices)
        return notices

    model.on_message = on_message  # type: ignore[method-assign]
    return model, hub


def alert_at(model: FloorModel, table: str, seq: int, ts: str) -> None:
    data = {"id": "A00001", "test": "pocket", "p_value": 1e-5, "level": 0.001, "window": 185}
    env = Envelope(SITE, table, seq, ts, "surveillance.alert", "engine", data)
    model.on_message(Topics("floor/v1", SITE, table).events, env.to_json().encode())


def drained(viewer: Viewer) -> list[dict[str, Any]]:
    got = []
    while not viewer.queue.empty():
        got.append(viewer.queue.get_nowait())
    return got


def test_a_tile_says_the_state_in_words_and_colour() -> None:
    model, _ = floor()
    state(
        model,
        "RL-01",
        {"game": "roulette", "state": "open", "devices": {"wheel": {"online": True}}},
    )
    halted = {
        "game": "blackjack",
        "state": "halted",
        "halt_reasons": [{"code": "device_offline", "device": "shoe", "detail": "silent 5 s"}],
        "devices": {"shoe": {"online": False}},
    }
    state(model, "BJ-01", halted)
    assert tile(model.tables[(SITE, "RL-01")]) | {"last_ts": None} == {
        "key": f"{SITE}/RL-01",
        "site": SITE,
        "table": "RL-01",
        "game": "roulette",
        "state": "open",
        "colour": "open",
        "words": "open",
        "stale": False,
        "round": "no round in play",
        "devices": "1 of 1 devices online",
        "devices_down": 0,
        "alerts": 0,
        "last_ts": None,
    }
    bj = tile(model.tables[(SITE, "BJ-01")])
    assert bj["colour"] == "halted"
    assert bj["words"] == "halted: device_offline (shoe): silent 5 s"
    assert bj["devices"] == "0 of 1 devices online" and bj["devices_down"] == 1


def test_a_page_gets_its_snapshot_first_then_only_what_changed() -> None:
    model, hub = floor()
    state(model, "RL-01", {"game": "roulette", "state": "open"})
    state(model, "RL-02", {"game": "roulette", "state": "open"})
    hub.flush()
    page = Viewer(send=lambda body: None)
    hub.join(page)
    [first] = drained(page)
    assert first["type"] == "snapshot" and first["seq"] == 1
    assert [t["table"] for t in first["tiles"]] == ["RL-01", "RL-02"]
    publish(
        model,
        "RL-02",
        5,
        "table.halted",
        {
            "code": "wheel_fault",
            "reasons": [{"code": "wheel_fault", "device": "wheel", "detail": "rotor stopped"}],
        },
        rule=None,
    )
    hub.flush()
    [update] = drained(page)
    assert update["type"] == "tiles" and update["seq"] == 2
    assert [(t["table"], t["colour"]) for t in update["tiles"]] == [("RL-02", "halted")]
    hub.flush()
    assert drained(page) == []  # nothing changed, nothing sent


def test_a_table_page_tells_the_round_and_events_in_sentences() -> None:
    model, hub = floor()
    state(
        model,
        "RL-01",
        {"game": "roulette", "state": "open", "round": {"id": "RL-01-2026-11-29-0007"}},
    )
    publish(
        model, "RL-01", 10, "round.started", {"n": 7, "spin": 7}, round_id="RL-01-2026-11-29-0007"
    )
    publish(
        model,
        "RL-01",
        11,
        "roulette.result",
        {"number": "17", "color": "black"},
        rule=RULE,
        round_id="RL-01-2026-11-29-0007",
    )
    page = Viewer(send=lambda body: None, page="table", key=(SITE, "RL-01"))
    hub.join(page)
    [snapshot] = drained(page)
    table = snapshot["table"]
    assert table["round"] == "round RL-01-2026-11-29-0007 in play"
    texts = [e["text"] for e in table["round_sentences"]]
    assert texts[0].startswith("round 7 started")
    assert texts[1].endswith("§ 531.5(a)"), texts
    assert [e["seq"] for e in table["events"]] == [11, 10]  # newest first
    assert "{" not in " ".join(texts)


def test_alerts_newest_first_and_the_acknowledgements_seen() -> None:
    model, hub = floor()
    alert_at(model, "RL-02", 4, "2026-11-29T19:00:00.000000Z")
    alert_at(model, "RL-01", 3, "2026-11-29T19:05:00.000000Z")
    page = Viewer(send=lambda body: None, page="alerts")
    hub.join(page)
    [snapshot] = drained(page)
    assert [(a["table"], a["id"]) for a in snapshot["alerts"]["open"]] == [
        ("RL-01", "A00001"),
        ("RL-02", "A00001"),
    ]
    assert snapshot["alerts"]["open"][0]["text"].startswith("alert A00001: pocket test p = ")
    publish(
        model,
        "RL-01",
        5,
        "surveillance.alert_acknowledged",
        {"id": "A00001", "by": "SE-3001", "note": "<b>seen</b>"},
    )
    hub.flush()
    [update] = drained(page)
    assert [a["table"] for a in update["alerts"]["open"]] == ["RL-02"]  # RL-01's closed
    [acked] = update["alerts"]["acknowledged"]
    assert acked["by"] == "SE-3001" and acked["note"] == "<b>seen</b>"
    assert acked["text"].startswith("alert A00001: pocket test")
    # The same acknowledgement again (at-least-once delivery, a replay) is one entry.
    publish(model, "RL-01", 5, "surveillance.alert_acknowledged", {"id": "A00001", "by": "SE-3001"})
    assert len(hub.acknowledged) == 1


def test_a_forwarded_command_waits_for_the_tables_answer() -> None:
    model, hub = floor()
    state(model, "RL-01", {"game": "roulette", "state": "open"})
    command = {
        "id": "c1",
        "name": "ack_alert",
        "by": "SE-3001",
        "ts": "t",
        "args": {"alert": "A1"},
        "sig": "0" * 64,
    }

    async def run() -> tuple[bool, str | None]:
        return await hub.forward("desk", SITE, "RL-01", command, 1.0)

    ok, error = asyncio.run(run())
    assert not ok and error is not None and error.startswith("not connected to the broker")


def test_an_acknowledged_alert_keeps_its_words_after_its_event_left_the_recent_list() -> None:
    model, hub = floor()
    alert_at(model, "RL-03", 1, "2026-11-29T19:00:00.000000Z")
    for seq in range(2, 260):  # a time-lapse wheel: the alert's event scrolls out
        publish(model, "RL-03", seq, "roulette.result", {"number": "5"})
    publish(model, "RL-03", 260, "surveillance.alert_acknowledged", {"id": "A00001", "by": "SV-1"})
    [acked] = hub.acknowledged
    assert acked["text"].startswith("alert A00001: pocket test p = "), acked


def test_a_console_of_some_sites_shows_only_theirs() -> None:
    model = FloorModel("floor/v1")
    hub = Hub(model, WatchFeed(model, url="mqtt://127.0.0.1:1"), ["north", "east"])
    for site in ("north", "south", "east"):
        body = b'{"game": "roulette", "state": "open"}'
        model.on_message(Topics("floor/v1", site, "RL-01").state, body)
    assert [t["key"] for t in hub.tiles()] == ["east/RL-01", "north/RL-01"]
    assert not hub.shown(("south", "RL-01"))
