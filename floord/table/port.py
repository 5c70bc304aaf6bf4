"""What a table's runner tells the world, through the one port the daemon gives it.

Once a turn is on the record the runner says so (`recorded`: publish the new events and
the new `P/state`); a halt while nothing can be recorded changes only the state
(`state_changed`); a command's result and a replay are published. The daemon's port is
its MQTT link (`LinkPort`); a test gives one that keeps what it is told.
"""

from __future__ import annotations

from typing import Any, Protocol


class Committed(Protocol):
    def recorded(self) -> None: ...
    def state_changed(self) -> None: ...
    async def publish_result(self, payload: dict[str, Any]) -> None: ...
    async def publish_replay(self, payloads: list[str]) -> None: ...


class Link(Protocol):
    """What the port needs of a table's MQTT link (`floord.mqtt.TableLink`)."""

    def notify(self) -> None: ...
    def state_changed(self) -> None: ...
    async def publish_result(self, payload: dict[str, Any]) -> None: ...
    async def publish_replay(self, payloads: list[str]) -> None: ...


class LinkPort:
    """A table's MQTT link as its runner's port."""

    def __init__(self, link: Link) -> None:
        self.link = link

    def recorded(self) -> None:
        """New events on the record: the link publishes them, and the state."""
        self.link.notify()
        self.link.state_changed()

    def state_changed(self) -> None:
        self.link.state_changed()

    async def publish_result(self, payload: dict[str, Any]) -> None:
        await self.link.publish_result(payload)

    async def publish_replay(self, payloads: list[str]) -> None:
        await self.link.publish_replay(payloads)
