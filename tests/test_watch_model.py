"""The console's model, without a terminal or a broker: gaps, replays, duplicates, stale."""

from __future__ import annotations

import json
from typing import Any

import pytest

from floord.contract import REPLAY_MAX_EVENTS, Envelope, Topics
from floord.watch.detail import detail_text
from floord.watch.model import FloorModel, Notice
from floord.watch.render import HALTED, row_style, row_values
from floord.watch.streams import SeqTracker

pytestmark = pytest.mark.unit

PREFIX = "floor/v1"
SITE = "casino-1"


def envelope(table: str, seq: int, kind: str = "wheel.idle", **more: Any) -> bytes:
    body = {"spin": seq} if "data" not in more else more.pop("data")
    env = Envelope(
        site=SITE,
        table=table,
        seq=seq,
        ts="2026-11-29T19:17:40.123456Z",
        type=kind,
        source=more.pop("source", "engine"),
        data=body,
        **more,
    )
    return env.to_json().encode()


def topics(table: str) -> Topics:
    return Topics(PREFIX, SITE, table)


def feed(model: FloorModel, table: str, *seqs: int, topic: str | None = None) -> list[Notice]:
    notices: list[Notice] = []
    for seq in seqs:
        notices += model.on_message(topic or topics(table).events, envelope(table, seq))
    return notices


def kinds(notices: list[Notice]) -> list[str]:
    return [n.kind for n in notices]


def test_tracker_keeps_missing_ranges_and_splits_them_as_they_fill() -> None:
    t = SeqTracker()
    assert t.accept(3).kind == "new"  # the baseline: nothing before it is missing
    assert t.accept(4).gap is None
    seen = t.accept(9)
    assert (seen.kind, seen.gap) == ("new", (5, 8))
    assert t.accept(6).kind == "fill"
    assert t.missing == [(5, 5), (7, 8)]
    assert t.describe() == "5, 7..8"
    assert t.accept(6).kind == "duplicate"
    assert t.accept(2).kind == "duplicate"
    for seq in (5, 7, 8):
        assert t.accept(seq).kind == "fill"
    assert t.complete and t.missing_count() == 0


def test_a_gap_marks_the_table_stale_asks_for_a_replay_and_the_fill_clears_it() -> None:
    model = FloorModel(PREFIX, can_replay=True, retry_s=5.0)
    feed(model, "RL-01", 1, 2)
    notices = feed(model, "RL-01", 5)
    assert "gap" in kinds(notices) and "stale" in kinds(notices)
    gap = next(n for n in notices if n.kind == "gap")
    assert (gap.data["from_seq"], gap.data["to_seq"], gap.data["fillable"]) == (3, 4, True)
    view = model.tables[(SITE, "RL-01")]
    assert view.is_stale and "events 3..4 missing; replay requested" in view.stale_text()

    asked = model.take_requests(now=100.0)
    assert [(r.table, r.from_seq, r.to_seq) for r in asked] == [("RL-01", 3, 4)]
    assert model.take_requests(now=101.0) == []  # not again before retry_s
    assert [r.from_seq for r in model.take_requests(now=105.0)] == [3]  # asked again

    filled = feed(model, "RL-01", 3, topic=topics("RL-01").replay)
    assert filled[0].data["filled"] is True
    assert view.is_stale and "events 4 missing" in view.stale_text()
    filled = feed(model, "RL-01", 4, topic=topics("RL-01").replay)
    assert kinds(filled) == ["event", "gap_filled", "fresh"]
    assert not view.is_stale
    assert model.take_requests(now=200.0) == []
    assert [e.seq for e in view.recent] == [1, 2, 3, 4, 5]  # the record in seq order
    assert view.last_event is not None and view.last_event["seq"] == 5


def test_a_replayed_old_event_does_not_move_the_table_backwards() -> None:
    model = FloorModel(PREFIX, can_replay=True)
    t = topics("RL-01")
    model.on_message(t.events, envelope("RL-01", 1, "table.opened", data={}))
    model.on_message(t.events, envelope("RL-01", 3, "table.halted", data={"reasons": []}))
    model.on_message(t.replay, envelope("RL-01", 2, "table.opened", data={}))
    view = model.tables[(SITE, "RL-01")]
    assert view.state == "halted"
    assert not view.is_stale


