"""The FLF/1 link of the simulated card devices, heard through a real pty or TCP.

Identity at power-on and on `IDQ`, heartbeats, acknowledgement of host frames, resends
with the same SEQ and `FLT|90` after `max_resends`, dropped ACKs, a garbled frame and its
resend, silence, and TCP serving with a reconnect. The host side parses with its own
code (`card_sim_support`), never `simulators/flf1/wire.py`'s. The family messages are in
`test_simulator_cards_families.py`.
"""

from __future__ import annotations

import asyncio
import binascii
import contextlib
import itertools

import pytest
from card_sim_support import (
    HANG_S,
    HostEnd,
    assert_sequence_increases,
    host_checksum,
    host_frame,
    on_pty,
    profile,
)

from simulators.flf1.card_reader import CardReaderSimulator
from simulators.flf1.card_scenarios import ReaderScenario, ShoeScenario
from simulators.flf1.dealing_shoe import DealingShoeSimulator
from simulators.flf1.wire import checksum, crc16_ccitt
from simulators.link import serve_tcp

pytestmark = pytest.mark.system

SPEED = 10.0
IDN_READER = ("IDN", "floord reference", "test-card-reader", "CR-000123", "1.4.2", "-")


def reader(steps: list[dict], speed: float = SPEED, **quirks: object) -> CardReaderSimulator:
    scenario = ReaderScenario.model_validate({"steps": steps})
    return CardReaderSimulator(profile("card_reader", **quirks), scenario, speed=speed)


def test_checksums_match_the_page() -> None:
    assert f"{binascii.crc_hqx(b'123456789', 0xFFFF):04X}" == "29B1"  # the page's check value
    assert f"{crc16_ccitt(b'123456789'):04X}" == "29B1"
    assert checksum(b"07|HBT", "crc16-ccitt") == host_checksum(b"07|HBT", "crc16-ccitt")
    assert checksum(b"07|HBT", "xor8") == f"{0x30 ^ 0x37 ^ 0x7C ^ 0x48 ^ 0x42 ^ 0x54:02X}"
    assert host_frame(7, "HBT", (), "crc16-ccitt").startswith(b"\x0207|HBT\x03")


def test_identity_at_power_on_after_the_quiet_and_on_idq_with_its_ack() -> None:
    scenario = ReaderScenario.model_validate(
        {"power_on_quiet": 1.0, "identity": {"serial": "CR-9", "firmware": "2.0"},
         "steps": [{"idle": 40}]}
    )  # fmt: skip
    sim = CardReaderSimulator(profile("card_reader", exposes_value=True), scenario, speed=SPEED)

    async def body() -> None:
        async with on_pty(sim) as (host, _task):
            first = await host.wait_kind("IDN")
            assert first == 0 and host.frames[0].seq == 0 and host.junk == []
            idn = ("IDN", "floord reference", "test-card-reader", "CR-9", "2.0", "exposes_value")
            assert (host.frames[0].kind, *host.frames[0].fields) == idn
            await host.wait_kind("TSR")
            host.seq = 0x41
            host.send("IDQ")
            ack = await host.wait_for(lambda f: f.kind == "ACK" and f.fields == ("41",))
            again = await host.wait_kind("IDN", ack)
            assert (host.frames[again].kind, *host.frames[again].fields) == idn
            assert_sequence_increases(host.distinct())

    asyncio.run(body())


@pytest.mark.parametrize("algorithm", ["crc16-ccitt", "xor8"])
def test_heartbeats_when_idle_numbered_and_checksummed(algorithm: str) -> None:
    sim = reader([{"idle": 60}], checksum=algorithm)

    async def body() -> None:
        async with on_pty(sim, algorithm=algorithm) as (host, _task):
            await host.wait_for(lambda _f: sum(f.kind == "HBT" for f in host.frames) >= 4)
            assert all(f.good for f in host.frames) and host.junk == []
            width = 2 if algorithm == "xor8" else 4
            assert all(len(f.raw) == f.raw.index(b"\x03") + 1 + width + 2 for f in host.frames)
            assert [f.kind for f in host.distinct()][:2] == ["IDN", "TSR"]
            assert_sequence_increases(host.distinct())

    asyncio.run(body())


