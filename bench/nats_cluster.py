"""A three-node NATS cluster (JetStream, MQTT on each node) on loopback ports, from the
example configs: for the cluster tests (tests/nats_support.py) and the load bench.

The nodes run examples/nats-cluster/ unchanged except for their addresses, ports and
store directory (moved to 127.0.0.1, free ports and a temporary directory), so what is
tested and measured is what docs/deployment.md tells an operator to run. Every node can
be killed with SIGKILL and started again on the same ports and store; close() kills what
is left, so nothing leaves a nats-server or a port behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import aiomqtt

from floord_demo.broker import free_port
from floord_demo.child_end import ends_with_this_process

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "nats-cluster"
# The example's node addresses and ports, replaced by the test's.
HOSTS = ("10.0.0.11", "10.0.0.12", "10.0.0.13")
CLIENT_PORT, ROUTE_PORT, MQTT_PORT = 4222, 6222, 1883
STORE = "/var/lib/nats/jetstream"


def wait_port(port: int, *, up: bool, timeout: float = 10.0) -> None:
    """Until 127.0.0.1:`port` takes (up) or refuses (down) a TCP connection."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                if up:
                    return
        except OSError:
            if not up:
                return
        time.sleep(0.02)
    raise TimeoutError(f"port {port} did not come {'up' if up else 'down'}")


def nats_binary() -> str | None:
    """The installed nats-server (scripts/ensure-test-tools.sh installs Debian's)."""
    return shutil.which("nats-server") or (
        "/usr/sbin/nats-server" if Path("/usr/sbin/nats-server").exists() else None
    )


def example_on_loopback(text: str, ports: list[dict[str, int]], store: Path) -> str:
    """An example node config with every node's address and ports moved to 127.0.0.1 and
    the test's ports, and its store in `store`. Raises if the example no longer has what
    is replaced (the test must run the example, not something else)."""
    replaced = text.replace(STORE, str(store))
    for host, node in zip(HOSTS, ports, strict=True):
        for port, key in ((CLIENT_PORT, "client"), (ROUTE_PORT, "route"), (MQTT_PORT, "mqtt")):
            replaced = replaced.replace(f"{host}:{port}", f"127.0.0.1:{node[key]}")
    settings = [line.split("#", 1)[0] for line in replaced.splitlines()]  # not the comments
    left = [h for h in HOSTS if any(h in line for line in settings)]
    if left or STORE in replaced or str(store) not in replaced:
        raise AssertionError(f"the example config changed shape: {left or STORE} left in it")
    return replaced


class NatsCluster:
    """Three nats-server nodes from examples/nats-cluster/, on free loopback ports."""

    def __init__(self, tmp: Path) -> None:
        binary = nats_binary()
        if binary is None:
            raise RuntimeError("nats-server not found: run scripts/ensure-test-tools.sh")
        self.binary = binary
        self.dir = tmp
        self.ports = [
            {"client": free_port(), "route": free_port(), "mqtt": free_port()} for _ in HOSTS
        ]
        self.configs: list[Path] = []
        for i in range(len(HOSTS)):
            text = (EXAMPLE / f"node{i + 1}.conf").read_text()
            conf = tmp / f"node{i + 1}.conf"
            conf.write_text(example_on_loopback(text, self.ports, tmp / f"store{i + 1}"))
            self.configs.append(conf)
        self.procs: list[subprocess.Popen[bytes] | None] = [None] * len(HOSTS)

    def url(self, i: int) -> str:
        return f"mqtt://127.0.0.1:{self.ports[i]['mqtt']}"

    def where(self, i: int) -> str:
        """Node i as a floord client names it (`P/status` `broker`)."""
        return f"127.0.0.1:{self.ports[i]['mqtt']}"

    def urls(self, *order: int) -> list[str]:
        return [self.url(i) for i in order]

    def start(self, i: int) -> None:
        log = self.dir / f"node{i + 1}.log"
        proc = subprocess.Popen(
            [self.binary, "-c", str(self.configs[i]), "-l", str(log)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            # Started on the main thread, a node ends with its bench or test run even
            # when that is killed; one restarted from a worker thread is left free.
            preexec_fn=ends_with_this_process(),
        )
        self.procs[i] = proc
        deadline = time.monotonic() + 20
        while True:
            try:
                wait_port(self.ports[i]["mqtt"], up=True, timeout=0.5)
                return
            except TimeoutError as exc:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise TimeoutError(f"node {i + 1}: {exc}; {self.said(i)}") from None

    def said(self, i: int) -> str:
        """Whether node i's process still runs, and the last lines of its log: what a
        start that failed (a port taken, a store it could not read) says of itself."""
        proc = self.procs[i]
        code = None if proc is None else proc.poll()
        state = "not started" if proc is None else "running" if code is None else f"exited {code}"
        log = self.dir / f"node{i + 1}.log"
        tail = log.read_text(errors="replace").splitlines()[-8:] if log.exists() else []
        return f"{state}; its log ends: " + " | ".join(tail)

    def kill(self, i: int) -> None:
        """SIGKILL node i: no goodbye to its clients or its routes."""
        proc = self.procs[i]
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=10)
        self.procs[i] = None
        wait_port(self.ports[i]["mqtt"], up=False)

    async def ready(self, i: int, timeout: float = 30.0) -> None:
        """Node i serves MQTT as floord uses it: a QoS 1 subscription (a JetStream
        consumer) and a retained QoS 1 publish coming back through it."""
        deadline = asyncio.get_running_loop().time() + timeout
        last: Exception | None = None
        topic = f"cluster-test/ready/{i}"
        while asyncio.get_running_loop().time() < deadline:
            try:
                async with aiomqtt.Client(
                    "127.0.0.1", self.ports[i]["mqtt"], identifier=f"ready-{i}", timeout=5
                ) as client:
                    granted = await client.subscribe(topic, qos=1, timeout=5)
                    if any(int(getattr(g, "value", g)) >= 0x80 for g in granted):
                        raise aiomqtt.MqttError(f"subscription refused: {granted}")
                    await client.publish(topic, b"1", qos=1, retain=True, timeout=5)
                    async with asyncio.timeout(5):
                        await anext(aiter(client.messages))
                    return
            except (aiomqtt.MqttError, TimeoutError) as exc:
                last = exc
                await asyncio.sleep(0.3)
        raise AssertionError(f"node {i + 1} not ready for MQTT within {timeout:g} s: {last}")

    @property
    def pids(self) -> list[int]:
        return [p.pid for p in self.procs if p is not None and p.poll() is None]

    def close(self) -> None:
        for i in range(len(HOSTS)):
            with contextlib.suppress(Exception):
                self.kill(i)
