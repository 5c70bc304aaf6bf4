"""`floord.mqtt.takeover`: which retained status, read after a reconnection, names another
process with this link's client id (the two-process test is tests/test_mqtt_takeover.py)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from floord.contract import STATUS_INSTANCE_FIELDS, format_ts
from floord.mqtt.takeover import Instance, TakeoverWatch, this_instance

pytestmark = pytest.mark.unit

STARTED = datetime(2026, 12, 4, 16, 0, tzinfo=UTC)
ME = Instance("aaaa", 100, "box-1", STARTED)
OTHER = Instance("bbbb", 200, "box-2", STARTED - timedelta(hours=1))


def status(instance: Instance, ts: datetime, online: bool = True) -> bytes:
    body = {"online": online, "ts": format_ts(ts), **instance.field()}
    return json.dumps(body).encode()


def test_the_instance_field_names_the_process() -> None:
    field = ME.field()["instance"]
    assert tuple(field) == STATUS_INSTANCE_FIELDS
    assert field == {"id": "aaaa", "pid": 100, "host": "box-1", "started": format_ts(STARTED)}
    mine = this_instance(STARTED)
    assert this_instance(STARTED + timedelta(seconds=5)) is mine  # one per process
    assert len(mine.token) == 16


def test_the_first_connection_never_calls_a_status_a_rival() -> None:
    watch = TakeoverWatch(ME)
    watch.connected()
    # The previous process's online: true (it was killed; its will not sent yet).
    assert watch.read(status(OTHER, STARTED - timedelta(minutes=1))) is None


def test_after_a_reconnection_another_instance_since_we_started_is_a_rival() -> None:
    watch = TakeoverWatch(ME)
    watch.connected()
    assert watch.read(status(OTHER, STARTED - timedelta(minutes=1))) is None
    watch.connected()
    # The previous process's last word again (its will, registered before we started).
    assert watch.read(status(OTHER, STARTED - timedelta(seconds=30), online=False)) is None
    # Our own status: the broker kept what we said.
    assert watch.read(status(ME, STARTED + timedelta(seconds=5))) is None
    # That process again, since we started: it is alive and has our client id.
    said = watch.read(status(OTHER, STARTED + timedelta(seconds=9)))
    assert said == {
        "other_pid": "200",
        "other_host": "box-2",
        "other_ts": format_ts(STARTED + timedelta(seconds=9)),
        "other_online": "True",
    }


def test_a_third_instance_is_a_rival_whatever_its_clock_says() -> None:
    watch = TakeoverWatch(ME)
    watch.connected()
    watch.connected()  # the first connection found no status at all
    third = Instance("cccc", 300, "box-3", STARTED)
    assert watch.read(status(third, STARTED - timedelta(days=1))) is not None


def test_bodies_without_an_instance_are_not_rivals() -> None:
    watch = TakeoverWatch(ME)
    watch.connected()
    watch.connected()
    assert watch.read(b"not json") is None
    assert watch.read(b"[1, 2]") is None
    assert watch.read(json.dumps({"online": True, "ts": format_ts(STARTED)}).encode()) is None