def test_unacknowledged_frame_is_resent_unchanged_then_given_up_with_flt_90() -> None:
    sim = reader([{"idle": 60}], ack_timeout_s=0.5, max_resends=2)

    async def body() -> None:
        async with on_pty(sim, auto_ack=False) as (host, _task):
            flt = await host.wait_kind("FLT")
            idn = [f for f in host.frames[:flt] if f.kind == "IDN"]
            assert len(idn) == 3 and {f.raw for f in idn} == {idn[0].raw}  # 1 + max_resends
            assert host.frames[:flt] == idn and idn[0].seq == 0
            assert host.frames[flt].fields == ("90", "link: frame not acknowledged")
            assert host.frames[flt].seq == 1
            host.auto_ack = True
            host.send("ACK", ("01",))
            tsr = await host.wait_kind("TSR", flt)
            assert host.frames[tsr].seq == 2  # the power-on TSR comes after the FLT 90
            await host.wait_kind("HBT", tsr)
            assert sim.channel is not None and sim.channel.log.given_up == [0]

    asyncio.run(body())


def test_dropped_acks_make_resends_with_the_same_seq_but_no_flt() -> None:
    # At the start, so no heartbeat awaiting its ACK can take one of the dropped ACKs.
    sim = reader([{"drop_acks": 2}, {"idle": 40}], ack_timeout_s=0.3, max_resends=3)

    async def body() -> None:
        async with on_pty(sim) as (host, _task):
            tsr = await host.wait_kind("TSR")
            await host.wait_kind("HBT", tsr)
            idn = [f for f in host.frames if f.kind == "IDN"]
            assert len(idn) == 3 and len({(f.seq, f.raw) for f in idn}) == 1
            assert host.frames[:tsr] == idn and host.frames[tsr].seq == 1
            assert "FLT" not in [f.kind for f in host.frames]
            assert_sequence_increases(host.distinct())

    asyncio.run(body())


def test_garbled_frame_then_its_correct_resend() -> None:
    sim = reader([{"idle": 1}, {"garble": True}, {"peek": {"blackjack": True}}, {"idle": 40}],
                 ack_timeout_s=0.3)  # fmt: skip

    async def body() -> None:
        async with on_pty(sim) as (host, _task):
            good = await host.wait_kind("PEK")
            bad = host.frames[good - 1]
            assert bad.kind == "PEK" and not bad.good and bad.seq == host.frames[good].seq
            assert host.frames[good].fields == ("Y",)
            assert sum(not f.good for f in host.frames) == 1
            assert_sequence_increases(host.distinct())

    asyncio.run(body())


def test_host_frames_acked_refused_or_ignored() -> None:
    sim = reader([{"idle": 60}])

    async def body() -> None:
        async with on_pty(sim) as (host, _task):
            await host.wait_kind("TSR")
            host.seq = 0x10
            bad = bytearray(host_frame(0x10, "IDQ", (), "crc16-ccitt"))
            bad[-3] ^= 1  # a wrong checksum digit: not acknowledged, not answered
            host.send_raw(b"noise" + bytes(bad))
            host.send("FOO")  # seq 10: unknown type, refused, not acknowledged
            host.send("IDQ", ("x",))  # seq 11: a field where none belongs
            host.send("TST")  # seq 12
            at = await host.wait_kind("TSR", 2)
            seen = host.messages(2)
            acks = [f.fields for f in host.distinct(2) if f.kind == "ACK"]
            assert acks == [("11",), ("12",)]
            assert ("NAK", "1", "unknown command") in seen and ("NAK", "2", "bad field") in seen
            assert IDN_READER not in seen
            assert host.frames[at].fields == ("P", "0", "ok")
            assert sim.channel is not None and len(sim.channel.log.host_errors) == 2

    asyncio.run(body())


