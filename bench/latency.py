"""Latency and journaled throughput of floord, beside a bare aiomqtt baseline.

- Latency: a status frame written on the pty (the wheel's side) to its event at an MQTT
  subscriber of `P/devices/wheel/events` (`latency_ms.floord`) and to the table's event
  for it on `P/events` (`latency_ms.floord_table`), through the real daemon process
  (driver, adapter, engine, journal with fsync, MQTT); the next frame is written once
  both have arrived. Baseline: an aiomqtt publish (QoS 1) to a subscriber on the same
  broker.
- Throughput: a burst of frames written as fast as the pty takes them, to the last
  event at the subscriber of `P/events` (every one journaled twice: the device's stream
  and the table's record). Baseline: a burst of QoS 1 publishes to a subscriber. As the
  baseline's, the burst has one subscriber, of `P/events` alone: until 2026-12-02 the
  latency loop's subscriber stayed on both topics too, so this process parsed three
  messages a frame on the cores the daemon runs on, and the burst measured less.

- The durable baseline (`bench/durable.py`): a process that reads the same pty, commits
  each read to SQLite (WAL, `synchronous=FULL`) and then publishes each line at QoS 1,
  through the same latency loop and burst; its CPU a frame beside the daemon's. And the
  same with its disk off the event loop (`durable_off_loop`: each transaction on one
  thread of its own, as floord keeps its journal's), so that the ratio to it is floord's
  own work per frame, and `off_loop_to_durable` what the two hand-offs between threads
  cost by themselves on this machine.
- `--compare-tree PATH` (repeatable) runs another source tree's daemon too, and
  `--rounds N` repeats the bare, durable and every daemon's run, each other round in
  reverse order: two commits compared on the same broker, minutes apart, and each
  round's ratios taken before their medians (the machine's pace drifts over minutes).

Prints one JSON line; ratios are floord / baseline from this run on this machine.
Run: `make bench` (or `python -m bench.latency --frames 400`; 1,000 by default). `--slow-fsync-ms 5`
(`make bench-slow`) runs the daemon on a slow disk: every fsync takes 5 ms more, as on a
table box's eMMC or SD card (bench/slow_disk.py, an LD_PRELOAD shim built with cc).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import statistics
import tempfile
import time
import tty
from pathlib import Path

import aiomqtt
import yaml

from bench.durable import cpu_seconds, run_durable
from bench.proc_stats import dies_with_bench
from bench.slow_disk import shim_env
from bench.trees import INSTALLED, tree_command
from floord_demo.broker import mosquitto_binary, private_mosquitto

# The durable baseline with its disk on a thread (`bench.durable --off-loop`).
OFF_LOOP = "durable_off_loop"

IDENTITY = {
    b"*V": b"*V V2.50 Cammegh / Syoptic - SlingShot 2 Roulette Wheel (c) 03/12/18\r\n",
    b"*T Z": b"*T z 37\r\n",
}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def summary(latencies: list[float]) -> dict[str, float | int]:
    return {
        "p50": round(percentile(latencies, 0.5), 3),
        "p99": round(percentile(latencies, 0.99), 3),
        "max": round(max(latencies), 3),
        "over_10ms": sum(1 for x in latencies if x > 10.0),
        "over_20ms": sum(1 for x in latencies if x > 20.0),
    }


def frame(i: int, speed: int = 172) -> bytes:
    """Alternate idle (6) and before-game (1) so that every frame is one event.

    The burst uses another rotor speed so its events can be told from earlier ones.
    """
    state = 6 if i % 2 == 0 else 1
    return f"*X;{state};{(i // 2) % 256 + 1:03d};17;0;{speed:03d};0\r\n".encode()


async def baseline(url: str, count: int) -> tuple[list[float], float]:
    host, port = url.split("://", 1)[1].rsplit(":", 1)
    latencies: list[float] = []
    async with aiomqtt.Client(host, int(port)) as sub, aiomqtt.Client(host, int(port)) as pub:
        await sub.subscribe("bench/baseline", qos=1)
        messages = sub.messages
        for i in range(count):
            sent = time.perf_counter()
            await pub.publish("bench/baseline", str(i), qos=1)
            await anext(aiter(messages))
            latencies.append((time.perf_counter() - sent) * 1000)
        started = time.perf_counter()
        await asyncio.gather(*(pub.publish("bench/baseline", str(i), qos=1) for i in range(count)))
        got = 0
        async for _ in messages:
            got += 1
            if got == count:
                break
        return latencies, count / (time.perf_counter() - started)


class Wheel:
    """The wheel's end of a pty: answers the handshake, writes the bench's frames."""

    def __init__(self) -> None:
        self.master, slave = os.openpty()
        tty.setraw(slave)
        self.path = os.ttyname(slave)
        self.slave = slave
        os.set_blocking(self.master, False)
        self._buffer = b""
        asyncio.get_running_loop().add_reader(self.master, self._readable)

    def _readable(self) -> None:
        try:
            self._buffer += os.read(self.master, 4096)
        except OSError:
            return
        while b"\n" in self._buffer or b"\r" in self._buffer:
            line, _, self._buffer = self._buffer.replace(b"\r\n", b"\n").partition(b"\n")
            reply = IDENTITY.get(line.strip())
            if reply:
                self.write(reply)

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self.master, view) :]
            except BlockingIOError:
                time.sleep(0.0005)

    def close(self) -> None:
        asyncio.get_running_loop().remove_reader(self.master)
        os.close(self.master)
        os.close(self.slave)


async def floord_run(
    url: str,
    count: int,
    tmp: Path,
    env: dict[str, str] | None = None,
    tree: str | None = None,
) -> tuple[list[float], list[float], float, dict[str, float]]:
    """Latencies (ms) to the device's topic and to the table's, the burst (frames/s),
    and the daemon's CPU µs a frame over the latency loop and over the burst."""
    python, env = tree_command(tree, env)
    cpu: dict[str, float] = {}
    wheel = Wheel()
    config = {
        "site": "bench",
        "broker": {"url": url},
        "journal": str(tmp / "journal.db"),
        "tables": [
            {
                "id": "RL-01",
                "game": "roulette",
                "rules": {"wheel": "single_zero"},
                "devices": [{"id": "wheel", "profile": "cammegh-ss2", "port": wheel.path}],
            }
        ],
    }
    path = tmp / "floord.yaml"
    path.write_text(yaml.safe_dump(config))
    host, port = url.split("://", 1)[1].rsplit(":", 1)
    latencies: list[float] = []
    table_latencies: list[float] = []
    device_topic = "floor/v1/bench/RL-01/devices/wheel/events"
    table_topic = "floor/v1/bench/RL-01/events"
    daemon = None
    try:
        async with aiomqtt.Client(host, int(port)) as sub:
            await sub.subscribe(device_topic, qos=1)
            await sub.subscribe(table_topic, qos=1)
            messages = sub.messages
            daemon = await asyncio.create_subprocess_exec(
                python,
                "-m",
                "floord",
                "run",
                "-c",
                str(path),
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.DEVNULL,
                env=env,
                cwd=str(tmp),
                preexec_fn=dies_with_bench(),
            )

            async def next_of(kind: str, sent: float = 0.0) -> None:
                """Until `kind` came on the device's topic; with `sent`, on both (the
                device's and the table's), each one's latency noted."""
                device = table = False
                async for message in messages:
                    body = json.loads(bytes(message.payload))
                    if body["type"] != kind:
                        continue
                    elapsed = (time.perf_counter() - sent) * 1000
                    if not sent:
                        if message.topic.matches(device_topic):
                            return
                    elif message.topic.matches(device_topic) and not device:
                        device = True
                        latencies.append(elapsed)
                    elif message.topic.matches(table_topic) and not table:
                        table = True
                        table_latencies.append(elapsed)
                    if device and table:
                        return
                raise ConnectionError("subscriber closed")

            # Like a wheel's automatic status, until the daemon has opened the port (which
            # flushes what was written before) and identified the wheel.
            identified = asyncio.create_task(next_of("device.identified"))
            while not identified.done():
                wheel.write(frame(0))
                await asyncio.wait([identified], timeout=0.25)
            await identified
            before = cpu_seconds(daemon.pid)
            for i in range(1, count + 1):
                sent = time.perf_counter()
                wheel.write(frame(i))
                kind = "wheel.idle" if i % 2 == 0 else "wheel.game_started"
                await asyncio.wait_for(next_of(kind, sent), 10)
            after = cpu_seconds(daemon.pid)
            cpu["latency_us_per_frame"] = round((after - before) / count * 1e6, 1)
            # The burst's one subscriber is `table_sub`, as the baseline's is one: `sub`
            # taking both topics' messages too would have this process parse three
            # messages for each frame, on the cores the daemon runs on.
            await sub.unsubscribe(device_topic)
            await sub.unsubscribe(table_topic)
            async with aiomqtt.Client(host, int(port)) as table_sub:
                await table_sub.subscribe("floor/v1/bench/RL-01/events", qos=1)
                started = time.perf_counter()
                wheel.write(b"".join(frame(i, 161) for i in range(count + 1, 2 * count + 1)))
                games = 0
                async for message in table_sub.messages:
                    body = json.loads(bytes(message.payload))
                    if body["type"] == "wheel.game_started" and body["data"]["rotor_rpm"] == 16.1:
                        games += 1
                        if games == count // 2:
                            break
            throughput = count / (time.perf_counter() - started)
            cpu["burst_us_per_frame"] = round((cpu_seconds(daemon.pid) - after) / count * 1e6, 1)
    finally:
        if daemon is not None:
            daemon.terminate()
            await daemon.wait()
        wheel.close()
    return latencies, table_latencies, throughput, cpu


