"""`floord acl` against a real Mosquitto: every login can do what its role needs, and the
broker refuses everything else (MQTT v5: a denied QoS 1 publish is answered 0x87).

The broker runs with `allow_anonymous false` and the password and ACL files that
`floord acl` wrote from two table boxes' configs.
"""

from __future__ import annotations

import base64
import shutil
import subprocess
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
import yaml
from paho.mqtt.enums import CallbackAPIVersion
from support import Broker

from floord.cli.main import main as floord_main
from floord.config.load import load_config
from floord.contract import Topics
from floord.tools.acl import AclError, acl_text, floor_logins
from floord.tools.mosquitto_passwd import hash_password, password_line, verify_password
from floord_demo.broker import user_line

pytestmark = pytest.mark.system

NOT_AUTHORIZED = 0x87
SITE = "casino-1"
PREFIX = "floor/v1"
A = Topics(PREFIX, SITE, "RL-01")
B = Topics(PREFIX, SITE, "RL-02")
PASSWORDS = {
    "box-a": "box-a-pass",
    "box-b": "box-b-pass",
    "surv": "surveillance-pass",
    "ops": "operator-client-pass",
    "disp": "display-pass",
}
WAIT_S = 10.0


class LockedBroker:
    """A real Mosquitto with no anonymous logins, a password file and an ACL file (and a
    TLS listener when `tls` lists cafile/certfile/keyfile); built on support.Broker."""

    def __init__(
        self, passwd: Path, acl: Path, tls: dict[str, Path] | None = None, port: int | None = None
    ) -> None:
        self.broker = Broker(port)
        self.port = self.broker.port
        lines = [
            f"listener {self.port} 127.0.0.1",
            "allow_anonymous false",
            f"password_file {passwd}",
            f"acl_file {acl}",
            "persistence false",
            "log_dest none",
            "set_tcp_nodelay true",
        ]
        if tls is not None:
            lines += [f"{key} {path}" for key, path in tls.items()]
            lines += ["require_certificate true", "tls_version tlsv1.2"]
        # As root Mosquitto drops to its own user, which cannot read the test's private
        # temporary files and is no longer tied to the tests' process (support.Broker):
        # keep it as the user that wrote them.
        self.broker.config.write_text("\n".join(lines) + "\n" + user_line())

    def __enter__(self) -> LockedBroker:
        self.broker.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.broker.close()


def write_box(tmp: Path, name: str, table: str, username: str | None = None) -> Path:
    """A table box config with one roulette table and its broker login."""
    folder = tmp / name
    folder.mkdir()
    (folder / "box.pass").write_text(PASSWORDS[name] + "\n")
    broker: dict[str, object] = {"url": "mqtt://127.0.0.1:1883", "topic_prefix": PREFIX}
    if username != "":
        broker.update({"username": username or name, "password_file": "box.pass"})
    config = {
        "site": SITE,
        "broker": broker,
        "journal": "journal.db",
        "tables": [
            {
                "id": table,
                "game": "roulette",
                "rules": {"wheel": "single_zero"},
                "devices": [{"id": "wheel", "profile": "cammegh-ss2", "port": "/dev/ttyUSB9"}],
            }
        ],
    }
    path = folder / "floord.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def user_files(tmp: Path) -> list[str]:
    args = []
    for name in ("surv", "ops", "disp"):
        path = tmp / f"{name}.pass"
        path.write_text(PASSWORDS[name] + "\n")
        args += ["--user", f"{name}={path}"]
    return args


def floor_files(tmp: Path, configs: list[Path]) -> tuple[Path, Path]:
    """Run `floord acl` (the real command line) and return (password file, ACL file)."""
    out = tmp / "broker"
    argv = ["acl", "--out", str(out)]
    for config in configs:
        argv += ["-c", str(config)]
    argv += ["--surveillance-user", "surv", "--operator-client-user", "ops"]
    argv += ["--display-user", "disp", *user_files(tmp)]
    assert floord_main(argv) == 0
    return out / "floord.passwd", out / "floord.acl"


