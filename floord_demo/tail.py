"""`python -m floord_demo.tail mqtt://HOST:PORT [TOPIC]`: print a floor's messages.

For a machine without mosquitto_sub: one line per message, topic then payload.
"""

from __future__ import annotations

import asyncio
import sys

import aiomqtt

from floord.operator.client import client_args
from floord.system.failures import CLOSED_PIPE, broker_errors, broker_problem, silence_stdout


async def tail(url: str, topic: str) -> None:
    async with aiomqtt.Client(**client_args(url, None, None)) as client:
        await client.subscribe(topic, qos=1)
        async for message in client.messages:
            print(message.topic, bytes(message.payload).decode(errors="replace"), flush=True)


def main() -> int:
    """Print until Ctrl-C; a closed pipe (`... | head`) ends it quietly, a broker that
    cannot be used in one line, and a broker URL that is not one in its usage line."""
    if len(sys.argv) < 2:
        print("usage: python -m floord_demo.tail mqtt://HOST:PORT [TOPIC]", file=sys.stderr)
        return 2
    url = sys.argv[1]
    try:
        asyncio.run(tail(url, sys.argv[2] if len(sys.argv) > 2 else "floor/v1/#"))
    except KeyboardInterrupt:
        return 0
    except BrokenPipeError:
        silence_stdout()
        return CLOSED_PIPE
    except ValueError as exc:
        print(f"floord_demo.tail: {exc}", file=sys.stderr)
        return 2
    except broker_errors() as exc:
        print(
            f"floord_demo.tail: cannot use the broker {url}: {broker_problem(exc)}", file=sys.stderr
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
