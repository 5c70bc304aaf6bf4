"""A table's snapshot is encoded once for both its hash and its stored text, into the
bytes and the hash the older path gave (encode as ASCII JSON, decode, encode
canonically, hash): journals written before and after verify alike
(`floord.journal.integrity.encode_snapshot`)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from floord.contract import Envelope
from floord.journal.integrity import check_snapshot, encode_snapshot, snapshot_hash
from floord.journal.store import Journal

pytestmark = pytest.mark.unit

# The stored form as it was written: sorted keys, compact, ASCII.
_ASCII = json.JSONEncoder(separators=(",", ":"), sort_keys=True)

# Text with what escaping treats apart: ASCII, DEL, controls, quotes, the BMP past
# ASCII (a line separator, a section sign), past the BMP (an emoji, the last code point).
_CHARS = st.sampled_from(
    [
        "a",
        "Z",
        "\x7f",
        "\x00",
        "\x1f",
        '"',
        "\\",
        "\u2028",
        "\u00a7",
        "\uffff",
        "\U0001f600",
        "\U0010ffff",
        " ",
    ]
)
_TEXT = st.lists(_CHARS, max_size=6).map("".join)
_LEAF = st.none() | st.booleans() | st.integers() | _TEXT | st.floats(allow_nan=False)
_STATE = st.recursive(
    _LEAF, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4)
)


def _before(table: str, after_seq: int, after_hash: str | None, state: Any) -> tuple[str, str]:
    text = _ASCII.encode(state)
    return text, snapshot_hash(table, after_seq, after_hash, json.loads(text))


@given(state=st.dictionaries(_TEXT, _STATE, max_size=5), table=_TEXT, seq=st.integers(0, 10**9))
def test_one_encode_gives_the_stored_text_and_hash_of_the_round_trip(
    state: dict[str, Any], table: str, seq: int
) -> None:
    for after_hash in (None, "ab" * 32):
        assert encode_snapshot(table, seq, after_hash, state) == _before(
            table, seq, after_hash, state
        )


def test_a_roulette_shaped_snapshot_with_citations_is_stored_ascii() -> None:
    state = {
        "table": "RL-01",
        "items": {"parts_secure": "58 Pa. Code \u00a7 531.3(a)(3)"},
        "round": None,
        "halt_reasons": [],
        "n": 3,
        "dealer": "D\u00e9sir\u00e9e",
    }
    text, own = encode_snapshot("RL-01", 7, "cd" * 32, state)
    assert text.isascii()
    assert "\\u00a7" in text
    assert (text, own) == _before("RL-01", 7, "cd" * 32, state)


def test_a_snapshot_written_by_the_journal_is_vouched_for(tmp_path: Path) -> None:
    def build(seq: int) -> Envelope:
        return Envelope(
            site="s",
            table="T-\u00e9",
            seq=seq,
            ts="2026-01-01T00:00:00.000000Z",
            type="x.y",
            source="engine",
            data={},
            rule=None,
        )

    state = {"state": "open", "note": "caf\u00e9 \U0001f600", "devices": {"w": {"n": 1}}}
    journal = Journal(tmp_path / "j.db")
    try:
        stored = journal.append("T-\u00e9", build, snapshot=("T-\u00e9", state))
        assert journal.load_snapshot("T-\u00e9") == state
    finally:
        journal.close()
    db = sqlite3.connect(tmp_path / "j.db")
    try:
        text, seq, prev, own = db.execute(
            "SELECT state, after_seq, after_hash, hash FROM snapshots"
        ).fetchone()
    finally:
        db.close()
    assert (seq, prev) == (stored.seq, stored.hash)
    assert check_snapshot("T-\u00e9", text, seq, prev, own, (stored.seq, stored.hash)) is None
