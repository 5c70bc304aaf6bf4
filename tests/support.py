"""Test support: a real Mosquitto broker on a free loopback port, and small helpers.

The broker is the real thing (Debian's mosquitto), started by the tests with a private
config, because floord's promise of losing nothing is a promise about a real broker.
`max_queued_messages` is lifted: the default of 1000 silently drops QoS 1 messages for a
slow subscriber, which would make a loss test lie.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import tempfile
from pathlib import Path

# Re-exported: the tests' brokers and the cluster pick and wait on ports alike.
from bench.nats_cluster import wait_port as wait_port
from floord_demo.broker import free_port as free_port
from floord_demo.broker import user_line
from floord_demo.child_end import ends_with_this_process


def mosquitto_binary() -> str:
    found = shutil.which("mosquitto") or (
        "/usr/sbin/mosquitto" if Path("/usr/sbin/mosquitto").exists() else None
    )
    if not found:
        raise RuntimeError("mosquitto not found: run `make test`, which installs it")
    return found


class Broker:
    """One Mosquitto process on a fixed free port, which can be killed and restarted."""

    def __init__(self, port: int | None = None) -> None:
        self.port = port or free_port()
        self._dir = tempfile.TemporaryDirectory(prefix="floord-mosq-")
        self.config = Path(self._dir.name) / "mosquitto.conf"
        self.config.write_text(
            f"listener {self.port} 127.0.0.1\n"
            "allow_anonymous true\n"
            "max_queued_messages 0\n"
            "max_inflight_messages 0\n"
            "persistence false\n"
            "log_dest none\n"
            "set_tcp_nodelay true\n"
            # The user the tests run as: started by root, Mosquitto would switch to its
            # own, which clears the tie that ends it with the tests (`start`).
            f"{user_line()}"
        )
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self) -> None:
        """Start it; started from the main thread, it ends with the tests' process
        however that ends (`floord_demo.child_end`), its fixture's `finally` or not."""
        self.proc = subprocess.Popen(
            [mosquitto_binary(), "-c", str(self.config)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=ends_with_this_process(),
        )
        wait_port(self.port, up=True)

    def kill(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self.proc = None
        wait_port(self.port, up=False)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.kill()
        self._dir.cleanup()
