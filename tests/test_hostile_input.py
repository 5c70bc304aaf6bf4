"""Hostile text from the broker: property tests on the daemon's real handlers.

Whoever can publish on `P/cmd`, `P/replay/request` or a remote adapter's topics chooses
every byte. These tests send arbitrary bytes, arbitrary JSON and arbitrary Unicode (lone
surrogates, control characters, overlong strings) in every field, through the real
runner with a real journal in a tmp dir (an open roulette table), and assert: a reply or
a documented drop, no halt, the table's state unchanged, the journal still recording.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

import aiomqtt
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_engine_support import WHEEL, make_table
from test_journal_disk_full import KEYS, FakeLink, connect

from floord.adapters.link import read_command, read_replay_request
from floord.adapters.local import Received
from floord.adapters.remote import RemoteDevice
from floord.contract import COMMAND_ROLES, Envelope, EventType, Topics, format_ts
from floord.journal.audit import verify_journal
from floord.journal.store import Journal
from floord.mqtt.link import compact
from floord.operator.commands import build_command, check_command, sign_command
from floord.profiles import load_profile
from floord.table.bus import TableBus
from floord.table.refusal_limiter import RefusalLimiter
from floord.table.runner import TableRunner
from floord.untrusted import escape_text, text_problem

pytestmark = pytest.mark.unit

SETTINGS = settings(
    max_examples=250,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
SITE = "s1"
SURROGATE = "\ud800"

# Any code point, lone surrogates and controls included.
any_char = st.characters(codec=None, exclude_categories=())
unsafe_char = st.one_of(
    st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF),
    st.characters(max_codepoint=0x1F),
    st.characters(min_codepoint=0x7F, max_codepoint=0x9F),
    st.sampled_from(["\u2028", "\u2029"]),
)
any_text = st.text(any_char, max_size=40)
# Text that must be refused: at least one unsafe character, or far too long.
unsafe_text = st.one_of(
    st.tuples(any_text, unsafe_char, any_text).map("".join),
    st.integers(1025, 5000).map(lambda n: "x" * n),
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | any_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(any_text, inner, max_size=4),
    max_leaves=12,
)


def dumps(value: Any) -> bytes:
    """JSON as a stranger may send it: lone surrogates as `\\ud800` escapes."""
    return json.dumps(value, ensure_ascii=True).encode("ascii")


class Open:
    """An open roulette table: the real runner, engine and journal."""

    def __init__(self, directory: Path) -> None:
        table = make_table()
        self.clock = table.clock
        self.journal = Journal(directory / "journal.db")
        self.link = FakeLink()
        self.runner = TableRunner(
            site=SITE,
            table=table.engine.table_id,
            engine=table.engine,
            journal=self.journal,
            bus=TableBus(),
            adapters={},
            operators=KEYS,
            clock=lambda: table.clock.now,
            committed=self.link,
        )
        self.loop = asyncio.new_event_loop()
        connect(self.runner, self.clock)
        for name, args in (
            ("inspect", {"checklist": _checklist(), "note": "morning"}),
            ("open", {}),
        ):
            reply = self.command(build_command(name, "fp1", args, KEYS["fp1"][1], self.clock.now))
            assert reply["ok"], reply
        assert self.runner.engine.public_state()["state"] == "open"

    def command(self, body: dict[str, Any] | bytes, replay_only: bool = False) -> dict[str, Any]:
        raw = body if isinstance(body, bytes) else dumps(body)
        # Each payload on its own: at one instant a flood's refusals past the window's
        # first are counted, not answered (`tests/test_refusal_limiter.py`).
        self.runner.commands._limiter = RefusalLimiter()
        before = len(self.link.results)
        self.loop.run_until_complete(self._send(raw, replay_only))
        assert len(self.link.results) == before + 1, "exactly one reply per command"
        return self.link.results[-1]

    async def _send(self, raw: bytes, replay_only: bool) -> None:
        await self.runner.on_command(raw, replay_only=replay_only)
        await asyncio.gather(*list(self.runner.effects.tasks))

    def last_event(self) -> dict[str, Any]:
        event = self.journal.last_event(self.runner.table)
        assert event is not None
        return event

    def close(self) -> None:
        self.loop.close()
        self.journal.close()


def _checklist() -> dict[str, bool]:
    from test_engine_support import PASSING

    return dict(PASSING)


def _engine_view(runner: TableRunner) -> str:
    return json.dumps(runner.engine.snapshot(), sort_keys=True, default=str)


def _stored_rows_are_utf8(path: Path) -> None:
    db = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    try:
        for (body,) in db.execute("SELECT body FROM events"):
            body.encode("utf-8")
            json.loads(body)
    finally:
        db.close()


@pytest.fixture(scope="module")
def table() -> Any:
    with tempfile.TemporaryDirectory() as tmp:
        opened = Open(Path(tmp))
        try:
            yield opened
        finally:
            opened.close()


# ----- lone surrogates, the payloads that once halted a table ------------------------


@pytest.mark.parametrize("field", ["id", "name", "by"])
@pytest.mark.parametrize("replay_only", [False, True])
def test_a_lone_surrogate_is_a_malformed_refusal_not_a_halt(
    table: Open, field: str, replay_only: bool
) -> None:
    body = {"id": "c1", "name": "open", "by": "FP-1001", "ts": format_ts(table.clock.now)}
    body = {**body, "args": {}, field: body[field] + SURROGATE + "x"}
    before = _engine_view(table.runner)
    reply = table.command(body, replay_only)
    assert reply["ok"] is False and "malformed" in reply["error"]
    assert "a lone surrogate U+D800" in reply["error"]
    compact(reply).encode("utf-8")  # what goes on cmd/result can always be sent
    refused = table.last_event()
    assert refused["type"] == EventType.OPERATOR_COMMAND_REFUSED
    assert refused["data"]["code"] == "malformed"
    # The refusal names what was refused, escaped: it could be stored.
    assert refused["data"][field] == escape_text(body[field])
    assert reply["id"] == refused["data"]["id"]
    assert table.runner.record_failure is None
    assert table.runner.engine.public_state()["state"] == "open"
    assert _engine_view(table.runner) == before


def test_a_signed_command_with_unsafe_args_is_refused_malformed(table: Open) -> None:
    deep: Any = 1
    for _ in range(20):
        deep = [deep]
    for args in ({"note": "a\x1b[2Jb"}, {"x" * 2000: 1}, {"deep": deep}):
        body = build_command("halt", "fp1", args, KEYS["fp1"][1], table.clock.now)
        reply = table.command(body)
        assert reply["ok"] is False and reply["error"].startswith("malformed command: field args")
        assert table.last_event()["data"]["code"] == "malformed"
    assert table.runner.engine.public_state()["state"] == "open"


# ----- P/cmd and P/replay/request: arbitrary everything ---------------------------------

FIELDS = ["id", "name", "by", "ts", "sig", "args key", "args value"]


@st.composite
def hostile_commands(draw: st.DrawFn) -> tuple[bytes, bool]:
    """A payload and whether it was signed with the operator's key over unsafe text."""
    kind = draw(st.sampled_from(["bytes", "json", "field", "signed"]))
    if kind == "bytes":
        return draw(st.binary(max_size=300)), False
    if kind == "json":
        return dumps(draw(json_values)), False
    name = draw(st.sampled_from(sorted(COMMAND_ROLES)))
    by = draw(st.sampled_from(["fp1", "dl1", "FP-404"]))
    body = build_command(name, by, {}, b"not the key", _NOW)
    field = draw(st.sampled_from(FIELDS))
    value: Any = draw(unsafe_text if kind == "signed" else st.one_of(unsafe_text, json_values))
    if field == "args key":
        body["args"] = {value: 1} if isinstance(value, str) else value
    elif field == "args value":
        body["args"] = {"note": value}
    else:
        body[field] = value
    if kind == "signed" and field != "sig" and by in KEYS:
        # Signed by a real operator: only the unsafe text may stop it.
        body = sign_command(body, KEYS[by][1])
    return dumps(body), kind == "signed"