def test_duplicates_are_dropped_silently() -> None:
    model = FloorModel(PREFIX)
    assert kinds(feed(model, "RL-01", 1, 2)) == ["event", "event"]
    model.take_dirty()
    assert feed(model, "RL-01", 2, 1) == []
    assert feed(model, "RL-01", 2, topic=topics("RL-01").replay) == []
    assert model.take_dirty() == set()
    assert [e.seq for e in model.tables[(SITE, "RL-01")].recent] == [1, 2]


def test_without_an_operator_key_a_gap_is_reported_unfilled_and_never_requested() -> None:
    model = FloorModel(PREFIX, can_replay=False)
    notices = feed(model, "RL-02", 10, 13)
    gap = next(n for n in notices if n.kind == "gap")
    assert gap.data["fillable"] is False
    view = model.tables[(SITE, "RL-02")]
    assert "unfilled (no operator key to replay)" in view.stale_text()
    assert model.take_requests(now=1e9) == []


def test_a_refused_replay_is_said_and_not_asked_again() -> None:
    model = FloorModel(PREFIX, can_replay=True, retry_s=1.0)
    feed(model, "RL-01", 1, 4)
    assert len(model.take_requests(now=0.0)) == 1
    notices = model.replay_answered(SITE, "RL-01", False, "role_not_allowed")
    assert kinds(notices) == ["replay_refused", "stale"]
    assert "replay refused: role_not_allowed" in model.tables[(SITE, "RL-01")].stale_text()
    assert model.take_requests(now=10.0) == []


def test_a_long_gap_is_asked_within_the_contract_limit() -> None:
    model = FloorModel(PREFIX, can_replay=True)
    feed(model, "RL-01", 1, 50_000)
    (req,) = model.take_requests(now=0.0)
    assert (req.from_seq, req.to_seq) == (2, 1 + REPLAY_MAX_EVENTS)


def test_device_stream_gaps_are_noted_but_do_not_make_the_table_stale() -> None:
    model = FloorModel(PREFIX, can_replay=True)
    device_topic = topics("RL-01").device_events("wheel")
    feed(model, "RL-01", 1, 2, topic=device_topic)
    notices = feed(model, "RL-01", 6, topic=device_topic)
    gap = next(n for n in notices if n.kind == "gap")
    assert (gap.data["stream"], gap.data["fillable"]) == ("devices/wheel", False)
    view = model.tables[(SITE, "RL-01")]
    assert not view.is_stale
    assert "devices/wheel missed 3..5" in view.notes["devices/wheel"]
    assert model.take_requests(now=0.0) == []
    # The table stream's seq is separate: seq 1 on the record is not a duplicate.
    assert kinds(feed(model, "RL-01", 1)) == ["event"]


def test_a_restored_journal_goes_on_from_the_backups_heads() -> None:
    """A box restored from a backup uses seqs the console already saw: the record's
    `journal.restored` (docs/contract.md, "Restores") says from where its streams go on."""
    model = FloorModel(PREFIX, can_replay=True)
    device_topic = topics("RL-01").device_events("wheel")
    feed(model, "RL-01", 1, 2, 3, 4, 5, 6)
    feed(model, "RL-01", 1, 2, 3, 4, 5, 6, 7, 8, topic=device_topic)
    data = {
        "head": {"seq": 3, "hash": "a"},
        "streams": {"RL-01/devices/wheel": {"seq": 4, "hash": "b"}},
        "lost": [{"stream": "RL-01", "from_seq": 4, "to_seq": 6, "fork": False}],
    }
    restored = envelope("RL-01", 4, "journal.restored", data=data, hash="c" * 64)
    for _ in range(2):  # delivered twice (at least once): taken once
        notices = model.on_message(topics("RL-01").events, restored)
    view = model.tables[(SITE, "RL-01")]
    assert "the record goes on after seq 3" in view.notes["restored"]
    assert kinds(notices) == []  # the second delivery is a duplicate
    assert kinds(feed(model, "RL-01", 5, 6)) == ["event", "event"]  # new again, no gap
    assert kinds(feed(model, "RL-01", 5, topic=device_topic)) == ["event"]
    assert not view.is_stale and "devices/wheel" not in view.notes
    # Without the event, a seq seen again is a duplicate, as ever.
    assert kinds(feed(model, "RL-01", 5)) == []


