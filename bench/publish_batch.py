"""The MQTT client's CPU for a QoS 1 message: aiomqtt's public `publish` for each message
of a batch (a task each, sent together: `floord.mqtt.confirm.publish_each`, floord's
publish path where `floord.mqtt.paho_hooks` does not fit the installed versions) beside
`publish_batch` (the batch handed to paho through `paho_hooks`, one waiter for its
PUBACKs), on one private Mosquitto, in one run.

Prints one JSON line: per batch size, the process's CPU a message (µs) each way and their
ratio (publish_batch / aiomqtt). Run: `python -m bench.publish_batch` (8,000 messages a
measurement, batches of 2, 20 and 200, three rounds each way, interleaved).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import statistics
import time

import aiomqtt

from floord.mqtt.confirm import Message, publish_batch, publish_each
from floord_demo.broker import mosquitto_binary, private_mosquitto

PAYLOAD = "x" * 200  # about a table event's size


async def one_by_one(client: aiomqtt.Client, size: int) -> None:
    acked, _ = await publish_each(
        client, [Message("bench/batch", PAYLOAD)] * size, ack_timeout=math.inf
    )
    if not all(acked):
        raise SystemExit("a batch was not acknowledged")


async def batched(client: aiomqtt.Client, size: int) -> None:
    acked, _ = await publish_batch(
        client, [Message("bench/batch", PAYLOAD)] * size, ack_timeout=30.0
    )
    if not all(acked):
        raise SystemExit("a batch was not acknowledged")


async def cpu_a_message(client: aiomqtt.Client, how: object, size: int, total: int) -> float:
    rounds = max(1, total // size)
    started = time.process_time()
    for _ in range(rounds):
        await how(client, size)  # type: ignore[operator]
    return (time.process_time() - started) / (rounds * size) * 1e6


async def main(total: int, sizes: list[int], rounds: int) -> dict[str, object]:
    binary = mosquitto_binary()
    if not binary:
        raise SystemExit("bench needs mosquitto")
    out: dict[str, object] = {"bench": "publish_batch", "messages": total}
    async with private_mosquitto(binary) as url:
        host, port = url.split("://", 1)[1].rsplit(":", 1)
        async with aiomqtt.Client(host, int(port), max_inflight_messages=100) as client:
            client.pending_calls_threshold = 10**9  # the warning is not what is measured
            for size in sizes:
                theirs: list[float] = []
                ours: list[float] = []
                for _ in range(rounds):
                    theirs.append(await cpu_a_message(client, one_by_one, size, total))
                    ours.append(await cpu_a_message(client, batched, size, total))
                a, b = statistics.median(theirs), statistics.median(ours)
                out[f"batch_{size}"] = {
                    "aiomqtt_us": round(a, 1),
                    "publish_batch_us": round(b, 1),
                    "ratio": round(b / a, 2),
                }
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=8000)
    parser.add_argument("--sizes", type=int, nargs="+", default=[2, 20, 200])
    parser.add_argument("--rounds", type=int, default=3)
    ns = parser.parse_args()
    print(json.dumps(asyncio.run(main(ns.messages, ns.sizes, ns.rounds))))
