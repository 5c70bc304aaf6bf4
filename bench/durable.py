"""The durable baseline: the least a journaled reader can do in Python, beside floord.

A process of its own (`python -m bench.durable PTY URL DB`), as floord's daemon is: it
reads the pty, and for each read inserts every complete line into SQLite (WAL,
`synchronous=FULL`, so the COMMIT is fsync'd) in one transaction, commits, and only
then publishes each line at QoS 1 on `bench/durable` and waits for its PUBACK. Nothing
else: no framing beyond lines, no driver, no engine, no hash chain, no second stream,
no thread for the disk (the COMMIT blocks its one event loop, which only a process
with nothing else to do can afford). A burst's lines read together share one COMMIT,
as floord's group commit shares one. What floord does beyond this is what the ratio to
it measures; the bare publish (`bench.latency.baseline`) leaves out the disk as well.

With `--off-loop` it is the least a journaled reader can do under floord's own rule of
no blocking I/O on the event loop: the same, but each transaction (INSERT and COMMIT)
runs on one thread of its own, awaited by the loop (`loop.run_in_executor`), so every
read costs the two hand-offs between threads that floord's journal thread costs. The
ratio to it is floord's own work per frame alone; the ratio between the two baselines
is what keeping the disk off the loop costs on this machine.

`run_durable(...)` drives it from the bench as `bench.latency.floord_run` drives the
daemon: the same pty writer (`Wheel`), the same frames, latency to the subscriber and
the burst, and the process's CPU over each.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import sqlite3
import sys
import termios
import time
import tty
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import aiomqtt

from bench.proc_stats import dies_with_bench, sample

TOPIC = "bench/durable"


def _open(db: Path) -> sqlite3.Connection:
    connection = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=FULL")
    connection.execute("CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY, line BLOB)")
    return connection


def commit_lines(connection: sqlite3.Connection, lines: list[bytes]) -> None:
    """One transaction of `lines`, its COMMIT fsync'd (the test wraps it to see which
    thread runs it)."""
    connection.execute("BEGIN")
    connection.executemany("INSERT INTO events (line) VALUES (?)", [(x,) for x in lines])
    connection.execute("COMMIT")


async def serve(port: str, url: str, db: Path, off_loop: bool = False) -> None:
    """Read, commit, then publish, until the pty closes; with `off_loop`, every
    transaction on the baseline's one disk thread."""
    # aiomqtt warns of every publish queued beside others, as a burst's are.
    logging.getLogger("mqtt").setLevel(logging.ERROR)
    with ThreadPoolExecutor(1, thread_name_prefix="disk") as disk:
        loop = asyncio.get_running_loop()
        if off_loop:
            connection = await loop.run_in_executor(disk, _open, db)
        else:
            connection = _open(db)
        await _serve(port, url, connection, disk if off_loop else None)


async def _serve(
    port: str, url: str, connection: sqlite3.Connection, disk: ThreadPoolExecutor | None
) -> None:
    fd = os.open(port, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    tty.setraw(fd)
    termios.tcflush(fd, termios.TCIFLUSH)
    host, mqtt_port = url.split("://", 1)[1].rsplit(":", 1)
    loop = asyncio.get_running_loop()
    readable = asyncio.Event()
    loop.add_reader(fd, readable.set)
    try:
        await _relay(fd, readable, aiomqtt.Client(host, int(mqtt_port)), connection, disk)
    finally:
        loop.remove_reader(fd)
        os.close(fd)
        connection.close()


async def _relay(
    fd: int,
    readable: asyncio.Event,
    mqtt: aiomqtt.Client,
    connection: sqlite3.Connection,
    disk: ThreadPoolExecutor | None,
) -> None:
    """Each read's complete lines committed (on `disk` when given), then published."""
    loop = asyncio.get_running_loop()
    buffer = b""
    async with mqtt as client:
        while True:
            await readable.wait()
            readable.clear()
            try:
                data = os.read(fd, 65536)
            except BlockingIOError:
                continue
            if not data:
                return
            buffer += data
            *lines, buffer = buffer.split(b"\n")
            if not lines:
                continue
            if disk is None:
                commit_lines(connection, lines)
            else:
                await loop.run_in_executor(disk, commit_lines, connection, lines)
            await asyncio.gather(*(client.publish(TOPIC, x.strip(), qos=1) for x in lines))


async def run_durable(
    url: str, count: int, tmp: Path, env: dict[str, str] | None = None, off_loop: bool = False
) -> tuple[list[float], float, dict[str, float]]:
    """Latencies (ms) of `count` frames one at a time, a burst of `count` (lines/s), and
    the process's CPU µs a frame over each (`off_loop`: the baseline with its disk
    thread)."""
    from bench.latency import Wheel, frame

    wheel = Wheel()
    host, port = url.split("://", 1)[1].rsplit(":", 1)
    latencies: list[float] = []
    cpu: dict[str, float] = {}
    proc = None
    try:
        async with aiomqtt.Client(host, int(port)) as sub:
            await sub.subscribe(TOPIC, qos=1)
            messages = sub.messages
            proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "bench.durable",
                wheel.path,
                url,
                str(tmp / "durable.db"),
                *(["--off-loop"] if off_loop else []),
                env=env,
                cwd=str(Path(__file__).resolve().parent.parent),
                preexec_fn=dies_with_bench(),
            )

            async def until(payload: bytes) -> None:
                async for message in messages:
                    if bytes(message.payload) == payload:
                        return
                raise ConnectionError("subscriber closed")

            ready = asyncio.create_task(until(frame(0).strip()))
            while not ready.done():
                wheel.write(frame(0))
                await asyncio.wait([ready], timeout=0.25)
            await ready
            before = cpu_seconds(proc.pid)
            for i in range(1, count + 1):
                sent = time.perf_counter()
                wheel.write(frame(i))
                await asyncio.wait_for(until(frame(i).strip()), 10)
                latencies.append((time.perf_counter() - sent) * 1000)
            after = cpu_seconds(proc.pid)
            cpu["latency_us_per_frame"] = round((after - before) / count * 1e6, 1)
            started = time.perf_counter()
            wheel.write(b"".join(frame(i, 161) for i in range(count + 1, 2 * count + 1)))
            got = 0
            async for message in messages:
                if b";161;" in bytes(message.payload):
                    got += 1
                    if got == count:
                        break
            throughput = count / (time.perf_counter() - started)
            cpu["burst_us_per_frame"] = round((cpu_seconds(proc.pid) - after) / count * 1e6, 1)
    finally:
        if proc is not None and proc.returncode is None:
            proc.terminate()
            await proc.wait()
        wheel.close()
    return latencies, throughput, cpu


def cpu_seconds(pid: int) -> float:
    """CPU seconds `pid` has used so far; ends the bench if it is gone."""
    stats = sample(pid)
    if stats is None:
        raise SystemExit("bench: a measured process ended before it was measured")
    return stats.cpu_s


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("port")
    parser.add_argument("url")
    parser.add_argument("db", type=Path)
    parser.add_argument(
        "--off-loop", action="store_true", help="every transaction on a thread of its own"
    )
    ns = parser.parse_args()
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(ns.port, ns.url, ns.db, ns.off_loop))
