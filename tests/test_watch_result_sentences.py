"""The console's words for a second source's events and the alert a held result raises."""

from __future__ import annotations

from typing import Any

import pytest

from floord.contract import Envelope, EventType
from floord.watch.sentences import family, sentence

pytestmark = pytest.mark.unit

RID = "RL-01-2026-12-05-0003"
WHEEL = {"source": "wheel", "value": "17", "at": "2026-12-05T08:00:00Z"}
DEALER = {"source": "dealer_call", "value": "7", "at": "2026-12-05T08:00:01Z", "by": "DL-2001"}


def said(kind: str, data: dict[str, Any]) -> str:
    env = Envelope("casino-1", "RL-01", 9, "2026-12-05T08:00:02Z", kind, "engine", data, None, RID)
    return sentence(env)


def test_what_the_console_says() -> None:
    agreed = {"value": "17", "primary": WHEEL, "second": {**DEALER, "value": "17"}}
    assert said(EventType.RESULT_CONFIRMED, agreed) == (
        "round 3: 17 confirmed (wheel 17, dealer call 17 (DL-2001))"
    )
    assert said(EventType.RESULT_DISPUTED, {"primary": WHEEL, "second": DEALER}) == (
        "round 3 held: the sources disagree (wheel 17, dealer call 7 (DL-2001)); "
        "a floorperson rules"
    )
    silent = {"primary": WHEEL, "second_source": "dealer_call", "window_s": 5.0, "held": True}
    assert said(EventType.RESULT_SILENT, silent) == (
        "round 3: dealer call silent for 5 s after wheel 17: held for a floorperson's ruling"
    )
    assert said(EventType.RESULT_SILENT, {**silent, "held": False}).endswith("the result stands")
    ruled = {"value": "7", "void": False, "by": "FP-1", "role": "floorperson", "note": "video"}
    assert said(EventType.RESULT_RULED, ruled) == "round 3 ruled 7 by FP-1 (floorperson): video"
    assert said(EventType.RESULT_RULED, {**ruled, "void": True, "value": None}).startswith(
        "round 3 ruled void"
    )
    alert = {"id": "A00002", "test": "result_disputed", "p_value": None, "detail": "wheel 17"}
    assert said(EventType.SURVEILLANCE_ALERT, alert) == (
        "alert A00002: result disputed, round 3 (wheel 17)"
    )


def test_a_dispute_is_an_alert_the_rest_the_tables() -> None:
    assert family(EventType.RESULT_DISPUTED) == "alert"
    assert family(EventType.RESULT_CONFIRMED) == "table"
    assert family(EventType.RESULT_RULED) == "table"
