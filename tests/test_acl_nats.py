"""`floord acl --nats` against a real nats-server (JetStream and its MQTT listener, as each
node of examples/nats-cluster/ runs them): every login can do what its role needs, and
the server refuses everything else.

NATS's MQTT is 3.1.1: a forbidden publish is answered with a PUBACK all the same (the
server logs `Publish Violation` and drops the message; the connection stays up). So each
test publishes the forbidden messages first and a permitted one last, on the same
connection, to a QoS 0 watcher allowed to read them all: NATS delivers one publisher's
messages to a subscriber in order, so when the permitted one arrives, anything
forbidden that had been let through would be there before it. A refused subscription
is SUBACK 0x80. The server is one node (permissions do not depend on routes), on
loopback ports, its store in the test's folder, killed at the end.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from nats_support import nats_binary, requires_nats
from paho.mqtt.enums import CallbackAPIVersion
from support import free_port, wait_port
from test_acl import PASSWORDS, PREFIX, A, B, user_files, write_box

from floord.cli.main import main as floord_main
from floord.config.load import load_config
from floord.tools.acl import AclError, floor_logins
from floord.tools.nats_acl import MQTT_DELIVERY, nats_auth_text, nats_subjects
from floord.tools.nats_passwd import bcrypt_verify
from floord.watch.feed import SUFFIXES
from floord_demo.child_end import ends_with_this_process

pytestmark = [pytest.mark.system, requires_nats]
SUBACK_FAILURE = 0x80
WAIT_S = 10.0


class NatsNode:
    """One nats-server with JetStream and MQTT that includes `floord acl --nats`'s file
    (nats-server reads an include relative to the including file's folder, even a path
    that starts with '/': the node's config is written beside it)."""

    def __init__(self, tmp: Path, include: Path) -> None:
        self.client_port, self.port = free_port(), free_port()
        self.config = include.parent / "node.conf"
        self.config.write_text(
            "server_name: acl-test\n"
            f"listen: 127.0.0.1:{self.client_port}\n"
            f'jetstream {{ store_dir: "{tmp / "store"}" }}\n'
            f"mqtt {{ listen: 127.0.0.1:{self.port} }}\n"
            f'include "{include.name}"\n'
        )
        self.log = tmp / "node.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        binary = nats_binary()
        assert binary is not None
        self.proc = subprocess.Popen(
            [binary, "-c", str(self.config), "-l", str(self.log)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=ends_with_this_process(),  # it ends with the tests' process
        )
        wait_port(self.port, up=True, timeout=20)

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)


class Login:
    """A synchronous MQTT 3.1.1 client: its CONNACK, SUBACK codes and messages."""

    def __init__(self, port: int, user: str, password: str, will: str | None = None) -> None:
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=f"nats-acl-{uuid.uuid4().hex[:8]}",
            protocol=mqtt.MQTTv311,
        )
        self.client.username_pw_set(user, password)
        if will is not None:
            self.client.will_set(will, b'{"online": false}', qos=1)
        self._lock = threading.Condition()
        self.connack: int | None = None
        self.acks: set[int] = set()
        self.subacks: dict[int, int] = {}
        self.received: list[tuple[str, bool]] = []
        self.client.on_connect = self._on_connect
        self.client.on_publish = self._on_publish
        self.client.on_subscribe = self._on_subscribe
        self.client.on_message = self._on_message
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        self._wait(lambda: self.connack is not None, "CONNACK")

    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        with self._lock:
            self.connack = reason_code.value
            self._lock.notify_all()

    def _on_publish(self, client, userdata, mid, reason_code, properties) -> None:
        with self._lock:
            self.acks.add(mid)
            self._lock.notify_all()

    def _on_subscribe(self, client, userdata, mid, reason_codes, properties) -> None:
        with self._lock:
            self.subacks[mid] = reason_codes[0].value
            self._lock.notify_all()

    def _on_message(self, client, userdata, message) -> None:
        with self._lock:
            self.received.append((message.topic, bool(message.retain)))
            self._lock.notify_all()

    def _wait(self, done, what: str) -> None:
        with self._lock:
            if not self._lock.wait_for(done, WAIT_S):
                raise AssertionError(f"no {what} from the server")

    def publish(self, topic: str, retain: bool = False) -> None:
        """A QoS 1 publish, until its PUBACK (which NATS sends even when it drops it)."""
        info = self.client.publish(topic, b"{}", qos=1, retain=retain)
        self._wait(lambda: info.mid in self.acks, f"PUBACK for {topic}")

    def subscribe(self, topic: str, qos: int = 0) -> int:
        """The SUBACK code: the granted QoS, or 0x80 refused."""
        _, mid = self.client.subscribe(topic, qos=qos)
        self._wait(lambda: mid in self.subacks, f"SUBACK for {topic}")
        return self.subacks[mid]

    def topics(self) -> list[str]:
        """The live (not retained) messages' topics, in arrival order."""
        with self._lock:
            return [topic for topic, retained in self.received if not retained]

    def wait_received(self, topic: str) -> None:
        self._wait(lambda: topic in [t for t, _ in self.received], f"message on {topic}")

    def drop(self) -> None:
        """Lose the connection without a DISCONNECT (the server sends the last will)."""
        sock = self.client.socket()
        assert sock is not None
        sock.shutdown(socket.SHUT_RDWR)
        self.client.loop_stop()

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[NatsNode]:
    tmp = tmp_path_factory.mktemp("nats-acl")
    configs = [write_box(tmp, "box-a", "RL-01"), write_box(tmp, "box-b", "RL-02")]
    out = tmp / "nats"
    argv = ["acl", "--nats", "--out", str(out), "-c", str(configs[0]), "-c", str(configs[1])]
    argv += ["--surveillance-user", "surv", "--operator-client-user", "ops"]
    argv += ["--display-user", "disp", *user_files(tmp)]
    assert floord_main(argv) == 0
    include = out / "floord-nats-auth.conf"
    assert include.stat().st_mode & 0o777 == 0o600
    server = NatsNode(tmp, include)
    try:
        server.start()
        yield server
    finally:
        server.close()


