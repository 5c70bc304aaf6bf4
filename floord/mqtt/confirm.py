"""QoS 1 publishes of a batch, with one waiter for all of their PUBACKs.

aiomqtt's `Client.publish` makes, for every message, a coroutine, an `asyncio.Event`, a
`wait_for` and two scans of all of its pending calls (every publish still waiting is
looked through twice); sent together, a batch needs a task for each message on top. For
floord's messages that is a fifth (a frame at a time) to two fifths (a backlog) of the
MQTT client's CPU (`bench/publish_batch.py`). So a batch goes to the paho client under
the aiomqtt one (`floord.mqtt.paho_hooks`, the one module that reaches it), in the order
given, and one future waits for its PUBACKs: a dict lookup for each acknowledgement, one
wake-up of the waiting task for the whole batch. `Confirmations` takes paho's
`on_publish` callback over and hands every acknowledgement it does not wait for to
aiomqtt's own, so the client's other publishes (the status, a command's result) are
acknowledged through aiomqtt as usual.

Where the hooks do not fit the installed libraries, a batch goes through aiomqtt's public
`publish`, a task for each message started in the batch's order (`publish_each`): the
same order, acknowledgements and timeout, at the cost above.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, cast

import aiomqtt
import paho.mqtt.client as paho

from floord.mqtt.paho_hooks import Hooks, hooks

if TYPE_CHECKING:
    from paho.mqtt.client import CallbackOnPublish_v2


class Message(NamedTuple):
    """One QoS 1 message of a batch."""

    topic: str
    payload: str  # floord's bodies are JSON text
    retain: bool = False


class _Batch:
    """One batch's outstanding message ids, and the future settled when none is left
    (or when its time is up: `Confirmations.watch`)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, size: int) -> None:
        self.acked = [False] * size
        self.index: dict[int, int] = {}  # mid -> position in the batch
        self.done: asyncio.Future[None] = loop.create_future()
        self.deadline = 0.0  # the loop's time by which its PUBACKs are due

    def expire(self) -> None:
        """Its time is up: its waiter goes on with what was acknowledged so far."""
        if not self.done.done():
            self.done.set_result(None)

    def confirm(self, mid: int, ok: bool) -> None:
        position = self.index.pop(mid)
        self.acked[position] = ok
        if not self.index and not self.done.done():
            self.done.set_result(None)


