"""What an `online: true` status says of the connection lost before it (`lost`).

A broker node that dies takes the last wills of its connections with it (NATS keeps a
will only in the memory of the node that holds the connection, docs/deployment.md), so
no `online: false` may ever have been seen for a connection that went that way. Every
floord client that leaves a last will says so on its next `online: true` instead: the
table link on `P/status`, an adapter process's link on `P/devices/<device>/status`
(docs/contract.md). The one place both build that field and forget the loss:

- `lost_field`: the field from the session's `Loss` (`STATUS_LOST_FIELDS`: the node,
  when that connection was made, when the client saw it go, and when it was back, the
  status body's own `ts`), or nothing when there was no loss;
- `say_online`: publish the status naming the session's loss, if any, and forget the
  loss only once the broker has acknowledged it (a status lost on the way leaves the
  loss for the next connection's status to say);
- `lost_said`: a status's `lost` as its reader logs it (the daemon's follower of a
  remote adapter), each field printable text: the body is another process's word.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

from floord.contract import STATUS_LOST, STATUS_LOST_FIELDS, format_ts
from floord.mqtt.session import Loss, SessionLoop
from floord.untrusted import escape_text


def lost_field(loss: Loss | None, back: datetime) -> dict[str, Any]:
    """`{"lost": {...}}` for a status body whose `ts` is `back`; `{}` without a loss."""
    if loss is None:
        return {}
    return {
        STATUS_LOST: {
            "broker": loss.broker,
            "since": format_ts(loss.since),
            "lost_ts": format_ts(loss.at),
            "back_ts": format_ts(back),
        }
    }


async def say_online(
    session: SessionLoop, publish: Callable[[Loss | None], Awaitable[object]]
) -> None:
    """`publish` the online status with the session's unreported loss; then forget it."""
    loss = session.loss
    await publish(loss)
    if loss is not None:
        session.reported(loss)


def lost_said(body: dict[str, Any]) -> dict[str, str] | None:
    """A status body's `lost` (`STATUS_LOST_FIELDS`) and `back_on`, the node the body's
    connection is on (its `broker`), each as escaped text of at most 100 characters; None
    when it has no `lost`."""
    lost = body.get(STATUS_LOST)
    if not isinstance(lost, dict):
        return None
    said = {key: escape_text(str(lost.get(key)), 100) for key in STATUS_LOST_FIELDS}
    return {**said, "back_on": escape_text(str(body.get("broker")), 100)}
