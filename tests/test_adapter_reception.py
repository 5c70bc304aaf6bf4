"""A session's reading in the transport's callback (`floord.adapters.reception`): what the
device said is handed on in the callback that read it, in order, behind whatever the
driver must write first, and the session ends as a read loop's would."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest
from virtual_clock import run

from floord.adapters.reception import Reception
from floord.adapters.silence import Silence
from floord.events import DeviceEvent, DeviceOutput, DeviceReply, Outgoing
from floord.transport.base import TransportError

pytestmark = pytest.mark.unit


def _event(name: str) -> DeviceEvent:
    return DeviceEvent("device.test", {"name": name})


class Session:
    """A reception whose driver gives, for each chunk, the outputs its words name: a
    word per output, `!` before it for an `Outgoing`, `?` for a reply. With a
    `write_gate`, a write cannot be made at once: it is awaited until the gate opens."""

    def __init__(self, scope: asyncio.Timeout, *, write_gate: asyncio.Event | None = None):
        self.handed: list[str] = []
        self.written: list[bytes] = []
        self.taken: list[bytes] = []
        self.stopping = False
        self.write_fails = False
        self._gate = write_gate
        self.silence = Silence(scope)
        self.reception = Reception(
            take=self._take,
            hand=self._hand,
            write_now=self._write_now,
            write=self._write,
            silence=self.silence,
            limit=lambda: 5.0,
            stopping=lambda: self.stopping,
        )

    def _take(self, data: bytes) -> Sequence[DeviceOutput]:
        self.taken.append(data)
        if data == b"boom":
            raise ValueError("the driver's bug")
        outputs: list[DeviceOutput] = []
        for word in data.decode().split():
            if word.startswith("!"):
                outputs.append(Outgoing(word[1:].encode()))
            elif word.startswith("?"):
                outputs.append(DeviceReply(prefix="*T", text=word[1:]))
            else:
                outputs.append(_event(word))
        return outputs

    def _hand(self, item: DeviceEvent | DeviceReply) -> None:
        self.handed.append(item.text if isinstance(item, DeviceReply) else item.data["name"])

    def _write_now(self, payload: bytes) -> bool:
        if self._gate is not None:
            return False
        self._wrote(payload)
        return True

    async def _write(self, payload: bytes) -> None:
        if self._gate is not None:
            await self._gate.wait()
        self._wrote(payload)

    def _wrote(self, payload: bytes) -> None:
        if self.write_fails:
            raise TransportError("port: write failed: gone")
        self.written.append(payload)
        self.handed.append(f"wrote {payload.decode()}")


async def _run(session: Session) -> str | None:
    try:
        return await session.reception.run()
    finally:
        session.reception.close()
        session.silence.close()


def test_a_chunk_is_handed_on_in_the_callback_that_read_it() -> None:
    async def main() -> tuple[list[str], str | None]:
        async with asyncio.timeout(None) as scope:
            session = Session(scope)
            task = asyncio.create_task(_run(session))
            session.reception.received(b"a ?r b")
            handed_at_once = list(session.handed)  # before the task ran at all
            session.reception.received(b"c")
            session.reception.lost(None)
            return [*handed_at_once, "|", *session.handed], await task

    handed, end = asyncio.run(main())
    assert handed == ["a", "r", "b", "|", "a", "r", "b", "c"]
    assert end == "link closed"


def test_an_outgoing_the_link_takes_at_once_is_written_in_the_callback() -> None:
    async def main() -> tuple[list[str], str | None]:
        async with asyncio.timeout(None) as scope:
            session = Session(scope)
            task = asyncio.create_task(_run(session))
            session.reception.received(b"a !ack1 b")
            handed_at_once = list(session.handed)  # the task has not run
            session.reception.lost(None)
            return handed_at_once, await task

    handed, end = asyncio.run(main())
    assert handed == ["a", "wrote ack1", "b"]
    assert end == "link closed"


def test_what_follows_an_outgoing_waits_until_it_is_written() -> None:
    async def main() -> tuple[list[str], list[str], str | None]:
        gate = asyncio.Event()
        async with asyncio.timeout(None) as scope:
            session = Session(scope, write_gate=gate)
            task = asyncio.create_task(_run(session))
            session.reception.received(b"a !ack1 b")
            session.reception.received(b"c !ack2 d")  # read while ack1 is being written
            await asyncio.sleep(0.01)
            before = list(session.handed)
            gate.set()
            await asyncio.sleep(0.01)
            session.reception.received(b"e")  # caught up: handed in its callback again
            session.reception.lost(TransportError("port: read failed: EIO"))
            return before, session.handed, await task

    before, handed, end = asyncio.run(main())
    assert before == ["a"]
    assert handed == ["a", "wrote ack1", "b", "c", "wrote ack2", "d", "e"]
    assert end == "link broke: port: read failed: EIO"


def test_the_end_of_the_link_waits_for_what_is_held() -> None:
    async def main() -> tuple[list[str], str | None]:
        gate = asyncio.Event()
        async with asyncio.timeout(None) as scope:
            session = Session(scope, write_gate=gate)
            task = asyncio.create_task(_run(session))
            session.reception.received(b"!ack a")
            session.reception.received(b"b")
            session.reception.lost(None)
            await asyncio.sleep(0.01)
            assert not task.done()
            gate.set()
            return session.handed, await task

    handed, end = asyncio.run(main())
    assert handed == ["wrote ack", "a", "b"]
    assert end == "link closed"


def test_a_write_that_fails_ends_the_session_and_drops_the_rest() -> None:
    async def main() -> tuple[list[str], str | None]:
        async with asyncio.timeout(None) as scope:
            session = Session(scope)
            session.write_fails = True
            task = asyncio.create_task(_run(session))
            session.reception.received(b"a !ack b")
            return session.handed, await task

    handed, end = asyncio.run(main())
    assert handed == ["a"]
    assert end == "link broke: port: write failed: gone"


def test_a_failure_in_the_callback_is_raised_by_the_session() -> None:
    async def main() -> Session:
        async with asyncio.timeout(None) as scope:
            session = Session(scope)
            task = asyncio.create_task(_run(session))
            session.reception.received(b"boom")
            session.reception.received(b"after")  # nothing is taken once it failed
            with pytest.raises(ValueError, match="the driver's bug"):
                await task
            return session

    session = asyncio.run(main())
    assert session.taken == [b"boom"]


def test_a_failure_from_elsewhere_drops_what_is_held() -> None:
    async def main() -> list[str]:
        gate = asyncio.Event()
        async with asyncio.timeout(None) as scope:
            session = Session(scope, write_gate=gate)
            task = asyncio.create_task(_run(session))
            session.reception.received(b"!ack a")
            await asyncio.sleep(0)
            session.reception.fail(RuntimeError("identification failed"))
            gate.set()
            with pytest.raises(RuntimeError, match="identification failed"):
                await task
            return session.handed

    assert asyncio.run(main()) == ["wrote ack"]


def test_a_stopping_adapter_takes_nothing_more() -> None:
    async def main() -> tuple[Session, str | None]:
        async with asyncio.timeout(None) as scope:
            session = Session(scope)
            task = asyncio.create_task(_run(session))
            session.reception.received(b"a")
            session.stopping = True
            session.reception.received(b"b")
            return session, await task

    session, end = asyncio.run(main())
    assert session.handed == ["a"]
    assert session.taken == [b"a"]
    assert end is None


def test_nothing_is_taken_once_the_session_is_over() -> None:
    async def main() -> Session:
        async with asyncio.timeout(None) as scope:
            session = Session(scope)
            task = asyncio.create_task(_run(session))
            session.reception.lost(None)
            await task
            session.reception.received(b"late")
            session.reception.lost(TransportError("late"))
            return session

    session = asyncio.run(main())
    assert session.taken == []


def test_silence_counts_from_the_last_chunk() -> None:
    async def main() -> tuple[int, float]:
        chunks = 0
        began = asyncio.get_running_loop().time()

        async def device(reception: Reception) -> None:
            nonlocal chunks
            for _ in range(8):  # 0.4 s of chunks, more than twice the limit
                await asyncio.sleep(0.05)
                reception.received(b"x")
                chunks += 1

        with pytest.raises(TimeoutError):
            async with asyncio.timeout(None) as scope:
                session = Session(scope)
                session.reception = Reception(
                    take=lambda data: [],
                    hand=lambda item: None,
                    write_now=lambda payload: True,
                    write=lambda payload: asyncio.sleep(0),
                    silence=session.silence,
                    limit=lambda: 0.15,
                    stopping=lambda: False,
                )
                session.silence.reading(0.15)
                feeder = asyncio.create_task(device(session.reception))
                try:
                    await _run(session)
                finally:
                    feeder.cancel()
                    await asyncio.gather(feeder, return_exceptions=True)
        return chunks, asyncio.get_running_loop().time() - began

    chunks, took = run(main())  # on the loop's clock, which jumps to each timer
    assert chunks == 8
    assert took == pytest.approx(0.4 + 0.15)
