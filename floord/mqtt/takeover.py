"""Two processes with one MQTT client id, told apart by the `instance` of their statuses.

A broker allows one connection per client id: a second process connecting with it (a
second daemon for the same table, a config copied to another box) takes the first's
connection over, and the first, reconnecting, takes it back. MQTT 3.1.1 (Mosquitto, a
NATS cluster) gives no reason for the drop, so each side would only see its connection
lost every few seconds. So every retained status body carries its process's `instance`
(a random token made once per process, its pid and host), and a link that reconnects
reads its own retained status before it publishes its own: a body of another instance
(one its first connection did not find, or one registered after this process started)
says another connection with this client id took over (`rival`); Mosquitto even sends
the displaced connection's last will, which names its instance too. The session loop
logs that once, at error level, and the losses after it as debug lines
(`floord.mqtt.session`). The first connection's finding is never a rival: it is the
last word of the process before this one (a restart), or of one this start displaced,
which says so when it reconnects.
"""

from __future__ import annotations

import os
import secrets
import socket
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import aiomqtt

from floord.contract import STATUS_INSTANCE, format_ts, parse_ts
from floord.mqtt.session import SessionLoop
from floord.untrusted import escape_text, read_json


@dataclass(frozen=True)
class Instance:
    """This process, as its status bodies name it."""

    token: str
    pid: int
    host: str
    started: datetime

    def field(self) -> dict[str, Any]:
        """`{"instance": {"id", "pid", "host", "started"}}` for a status body."""
        return {
            STATUS_INSTANCE: {
                "id": self.token,
                "pid": self.pid,
                "host": self.host,
                "started": format_ts(self.started),
            }
        }


_THIS: Instance | None = None


def this_instance(now: datetime) -> Instance:
    """The process's instance, made at its first call (again in a forked child)."""
    global _THIS
    if _THIS is None or _THIS.pid != os.getpid():
        _THIS = Instance(secrets.token_hex(8), os.getpid(), socket.gethostname(), now)
    return _THIS


class TakeoverWatch:
    """One link's reading of its own retained status, at the start of each connection."""

    def __init__(self, me: Instance) -> None:
        self.me = me
        self._connections = 0
        # The instance whose status the first connection found: the process before this
        # one (a restart), or one already running with this client id.
        self._first: str | None = None

    def connected(self) -> None:
        """A connection is up: the retained status it reads next is this one's."""
        self._connections += 1

    async def subscribe(self, client: aiomqtt.Client, topic: str, timeout: float) -> None:
        """A new connection (`connected`) subscribes to its own status `topic` (QoS 0)
        before the link says its own: the broker sends the retained body at once
        (`heard`). A broker that refuses the subscription (an ACL without read on it)
        sends nothing: that costs the check, never the connection."""
        self.connected()
        await client.subscribe(topic, qos=0, timeout=timeout)

    def heard(self, message: aiomqtt.Message, session: SessionLoop, client_id: str | None) -> None:
        """A message on the link's own status topic: the retained body the subscription
        found is read (`read`), and a rival it names told to the session; the link's own
        statuses, echoed to it live (not retained), are not."""
        payload = message.payload
        if not message.retain or not isinstance(payload, bytes | bytearray | str):
            return
        found = self.read(payload)
        if found is not None:
            session.taken_over(client_id, found)

    def read(self, payload: bytes | bytearray | str) -> dict[str, str] | None:
        """The rival a retained status names (`rival`), after a reconnection; None on the
        first connection (a status found then may be the previous process's last word)."""
        body = _status(payload)
        other = body.get(STATUS_INSTANCE) if body is not None else None
        if body is None or not isinstance(other, dict) or other.get("id") == self.me.token:
            return None
        if self._connections <= 1:
            self._first = str(other.get("id"))
            return None
        return rival(body, self.me, self._first)


def rival(body: dict[str, Any], me: Instance, first: str | None = None) -> dict[str, str] | None:
    """The other instance a status body names (`pid`, `host`, `ts`, `online`, as escaped
    text: it is another process's word), when it is not `me` and is either not the
    instance the first connection found (`first`) or registered after `me` started;
    None otherwise (ours, or the last word of a process before this one)."""
    other = body.get(STATUS_INSTANCE)
    if not isinstance(other, dict) or other.get("id") == me.token:
        return None
    if first is not None and other.get("id") == first:
        try:
            when = parse_ts(str(body.get("ts")))
        except ValueError:
            return None
        if when < me.started:
            return None  # the process before this one: its last word, not a rival
    return {
        "other_pid": escape_text(str(other.get("pid")), 20),
        "other_host": escape_text(str(other.get("host")), 100),
        "other_ts": escape_text(str(body.get("ts")), 40),
        "other_online": escape_text(str(body.get("online")), 10),
    }


def _status(payload: bytes | bytearray | str) -> dict[str, Any] | None:
    try:
        body = read_json(payload)
    except ValueError:
        return None
    return body if isinstance(body, dict) else None