def test_a_last_will_marks_the_table_stale_until_it_is_back_online() -> None:
    model = FloorModel(PREFIX)
    status = topics("RL-03").status
    will = {"v": 1, "online": False, "site": SITE, "table": "RL-03", "reason": "connection lost"}
    notices = model.on_message(status, json.dumps({**will, "ts": "2026-01-01T00:00:00Z"}).encode())
    assert kinds(notices) == ["status", "stale"]
    view = model.tables[(SITE, "RL-03")]
    assert "table offline: connection lost" in view.stale_text()
    assert row_values(view)["state"].endswith("(offline)")
    back = {**will, "online": True, "reason": "connected", "ts": "2026-01-01T00:01:00Z"}
    assert kinds(model.on_message(status, json.dumps(back).encode())) == ["status", "fresh"]
    assert not view.is_stale


def test_a_status_saying_its_lost_connection_is_noted_once_until_a_fresh_run() -> None:
    """A node that died took the box's last will with it: the box's next `online: true`
    says the connection it lost (`lost`), and the console shows it."""
    model = FloorModel(PREFIX)
    status = topics("RL-03").status
    lost = {
        "broker": "10.0.0.11:1883",
        "since": "2026-01-01T00:00:00.000Z",
        "lost_ts": "2026-01-01T00:05:00.000Z",
        "back_ts": "2026-01-01T00:05:09.000Z",
    }
    body = {"v": 1, "online": True, "site": SITE, "table": "RL-03", "reason": "connected"}
    back = {**body, "broker": "10.0.0.12:1883", "ts": lost["back_ts"], "lost": lost}
    notices = model.on_message(status, json.dumps(back).encode())
    assert kinds(notices) == ["status", "link_lost"]
    assert notices[1].data == {"lost": lost, "broker": "10.0.0.12:1883"}
    view = model.tables[(SITE, "RL-03")]
    note = (
        "link lost on 10.0.0.11:1883 at 2026-01-01T00:05:00.000Z, "
        "back on 10.0.0.12:1883 at 2026-01-01T00:05:09.000Z"
    )
    assert view.notes == {"link": note} and not view.is_stale
    assert note in row_values(view)["note"] and note in detail_text(view).plain
    # The same retained status again (the console resubscribed): no second notice.
    assert kinds(model.on_message(status, json.dumps(back).encode())) == ["status"]
    # A daemon run that lost nothing clears it.
    fresh = {**body, "broker": "10.0.0.12:1883", "ts": "2026-01-01T01:00:00.000Z"}
    assert kinds(model.on_message(status, json.dumps(fresh).encode())) == ["status"]
    assert view.notes == {} and view.lost is None


def test_the_console_losing_its_broker_marks_every_table_stale() -> None:
    model = FloorModel(PREFIX)
    model.set_connected(True, "connected")
    feed(model, "RL-01", 1)
    feed(model, "RL-02", 1)
    notices = model.set_connected(False, "connection refused")
    assert kinds(notices) == ["connection", "stale", "stale"]
    assert model.totals().stale == 2
    model.set_connected(True, "connected")
    assert model.totals().stale == 0


def test_a_craps_tables_dice_alert_is_an_open_alert_not_a_wheel_test() -> None:
    """A dice alert names its die and set; the table has no wheel."""
    model = FloorModel(PREFIX)
    t = topics("CR-01")
    dice = {"id": "A00001", "test": "dice_faces", "p_value": 0.0002, "level": 0.001,
            "die": "D2", "dice_set": "D1,D2,D3,D4,D5"}  # fmt: skip
    state = {"table": "CR-01", "game": "craps", "state": "open", "alerts": [dice]}
    model.on_message(t.state, json.dumps(state).encode())
    view = model.tables[(SITE, "CR-01")]
    assert set(view.alerts) == {"A00001"} and not view.wheel.present
    shooter = {**dice, "id": "A00002", "test": "shooter_signature", "shooter": 3}
    del shooter["die"]
    model.on_message(t.events, envelope("CR-01", 5, "surveillance.alert", data=shooter))
    assert set(view.alerts) == {"A00001", "A00002"} and not view.wheel.present
    assert row_values(view)["alerts"] == "2 open"
    shown = detail_text(view).plain
    assert "alert A00001: dice_faces test p = 0.0002 (level 0.001, die D2)" in shown
    assert "shooter_signature test p = 0.0002 (level 0.001, shooter at seat 3)" in shown
    assert "results seen" not in shown  # no wheel lines for a Craps table


