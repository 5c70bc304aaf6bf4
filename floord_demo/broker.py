"""The demo's MQTT broker: a private Mosquitto when one is installed, else embedded amqtt.

amqtt is pure Python and enough for a demo's rates, but it speaks only MQTT 3.1.1,
loses offline messages for anonymous sessions and marks queued messages as retained,
so nothing that must be trusted (the tests) ever runs on it. It also drops a client
that connects while another subscribes (amqtt 0.12.1: its session handler iterates the
broker's subscriptions while they change, fails and closes the connection after CONNACK),
some twenty times in a demo's first seconds on a busy machine: the daemon's links
reconnect, and the demo's operators take a dropped command as a failed one and try again.
Each drop is one warning line (`DroppedClients`), not asyncio's traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import pwd
import random
import shutil
import socket
import tempfile
import traceback
from collections.abc import AsyncIterator
from pathlib import Path

import aiomqtt

from floord.system.extras import require_extra
from floord_demo.child_end import ends_with_this_process

EPHEMERAL_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")
# The lowest port free_port picks: above the registered services most boxes run.
LOWEST_PICKED = 10000
_PICKER = random.SystemRandom()  # a test's random.seed() must not make two picks alike


def ephemeral_range() -> tuple[int, int]:
    """The kernel's range for ports given to bind(port 0) and to outgoing connections."""
    try:
        low, high = (int(part) for part in EPHEMERAL_RANGE.read_text().split())
    except (OSError, ValueError):
        return 32768, 60999
    return low, high


def outside_ephemeral_range() -> range | None:
    """The ports free_port draws from: the larger room of those below the kernel's
    ephemeral range (from `LOWEST_PICKED`) and above it, or None where neither holds a
    thousand ports."""
    low, high = ephemeral_range()
    below, above = range(LOWEST_PICKED, low), range(high + 1, 65536)
    room = max(below, above, key=len)
    return room if len(room) >= 1000 else None


def free_port() -> int:
    """A loopback TCP port free now, outside the kernel's ephemeral range when it can be.

    Outside, because a broker that is killed and started again must find its port still
    free: a port in the ephemeral range, once its server dies, is the kernel's to hand to
    any bind(0) or outgoing connection on the box (other tests' servers and clients), and
    a server started again on it then fails with "address in use". Only another
    free_port() picks outside the range, at random, so a collision there is as unlikely
    as two picks of one port.
    """
    if (room := outside_ephemeral_range()) is not None:
        for _ in range(200):
            port = _PICKER.choice(room)
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
                try:
                    sock.bind(("127.0.0.1", port))
                except OSError:
                    continue
                return port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        given: int = sock.getsockname()[1]
        return given


def mosquitto_binary() -> str | None:
    found = shutil.which("mosquitto")
    if found:
        return found
    return "/usr/sbin/mosquitto" if Path("/usr/sbin/mosquitto").exists() else None


async def _wait_listening(port: int, timeout_s: float = 5.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while True:
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.close()
            return
        except OSError:
            if loop.time() > deadline:
                raise
            await asyncio.sleep(0.05)


def user_line() -> str:
    """Mosquitto's `user` line naming the user this process runs as; none for a user
    without a name (a container's bare uid), who is not root, and whom Mosquitto
    therefore never switches from."""
    try:
        return f"user {pwd.getpwuid(os.geteuid()).pw_name}\n"
    except KeyError:
        return ""


@contextlib.asynccontextmanager
async def private_mosquitto(binary: str) -> AsyncIterator[str]:
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="floord-demo-mosq-") as tmp:
        conf = Path(tmp) / "mosquitto.conf"
        # `user`: the broker keeps the identity of the process that starts it. Started
        # by root, Mosquitto would otherwise switch to its own user, and a change of
        # user clears the tie that ends it with its parent (`ends_with_this_process`);
        # this broker listens on loopback alone and writes no file, so it holds nothing
        # its parent does not.
        conf.write_text(
            f"listener {port} 127.0.0.1\nallow_anonymous true\n{user_line()}"
            "max_queued_messages 100000\npersistence false\nlog_dest none\nset_tcp_nodelay true\n"
        )
        # Its own session (process group): Ctrl-C on the terminal signals the demo's
        # group, and the broker must not die before the daemon and the floor's clients
        # have stopped; the demo stops it last, below. A demo killed outright skips
        # that: the broker then ends with it (`ends_with_this_process`).
        proc = await asyncio.create_subprocess_exec(
            binary,
            "-c",
            str(conf),
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
            start_new_session=True,
            preexec_fn=ends_with_this_process(),
        )
        try:
            await _wait_listening(port)
            yield f"mqtt://127.0.0.1:{port}"
        finally:
            if proc.returncode is None:
                proc.terminate()
                try:
                    async with asyncio.timeout(5):
                        await proc.wait()
                except TimeoutError:
                    proc.kill()
                    await proc.wait()


