"""A shorter adapter stream is proved by a replay answer, never by a status alone.

A status can be older than the events the daemon already has: the retained one a new
subscription gets (published on the adapter's connection, before the events that
followed), or a heartbeat whose head was read before its latest rows went out. Taken
as proof, such a status once halted a table at start (`device_offline`, "the adapter's
stream ends at seq 0; 4 are on record"). So a status saying less than is on record
only holds deliveries back and asks for a replay; the answer to that request, whose
`last_seq` the adapter read after the request came, decides.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from test_remote_adapter import _envelope, _remote

pytestmark = pytest.mark.unit


class Requests:
    """The client's side of `publish`, kept: the replay requests the daemon sent."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    async def publish(self, topic: str, payload: bytes | str, **_: Any) -> None:
        assert topic.endswith("/devices/wheel/replay/request"), topic
        self.sent.append(json.loads(payload))


def _answer(request: dict[str, Any], last: int, seqs: list[int]) -> dict[str, Any]:
    events = [_envelope(seq) for seq in seqs]
    return {
        "v": 1,
        "id": request["id"],
        "from_seq": request["from_seq"],
        "last_seq": last,
        "events": events,
    }


async def _delivered(remote: Any, got: list[Any]) -> list[int]:
    """The device seqs on the bus once every copy handed over is durable."""
    await remote._appends.settled()
    return [r.device_seq for r in got]


def _following(tmp_path: Path, got: list[Any], have: int) -> tuple[Any, Requests]:
    remote = _remote(tmp_path, got)
    requests = Requests()
    remote._client = requests
    for seq in range(1, have + 1):
        remote._accept(remote._read_envelope(_envelope(seq)))
    return remote, requests


def test_a_stale_status_holds_events_until_an_answer_shows_the_stream_goes_on(
    tmp_path: Path,
) -> None:
    got: list[Any] = []

    async def run() -> None:
        remote, requests = _following(tmp_path, got, 4)
        # The retained status of the adapter's connection, from before seq 1 was written.
        remote._on_status({"online": True, "last_seq": 0, "first_ts": None}, live=False)
        assert remote.broken is None
        await asyncio.sleep(0)
        [request] = requests.sent
        assert request["from_seq"] == 5
        remote._accept(remote._read_envelope(_envelope(5)))
        assert await _delivered(remote, got) == [1, 2, 3, 4]  # held until the answer
        remote._on_replay(_answer(request, 6, [5, 6]))
        assert remote.broken is None
        assert await _delivered(remote, got) == [1, 2, 3, 4, 5, 6]
        remote._accept(remote._read_envelope(_envelope(7)))
        assert (await _delivered(remote, got))[-1] == 7
        await remote._appends.settled()
        remote._journal.close()

    asyncio.run(run())


def test_an_answer_that_ends_before_the_record_refuses_the_stream(tmp_path: Path) -> None:
    got: list[Any] = []

    async def run() -> None:
        remote, requests = _following(tmp_path, got, 4)
        remote._on_status({"online": True, "last_seq": 2, "first_ts": None}, live=True)
        await asyncio.sleep(0)
        [request] = requests.sent
        remote._on_replay(_answer(request, 2, []))
        assert remote.broken == "the adapter's stream ends at seq 2; 4 are on record"
        await remote._appends.settled()
        assert got[-1].event.type == "device.offline" and got[-1].device_seq == 0
        remote._accept(remote._read_envelope(_envelope(5)))
        await remote._appends.settled()
        assert got[-1].event.type == "device.offline"  # nothing followed after that
        await remote._appends.settled()
        remote._journal.close()

    asyncio.run(run())


def test_only_an_answer_to_a_request_sent_after_the_suspicion_decides(tmp_path: Path) -> None:
    got: list[Any] = []

    async def run() -> None:
        remote, requests = _following(tmp_path, got, 2)
        remote._ask()  # a request sent with 2 on record
        await asyncio.sleep(0)
        remote._accept(remote._read_envelope(_envelope(3)))
        remote._accept(remote._read_envelope(_envelope(4)))
        remote._on_status({"online": True, "last_seq": 1, "first_ts": None}, live=True)
        await asyncio.sleep(0)
        assert len(requests.sent) == 1  # one request at a time
        # The first request's answer, read before 3 and 4 were written, proves nothing.
        remote._on_replay(_answer(requests.sent[0], 2, []))
        assert remote.broken is None
        await asyncio.sleep(0)
        second = requests.sent[-1]
        assert len(requests.sent) == 2 and second["from_seq"] == 5
        remote._accept(remote._read_envelope(_envelope(5)))
        assert await _delivered(remote, got) == [1, 2, 3, 4]
        remote._on_replay(_answer(second, 3, []))
        assert remote.broken == "the adapter's stream ends at seq 3; 4 are on record"
        await remote._appends.settled()
        remote._journal.close()

    asyncio.run(run())


def test_a_different_first_event_is_refused_at_once(tmp_path: Path) -> None:
    got: list[Any] = []

    async def run() -> None:
        remote, _ = _following(tmp_path, got, 2)
        first_ts = "2026-01-02T09:00:00.000000Z"
        remote._on_status({"online": True, "last_seq": 9, "first_ts": first_ts}, live=False)
        assert remote.broken == "the adapter's stream is not the one on record (seq 1 differs)"
        await remote._appends.settled()
        remote._journal.close()

    asyncio.run(run())


def test_a_status_far_ahead_costs_one_request_and_one_past_any_journal_none(
    tmp_path: Path,
) -> None:
    """A status claiming a stream no adapter has (forged: the topic is the adapter's)
    is answered once; the answer says where the adapter's journal ends, and no request
    follows. A `last_seq` no journal can hold is refused where it is read."""
    from floord.adapters.remote import BadEnvelope
    from floord.contract import SEQ_MAX

    got: list[Any] = []

    async def run() -> None:
        remote, requests = _following(tmp_path, got, 4)
        remote._on_status({"online": True, "last_seq": SEQ_MAX, "first_ts": None}, live=True)
        await asyncio.sleep(0)
        [request] = requests.sent
        remote._on_replay(_answer(request, 4, []))
        assert remote.broken is None
        await asyncio.sleep(0)
        remote._order.retry(float("inf"), 1.0)
        await asyncio.sleep(0)
        assert len(requests.sent) == 1  # nothing more to ask for
        with pytest.raises(BadEnvelope):
            remote._on_status({"online": True, "last_seq": 2**70, "first_ts": None}, live=True)
        with pytest.raises(BadEnvelope):
            remote._on_replay({**_answer(request, 2**63, []), "from_seq": 5})
        assert len(requests.sent) == 1
        await remote._appends.settled()
        remote._journal.close()

    asyncio.run(run())