_NOW = make_table().clock.now


@SETTINGS
@given(payload=hostile_commands(), replay_only=st.booleans())
def test_any_payload_on_cmd_is_answered_and_changes_nothing(
    table: Open, payload: tuple[bytes, bool], replay_only: bool
) -> None:
    raw, _ = payload
    table.clock.now = _NOW  # build_command stamped the payload with this time
    before = _engine_view(table.runner)
    seq_before = table.journal.last_seq(table.runner.table)
    reply = table.command(raw, replay_only)
    assert reply["ok"] is False
    compact(reply).encode("utf-8")
    assert text_problem(reply["error"], max_length=600) is None
    # Recorded: one refusal, nothing else, the table still open and recording.
    assert table.journal.last_seq(table.runner.table) == seq_before + 1
    refused = table.last_event()
    assert refused["type"] == EventType.OPERATOR_COMMAND_REFUSED
    for key in ("id", "name", "by"):
        value = refused["data"][key]
        assert value is None or text_problem(value, max_length=128) is None
    assert table.runner.record_failure is None
    assert table.runner.engine.public_state()["state"] == "open"
    assert _engine_view(table.runner) == before


def test_the_record_stays_whole_after_the_hostile_commands(table: Open) -> None:
    _stored_rows_are_utf8(table.journal.path)
    assert verify_journal(table.journal.path).broken is None


