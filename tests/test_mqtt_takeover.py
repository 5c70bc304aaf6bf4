"""Two daemons with one MQTT client id (one table's config on two boxes, each its own
journal) against a real Mosquitto: each names the other's takeover once, at error
level, with the other's pid and host, and the losses it causes are not a warning each.
Two adapter processes for one device (each its own journal) likewise.
"""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from e2e_support import SITE, Process, write_config

pytestmark = pytest.mark.system

CLIENT_ID = f"floord-{SITE}-RL-01"
THRASH_S = 12.0


def start(*args: str) -> Process:
    """`floord ARGS` with its debug lines, to see the losses it does not warn of."""
    return Process(["--log-level", "debug", *args], stdout=subprocess.DEVNULL)


def two_boxes(tmp_path: Path, url: str) -> list[Path]:
    """One table's config on two boxes, each with its own journal."""
    configs = []
    for name in ("box-a", "box-b"):
        box = tmp_path / name
        box.mkdir()
        configs.append(write_config(box, url, "socket://127.0.0.1:9"))
    return configs


def check_named(first: Process, second: Process, client_id: str) -> None:
    """The second started once the first is up: each names the other's takeover once."""
    taken_over = f"another connection with client id {client_id} took over"
    # The first loses its connection to the second, takes it back and finds the
    # second's status where its own was: the takeover, named once.
    one = first.until_said(taken_over)
    assert one["level"] == "error" and one["client_id"] == client_id
    assert one["other_pid"] == str(second.proc.pid)
    assert one["other_host"] == socket.gethostname()
    # The second is knocked off in turn and finds the first's.
    two = second.until_said(taken_over)
    assert two["level"] == "error" and two["other_pid"] == str(first.proc.pid)
    time.sleep(THRASH_S)  # they go on knocking each other off
    for process in (first, second):
        assert process.proc.poll() is None
        assert len(process.said(taken_over)) == 1
        # Only the first loss and return, before it was known for what they were, are
        # said as such; those after it are debug lines.
        assert len(process.said("broker connection lost")) == 1
        back = process.said("broker connection back")
        assert len([line for line in back if line["level"] != "debug"]) <= 1
        quiet = process.said("broker connection taken over")
        assert len(quiet) >= 2 and {line["level"] for line in quiet} == {"debug"}


def test_two_daemons_with_one_client_id_name_the_takeover(broker: Any, tmp_path: Path) -> None:
    configs = two_boxes(tmp_path, broker.url)
    first = start("run", "-c", str(configs[0]))
    second: Process | None = None
    try:
        first.until_said("floord ready")
        second = start("run", "-c", str(configs[1]))
        check_named(first, second, CLIENT_ID)
    finally:
        if second is not None:
            second.terminate()
        first.terminate()


def test_two_adapters_with_one_client_id_name_the_takeover(broker: Any, tmp_path: Path) -> None:
    configs = two_boxes(tmp_path, broker.url)
    device = ["--table", "RL-01", "--device", "wheel"]
    first = start("adapter", "-c", str(configs[0]), *device)
    second: Process | None = None
    try:
        first.until_said("adapter ready")
        second = start("adapter", "-c", str(configs[1]), *device)
        check_named(first, second, f"floord-adapter-{SITE}-RL-01-wheel")
    finally:
        if second is not None:
            second.terminate()
        first.terminate()
