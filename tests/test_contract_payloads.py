"""The payload tables of docs/contract.md: one row for every event type, and the grammar
its data column is read with. That every row is what floord's code emits is checked in
`test_contract_payloads_system.py`.
"""

from __future__ import annotations

import pytest
from contract_doc import Payload, compare, documented_payloads, top_level_keys

from floord.contract import EVENT_TYPES

pytestmark = pytest.mark.unit


def test_every_event_type_has_exactly_one_row() -> None:
    documented = set(documented_payloads())
    missing = sorted(EVENT_TYPES - documented)
    unknown = sorted(documented - EVENT_TYPES)
    assert not missing, f"event types without a row in docs/contract.md: {missing}"
    assert not unknown, f"rows in docs/contract.md for no EventType: {unknown}"


def test_the_payload_grammar() -> None:
    assert top_level_keys('{hand: "player"|"banker", cards, w: [{a, b}], x?}') == [
        "hand",
        "cards",
        "w",
        "x?",
    ]
    with pytest.raises(ValueError):
        top_level_keys("who, and the inspection")
    doc = {"a.b": Payload(frozenset({"x"}), frozenset({"y"}))}
    assert compare(doc, {"a.b": [["x"], ["x", "y"]]}) == []
    assert compare(doc, {"a.b": [["x", "z"]]}) == [
        "a.b: emitted field(s) ['z'] not documented",
        "a.b: optional field(s) ['y'] never emitted",
    ]
    assert "documented field(s) ['x'] missing" in compare(doc, {"a.b": [["y"]]})[0]
    assert "no row" in compare(doc, {"c.d": [["q"]]})[0]
