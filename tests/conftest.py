"""Shared fixtures: a real Mosquitto broker per test that asks for one."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from support import Broker

# `--record-streams DIR`: golden event streams for before/after comparison (issue 11).
pytest_plugins = ["golden_streams"]


@pytest.fixture
def broker() -> Iterator[Broker]:
    """A running Mosquitto on a free loopback port, killed when the test ends."""
    b = Broker()
    b.start()
    try:
        yield b
    finally:
        b.close()


@pytest.fixture(autouse=True)
def _no_floord_process_left() -> Iterator[None]:
    """A test that fails before its own `finally` kills its simulators or daemons still
    leaves no floord process behind: every child started through `e2e_support.Process`
    is killed after the test."""
    yield
    from e2e_support import reap_leftovers

    reap_leftovers()