@SETTINGS
@given(raw=st.one_of(st.binary(max_size=200), json_values.map(dumps)))
def test_check_command_returns_a_refusal_for_any_bytes(raw: bytes) -> None:
    outcome = check_command(raw, operators=KEYS, now=_NOW, id_used=lambda _: False)
    assert outcome.code in {"malformed", "unknown_operator", "bad_signature"}
    for value in (outcome.command_id, outcome.name, outcome.by):
        assert value is None or text_problem(value, max_length=128) is None


# ----- the remote adapter's topics -------------------------------------------------------


class Remote:
    """The daemon's side of a remote wheel in front of the open table's runner."""

    def __init__(self, opened: Open) -> None:
        self.opened = opened
        runner = opened.runner
        self.topics = Topics("floor/v1", SITE, runner.table)
        self.device = RemoteDevice(
            site=SITE,
            table=runner.table,
            device=WHEEL,
            profile=load_profile("cammegh-ss2"),
            topics=self.topics,
            journal=opened.journal,
            sink=self._deliver,
            clock=lambda: opened.clock.now,
            url="mqtt://127.0.0.1:1",
            username=None,
            password=None,
        )
        self.delivered: list[Received] = []
        self._taken: list[Received] = []

    def _deliver(self, item: Received) -> None:
        self.delivered.append(item)
        self._taken.append(item)

    def message(self, topic: str, raw: bytes, retain: bool = False) -> None:
        async def handle() -> None:
            self.device._on_message(aiomqtt.Message(topic, raw, 1, retain, 1, None))
            # What the device handed on, taken by the runner as its loop takes its bus.
            taken, self._taken = self._taken, []
            for item in taken:
                await self.opened.runner.take([item])

        self.opened.loop.run_until_complete(handle())