def _measure(lat: list[float]) -> dict[str, float]:
    return {"p50": percentile(lat, 0.5), "p99": percentile(lat, 0.99)}


async def one_round(
    url: str, count: int, trees: list[str | None], slow_fsync_ms: float, reverse: bool
) -> dict[str, dict]:
    """The bare publish, the durable baselines (on the loop, then off it) and each
    tree's daemon, once each, in this order or (`reverse`) the daemons first, then the
    baselines reversed."""
    out: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="floord-bench-") as tmp_dir:
        tmp = Path(tmp_dir)
        env = shim_env(slow_fsync_ms, tmp) if slow_fsync_ms else None
        if slow_fsync_ms and env is None:
            raise SystemExit("--slow-fsync-ms needs a C compiler (cc) to build its shim")
        runs: list[str | None] = [
            "bare",
            "durable",
            OFF_LOOP,
            *[t or INSTALLED for t in trees],
        ]
        for name in reversed(runs) if reverse else runs:
            run = tmp / str(len(out))
            run.mkdir()
            if name == "bare":
                lat, tput = await baseline(url, count)
                out["bare"] = {**_measure(lat), "burst": tput}
            elif name in ("durable", OFF_LOOP):
                lat, tput, cpu = await run_durable(url, count, run, env, name == OFF_LOOP)
                out[name] = {**_measure(lat), "burst": tput, "cpu": cpu}
            else:
                tree = None if name == INSTALLED else name
                lat, table_lat, tput, cpu = await floord_run(url, count, run, env, tree)
                out[str(name)] = {
                    "device": summary(lat),
                    "table": summary(table_lat),
                    "burst": tput,
                    "cpu": cpu,
                }
    return out


