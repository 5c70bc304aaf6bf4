"""Test support: the three-node NATS cluster of examples/nats-cluster/ on loopback ports,
and one nats-server node whose monitoring endpoint says which JetStream consumers exist.

The cluster itself is in bench/nats_cluster.py (the load bench runs the same cluster);
the tests use it from here.
"""

from __future__ import annotations

import json
import subprocess
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from support import free_port, wait_port

from bench.nats_cluster import (
    EXAMPLE,
    HOSTS,
    NatsCluster,
    example_on_loopback,
    nats_binary,
)
from floord_demo.child_end import ends_with_this_process

__all__ = [
    "EXAMPLE",
    "HOSTS",
    "NatsCluster",
    "Node",
    "example_on_loopback",
    "nats_binary",
    "requires_nats",
]

# The mark of every test that needs a nats-server: skipped, with the reason, where none
# could be installed.
requires_nats = pytest.mark.skipif(
    nats_binary() is None,
    reason="nats-server is not installed (scripts/ensure-test-tools.sh installs Debian's "
    "nats-server with apt-get when run as root)",
)


class Node:
    """One nats-server with JetStream, MQTT and its HTTP monitoring, killed at the end."""

    def __init__(self, tmp: Path) -> None:
        self.client_port, self.mqtt_port, self.http_port = free_port(), free_port(), free_port()
        config = tmp / "node.conf"
        config.write_text(
            "server_name: link-test\n"
            f"listen: 127.0.0.1:{self.client_port}\n"
            f"http: 127.0.0.1:{self.http_port}\n"
            f'jetstream {{ store_dir: "{tmp / "store"}" }}\n'
            f"mqtt {{ listen: 127.0.0.1:{self.mqtt_port} }}\n"
        )
        binary = nats_binary()
        assert binary is not None
        self.proc = subprocess.Popen(
            [binary, "-c", str(config), "-l", str(tmp / "node.log")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=ends_with_this_process(),  # it ends with the tests' process
        )
        wait_port(self.mqtt_port, up=True, timeout=20)

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.mqtt_port}"

    def consumers(self) -> dict[str, int]:
        """How many JetStream consumers each of the node's streams has."""
        address = f"http://127.0.0.1:{self.http_port}/jsz?accounts=true&streams=true&consumers=true"
        with urllib.request.urlopen(address, timeout=5) as answer:
            body: dict[str, Any] = json.load(answer)
        found: dict[str, int] = {}
        for account in body.get("account_details") or []:
            for stream in account.get("stream_detail") or []:
                found[stream["name"]] = len(stream.get("consumer_detail") or [])
        return found

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
