"""An event is encoded once for its hash and once for storage, into exactly the bytes
the envelope's JSON round trip gave (`floord.journal.append`)."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from dataclasses import replace
from enum import StrEnum
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from floord.contract import Envelope
from floord.journal.chain import event_hash
from floord.journal.store import Journal
from floord.untrusted import storable

pytestmark = pytest.mark.unit


def test_the_stored_bytes_are_the_round_trip_s_with_the_hash_last(tmp_path: Path) -> None:
    data = {"n": 2, 10: "ten", 2: (1, [2, 3]), "text": "caf\u00e9 \ud800", "nested": {True: None}}
    envelope = Envelope(
        site="s1", table="t1", seq=1, ts="2026-01-01T00:00:00.000Z", type="x.y",
        source="wheel", data=data, rule=None, round="r1",
    )  # fmt: skip
    journal = Journal(tmp_path / "j.db")
    try:
        stored = journal.append("t1", lambda seq: envelope)
        [text] = journal.read_range("t1", 1, 1)
    finally:
        journal.close()
    # What the journal did before: to JSON, back, escape, hash, to JSON again.
    body = storable(json.loads(replace(envelope, prev=stored.prev).to_json()))
    body["hash"] = event_hash(body)
    assert text == json.dumps(body, separators=(",", ":"), ensure_ascii=False)
    assert stored.hash == body["hash"] == json.loads(text)["hash"]
    assert stored.data == body["data"]


class _Kind(StrEnum):
    STRAIGHT = "straight"


_TEXT = st.text(st.characters(codec=None, categories=None), max_size=8) | st.sampled_from(
    ["", "caf\u00e9", "\ud800", "a\udfffb", "\u00e9\ud83c", "plain"]
)
_KEYS = _TEXT | st.integers(-5, 5) | st.booleans() | st.none() | st.just(_Kind.STRAIGHT)
_DATA = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _TEXT,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.tuples(inner, inner)
        | st.dictionaries(_KEYS, inner, max_size=3)
    ),
    max_leaves=12,
)


@pytest.fixture(scope="module")
def journal(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Journal]:
    """One journal for every example: each stores its event on a stream of its own."""
    made = Journal(tmp_path_factory.mktemp("encoding") / "j.db")
    try:
        yield made
    finally:
        made.close()


_STREAMS = (f"t{n}" for n in itertools.count(1))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.dictionaries(_KEYS, _DATA, max_size=4), text=_TEXT)
def test_any_event_is_stored_as_its_round_trip_would_be(
    journal: Journal, data: dict[Any, Any], text: str
) -> None:
    """The same bytes as the round trip for any data an event may hold: ASCII or not,
    lone surrogates, keys of every kind JSON writes (the encoder's ASCII fast paths)."""
    stream = next(_STREAMS)
    envelope = Envelope(
        site="s1",
        table=stream,
        seq=1,
        ts="2026-01-01T00:00:00.000Z",
        type="x.y",
        source=text or "wheel",
        data=data,
        rule=text,
        round="r1",
    )
    stored = journal.append(stream, lambda seq: envelope)
    [stored_text] = journal.read_range(stream, 1, 1)
    body = storable(json.loads(replace(envelope, prev=stored.prev).to_json()))
    body["hash"] = event_hash(body)
    assert stored_text == json.dumps(body, separators=(",", ":"), ensure_ascii=False)
    assert stored.data == body["data"]
    assert all(type(k) is str for k in stored.data)