def _median(values: list[float], digits: int = 2) -> float:
    return round(statistics.median(values), digits)


def ratios(rounds: list[dict[str, dict]], tree: str) -> dict[str, float]:
    """Medians over the rounds of each round's ratio: the table's event on `P/events`
    to the durable baseline and to the bare publish, the burst to both, the daemon's
    CPU a frame to the durable process's; then the same to the durable baseline whose
    disk is off its loop, as floord's is."""

    def each(f: object) -> float:
        return _median([f(r[tree], r["durable"], r["bare"]) for r in rounds])  # type: ignore[operator]

    def off(f: object) -> float:
        return _median([f(r[tree], r[OFF_LOOP]) for r in rounds])  # type: ignore[operator]

    return {
        "table_p50_to_durable": each(lambda t, d, b: t["table"]["p50"] / d["p50"]),
        "table_p99_to_durable": each(lambda t, d, b: t["table"]["p99"] / d["p99"]),
        "table_p50_to_bare": each(lambda t, d, b: t["table"]["p50"] / b["p50"]),
        "table_p99_to_bare": each(lambda t, d, b: t["table"]["p99"] / b["p99"]),
        "device_p50_to_bare": each(lambda t, d, b: t["device"]["p50"] / b["p50"]),
        "burst_to_bare": each(lambda t, d, b: t["burst"] / b["burst"]),
        "burst_to_durable": each(lambda t, d, b: t["burst"] / d["burst"]),
        "cpu_latency_to_durable": each(
            lambda t, d, b: t["cpu"]["latency_us_per_frame"] / d["cpu"]["latency_us_per_frame"]
        ),
        "cpu_burst_to_durable": each(
            lambda t, d, b: t["cpu"]["burst_us_per_frame"] / d["cpu"]["burst_us_per_frame"]
        ),
        "table_p50_to_off_loop": off(lambda t, d: t["table"]["p50"] / d["p50"]),
        "table_p99_to_off_loop": off(lambda t, d: t["table"]["p99"] / d["p99"]),
        "burst_to_off_loop": off(lambda t, d: t["burst"] / d["burst"]),
        "cpu_latency_to_off_loop": off(
            lambda t, d: t["cpu"]["latency_us_per_frame"] / d["cpu"]["latency_us_per_frame"]
        ),
    }


