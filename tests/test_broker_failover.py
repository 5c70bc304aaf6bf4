"""`broker.urls`: a box on the nodes of a broker cluster, here two real Mosquittos.

The config takes one `url` or a list of `urls` (exactly one of them, each URL checked as
before, one scheme for all); a client tries the nodes in order and then round-robin
(`NodeRing`). The table link whose node is killed mid-stream moves to the other node
within its back-off, republishes its backlog there from the first unacknowledged event
in seq order (nothing lost), and its retained `P/status` there names the node it is on
and the connection it lost (`lost`: node A's, whose last will a dead node cannot send).
`floord cmd` and `floord status` use the first node that answers, and the daemon
itself starts on the second node when the first is down.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiomqtt
import pytest
import yaml
from e2e_support import FP, FP_KEY, collecting, start_daemon, start_sim, topics, write_config
from mqtt_link_support import TOPICS, GatedProxy, Harness, Subscriber, append, run, until
from support import Broker, free_port

from floord.cli.main import main
from floord.config.load import ConfigError, load_config
from floord.contract import STATUS_FIELDS, STATUS_LOST, STATUS_LOST_FIELDS
from floord.mqtt.client import NodeRing, subscribe_checked
from floord.operator.client import send_command

pytestmark = pytest.mark.system


@pytest.fixture
def second_broker() -> Iterator[Broker]:
    b = Broker()
    b.start()
    try:
        yield b
    finally:
        b.close()


def _config(tmp: Path, broker: dict[str, Any]) -> Path:
    """A box's config with one table and this `broker` section."""
    (tmp / "fp.key").write_text("secret\n")
    device = {"id": "wheel", "profile": "cammegh-ss2", "port": "/dev/ttyUSB0"}
    rules = {"wheel": "double_zero_as_single"}
    body = {
        "site": "s",
        "broker": broker,
        "journal": "j.db",
        "operators": [{"id": "FP-1001", "role": "floorperson", "key_file": "fp.key"}],
        "tables": [{"id": "RL-01", "game": "roulette", "rules": rules, "devices": [device]}],
    }
    path = tmp / "floord.yaml"
    path.write_text(yaml.safe_dump(body))
    return path


def _problems(tmp: Path, broker: dict[str, Any]) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load_config(_config(tmp, broker))
    return caught.value.problems


def test_urls_is_one_of_url_or_urls_and_every_url_is_checked(tmp_path: Path) -> None:
    loaded = load_config(_config(tmp_path, {"urls": ["mqtt://10.0.0.1", "mqtt://10.0.0.2:1884"]}))
    assert loaded.config.broker.nodes == ("mqtt://10.0.0.1", "mqtt://10.0.0.2:1884")
    assert load_config(_config(tmp_path, {"url": "mqtt://a"})).config.broker.nodes == ("mqtt://a",)

    both = _problems(tmp_path, {"url": "mqtt://a", "urls": ["mqtt://b"]})
    assert any("exactly one of broker.url" in p and "found both" in p for p in both), both
    neither = _problems(tmp_path, {"username": "box"})
    assert any("exactly one of broker.url" in p and "found neither" in p for p in neither)
    bad = _problems(tmp_path, {"urls": ["mqtt://a", "mqtt://b:99999", "http://c"]})
    assert any("'mqtt://b:99999' (item 1)" in p and "'http://c' (item 2)" in p for p in bad), bad
    mixed = _problems(tmp_path, {"urls": ["mqtt://a", "mqtts://b"]})
    assert any("every url mqtt:// or every url mqtts://" in p for p in mixed), mixed
    assert any("at least one" in p or "one or more" in p for p in _problems(tmp_path, {"urls": []}))
    twice = _problems(tmp_path, {"urls": ["mqtt://a", "mqtt://a"]})
    assert any("each node once" in p for p in twice), twice

    # `floord check` refuses the same (exit 1, the problem on stderr).
    assert main(["check", "-c", str(_config(tmp_path, {"url": "mqtt://a", "urls": []}))]) == 1


def test_nodes_are_tried_in_order_then_round_robin() -> None:
    ring = NodeRing(["mqtt://a:1", "mqtt://b:2", "mqtt://c"])
    seen = []
    for _ in range(5):
        seen.append(ring.where)
        ring.advance()
    assert seen == ["a:1", "b:2", "c:1883", "a:1", "b:2"]
    one = NodeRing("mqtts://only")
    one.advance()
    assert (one.where, one.tls, len(one)) == ("only:8883", True, 1)
    with pytest.raises(ValueError, match="every broker URL mqtt://"):
        NodeRing(["mqtt://a", "mqtts://b"])


