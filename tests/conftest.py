"""Shared fixtures: a real Mosquitto broker per test that asks for one."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from support import Broker


@pytest.fixture
def broker() -> Iterator[Broker]:
    """A running Mosquitto on a free loopback port, killed when the test ends."""
    b = Broker()
    b.start()
    try:
        yield b
    finally:
        b.close()
