"""A table's MQTT link that ends on a fault starts again (`Daemon._keep_linked`): one
message that raised where nothing caught it used to leave the table unheard for good."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest
import structlog

from floord.processes import daemon as daemon_module
from floord.processes.daemon import Daemon

pytestmark = pytest.mark.unit


class FailingOnce:
    """A link whose first run raises what nothing caught, and whose second ends."""

    def __init__(self) -> None:
        self.runs = 0

    async def run(self) -> None:
        self.runs += 1
        if self.runs == 1:
            raise OverflowError("date value out of range")


def test_a_link_ended_by_a_fault_is_logged_and_started_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(daemon_module, "LINK_RETRY_S", 0.0)
    link = FailingOnce()
    unit: Any = SimpleNamespace(link=link, config=SimpleNamespace(id="RL-01"))
    owner: Any = SimpleNamespace(log=structlog.get_logger("test"))
    with structlog.testing.capture_logs() as logs:
        asyncio.run(Daemon._keep_linked(owner, unit))
    assert link.runs == 2
    [line] = [entry for entry in logs if entry["log_level"] == "error"]
    assert line["event"] == "mqtt link failed; starting it again"
    assert line["table"] == "RL-01" and "OverflowError" in line["error"]
