"""A browser's signed command sent through the broker login made for commands.

On a floor whose broker has `floord acl`'s rules the surveillance login reads everything
and commands nothing; the operator-client login publishes `P/cmd` and reads
`P/cmd/result`. With `command_login` in its config the console forwards each signed
`ack_alert` over a short connection of that login (to the first node of the cluster that
answers, once) and waits for the table's answer, as `floord cmd` does; the floor's
subscription stays on the surveillance login.
"""

from __future__ import annotations

import asyncio
import json
import ssl
import uuid
from dataclasses import dataclass
from typing import Any

import aiomqtt

from floord.contract import Topics
from floord.mqtt.client import first_reachable, subscribe_checked
from floord.operator.client import client_args
from floord.untrusted import read_json


@dataclass(frozen=True)
class CommandLogin:
    """Where and as whom commands are forwarded."""

    urls: tuple[str, ...]
    username: str
    password: str
    prefix: str
    tls_context: ssl.SSLContext | None = None


async def forward_signed(
    login: CommandLogin, site: str, table: str, command: dict[str, Any], timeout_s: float
) -> tuple[bool, str | None]:
    """Publish `command` as it is (its `id` and `sig` untouched) on the table's `P/cmd`;
    the table's answer, or why there is none."""
    topics = Topics(login.prefix, site, table)
    kwargs = {
        u: client_args(u, login.username, login.password, login.tls_context) for u in login.urls
    }

    def connect(node: str) -> aiomqtt.Client:
        return aiomqtt.Client(identifier=f"floord-web-cmd-{uuid.uuid4().hex[:12]}", **kwargs[node])

    async def subscribed(client: aiomqtt.Client) -> None:
        await subscribe_checked(client, [topics.cmd_result])

    try:
        async with first_reachable(list(login.urls), connect, subscribed) as (client, _):
            await client.publish(topics.cmd, json.dumps(command), qos=1)

            async def answer() -> dict[str, Any]:
                async for message in client.messages:
                    try:
                        body = read_json(bytes(message.payload))
                    except (TypeError, ValueError):
                        continue
                    if isinstance(body, dict) and body.get("id") == command["id"]:
                        return body
                raise aiomqtt.MqttError("the broker closed the connection before the answer")

            try:
                async with asyncio.timeout(timeout_s):
                    body = await answer()
            except TimeoutError:
                return False, f"no answer from {table} within {timeout_s:g} s"
    except aiomqtt.MqttError as exc:
        return False, f"the command could not be sent: {exc}"
    error = body.get("error")
    return body.get("ok") is True, str(error) if error else None
