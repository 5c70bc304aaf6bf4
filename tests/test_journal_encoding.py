"""An event is encoded once for its hash and once for storage, into exactly the bytes
the envelope's JSON round trip gave (`floord.journal.append`)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from floord.contract import Envelope
from floord.journal.chain import event_hash
from floord.journal.store import Journal
from floord.untrusted import storable


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
