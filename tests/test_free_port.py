"""free_port: ports that a killed and restarted broker finds still free."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from floord_demo import broker

pytestmark = pytest.mark.system  # real sockets


def test_ports_are_picked_below_the_kernels_ephemeral_range() -> None:
    low, _ = broker.ephemeral_range()
    picked = {broker.free_port() for _ in range(50)}
    assert all(broker.LOWEST_PICKED <= p < low for p in picked), sorted(picked)
    assert len(picked) > 40  # at random, not one port over and over
    for port in picked:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", port))  # free as said


def test_a_port_in_use_is_passed_over(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as spare:
        spare.bind(("127.0.0.1", 0))
        free = spare.getsockname()[1]
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        taken = held.getsockname()[1]
        draws = iter([taken, taken, free])
        monkeypatch.setattr(
            broker, "_PICKER", type("Draws", (), {"randrange": lambda *_: next(draws)})()
        )
        assert broker.free_port() == free
        assert next(draws, None) is None  # the taken port was drawn twice and passed over


def test_without_room_below_the_range_the_kernel_picks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    narrow = tmp_path / "ip_local_port_range"
    narrow.write_text("10500\t60999\n")
    monkeypatch.setattr(broker, "EPHEMERAL_RANGE", narrow)
    assert broker.ephemeral_range() == (10500, 60999)
    assert broker.free_port() >= 10500
    monkeypatch.setattr(broker, "EPHEMERAL_RANGE", tmp_path / "absent")
    assert broker.ephemeral_range() == (32768, 60999)