def test_a_shuffle_alert_is_an_open_alert_of_its_shoe_not_a_wheel_test() -> None:
    model = FloorModel(PREFIX)
    t = topics("BA-01")
    slug = {
        "id": "A00001",
        "test": "shuffle_slug",
        "p_value": 0.0003,
        "level": 0.001,
        "window": 3,
        "shoe": 4,
        "statistic": 5,
    }
    state = {"table": "BA-01", "game": "baccarat", "state": "open", "alerts": [slug]}
    model.on_message(t.state, json.dumps(state).encode())
    view = model.tables[(SITE, "BA-01")]
    clumping = {**slug, "id": "A00002", "test": "shuffle_clumping", "shoe": 5}
    model.on_message(t.events, envelope("BA-01", 5, "surveillance.alert", data=clumping))
    assert set(view.alerts) == {"A00001", "A00002"} and not view.wheel.present
    shown = detail_text(view).plain
    assert "alert A00001: shuffle_slug test p = 0.0003 (level 0.001, shoe 4)" in shown
    assert "window" not in shown


def test_state_halt_alerts_voids_and_wheel_analytics() -> None:
    model = FloorModel(PREFIX)
    t = topics("RL-01")
    state = {
        "table": "RL-01",
        "game": "roulette",
        "wheel": "single_zero",
        "state": "halted",
        "underlying": "open",
        "halt_reasons": [{"code": "device_fault", "device": "wheel", "detail": "F 3"}],
        "devices": {"wheel": {"online": False}},
        "round": None,
        "alerts": [{"id": "A00001", "test": "sector", "p_value": 0.0004, "level": 0.001}],
        "last_result": {"number": "17"},
    }
    assert kinds(model.on_message(t.state, json.dumps(state).encode())) == ["state"]
    view = model.tables[(SITE, "RL-01")]
    assert view.halted and view.halt_reason == "device_fault (wheel): F 3"
    assert view.devices == {"wheel": False}
    assert set(view.alerts) == {"A00001"}
    assert view.wheel.present and view.wheel.tests["sector"]["p_value"] == 0.0004
    assert HALTED in row_style(view)
    assert model.totals().halted == 1 and model.totals().alerts == 1

    void = envelope("RL-01", 7, "round.voided", data={"reason": "table_halted"})
    model.on_message(t.events, void)
    result = envelope("RL-01", 8, "roulette.result", data={"number": "32"})
    model.on_message(t.events, result)
    ack = envelope("RL-01", 9, "surveillance.alert_acknowledged", data={"id": "A00001"})
    model.on_message(t.events, ack)
    resumed = envelope("RL-01", 10, "table.resumed", data={"by": "FP-1"})
    model.on_message(t.events, resumed)
    assert (view.voids, view.last_void) == (1, "table_halted")
    assert list(view.wheel.results) == ["17", "32"]
    assert view.alerts == {} and view.state == "open" and not view.halt_reason
    assert row_style(view) == ""


def test_bad_messages_are_reported_never_raised() -> None:
    model = FloorModel(PREFIX)
    t = topics("RL-01")
    for topic, payload in [
        (t.events, b"not json"),
        (t.events, b"[1,2]"),
        (t.events, json.dumps({"seq": 1}).encode()),
        (t.events, envelope("RL-02", 1)),  # another table's envelope on RL-01's topic
        (t.status, b'{"online": "yes"}'),
        (t.events, envelope("RL-01", 1).replace(b'"seq":1', b'"seq":-4')),
    ]:
        (notice,) = model.on_message(topic, payload)
        assert notice.kind == "bad_message" and notice.data["topic"] == topic
    assert model.on_message("other/v1/x/y/events", envelope("RL-01", 1)) == []
    assert model.on_message(t.state, b"") == []  # a cleared retained topic