class Confirmations:
    """The PUBACKs of one aiomqtt client, for the batches `publish_batch` sends.

    Made once for a client (`for_client`), when its first batch goes out."""

    def __init__(self, hooked: Hooks) -> None:
        self.hooks = hooked
        self.paho: paho.Client = hooked.paho
        # aiomqtt registers its callbacks with paho's API version 2 (five arguments).
        self._theirs = cast("CallbackOnPublish_v2 | None", self.paho.on_publish)
        self._waiting: dict[int, _Batch] = {}
        self.paho.on_publish = self._on_publish
        # The batches waiting for their PUBACKs, and one timer for all of their
        # deadlines (at the earliest): a batch goes out with every frame, and a timer
        # of its own would be made, pushed on the loop's heap and cancelled each time.
        self._loop = asyncio.get_running_loop()
        self._batches: set[_Batch] = set()
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = 0.0

    def expect(self, mid: int, batch: _Batch, position: int) -> None:
        batch.index[mid] = position
        self._waiting[mid] = batch

    def watch(self, batch: _Batch, timeout: float) -> None:
        """Expire `batch` (`_Batch.expire`) unless all of its PUBACKs came within
        `timeout` seconds from now. The client's one timer is armed again only when this
        deadline comes before the one it is armed for."""
        batch.deadline = self._loop.time() + timeout
        self._batches.add(batch)
        if self._timer is None or batch.deadline < self._timer_at:
            self._arm(batch.deadline)

    def _arm(self, when: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer_at = when
        # Through a weak reference: a timer pending on the loop must not keep a client
        # that is done with alive.
        self._timer = self._loop.call_at(when, _expire_due, weakref.ref(self))

    def expire_due(self) -> None:
        """The timer: every batch whose deadline has passed expires; the timer is armed
        again for the earliest deadline left."""
        self._timer = None
        now = self._loop.time()
        for batch in [batch for batch in self._batches if batch.deadline <= now]:
            self._batches.discard(batch)
            batch.expire()
        if self._batches:
            self._arm(min(batch.deadline for batch in self._batches))

    def forget(self, batch: _Batch) -> None:
        """A batch no longer waited for: a late PUBACK of it goes to aiomqtt's callback
        (which ignores an id it does not know)."""
        for mid in batch.index:
            self._waiting.pop(mid, None)
        batch.index.clear()
        self._batches.discard(batch)

    def _on_publish(
        self, client: paho.Client, userdata: Any, mid: int, reason_code: Any, properties: Any
    ) -> None:
        batch = self._waiting.pop(mid, None)
        if batch is None:
            if self._theirs is not None:
                self._theirs(client, userdata, mid, reason_code, properties)
            return
        # MQTT 3.1.1's PUBACK has no reason code (paho reports success); an MQTT 5
        # broker's refusal (e.g. not authorised for the topic) is not an acknowledgement.
        batch.confirm(mid, not getattr(reason_code, "is_failure", False))


def _expire_due(confirmations: weakref.ref[Confirmations]) -> None:
    found = confirmations()
    if found is not None:
        found.expire_due()


# The attribute of an aiomqtt client that holds its `Confirmations`. On the client itself,
# not in a registry: the confirmations reach the client (through paho's callbacks), so a
# registry's entry would keep every client of every connection alive.
_ATTRIBUTE = "_floord_confirmations"


def for_client(client: aiomqtt.Client) -> Confirmations | None:
    """`client`'s confirmations, made on first use (a client is used for one connection);
    None where the hooks do not fit the installed libraries (`paho_hooks.fits`)."""
    found = getattr(client, _ATTRIBUTE, None)
    if not isinstance(found, Confirmations):
        hooked = hooks(client)
        if hooked is None:
            return None
        found = Confirmations(hooked)
        setattr(client, _ATTRIBUTE, found)
    return found


async def publish_batch(
    client: aiomqtt.Client, messages: Sequence[Message], *, ack_timeout: float
) -> tuple[list[bool], int | None]:
    """Publish `messages` at QoS 1, in order; which were acknowledged within
    `ack_timeout`, and the paho error code of the first one the client refused at once
    (None if it took them all: a refused message is not sent, and counts as not acked).

    Raises what paho raises for a message it cannot make (a bad topic, a payload too
    large); those before it in the batch went out."""
    confirmations = for_client(client)
    if confirmations is None:
        return await publish_each(client, messages, ack_timeout=ack_timeout)
    batch = _Batch(asyncio.get_running_loop(), len(messages))
    refused: int | None = None
    try:
        # Written as one when the last is made, in this turn of the loop.
        with confirmations.hooks.writing():
            for position, message in enumerate(messages):
                info = confirmations.paho.publish(
                    message.topic, message.payload, qos=1, retain=message.retain
                )
                if info.rc != paho.MQTT_ERR_SUCCESS:
                    refused = refused if refused is not None else int(info.rc)
                    continue
                confirmations.expect(info.mid, batch, position)
        if batch.index:
            confirmations.watch(batch, ack_timeout)
            await batch.done
    finally:
        confirmations.forget(batch)
    return batch.acked, refused


async def publish_each(
    client: aiomqtt.Client, messages: Sequence[Message], *, ack_timeout: float
) -> tuple[list[bool], int | None]:
    """`publish_batch` through aiomqtt's public `publish`: a task for each message, made
    in the batch's order (each hands its message to paho in its first step, so the packets
    leave in that order); what each returned, as `publish_batch` reports it. Raises what
    paho raised for a message it could not make, once every task has ended."""
    tasks = [
        asyncio.create_task(
            client.publish(
                message.topic, message.payload, qos=1, retain=message.retain, timeout=ack_timeout
            )
        )
        for message in messages
    ]
    if not tasks:
        return [], None
    try:
        await asyncio.wait(tasks)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.wait(tasks)
    acked: list[bool] = []
    refused: int | None = None
    for task in tasks:
        exc = None if task.cancelled() else task.exception()
        acked.append(exc is None and not task.cancelled())
        if isinstance(exc, aiomqtt.MqttCodeError):
            if refused is None and isinstance(exc.rc, int):
                refused = int(exc.rc)  # paho's error code, as `publish_batch` reports it
        elif exc is not None and not isinstance(exc, aiomqtt.MqttError):
            raise exc
    return acked, refused


def refusal(acked: Sequence[bool], refused: int | None) -> aiomqtt.MqttError | None:
    """What a batch that was not all acknowledged raises, as aiomqtt would have."""
    if all(acked):
        return None
    if refused is not None:
        return aiomqtt.MqttCodeError(refused, "Could not publish message")
    return aiomqtt.MqttError("Operation timed out")