def test_the_link_moves_to_the_other_node_and_loses_nothing(
    broker: Broker, second_broker: Broker, tmp_path: Path
) -> None:
    async def scenario() -> None:
        # Node B is reached through a gate, shut until node A is dead and the journal's
        # first unacknowledged event is read: B's stream must start exactly there.
        async with GatedProxy(second_broker.port) as gate_b:
            await gate_b.shut()
            h = Harness(tmp_path, [broker.url, gate_b.url])
            append(h.journal, "t1", 3000)
            async with (
                Subscriber(second_broker.port, [TOPICS.events]) as on_b,
                h.running(),
            ):
                async with Subscriber(broker.port, [TOPICS.events, TOPICS.status]) as on_a:
                    await until("under way on node A", lambda: len(on_a.on(TOPICS.events)) >= 100)
                    status_a = json.loads(on_a.on(TOPICS.status)[0])
                    assert status_a["broker"] == f"127.0.0.1:{broker.port}"
                    assert set(status_a) == set(STATUS_FIELDS)  # its first connection: no loss
                    broker.kill()
                before = on_a.seqs(TOPICS.events)
                assert before == list(range(1, len(before) + 1))
                await until("the link down", lambda: not h.link.connected)
                pending = h.journal.unpublished(["t1"], limit=1)
                first_unacked = pending[0][1] if pending else 3001
                append(h.journal, "t1", 20)
                h.link.notify()
                await gate_b.open()
                expected = list(range(first_unacked, 3021))
                await until("the rest on node B", lambda: len(on_b.got) >= len(expected))
                await until("all acknowledged", lambda: h.journal.backlog(["t1"]) == 0)
                assert on_b.seqs(TOPICS.events) == expected
                async with Subscriber(second_broker.port, [TOPICS.status]) as late:
                    await until("retained status on B", lambda: bool(late.got))
                    status = json.loads(late.on(TOPICS.status)[0])
                assert status["online"] is True and status["reason"] == "connected"
                assert status["broker"] == f"127.0.0.1:{gate_b.port}"
                # It says the connection it lost: node A's, whose will may have died
                # with A (a NATS node keeps the wills of its connections).
                lost = status[STATUS_LOST]
                assert set(status) == {*STATUS_FIELDS, STATUS_LOST}
                assert set(lost) == set(STATUS_LOST_FIELDS)
                assert lost["broker"] == f"127.0.0.1:{broker.port}"
                assert lost["since"] <= lost["lost_ts"] <= lost["back_ts"] == status["ts"]
                assert lost["since"] <= status_a["ts"]  # that connection, made before
        assert "broker connection lost" in h.log_lines
        assert "broker connection back" in h.log_lines

    run(scenario)


def test_daemon_cmd_and_status_use_the_node_that_answers(
    broker: Broker, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dead = f"mqtt://127.0.0.1:{free_port()}"  # the first node is down from the start
    sim, pty = start_sim(tmp_path, {"pockets": 37, "steps": [{"idle": 60000}]}, 20.0)
    config = write_config(tmp_path, broker.url, pty)
    body = yaml.safe_load(config.read_text())
    body["broker"] = {"urls": [dead, broker.url], "topic_prefix": body["broker"]["topic_prefix"]}
    config.write_text(yaml.safe_dump(body))
    daemon = start_daemon(config)
    try:

        async def online() -> dict[str, Any]:
            async with collecting(broker.url) as c:
                return await c.wait_for(
                    lambda t, b: t == topics().status and b.get("online") is True,
                    what="online on the second node",
                )

        status = asyncio.run(online())
        assert status["broker"] == f"127.0.0.1:{broker.port}"
        reply = asyncio.run(
            send_command(
                url=[dead, broker.url],
                username=None,
                password=None,
                topics=topics(),
                name="replay",
                by=FP,
                key=FP_KEY,
                args={"from_seq": 1, "to_seq": 1},
            )
        )
        assert reply["ok"] is True, reply
        assert main(["status", "-c", str(config), "--json", "--broker-timeout", "5"]) == 0
        shown = json.loads(capsys.readouterr().out)
        assert shown["broker"]["error"] is None
        assert shown["broker"]["urls"] == [dead, broker.url]
        assert shown["broker"]["node"] == broker.url
        assert shown["tables"][0]["status"]["broker"] == f"127.0.0.1:{broker.port}"
    finally:
        daemon.terminate()
        sim.kill()


def test_a_refused_subscription_ends_the_session() -> None:
    """A SUBACK of 0x80 (a cluster that cannot store the subscription yet) is a failed
    connection: the link must start over, not run without its commands."""

    class Suback:
        def __init__(self, *codes: int) -> None:
            self.codes = codes
            self.asked: list[str] = []

        async def subscribe(self, topic: str, qos: int, **_: object) -> tuple[int, ...]:
            self.asked.append(topic)
            return self.codes

    async def scenario() -> None:
        granted = Suback(1)
        await subscribe_checked(granted, ["a/cmd", "a/replay"])  # type: ignore[arg-type]
        assert granted.asked == ["a/cmd", "a/replay"]
        refused = Suback(0x80)
        with pytest.raises(aiomqtt.MqttError, match="refused the subscription to a/cmd"):
            await subscribe_checked(refused, ["a/cmd", "a/replay"])  # type: ignore[arg-type]
        assert refused.asked == ["a/cmd"]

    asyncio.run(scenario())