@st.composite
def remote_messages(draw: st.DrawFn, next_seq: int) -> tuple[str, bytes]:
    where = draw(st.sampled_from(["events", "replay", "status"]))
    kind = draw(st.sampled_from(["bytes", "json", "envelope"]))
    if kind == "bytes":
        raw = draw(st.binary(max_size=300))
    elif kind == "json":
        body = draw(json_values)
        if isinstance(body, dict) and body.get("online") is False:
            body["online"] = True  # an offline word is the adapter's to give (contract)
        raw = dumps(body)
    else:
        body = {
            "v": 1,
            "site": SITE,
            "table": "R01",
            "seq": next_seq,
            "ts": format_ts(_NOW),
            "type": EventType.DEVICE_PROTOCOL_ERROR,
            "source": WHEEL,
            "data": {"reason": "bad frame", "raw": "*Q"},
            "rule": None,
            "round": None,
        }
        field = draw(st.sampled_from([*body, "data key", "data value"]))
        value = draw(st.one_of(unsafe_text, json_values))
        if field == "data key":
            body["data"] = {value: "x"} if isinstance(value, str) else value
        elif field == "data value":
            body["data"] = {"reason": value, "raw": draw(any_text)}
        else:
            body[field] = value
        raw = dumps(body)
        where = "events"
    return where, raw


@SETTINGS
@given(data=st.data())
def test_any_adapter_message_is_taken_or_dropped_and_never_halts(
    table: Open, data: st.DataObject
) -> None:
    remote = getattr(table, "remote", None)
    if remote is None:
        remote = table.remote = Remote(table)  # type: ignore[attr-defined]
    where, raw = data.draw(remote_messages(remote.device._order.next))
    topic = {
        "events": remote.topics.device_events(WHEEL),
        "replay": remote.topics.device_replay(WHEEL),
        "status": remote.topics.device_status(WHEEL),
    }[where]
    halts = table.runner.engine.public_state().get("halt_reasons")
    delivered = len(remote.delivered)
    remote.message(topic, raw)  # raises nothing, whatever came
    for item in remote.delivered[delivered:]:
        # Taken: an event of the device (escaped), or the drop recorded as a protocol error.
        assert item.event.type in (EventType.DEVICE_PROTOCOL_ERROR,)
        Envelope(SITE, "R01", 1, "", "", "", item.event.data).to_json().encode("utf-8")
    assert remote.device.broken is None
    assert table.runner.record_failure is None
    assert table.runner.engine.public_state()["state"] == "open"
    assert table.runner.engine.public_state().get("halt_reasons") == halts


def test_the_record_stays_whole_after_the_adapter_messages(table: Open) -> None:
    _stored_rows_are_utf8(table.journal.path)
    assert verify_journal(table.journal.path).broken is None


# ----- what the adapter process takes on its cmd and replay/request topics ---------------


@SETTINGS
@given(
    raw=st.one_of(
        st.binary(max_size=200),
        json_values.map(dumps),
        st.fixed_dictionaries(
            {"v": st.just(1), "id": st.one_of(any_text, unsafe_text), "name": any_text},
            optional={"args": json_values, "from_seq": json_values, "announce": json_values},
        ).map(dumps),
    )
)
def test_the_adapter_takes_a_safe_request_or_drops_it(raw: bytes) -> None:
    for read in (lambda r: read_command(r, WHEEL), read_replay_request):
        try:
            taken = read(raw)
        except (ValueError, TypeError):
            continue  # the documented drop: a log line, nothing else
        text = compact(taken.args if hasattr(taken, "args") else taken)
        text.encode("utf-8")
        name = taken.name if hasattr(taken, "name") else taken["id"]
        assert text_problem(name, max_length=128) is None


def test_the_journal_stores_a_lone_surrogate_escaped(tmp_path: Path) -> None:
    """The journal's own guard: text UTF-8 cannot hold never makes an append fail."""
    journal = Journal(tmp_path / "j.db")
    env = Envelope(
        SITE, "R01", 1, format_ts(_NOW), "device.protocol_error", WHEEL, {"r": SURROGATE}
    )
    [stored] = journal.append_many("R01", [lambda seq: env])
    assert stored.data == {"r": "\\ud800"}
    assert json.loads(journal.read_range("R01", 1, 1)[0])["data"] == {"r": "\\ud800"}
    journal.close()
    assert verify_journal(tmp_path / "j.db").broken is None