class Login:
    """A synchronous MQTT v5 client that reports the broker's reason codes."""

    def __init__(self, port: int, user: str | None, password: str | None) -> None:
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=f"acl-test-{uuid.uuid4().hex[:8]}",
            protocol=mqtt.MQTTv5,
        )
        if user is not None:
            self.client.username_pw_set(user, password)
        self._lock = threading.Condition()
        self.connack: int | None = None
        self.acks: dict[int, int] = {}
        self.subacks: dict[int, list[int]] = {}
        self.received: list[str] = []
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
            self.acks[mid] = reason_code.value
            self._lock.notify_all()

    def _on_subscribe(self, client, userdata, mid, reason_codes, properties) -> None:
        with self._lock:
            self.subacks[mid] = [code.value for code in reason_codes]
            self._lock.notify_all()

    def _on_message(self, client, userdata, message) -> None:
        with self._lock:
            self.received.append(message.topic)
            self._lock.notify_all()

    def _wait(self, done, what: str) -> None:
        with self._lock:
            if not self._lock.wait_for(done, WAIT_S):
                raise AssertionError(f"no {what} from the broker")

    def publish(self, topic: str, retain: bool = False) -> int:
        """The PUBACK reason code of a QoS 1 publish (0x87: not authorized)."""
        info = self.client.publish(topic, b"{}", qos=1, retain=retain)
        self._wait(lambda: info.mid in self.acks, f"PUBACK for {topic}")
        return self.acks[info.mid]

    def subscribe(self, topic: str) -> int:
        _, mid = self.client.subscribe(topic, qos=1)
        self._wait(lambda: mid in self.subacks, f"SUBACK for {topic}")
        return self.subacks[mid][0]

    def wait_received(self, topic: str) -> None:
        self._wait(lambda: topic in self.received, f"message on {topic}")

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@pytest.fixture
def floor(tmp_path: Path) -> Iterator[LockedBroker]:
    configs = [write_box(tmp_path, "box-a", "RL-01"), write_box(tmp_path, "box-b", "RL-02")]
    passwd, acl = floor_files(tmp_path, configs)
    with LockedBroker(passwd, acl) as broker:
        yield broker


@pytest.fixture
def logins(floor: LockedBroker) -> Iterator[dict[str, Login]]:
    made = {name: Login(floor.port, name, password) for name, password in PASSWORDS.items()}
    try:
        yield made
    finally:
        for login in made.values():
            login.close()


# ----- the hash ------------------------------------------------------------------


def test_hash_is_mosquitto_passwd_format() -> None:
    # Made by Debian's mosquitto_passwd 2.0.11: `mosquitto_passwd -b FILE alice s3cret`.
    made = (
        "$7$101$KJ7MguCGkRqD3IF5$sz/8KPrYGCN2DcDpwmgs54YgBcTMPBPk7Uqv5CaVl+J5h/"
        "XKgSu6CMFiGoy+4Fl1jyVzmYclPTYUaPz4n0SxiQ=="
    )
    salt = base64.b64decode(made.split("$")[3])
    assert hash_password("s3cret", salt=salt) == made
    assert verify_password("s3cret", made)
    assert not verify_password("s3cret ", made)
    ours = password_line("alice", "s3cret")
    assert ours.startswith("alice:$7$101$")
    assert verify_password("s3cret", ours.split(":", 1)[1])
    assert ours != password_line("alice", "s3cret")  # a fresh salt every time
    with pytest.raises(ValueError, match="user name"):
        password_line("al:ice", "x")


@pytest.mark.skipif(not shutil.which("mosquitto_passwd"), reason="needs mosquitto_passwd")
def test_mosquitto_passwd_and_ours_agree(tmp_path: Path) -> None:
    file = tmp_path / "pw"
    file.write_text("")
    subprocess.run(["mosquitto_passwd", "-b", str(file), "bob", "pa ss:word"], check=True)
    theirs = file.read_text().strip().split(":", 1)[1]
    salt = base64.b64decode(theirs.split("$")[3])
    assert hash_password("pa ss:word", salt=salt) == theirs


# ----- the rules, as text ----------------------------------------------------------


def test_acl_text_lists_each_logins_rules(tmp_path: Path) -> None:
    configs = [write_box(tmp_path, "box-a", "RL-01"), write_box(tmp_path, "box-b", "RL-02")]
    logins = floor_logins(
        [load_config(c) for c in configs],
        surveillance=["surv"],
        operator_clients=["ops"],
        displays=["disp"],
    )
    text = acl_text(logins)
    blocks = {b.split("\n")[1]: b for b in text.split("\n\n")[1:]}
    box_a = blocks["user box-a"].splitlines()
    assert f"topic write {A.events}" in box_a
    assert f"topic read {A.cmd}" in box_a
    assert f"topic write {A.device_events('wheel')}" in box_a
    assert not [line for line in box_a if B.base in line]
    assert blocks["user surv"].splitlines()[2:] == [
        f"topic read {PREFIX}/#",
        f"topic write {A.replay_request}",
        f"topic write {B.replay_request}",
    ]
    assert blocks["user disp"].splitlines()[2:] == [
        f"topic read {A.state}",
        f"topic read {B.state}",
    ]