def test_silence_sends_nothing_and_hears_nothing() -> None:
    sim = reader([{"idle": 1}, {"silence": 4}, {"fault": {"code": 12}}, {"idle": 40}])

    async def body() -> None:
        async with on_pty(sim) as (host, _task):
            await host.wait_kind("TSR")
            await asyncio.sleep(0.15)  # inside the silence (idle 1 s = 0.1 s here)
            host.send("IDQ")  # nobody listens
            flt = await host.wait_kind("FLT")
            # A silent stretch before the fault: no heartbeat either. Measured as the
            # longest gap, not the last one: a frame whose ACK came during the silence
            # (unheard) is resent as it ends, just before the FLT, on a loaded machine.
            arrivals = [frame.at for frame in host.frames[: flt + 1]]
            longest = max(after - before for before, after in itertools.pairwise(arrivals))
            assert longest >= 0.9 * 0.4 - 0.1, host.frames[: flt + 1]
            await host.wait_kind("HBT", flt)
            assert [m[0] for m in host.messages()] == ["IDN", "TSR", "FLT"]

    asyncio.run(body())


async def _served(port: int, seen: HostEnd | None = None) -> tuple[HostEnd, asyncio.Task, object]:
    """Connect until the device serves us (it turns clients away while unplugged)."""
    deadline = asyncio.get_running_loop().time() + HANG_S
    while True:
        reader_, writer = await asyncio.open_connection("127.0.0.1", port)
        host = HostEnd(writer.write, "crc16-ccitt", auto_ack=True)

        async def pump(r: asyncio.StreamReader = reader_, h: HostEnd = host) -> None:
            with contextlib.suppress(ConnectionError):
                while data := await r.read(4096):
                    h.feed(data)

        task = asyncio.create_task(pump())
        host.send("IDQ")
        with contextlib.suppress(AssertionError, TimeoutError):
            await asyncio.wait_for(host.wait_kind("IDN"), 1.0)
            return host, task, writer
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()
        assert asyncio.get_running_loop().time() < deadline, "never served again"


def test_tcp_serves_frames_and_restarts_the_sequence_after_a_disconnect() -> None:
    scenario = ShoeScenario.model_validate(
        {"steps": [{"idle": 20}, {"load": {"cards": 52}}, {"disconnect": 5}, {"idle": 60}]}
    )
    sim = DealingShoeSimulator(profile("dealing_shoe"), scenario, speed=SPEED)

    async def body() -> None:
        link = await serve_tcp("127.0.0.1", 0)
        run = asyncio.create_task(sim.run(link))
        writers = []
        try:
            first, first_pump, w1 = await _served(link.port)
            writers.append(w1)
            assert first.frames[0].seq == 0
            await first.wait_kind("LOD")
            await asyncio.wait_for(first_pump, HANG_S)  # the disconnect closes the client
            assert ("LOD", "-", "52") in first.messages()
            second, second_pump, w2 = await _served(link.port)
            writers.append(w2)
            assert second.frames[0].seq == 0  # a reconnect numbers from 00 again
            await second.wait_kind("HBT")
            assert_sequence_increases(second.distinct())
            second_pump.cancel()
            await asyncio.gather(second_pump, return_exceptions=True)
        finally:
            for writer in writers:
                writer.close()  # type: ignore[attr-defined]
                with contextlib.suppress(ConnectionError):
                    await writer.wait_closed()  # type: ignore[attr-defined]
            run.cancel()
            await asyncio.gather(run, return_exceptions=True)
            await link.close()
        assert asyncio.all_tasks() == {asyncio.current_task()}

    asyncio.run(body())


def test_a_scenario_ends_after_its_last_frame_is_acknowledged() -> None:
    sim = reader([{"peek": {"blackjack": False}}])

    async def body() -> None:
        async with on_pty(sim) as (host, task):
            await asyncio.wait_for(task, HANG_S)
            assert host.messages() == [IDN_READER, ("TSR", "P", "0", "ok"), ("PEK", "N")]

    asyncio.run(body())