class DroppedClients(logging.Filter):
    """On asyncio's logger once the embedded broker has run: a client amqtt dropped is
    one warning line, not an error with amqtt's traceback; and the error a dropped
    aiomqtt client leaves unretrieved (aiomqtt keeps an unexpected disconnection in a
    future that nobody awaits once the client has failed, and asyncio reports it when the
    future is collected, often after the broker has stopped) is not printed: the client
    already reported its failure."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if exc is None:
            return True
        message = str(record.msg)
        if message.startswith("Future exception was never retrieved"):
            return not isinstance(exc, aiomqtt.MqttError)
        if message.startswith("Unhandled exception in client_connected_cb") and _from_amqtt(exc):
            record.msg = "the embedded amqtt broker dropped a client: %s: %s"
            record.args = (type(exc).__name__, exc)
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            record.exc_info, record.exc_text = None, None
        return True


def _from_amqtt(exc: BaseException) -> bool:
    """Whether `exc` was raised inside amqtt's own code."""
    frames = traceback.extract_tb(exc.__traceback__)
    return bool(frames) and f"{os.sep}amqtt{os.sep}" in frames[-1].filename


DROPPED_CLIENTS = DroppedClients()


@contextlib.asynccontextmanager
async def embedded_amqtt() -> AsyncIterator[str]:
    require_extra("demo", "floord demo without Mosquitto installed (its embedded broker)")
    from amqtt.broker import Broker

    for name in ("amqtt", "transitions"):
        logging.getLogger(name).setLevel(logging.CRITICAL)
    # Kept for the rest of the process (added once): the unretrieved errors come later.
    logging.getLogger("asyncio").addFilter(DROPPED_CLIENTS)
    port = free_port()
    broker = Broker(
        {
            "listeners": {"default": {"type": "tcp", "bind": f"127.0.0.1:{port}"}},
            "plugins": {
                "amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True},
            },
        }
    )
    await broker.start()
    try:
        yield f"mqtt://127.0.0.1:{port}"
    finally:
        # Bounded: the demo must end even if the broker's shutdown does not.
        closing = asyncio.ensure_future(broker.shutdown())
        done, _ = await asyncio.wait({closing}, timeout=5.0)
        if not done:
            closing.cancel()
        elif not closing.cancelled():
            closing.exception()  # retrieved: a failed shutdown is no reason to fail the demo


@contextlib.asynccontextmanager
async def demo_broker(url: str | None) -> AsyncIterator[tuple[str, str]]:
    """Yield (url, what it is): the given broker, a private Mosquitto, or amqtt.

    FLOORD_DEMO_EMBEDDED_BROKER=1 skips Mosquitto, to show (and test) the demo as it runs
    on a machine where nothing is installed.
    """
    if url:
        yield url, "the broker you gave"
        return
    binary = None if os.environ.get("FLOORD_DEMO_EMBEDDED_BROKER") == "1" else mosquitto_binary()
    if binary:
        async with private_mosquitto(binary) as started:
            yield started, f"a private Mosquitto ({binary})"
        return
    async with embedded_amqtt() as started:
        yield started, "the embedded amqtt broker (demo only)"