@pytest.fixture
def logins(node: NatsNode) -> Iterator[dict[str, Login]]:
    made = {name: Login(node.port, name, password) for name, password in PASSWORDS.items()}
    try:
        assert {name: login.connack for name, login in made.items()} == dict.fromkeys(made, 0)
        yield made
    finally:
        for login in made.values():
            login.close()


# ----- the rules, as NATS subjects ---------------------------------------------------


def test_topics_become_subjects_as_nats_maps_them() -> None:
    assert nats_subjects("floor/v1/casino-1/RL-01/events") == ["floor.v1.casino-1.RL-01.events"]
    assert nats_subjects("floor/v1/+/+/state") == ["floor.v1.*.*.state"]
    # A '#' filter is two NATS subscriptions: the parent level and everything below.
    assert nats_subjects("floor/v1/#") == ["floor.v1", "floor.v1.>"]
    for bad in ("floor/v1/RL.01/events", "floor//x", "floor/a#", "floor/#/x"):
        with pytest.raises(ValueError):
            nats_subjects(bad)


def test_the_include_holds_bcrypt_hashes_and_each_logins_subjects(tmp_path: Path) -> None:
    configs = [write_box(tmp_path, "box-a", "RL-01"), write_box(tmp_path, "box-b", "RL-02")]
    out = tmp_path / "nats"
    argv = ["acl", "--nats", "--out", str(out), "-c", str(configs[0]), "-c", str(configs[1])]
    argv += ["--surveillance-user", "surv", "--operator-client-user", "ops"]
    argv += ["--display-user", "disp", *user_files(tmp_path)]
    assert floord_main(argv) == 0
    text = (out / "floord-nats-auth.conf").read_text()
    assert not (out / "floord.acl").exists()  # --nats writes the NATS file only
    blocks = {b.split('"')[1]: b for b in text.split("user: ")[1:]}
    box_a = blocks["box-a"]
    hashed = box_a.split('password: "')[1].split('"')[0]
    assert hashed.startswith("$2b$11$") and bcrypt_verify(PASSWORDS["box-a"], hashed)
    assert "box-a-pass" not in text
    assert f'"{A.events.replace("/", ".")}"' in box_a and "RL-02" not in box_a
    assert f'"{MQTT_DELIVERY}"' in box_a and 'allowed_connection_types: ["MQTT"]' in box_a
    assert 'publish: { deny: [">"] }' in blocks["disp"]
    # nats-server reads it as a node would.
    conf = out / "check.conf"
    conf.write_text('include "floord-nats-auth.conf"\n')
    binary = nats_binary()
    assert binary is not None
    checked = subprocess.run([binary, "-t", "-c", str(conf)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_without_bcrypt_the_command_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "bcrypt", None)  # `import bcrypt` raises ImportError
    config = write_box(tmp_path, "box-a", "RL-01")
    out = tmp_path / "nats"
    assert floord_main(["acl", "--nats", "--out", str(out), "-c", str(config)]) == 1
    assert "the bcrypt package expected (pip install 'floord[nats]')" in capsys.readouterr().err
    assert not out.exists()


def test_an_id_nats_cannot_carry_is_refused(tmp_path: Path) -> None:
    dotted = write_box(tmp_path, "box-a", "RL.01")
    logins = floor_logins([load_config(dotted)])
    with pytest.raises(AclError, match=r"login 'box-a' \(table box .*NATS 2.9's MQTT refuses"):
        nats_auth_text(logins, {"box-a": "$2b$11$x"})


# ----- the rules, on a real nats-server ----------------------------------------------


def test_wrong_passwords_and_plain_nats_clients_are_refused(node: NatsNode) -> None:
    for user, password in [("box-a", "box-b-pass"), ("nobody", "x")]:
        login = Login(node.port, user, password)
        try:
            assert login.connack not in (None, 0), (user, login.connack)
        finally:
            login.close()
    # The box's login over the NATS protocol (not MQTT) is refused.
    with socket.create_connection(("127.0.0.1", node.client_port), timeout=5) as sock:
        sock.recv(4096)  # INFO
        connect = f'CONNECT {{"user":"box-a","pass":"{PASSWORDS["box-a"]}","verbose":false}}'
        sock.sendall(f"{connect}\r\nPING\r\n".encode())
        assert b"Authorization Violation" in sock.recv(4096)


def test_a_box_publishes_only_its_own_tables_topics(logins: dict[str, Login]) -> None:
    box, surveillance = logins["box-a"], logins["surv"]
    assert surveillance.subscribe(f"{PREFIX}/#") == 0
    others = [B.events, B.state, B.status, B.device_events("wheel"), B.cmd_result, A.cmd]
    others += [f"{A.base}/devices/shoe/events", f"{PREFIX}/casino-1/XX-99/state"]
    for topic in others:
        box.publish(topic)
    own = [A.state, A.status, A.cmd_result, A.replay, A.device("wheel")]
    own += [A.device_events("wheel"), A.events]
    for topic in own:
        box.publish(topic)
    surveillance.wait_received(A.events)
    assert surveillance.topics() == own  # nothing forbidden before the last permitted one
    # It reads its own commands (QoS 1: a JetStream consumer) and nothing else.
    assert box.subscribe(A.cmd, qos=1) == 1
    assert box.subscribe(B.cmd) == SUBACK_FAILURE
    assert box.subscribe(f"{PREFIX}/#") == SUBACK_FAILURE
    logins["ops"].publish(A.cmd)
    box.wait_received(A.cmd)


def test_a_boxs_last_will_reaches_surveillance_only_on_its_own_status(
    logins: dict[str, Login], node: NatsNode
) -> None:
    surveillance = logins["surv"]
    assert surveillance.subscribe(f"{PREFIX}/#") == 0
    # A will on another table's status is published under the box's permissions: dropped.
    forged = Login(node.port, "box-a", PASSWORDS["box-a"], will=B.status)
    own = Login(node.port, "box-a", PASSWORDS["box-a"], will=A.status)
    violation = f'Publish Violation - User "box-a", Subject "{B.status.replace("/", ".")}"'
    before = node.log.read_text().count(violation)  # the other tests publish there too
    forged.drop()
    deadline = time.monotonic() + WAIT_S
    while node.log.read_text().count(violation) == before and time.monotonic() < deadline:
        time.sleep(0.05)
    # Refused by the server, not merely late.
    assert node.log.read_text().count(violation) == before + 1
    own.drop()
    surveillance.wait_received(A.status)
    assert B.status not in surveillance.topics()


def test_surveillance_reads_everything_and_commands_nothing(
    logins: dict[str, Login], node: NatsNode
) -> None:
    surveillance, box = logins["surv"], logins["box-a"]
    # floord watch's own filters, at QoS 1 (each a JetStream consumer).
    console = Login(node.port, "surv", PASSWORDS["surv"])
    try:
        site = f"{PREFIX}/casino-1/+"
        granted = [console.subscribe(f"{site}/{suffix}", qos=1) for suffix in SUFFIXES]
        assert granted == [1] * len(SUFFIXES)
    finally:
        console.close()
    assert surveillance.subscribe(f"{PREFIX}/#", qos=1) == 1
    logins["box-b"].publish(B.device_events("wheel"))
    surveillance.wait_received(B.device_events("wheel"))
    assert box.subscribe(f"{A.base}/#") == SUBACK_FAILURE
    assert box.subscribe(A.cmd) == 0
    assert box.subscribe(A.replay_request) == 0
    assert box.subscribe(A.cmd_result) == SUBACK_FAILURE
    for topic in [A.cmd, A.events, A.state, A.status, A.replay, A.cmd_result, B.cmd]:
        surveillance.publish(topic)
    surveillance.publish(A.replay_request)  # a signed replay, nothing else
    box.wait_received(A.replay_request)
    surveillance.wait_received(A.replay_request)
    assert box.topics() == [A.replay_request]
    assert surveillance.topics() == [B.device_events("wheel"), A.replay_request]


def test_operator_client_sends_commands_and_reads_their_results(
    logins: dict[str, Login],
) -> None:
    ops, surveillance = logins["ops"], logins["surv"]
    assert surveillance.subscribe(f"{PREFIX}/#") == 0
    assert ops.subscribe(A.cmd_result, qos=1) == 1
    assert ops.subscribe(A.events) == SUBACK_FAILURE
    for topic in [A.events, A.state, A.cmd_result, A.replay, A.device_events("wheel")]:
        ops.publish(topic)
    ops.publish(A.cmd)
    ops.publish(B.cmd)
    surveillance.wait_received(B.cmd)
    assert surveillance.topics() == [A.cmd, B.cmd]
    logins["box-a"].publish(A.cmd_result)
    ops.wait_received(A.cmd_result)


def test_display_sees_only_the_retained_state(logins: dict[str, Login], node: NatsNode) -> None:
    box, surveillance = logins["box-a"], logins["surv"]
    box.publish(A.state, retain=True)
    display = Login(node.port, "disp", PASSWORDS["disp"])
    try:
        # NATS refuses what the display may not read (Mosquitto grants it, sends nothing).
        # A wildcard wider than its tables' states is refused too, even `+/state`.
        wide = [f"{PREFIX}/#", f"{PREFIX}/casino-1/+/state", A.events, A.replay]
        for topic in [*wide, f"{A.base}/devices/#"]:
            assert display.subscribe(topic) == SUBACK_FAILURE, topic
        assert display.subscribe(A.state, qos=1) == 1
        display.wait_received(A.state)
        assert display.received == [(A.state, True)]
        assert surveillance.subscribe(f"{PREFIX}/#") == 0
        display.publish(A.cmd)
        display.publish(A.state)
        box.publish(A.events)
        surveillance.wait_received(A.events)
        assert surveillance.topics() == [A.events]
    finally:
        display.close()
