"""The operator's side of a command: sign it, send it, wait for the table's answer.

Used by `floord cmd` and by the demo floor's virtual floorperson, so both speak to a
table exactly as a person's command client would: through the broker, signed.
"""

from __future__ import annotations

import asyncio
import json
import ssl
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import aiomqtt

from floord.contract import Topics
from floord.mqtt.client import first_reachable, subscribe_checked
from floord.mqtt.link import broker_address
from floord.operator.commands import build_command
from floord.untrusted import read_json


def parse_args(pairs: list[str]) -> dict[str, Any]:
    """`key=value` words to command args: values are JSON when they parse, else text;
    dotted keys nest (`checklist.parts_secure=true`)."""
    args: dict[str, Any] = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"key=value expected, found {pair!r}")
        try:
            value: Any = read_json(text)
        except ValueError:
            value = text
        node = args
        parts = key.split(".")
        for part in parts[:-1]:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                raise ValueError(f"{key}: {part} is already a value, not a group")
            node = child
        node[parts[-1]] = value
    return args


def client_args(
    url: str,
    username: str | None,
    password: str | None,
    tls_context: ssl.SSLContext | None = None,
) -> dict[str, Any]:
    """aiomqtt.Client keyword arguments for a broker URL (mqtt:// or mqtts://).

    `tls_context` comes from `floord.mqtt.tls.client_tls` (the config's `broker.tls`);
    without one an mqtts:// broker is verified against the system's CA store.
    """
    host, port, tls = broker_address(url)
    if tls_context is not None and not tls:
        raise ValueError(f"a TLS context needs an mqtts:// broker URL, found {url!r}")
    kwargs: dict[str, Any] = {
        "hostname": host,
        "port": port,
        "username": username,
        "password": password,
    }
    if tls_context is not None:
        kwargs["tls_context"] = tls_context
    elif tls:
        kwargs["tls_params"] = aiomqtt.TLSParameters()
    return kwargs


async def send_command(
    *,
    url: str | Sequence[str],
    username: str | None,
    password: str | None,
    topics: Topics,
    name: str,
    by: str,
    key: bytes,
    args: dict[str, Any],
    timeout_s: float = 10.0,
    tls_context: ssl.SSLContext | None = None,
) -> dict[str, Any]:
    """Publish a signed command and return the table's `P/cmd/result` reply. A `replay`
    goes to `P/replay/request`, which a surveillance login may publish to.

    `url` is one broker or a cluster's nodes: the command goes through the first node
    that accepts the connection (`first_reachable`), and only once."""
    command = build_command(name, by, args, key, datetime.now(UTC))
    urls = [url] if isinstance(url, str) else list(url)
    kwargs = {u: client_args(u, username, password, tls_context) for u in urls}

    def connect(node: str) -> aiomqtt.Client:
        return aiomqtt.Client(identifier=f"floord-cmd-{uuid.uuid4().hex[:12]}", **kwargs[node])

    async def subscribed(client: aiomqtt.Client) -> None:
        # A broker that drops the connection before its SUBACK is not waited on for
        # longer than the table would be.
        await subscribe_checked(client, [topics.cmd_result], timeout=timeout_s)

    async with first_reachable(urls, connect, subscribed) as (client, _):
        topic = topics.replay_request if name == "replay" else topics.cmd
        await client.publish(topic, json.dumps(command), qos=1)

        async def answer() -> dict[str, Any]:
            async for message in client.messages:
                try:
                    body = read_json(bytes(message.payload))
                except (TypeError, ValueError):
                    continue
                if isinstance(body, dict) and body.get("id") == command["id"]:
                    return body
            raise ConnectionError("the broker closed the connection before the table answered")

        try:
            async with asyncio.timeout(timeout_s):
                return await answer()
        except TimeoutError:
            return {
                "id": command["id"],
                "ok": False,
                "error": f"no answer from table {topics.table} within {timeout_s:g} s",
            }