def off_loop_cost(rounds: list[dict[str, dict]]) -> dict[str, float]:
    """Medians over the rounds of the off-loop durable baseline to the on-loop one: what
    keeping the disk off the event loop costs by itself on this machine."""

    def each(f: object) -> float:
        return _median([f(r[OFF_LOOP]) / f(r["durable"]) for r in rounds])  # type: ignore[operator]

    return {
        "p50": each(lambda d: d["p50"]),
        "p99": each(lambda d: d["p99"]),
        "burst": each(lambda d: d["burst"]),
        "cpu_latency_per_frame": each(lambda d: d["cpu"]["latency_us_per_frame"]),
    }


def paired(rounds: list[dict[str, dict]], after: str, before: str) -> dict[str, float]:
    """Medians over the rounds of `after` / `before`, each round's pair run minutes apart."""

    def each(f: object) -> float:
        return _median([f(r[after]) / f(r[before]) for r in rounds])  # type: ignore[operator]

    return {
        "table_p50": each(lambda t: t["table"]["p50"]),
        "table_p99": each(lambda t: t["table"]["p99"]),
        "burst": each(lambda t: t["burst"]),
        "cpu_latency_per_frame": each(lambda t: t["cpu"]["latency_us_per_frame"]),
        "cpu_burst_per_frame": each(lambda t: t["cpu"]["burst_us_per_frame"]),
    }


async def main(
    count: int, slow_fsync_ms: float = 0.0, compare: list[str] | None = None, rounds: int = 1
) -> dict:
    # aiomqtt warns on every queued publish of the baseline's burst; that is the point.
    logging.getLogger("mqtt").setLevel(logging.ERROR)
    if not mosquitto_binary():
        raise SystemExit("bench needs mosquitto (make bench installs it)")
    trees: list[str | None] = [*(compare or []), None]
    names = [t or INSTALLED for t in trees]
    done: list[dict[str, dict]] = []
    load = [os.getloadavg()[0]]
    async with private_mosquitto(mosquitto_binary() or "") as url:
        for r in range(rounds):
            done.append(await one_round(url, count, trees, slow_fsync_ms, reverse=r % 2 == 1))
            load.append(os.getloadavg()[0])
    result: dict[str, object] = {
        "bench": "latency_throughput",
        "frames": count,
        "rounds": rounds,
        "slow_fsync_ms": slow_fsync_ms,
        "load_average_1m": [round(x, 2) for x in load],
        "runs": [{name: _rounded(value) for name, value in r.items()} for r in done],
        "ratio": {name: ratios(done, name) for name in names},
        "off_loop_to_durable": off_loop_cost(done),
    }
    if compare:
        result["paired_to_first_tree"] = {name: paired(done, name, names[0]) for name in names[1:]}
    return result


def _rounded(value: object) -> object:
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, float):
        return round(value, 3)
    return value


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=1000)
    parser.add_argument(
        "--slow-fsync-ms", type=float, default=0.0, help="every fsync of the daemon takes this more"
    )
    parser.add_argument(
        "--compare-tree",
        action="append",
        metavar="PATH",
        help="also run the daemon of this source tree (its .venv if it has one), interleaved",
    )
    parser.add_argument("--rounds", type=int, default=1, help="rounds, each order reversed")
    ns = parser.parse_args()
    print(json.dumps(asyncio.run(main(ns.frames, ns.slow_fsync_ms, ns.compare_tree, ns.rounds))))
