"""TLS to the broker: the whole daemon over mqtts:// with a client certificate and its own
login, under the ACL `floord acl` wrote, against a real Mosquitto that requires client
certificates; clients without a certificate, or that do not trust the broker, get nowhere.

The floor's CA and certificates are made here with the `openssl` command line.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import ssl
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import aiomqtt
import pytest
import yaml
from e2e_support import CHECKLIST, FP, FP_KEY, start_daemon, start_sim, topics, write_config
from support import free_port
from test_acl import LockedBroker

from floord.cli.main import main as floord_main
from floord.config.load import BrokerConfig, ConfigError, load_config
from floord.mqtt.tls import client_tls
from floord.operator.client import send_command
from floord.tools.mosquitto_passwd import password_line

pytestmark = [
    pytest.mark.system,
    pytest.mark.skipif(not shutil.which("openssl"), reason="needs the openssl CLI"),
]

SERVER_NAME = "broker.floor.test"  # the broker's certificate names only this
PASSWORDS = {"box-rl01": "box-secret", "surv": "surv-secret", "ops": "ops-secret"}


def openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def make_ca(folder: Path, name: str) -> None:
    openssl(
        "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-keyout", f"{name}.key", "-out", f"{name}.pem", "-days", "2", "-subj", f"/CN={name}",
        "-addext", "basicConstraints=critical,CA:TRUE",
        "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        cwd=folder,
    )  # fmt: skip


def make_cert(folder: Path, name: str, ca: str, extensions: str) -> None:
    (folder / f"{name}.ext").write_text(extensions)
    openssl(
        "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", f"/CN={name}",
        cwd=folder,
    )  # fmt: skip
    openssl(
        "x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.pem", "-CAkey", f"{ca}.key",
        "-CAcreateserial", "-out", f"{name}.pem", "-days", "2", "-extfile", f"{name}.ext",
        cwd=folder,
    )  # fmt: skip


@dataclass
class Pki:
    folder: Path

    def __getitem__(self, name: str) -> Path:
        return self.folder / name


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    """The floor's CA, the broker's and a box's certificates, and a stranger's CA."""
    folder = tmp_path_factory.mktemp("pki")
    make_ca(folder, "floor-ca")
    make_ca(folder, "other-ca")
    leaf = "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\n"
    make_cert(
        folder, "broker", "floor-ca",
        f"{leaf}extendedKeyUsage=serverAuth\nsubjectAltName=DNS:{SERVER_NAME}\n",
    )  # fmt: skip
    make_cert(folder, "box", "floor-ca", f"{leaf}extendedKeyUsage=clientAuth\n")
    return Pki(folder)


def secure_config(tmp: Path, pki: Pki, port: int, device_port: str, user: str) -> Path:
    """The e2e config, made to reach the broker over TLS with a certificate and a login."""
    path = write_config(tmp, f"mqtts://127.0.0.1:{port}", device_port)
    config = yaml.safe_load(path.read_text())
    (tmp / f"{user}.pass").write_text(PASSWORDS[user] + "\n")
    config["broker"].update(
        {
            "username": user,
            "password_file": f"{user}.pass",
            "tls": {
                "ca_file": str(pki["floor-ca.pem"]),
                "cert_file": str(pki["box.pem"]),
                "key_file": str(pki["box.key"]),
                "server_name": SERVER_NAME,
            },
        }
    )
    path.write_text(yaml.safe_dump(config))
    return path


def tls_listener(pki: Pki) -> dict[str, Path]:
    return {
        "cafile": pki["floor-ca.pem"],
        "certfile": pki["broker.pem"],
        "keyfile": pki["broker.key"],
    }


def floor_files(tmp: Path, box_config: Path) -> tuple[Path, Path]:
    out = tmp / "broker"
    args = ["acl", "-c", str(box_config), "--out", str(out)]
    args += ["--surveillance-user", "surv", "--operator-client-user", "ops"]
    for name in ("surv", "ops"):
        (tmp / f"{name}.pass").write_text(PASSWORDS[name] + "\n")
        args += ["--user", f"{name}={tmp / f'{name}.pass'}"]
    assert floord_main(args) == 0
    return out / "floord.passwd", out / "floord.acl"


# ----- the context ----------------------------------------------------------------


def test_client_tls_follows_the_config(pki: Pki) -> None:
    plain = BrokerConfig(url="mqtt://127.0.0.1:1883")
    assert client_tls(plain, lambda p: p) is None
    secure = BrokerConfig.model_validate(
        {"url": "mqtts://10.0.0.5", "tls": {"ca_file": str(pki["floor-ca.pem"])}}
    )
    context = client_tls(secure, lambda p: p)
    assert context is not None
    assert context.minimum_version == ssl.TLSVersion.TLSv1_2
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
    with pytest.raises(ValueError, match=r"broker\.tls: a tls section"):
        client_tls(BrokerConfig(url="mqtts://h"), lambda p: p)
    with pytest.raises(ValueError, match=r"cert_file / broker.tls.key_file: a readable PEM"):
        client_tls(
            BrokerConfig.model_validate(
                {
                    "url": "mqtts://h",
                    "tls": {
                        "ca_file": str(pki["floor-ca.pem"]),
                        "cert_file": str(pki["box.pem"]),
                        "key_file": str(pki["broker.key"]),  # not the box's key
                    },
                }
            ),
            lambda p: p,
        )


def test_config_checks_name_the_tls_file_and_key(tmp_path: Path, pki: Pki) -> None:
    path = write_config(tmp_path, "mqtts://127.0.0.1:8883", "/dev/ttyUSB9")
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert f"{path}: broker.tls: a tls section (ca_file" in str(err.value)

    config = yaml.safe_load(path.read_text())
    (tmp_path / "not-pem.txt").write_text("hello\n")
    config["broker"]["tls"] = {
        "ca_file": "missing-ca.pem",
        "cert_file": "not-pem.txt",
        "key_file": str(pki["box.key"]),
    }
    path.write_text(yaml.safe_dump(config))
    with pytest.raises(ConfigError) as err:
        load_config(path)
    problems = err.value.problems
    assert any(
        p.startswith(f"{path}: broker.tls.ca_file: a readable PEM file expected, found ")
        and "missing-ca.pem" in p
        and "No such file" in p
        for p in problems
    ), problems
    assert any("broker.tls.cert_file: a PEM file (-----BEGIN ...) expected" in p for p in problems)

    config["broker"]["url"] = "mqtt://127.0.0.1:1883"
    config["broker"]["tls"] = {"ca_file": str(pki["floor-ca.pem"])}
    path.write_text(yaml.safe_dump(config))
    with pytest.raises(ConfigError, match=r"broker.tls: no tls section with a plain mqtt://"):
        load_config(path)


# ----- a real broker that requires client certificates ------------------------------


def test_daemon_and_floord_cmd_over_tls_under_the_acl(tmp_path: Path, pki: Pki) -> None:
    box_dir, ops_dir = tmp_path / "box", tmp_path / "ops"
    box_dir.mkdir()
    ops_dir.mkdir()
    scenario = {"pockets": 37, "seed": 3, "steps": [{"idle": 6000}]}
    sim, pty = start_sim(tmp_path, scenario, 10.0)
    port = free_port()
    box_config = secure_config(box_dir, pki, port, pty, "box-rl01")
    passwd, acl = floor_files(tmp_path, box_config)
    ops_config = secure_config(ops_dir, pki, port, "/dev/ttyUSB9", "ops")
    surv_dir = tmp_path / "surv"
    surv_dir.mkdir()
    surv_config = secure_config(surv_dir, pki, port, "/dev/ttyUSB9", "surv")
    t = topics()
    with LockedBroker(passwd, acl, tls_listener(pki), port=port):
        daemon = start_daemon(box_config)
        try:
            surveillance = load_config(box_config).config.broker.model_copy(
                update={"username": "surv"}
            )
            context = client_tls(surveillance, lambda p: p)

            async def watch() -> None:
                async with aiomqtt.Client(
                    "127.0.0.1",
                    port,
                    username="surv",
                    password=PASSWORDS["surv"],
                    tls_context=context,
                ) as client:
                    await client.subscribe(f"{t.base}/#", qos=1)
                    seen: set[str] = set()
                    async with asyncio.timeout(30):
                        async for message in client.messages:
                            body = json.loads(bytes(message.payload))
                            topic = str(message.topic)
                            if topic == t.status and body.get("online"):
                                seen.add("online")
                            if topic in (t.state, t.device("wheel")):
                                seen.add(topic)  # retained, so seen whenever we subscribe
                            if topic == t.device_events("wheel"):
                                seen.add(body["type"])
                            if {"online", t.state, t.device("wheel"), "device.identified"} <= seen:
                                break
                    # `floord cmd` over TLS with the operator client's login and config.
                    done = await asyncio.create_subprocess_exec(
                        sys.executable, "-m", "floord", "cmd", "-c", str(ops_config),
                        "--table", "RL-01", "--as", FP, "inspect",
                        *(f"checklist.{k}=true" for k in CHECKLIST), "note=tls",
                        stdout=subprocess.PIPE,
                    )  # fmt: skip
                    out, _ = await done.communicate()
                    assert done.returncode == 0, out
                    assert json.loads(out)["ok"] is True
                    # And the library call with the context, as the demo floorperson would.
                    answer = await send_command(
                        url=f"mqtts://127.0.0.1:{port}",
                        username="ops",
                        password=PASSWORDS["ops"],
                        topics=t,
                        name="open",
                        by=FP,
                        key=FP_KEY,
                        args={},
                        tls_context=client_tls(load_config(ops_config).config.broker, lambda p: p),
                    )
                    assert answer["ok"] is True, answer
                    async with asyncio.timeout(30):
                        async for message in client.messages:
                            body = json.loads(bytes(message.payload))
                            if body.get("type") == "table.opened":
                                break
                    # A replay request from surveillance's side goes out on P/replay.
                    answer = await send_command(
                        url=f"mqtts://127.0.0.1:{port}",
                        username="surv",
                        password=PASSWORDS["surv"],
                        topics=t,
                        name="replay",
                        by=FP,
                        key=FP_KEY,
                        args={"from_seq": 1, "to_seq": 1},
                        tls_context=context,
                    )
                    assert answer["ok"] is True, answer
                    async with asyncio.timeout(30):
                        async for message in client.messages:
                            if str(message.topic) == t.replay:
                                assert json.loads(bytes(message.payload))["seq"] == 1
                                break
                    # The surveillance console over TLS with surveillance's login.
                    console = await asyncio.create_subprocess_exec(
                        sys.executable, "-m", "floord", "watch", "-c", str(surv_config),
                        "--json", "--seconds", "4", stdout=subprocess.PIPE,
                    )  # fmt: skip
                    out, _ = await console.communicate()
                    assert console.returncode == 0, out
                    notices = [json.loads(line) for line in out.decode().splitlines()]
                    assert {"kind": "connection", "connected": True} in [
                        {k: n.get(k) for k in ("kind", "connected")} for n in notices
                    ]
                    states = [n for n in notices if n["kind"] == "state"]
                    assert states and states[-1]["summary"]["state"] == "open", states[-1:]

            asyncio.run(watch())
        finally:
            daemon.terminate()
            sim.kill()


def test_clients_without_a_certificate_or_trust_are_refused(tmp_path: Path, pki: Pki) -> None:
    passwd = tmp_path / "passwd"
    passwd.write_text(password_line("surv", "surv-secret") + "\n")
    acl = tmp_path / "acl"
    acl.write_text("user surv\ntopic read #\n")
    with LockedBroker(passwd, acl, tls_listener(pki)) as broker:

        def context(ca: str, cert: bool, server_name: str | None = SERVER_NAME) -> ssl.SSLContext:
            tls: dict[str, str] = {"ca_file": str(pki[ca])}
            if cert:
                tls.update({"cert_file": str(pki["box.pem"]), "key_file": str(pki["box.key"])})
            if server_name:
                tls["server_name"] = server_name
            config = BrokerConfig.model_validate({"url": "mqtts://h", "tls": tls})
            made = client_tls(config, lambda p: p)
            assert made is not None
            return made

        async def connects(ctx: ssl.SSLContext) -> bool:
            client = aiomqtt.Client(
                "127.0.0.1",
                broker.port,
                username="surv",
                password="surv-secret",
                tls_context=ctx,
                timeout=5,
            )
            try:
                async with client:
                    return True
            except aiomqtt.MqttError:
                return False

        async def run() -> None:
            assert await connects(context("floor-ca.pem", cert=True))
            # No client certificate: the broker ends the handshake.
            assert not await connects(context("floor-ca.pem", cert=False))
            # A broker certificate from a CA the box does not trust.
            assert not await connects(context("other-ca.pem", cert=True))
            # The certificate names broker.floor.test, not 127.0.0.1.
            assert not await connects(context("floor-ca.pem", cert=True, server_name=None))

        asyncio.run(run())
