"""`floord status` with a table box's own login, on the ACLs `floord acl` writes: a real
Mosquitto with its ACL file, and a real nats-server (JetStream and MQTT) with the
`floord acl --nats` include. The box's login publishes its retained bodies as the daemon
does; status, run with the box's config, reads them back, and reads nothing of another
table. NATS refuses a subscription the login may not make (Mosquitto grants it and sends
nothing): status says which and shows the rest.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from nats_support import nats_binary
from test_acl import PASSWORDS, SITE, A, B, LockedBroker, floor_files, user_files, write_box
from test_acl import Login as MosquittoLogin
from test_acl_nats import Login as NatsLogin
from test_acl_nats import NatsNode

from floord.cli.main import main as floord_main

pytestmark = pytest.mark.system

STATE = {"table": "RL-01", "game": "roulette", "state": "open", "halt_reasons": []}
STATUS = {"v": 1, "online": True, "site": SITE, "table": "RL-01", "reason": "connected"}
WHEEL = {"device": "wheel", "online": True, "last_heard": "2026-12-01T20:00:00.000Z"}
OTHER = {"table": "RL-02", "game": "roulette", "state": "halted", "halt_reasons": []}


def on_port(config: Path, port: int) -> Path:
    """The box's config with its broker on `port` (write_box names 1883)."""
    body = yaml.safe_load(config.read_text())
    body["broker"]["url"] = f"mqtt://127.0.0.1:{port}"
    config.write_text(yaml.safe_dump(body))
    return config


def publish_retained(client: Any, bodies: dict[str, dict[str, Any]]) -> None:
    """QoS 1 retained publishes, each until its PUBACK (paho's own client)."""
    for topic, body in bodies.items():
        info = client.publish(topic, json.dumps(body).encode(), qos=1, retain=True)
        info.wait_for_publish(timeout=10)
        assert info.is_published(), topic


def status(capsys: pytest.CaptureFixture[str], config: Path) -> tuple[int, dict[str, Any]]:
    capsys.readouterr()  # what came before (floord acl says what it wrote)
    code = floord_main(["status", "-c", str(config), "--json", "--broker-timeout", "5"])
    return code, json.loads(capsys.readouterr().out)


def assert_own_tables_read(code: int, body: dict[str, Any]) -> None:
    assert code == 0, body  # the journal is not there (no daemon ran): the broker was read
    assert body["journal"]["error"] and body["broker"]["error"] is None, body
    assert body["broker"]["refused"] == [], body
    [table] = body["tables"]
    assert table["state"] == "open" and table["state_from"] == "broker", table
    assert table["online"] is True and table["status"]["reason"] == "connected", table
    assert table["devices"][0]["online"] is True, table


def test_a_boxs_status_reads_its_own_retained_topics_on_mosquitto(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    configs = [write_box(tmp_path, "box-a", "RL-01"), write_box(tmp_path, "box-b", "RL-02")]
    passwd, acl = floor_files(tmp_path, configs)
    with LockedBroker(passwd, acl) as broker:
        box_a = MosquittoLogin(broker.port, "box-a", PASSWORDS["box-a"])
        box_b = MosquittoLogin(broker.port, "box-b", PASSWORDS["box-b"])
        try:
            publish_retained(
                box_a.client, {A.state: STATE, A.status: STATUS, A.device("wheel"): WHEEL}
            )
            publish_retained(box_b.client, {B.state: OTHER})
            # The box may read its own retained bodies, and not another table's.
            assert box_a.subscribe(A.state) == 1
            assert box_a.subscribe(B.state) == 1  # Mosquitto grants it ...
            box_a.wait_received(A.state)
            assert B.state not in box_a.received  # ... and sends nothing
        finally:
            box_a.close()
            box_b.close()
        code, body = status(capsys, on_port(configs[0], broker.port))
    assert_own_tables_read(code, body)
    assert body["broker"]["node"] == f"mqtt://127.0.0.1:{broker.port}"


@pytest.fixture
def nats_node(tmp_path: Path) -> Iterator[tuple[NatsNode, list[Path]]]:
    if nats_binary() is None:
        pytest.skip("nats-server is not installed (scripts/ensure-test-tools.sh)")
    configs = [write_box(tmp_path, "box-a", "RL-01"), write_box(tmp_path, "box-b", "RL-02")]
    disp = write_box(tmp_path, "disp", "RL-01")  # the display's login, box-a's table
    out = tmp_path / "nats"
    argv = ["acl", "--nats", "--out", str(out), "-c", str(configs[0]), "-c", str(configs[1])]
    argv += ["--surveillance-user", "surv", "--operator-client-user", "ops"]
    argv += ["--display-user", "disp", *user_files(tmp_path)]
    assert floord_main(argv) == 0
    node = NatsNode(tmp_path, out / "floord-nats-auth.conf")
    try:
        node.start()
        yield node, [*(on_port(c, node.port) for c in configs), on_port(disp, node.port)]
    finally:
        node.close()


def test_a_boxs_status_reads_its_own_retained_topics_on_nats(
    nats_node: tuple[NatsNode, list[Path]], capsys: pytest.CaptureFixture[str]
) -> None:
    node, (config_a, _, config_disp) = nats_node
    box_a = NatsLogin(node.port, "box-a", PASSWORDS["box-a"])
    box_b = NatsLogin(node.port, "box-b", PASSWORDS["box-b"])
    try:
        publish_retained(box_a.client, {A.state: STATE, A.status: STATUS, A.device("wheel"): WHEEL})
        publish_retained(box_b.client, {B.state: OTHER})
        # NATS grants the box its own retained topics and refuses another table's.
        assert box_a.subscribe(A.status) == 0
        assert box_a.subscribe(B.state) == 0x80
    finally:
        box_a.close()
        box_b.close()
    code, body = status(capsys, config_a)
    assert_own_tables_read(code, body)
    # A login that may read only part of it (the display: P/state only) is told which
    # subscriptions NATS refused, and shown the rest.
    code, body = status(capsys, config_disp)
    assert code == 0 and body["broker"]["error"] is None, body
    assert body["broker"]["refused"] == [A.status, A.device("wheel")], body
    [table] = body["tables"]
    assert table["state"] == "open" and table["state_from"] == "broker"
    assert table["status"] is None
    capsys.readouterr()
    code = floord_main(["status", "-c", str(config_disp), "--broker-timeout", "5"])
    text = capsys.readouterr().out
    assert code == 0 and f"broker refused this login's subscription to: {A.status}, " in text
