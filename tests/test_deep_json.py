"""JSON nested deeper than the parser goes (a few hundred kilobytes of `[`) is text that
is not JSON, wherever it comes from: an MQTT payload, a journal's row, a bundle's line.
`json.loads` raises RecursionError for it, which no `except ValueError` catches; each
edge reads through `floord.untrusted.read_json`, so it is one refusal or one named
error, never a crash or a traceback."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from floord.journal.chain import verify_bodies
from floord.mqtt.takeover import STATUS_INSTANCE, TakeoverWatch, this_instance
from floord.untrusted import read_json
from floord.watch.model import FloorModel

pytestmark = pytest.mark.unit

DEEP = "[" * 100_000


def test_read_json_reads_json_and_names_what_is_nested_too_deeply() -> None:
    assert read_json('{"a": [1, 2.5, null]}') == {"a": [1, 2.5, None]}
    assert read_json(b'{"a": 1}') == {"a": 1}
    with pytest.raises(RecursionError):
        json.loads(DEEP)  # what the edges met before
    with pytest.raises(ValueError, match="nested too deeply"):
        read_json(DEEP)
    with pytest.raises(ValueError):
        read_json("{not json")


def test_the_console_takes_a_deep_payload_as_a_bad_message() -> None:
    model = FloorModel("floor/v1")
    [notice] = model.on_message("floor/v1/casino-1/RL-01/state", DEEP.encode())
    assert notice.kind == "bad_message"
    assert "nested too deeply" in notice.data["error"]


def test_a_deep_retained_status_names_no_rival() -> None:
    watch = TakeoverWatch(this_instance(datetime(2026, 12, 7, tzinfo=UTC)))
    watch.connected()
    watch.connected()  # a reconnection: a status naming another instance is a rival
    assert watch.read(DEEP.encode()) is None
    other = {STATUS_INSTANCE: {"id": "someone-else", "host": "box2", "pid": 7}}
    assert watch.read(json.dumps(other).encode()) is not None  # the check still works


def test_a_journal_row_nested_too_deeply_is_an_unreadable_break(tmp_path: Path) -> None:
    found = verify_bodies([("RL-01", 1, DEEP)])
    assert found is not None
    assert (found.stream, found.seq, found.kind) == ("RL-01", 1, "unreadable")
    assert "nested too deeply" in found.detail


@pytest.mark.parametrize("stored", [None, 5, 2.5])
def test_a_row_that_is_no_text_is_not_json_either(stored: object) -> None:
    """A journal row's body NULL or a number (the file edited): a ValueError, as for
    text that is not JSON, never json.loads's TypeError."""
    with pytest.raises(ValueError, match="JSON text expected"):
        read_json(stored)
    found = verify_bodies([("RL-01", 1, stored)])  # type: ignore[list-item]
    assert found is not None and found.kind == "unreadable"