def test_the_site_filter_and_the_recent_limit() -> None:
    model = FloorModel(PREFIX, site="casino-2", recent=5)
    assert feed(model, "RL-01", 1) == []  # casino-1 is not watched
    other = Topics(PREFIX, "casino-2", "RL-01")
    for seq in range(1, 12):
        env = Envelope("casino-2", "RL-01", seq, "2026-11-29T19:17:40.123456Z", "wheel.idle", "e")
        model.on_message(other.events, env.to_json().encode())
    view = model.tables[("casino-2", "RL-01")]
    assert [e.seq for e in view.recent] == [7, 8, 9, 10, 11]
    assert json.loads(Notice("gap", "casino-2", "RL-01", {"from_seq": 1}).to_json()) == {
        "kind": "gap",
        "site": "casino-2",
        "table": "RL-01",
        "from_seq": 1,
    }


def test_a_notice_of_text_utf8_cannot_hold_is_still_a_line_of_utf8() -> None:
    """A device's retained body with a lone surrogate (`"\\ud800"` in its JSON) once ended
    `floord watch --json` with a traceback: its line could not be written."""
    line = Notice(
        "device", "casino-1", "RL-01", {"serial": "\ud800x", "maker": "Cammegh §"}
    ).to_json()
    line.encode("utf-8")
    assert json.loads(line)["serial"] == "\\ud800x" and "§" in line


def test_a_console_command_and_its_answer_show_on_the_row_while_they_matter() -> None:
    model = FloorModel(PREFIX)
    alert = {"id": "A00002", "test": "pocket", "p_value": 0.0001, "level": 0.001}
    model.on_message(
        topics("RL-01").state, json.dumps({"state": "open", "alerts": [alert]}).encode()
    )
    args = {"alert": "A00002", "note": "checked"}
    sent = model.command_sent(SITE, "RL-01", "ack_alert", args)
    assert [n.kind for n in sent] == ["command_sent"]
    view = model.tables[(SITE, "RL-01")]
    assert row_values(view)["note"] == "ack_alert A00002: sent, waiting for the table's answer"
    why = "'ack_alert' may be issued by security, supervisor; operator 'FP-1' is floorperson"
    answered = model.command_answered(SITE, "RL-01", False, why)
    assert [(n.kind, n.data["error"]) for n in answered] == [("command_refused", why)]
    assert row_values(view)["note"] == f"ack_alert A00002: refused: {why}"
    # Once the alert is closed (by someone else), the old refusal leaves the row.
    acked = {"id": "A00002", "by": "SE-1", "note": "", "alert": alert}
    model.on_message(
        topics("RL-01").events,
        envelope("RL-01", 1, "surveillance.alert_acknowledged", data=acked),
    )
    assert not view.alerts and row_values(view)["note"] == ""
    assert view.command is not None and view.command.ok is False  # the detail still has it
    assert model.command_answered(SITE, "RL-01", True, None)[0].kind == "command_accepted"
    assert view.command.text() == "ack_alert A00002: accepted"


def test_a_console_keeps_at_most_its_tables_and_says_once_it_ignores_more() -> None:
    """Made-up table names under the prefix (60,000 held a console at 170 MB) stop at the
    bound; the tables it has go on."""
    model = FloorModel(PREFIX, max_tables=3)
    for n in range(3):
        model.on_message(topics(f"RL-{n}").state, json.dumps({"state": "open"}).encode())
    said = model.on_message(topics("GHOST-1").state, b"{}")
    assert [n.kind for n in said] == ["bad_message"] and "more than 3 tables" in said[0].data[
        "error"
    ]
    assert model.on_message(topics("GHOST-2").state, b"{}") == []
    assert len(model.tables) == 3 and model.ignored == 2
    assert model.on_message(topics("RL-0").state, json.dumps({"state": "closed"}).encode())