def test_acl_refuses_clashes(tmp_path: Path) -> None:
    a = write_box(tmp_path, "box-a", "RL-01")
    same_table = write_box(tmp_path, "box-b", "RL-01")
    with pytest.raises(AclError) as err:
        floor_logins([load_config(a), load_config(same_table)], surveillance=["box-a"])
    text = str(err.value)
    assert "RL-01 also in" in text
    assert "login 'box-a': one login per box or role expected, found it 2 times" in text
    nameless = write_box(tmp_path, "disp", "RL-03", username="")
    with pytest.raises(AclError, match=r"broker.username: a broker user name"):
        floor_logins([load_config(nameless)])


def test_cli_names_missing_and_unknown_passwords(tmp_path: Path, capsys) -> None:
    config = write_box(tmp_path, "box-a", "RL-01")
    stray = tmp_path / "stray.pass"
    stray.write_text("x\n")
    argv = ["acl", "-c", str(config), "--out", str(tmp_path / "o"), "--surveillance-user", "surv"]
    assert floord_main([*argv, "--user", f"stray={stray}"]) == 1
    err = capsys.readouterr().err
    assert "login 'surv': --user surv=PASSWORD_FILE expected, found none" in err
    assert "--user stray: a login named by --surveillance-user" in err
    assert not (tmp_path / "o").exists()


# ----- the rules, on a real broker -------------------------------------------------


def test_wrong_or_missing_credentials_are_refused(floor: LockedBroker) -> None:
    for user, password in [("box-a", "box-b-pass"), ("nobody", "x"), (None, None)]:
        login = Login(floor.port, user, password)
        try:
            assert login.connack in (0x86, NOT_AUTHORIZED), (user, login.connack)
        finally:
            login.close()


def test_a_box_publishes_only_its_own_tables_topics(logins: dict[str, Login]) -> None:
    box = logins["box-a"]
    surveillance = logins["surv"]
    assert surveillance.subscribe(f"{PREFIX}/#") == 1
    own = [A.events, A.state, A.status, A.cmd_result, A.replay, A.device("wheel")]
    own.append(A.device_events("wheel"))
    for topic in own:
        assert box.publish(topic) < 0x80, topic
    others = [B.events, B.state, B.status, B.device_events("wheel"), B.cmd_result, A.cmd]
    others += [f"{A.base}/devices/shoe/events", f"{PREFIX}/{SITE}/XX-99/state", "other/topic"]
    for topic in others:
        assert box.publish(topic) == NOT_AUTHORIZED, topic
    surveillance.wait_received(A.device_events("wheel"))
    assert not set(others) & set(surveillance.received)
    # It reads its own commands and nothing else.
    assert box.subscribe(A.cmd) == 1
    logins["ops"].publish(B.cmd)
    logins["ops"].publish(A.cmd)
    box.wait_received(A.cmd)
    surveillance.wait_received(B.cmd)
    assert box.received == [A.cmd]


def test_surveillance_reads_everything_and_publishes_only_replay_requests(
    logins: dict[str, Login],
) -> None:
    surveillance = logins["surv"]
    assert surveillance.subscribe(f"{PREFIX}/#") == 1
    logins["box-b"].publish(B.device_events("wheel"))
    surveillance.wait_received(B.device_events("wheel"))
    assert surveillance.publish(A.replay_request) < 0x80  # a signed replay, nothing else
    for topic in [A.cmd, A.events, A.state, A.status, A.replay, B.device("wheel"), A.cmd_result]:
        assert surveillance.publish(topic) == NOT_AUTHORIZED, topic


def test_operator_client_sends_commands_and_reads_their_results(
    logins: dict[str, Login],
) -> None:
    ops = logins["ops"]
    assert ops.subscribe(A.cmd_result) == 1
    assert ops.publish(A.cmd) < 0x80
    assert ops.publish(B.cmd) < 0x80
    for topic in [A.events, A.state, A.cmd_result, A.replay, A.device_events("wheel")]:
        assert ops.publish(topic) == NOT_AUTHORIZED, topic
    logins["box-a"].publish(A.cmd_result)
    ops.wait_received(A.cmd_result)


def test_display_sees_only_the_masked_state(logins: dict[str, Login]) -> None:
    display = logins["disp"]
    # It may ask for anything; the broker delivers only the state.
    display.subscribe(f"{PREFIX}/#")
    box = logins["box-a"]
    for topic in [A.device_events("wheel"), A.device("wheel"), A.events, A.replay, A.state]:
        assert box.publish(topic) < 0x80
    display.wait_received(A.state)
    assert display.received == [A.state]
    assert display.publish(A.cmd) == NOT_AUTHORIZED
    assert display.publish(A.state) == NOT_AUTHORIZED
