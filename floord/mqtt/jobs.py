"""One MQTT connection's jobs, run together until one of them ends the session.

A link (the table's, or a remote adapter's) runs several jobs on one connection:
listen, drain the journal, keep the state or a heartbeat, watch for stop(). When one
ends, whether by the broker going away, an error or a clean stop, the others are
cancelled and awaited, and the session ends the way that job did.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection
from typing import Any

import aiomqtt


class SessionStopped(Exception):
    """The session ended because stop() asked it to (raised by a link's stop watch)."""


async def run_session(
    jobs: set[asyncio.Task[Any]], *, may_finish: Collection[asyncio.Task[Any]] = ()
) -> None:
    """Run `jobs` until one ends; a job in `may_finish` may end cleanly without ending the
    session (a start-up step). Returns on a clean stop, raises what ended the session."""
    pending = set(jobs)
    try:
        while True:
            done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            # A start-up step that ended cleanly, or was cancelled (a stop during the
            # start-up cancels it before its goodbye), does not end the session.
            ended = [t for t in done if not (t in may_finish and _ended_well(t))]
            if ended:
                break
    finally:
        for job in jobs:
            job.cancel()
        await asyncio.wait(jobs)
    for job in ended:
        if job.cancelled():
            continue
        exc = job.exception()
        if isinstance(exc, SessionStopped):
            return
        if exc is not None:
            raise exc
    raise aiomqtt.MqttError("a link job ended without a reason")


def _ended_well(task: asyncio.Task[Any]) -> bool:
    return task.cancelled() or task.exception() is None
