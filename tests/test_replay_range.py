"""What a `replay` command may ask for: whole sequence numbers, in order, within the limit.

mypy found that the runner's check narrowed `from_seq` but not `to_seq`: JSON's true
passed as `to_seq` (Python's True is an int) and replayed event 1.
"""

from __future__ import annotations

from typing import Any

import pytest

from floord.contract import REPLAY_MAX_EVENTS, SEQ_MAX
from floord.table.replay import replay_range

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        ({"from_seq": 1, "to_seq": True}, "integer"),
        ({"from_seq": True, "to_seq": 1}, "integer"),
        ({"from_seq": 1}, "integer"),
        ({"from_seq": "1", "to_seq": 2}, "integer"),
        ({"from_seq": 1.0, "to_seq": 2}, "integer"),
        ({"from_seq": 0, "to_seq": 2}, "1 <= from_seq <= to_seq"),
        ({"from_seq": 5, "to_seq": 4}, "1 <= from_seq <= to_seq"),
        ({"from_seq": 1, "to_seq": REPLAY_MAX_EVENTS + 1}, f"limited to {REPLAY_MAX_EVENTS}"),
        # No stream holds these; the journal's reads cannot even ask (it halted the table).
        ({"from_seq": 2**63, "to_seq": 2**63}, "at most"),
        ({"from_seq": 2**64 + 1, "to_seq": 2**64 + 1}, "at most"),
        ({"from_seq": 1, "to_seq": 2, "stream": "RL-01/devices/wheel"}, "'stream'"),
    ],
)
def test_a_replay_outside_whole_ordered_numbers_is_refused(
    args: dict[str, Any], problem: str
) -> None:
    refused = replay_range(args)
    assert isinstance(refused, str) and problem in refused


def test_a_replay_range_is_read_as_asked() -> None:
    assert replay_range({"from_seq": 3, "to_seq": 3}) == (3, 3)
    assert replay_range({"from_seq": 1, "to_seq": REPLAY_MAX_EVENTS}) == (1, REPLAY_MAX_EVENTS)
    assert replay_range({"from_seq": SEQ_MAX, "to_seq": SEQ_MAX}) == (SEQ_MAX, SEQ_MAX)
