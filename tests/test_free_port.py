"""free_port: ports that a killed and restarted broker finds still free."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from floord_demo import broker

pytestmark = pytest.mark.system  # real sockets


def test_ports_are_picked_outside_the_kernels_ephemeral_range() -> None:
    low, high = broker.ephemeral_range()
    picked = {broker.free_port() for _ in range(50)}
    assert not [p for p in picked if low <= p <= high], sorted(picked)
    assert min(picked) >= broker.LOWEST_PICKED
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
        picker = type("Draws", (), {"choice": lambda *_: next(draws)})()
        monkeypatch.setattr(broker, "_PICKER", picker)
        assert broker.free_port() == free
        assert next(draws, None) is None  # the taken port was drawn twice and passed over


@pytest.mark.parametrize(
    ("kernel_range", "room"),
    [
        ("32768\t60999\n", range(10000, 32768)),  # Linux's default: below it
        ("1024\t60000\n", range(60001, 65536)),  # a range from 1024: above it
        ("1024\t65000\n", None),  # no thousand ports either side
    ],
)
def test_the_room_is_the_larger_side_of_the_range(
    kernel_range: str, room: range | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    file = tmp_path / "ip_local_port_range"
    file.write_text(kernel_range)
    monkeypatch.setattr(broker, "EPHEMERAL_RANGE", file)
    assert broker.outside_ephemeral_range() == room
    low, high = (int(part) for part in kernel_range.split())
    picked = broker.free_port()
    if room is None:
        assert low <= picked <= high  # the kernel's own pick
    else:
        assert picked in room


def test_an_unreadable_range_is_taken_for_linuxs_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(broker, "EPHEMERAL_RANGE", tmp_path / "absent")
    assert broker.ephemeral_range() == (32768, 60999)
