"""floord.mqtt.paho_hooks reaches inside aiomqtt and paho-mqtt: it is used only on the
versions it was written for, and this fails as soon as others are installed."""

from __future__ import annotations

import pytest

from floord.mqtt.paho_hooks import WRITTEN_FOR, fits, installed

pytestmark = pytest.mark.unit


def test_the_installed_libraries_are_those_the_hooks_were_written_for() -> None:
    """Fails on an upgrade of aiomqtt or paho-mqtt: read floord/mqtt/paho_hooks.py against
    the new version's source (every private name it uses, and what it assumes of each),
    run its tests, then move `WRITTEN_FOR`."""
    assert installed() == WRITTEN_FOR, (
        f"aiomqtt / paho-mqtt {installed()} installed; floord.mqtt.paho_hooks was written "
        f"for {WRITTEN_FOR}"
    )
    assert fits()


def test_other_versions_do_not_fit(monkeypatch: pytest.MonkeyPatch) -> None:
    from floord.mqtt import paho_hooks

    monkeypatch.setattr(paho_hooks, "WRITTEN_FOR", {**WRITTEN_FOR, "paho-mqtt": "2.3"})
    assert not fits()
