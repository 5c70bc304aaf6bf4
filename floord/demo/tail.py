"""`python -m floord.demo.tail mqtt://HOST:PORT [TOPIC]`: print a floor's messages.

For a machine without mosquitto_sub: one line per message, topic then payload.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys

import aiomqtt

from floord.operator.client import client_args


async def tail(url: str, topic: str) -> None:
    async with aiomqtt.Client(**client_args(url, None, None)) as client:
        await client.subscribe(topic, qos=1)
        async for message in client.messages:
            print(message.topic, bytes(message.payload).decode(errors="replace"), flush=True)


def main() -> int:
    if len(sys.argv) < 2:
        print("usage: python -m floord.demo.tail mqtt://HOST:PORT [TOPIC]", file=sys.stderr)
        return 2
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(tail(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "floor/v1/#"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
