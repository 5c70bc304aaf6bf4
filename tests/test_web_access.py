"""The browser console's rules of entry, in one process: the password file, the sign-in
limit, the config's refusals (who may view, where) and the commands it forwards."""

from __future__ import annotations

from pathlib import Path

import pytest

from floord.web.commands import command_problem
from floord.web.limits import LoginLimiter
from floord.web.passwords import PasswordFileError, read_passwords, set_password, verify
from floord.web.settings import WebConfigError, load_web_config

pytestmark = pytest.mark.unit


def test_a_password_is_kept_as_an_scrypt_hash_and_verified(tmp_path: Path) -> None:
    path = tmp_path / "web.passwd"
    assert set_password(path, "ops.desk1", "correct horse battery")
    assert not set_password(path, "ops.desk1", "another long secret")  # replaced, not added
    assert set_password(path, "wall", "wall screen secret")
    text = path.read_text()
    assert "correct horse" not in text and "scrypt$16384$8$1$" in text
    assert path.stat().st_mode & 0o777 == 0o640
    users = read_passwords(path)
    assert sorted(users) == ["ops.desk1", "wall"]
    assert verify(users, "ops.desk1", "another long secret")
    assert not verify(users, "ops.desk1", "correct horse battery")
    assert not verify(users, "nobody", "another long secret")


def test_a_bad_password_file_or_user_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "web.passwd"
    path.write_text("wall:scrypt$16384$8$1$AAAA$notbase64!\n")
    with pytest.raises(PasswordFileError, match=r"web.passwd: line 1: numbers and base64"):
        read_passwords(path)
    path.write_text("no colon here\n")
    with pytest.raises(PasswordFileError, match="line 1: USER:scrypt"):
        read_passwords(path)
    with pytest.raises(ValueError, match="user name"):
        set_password(tmp_path / "other", "<b>", "long enough password")
    with pytest.raises(ValueError, match="8 to 1024"):
        set_password(tmp_path / "other", "wall", "short")


def test_sign_in_attempts_are_limited_per_address() -> None:
    limiter = LoginLimiter(attempts=3, window_s=60)
    assert [limiter.allow("10.0.0.5", t) for t in (0, 1, 2)] == [None, None, None]
    wait = limiter.allow("10.0.0.5", 3)
    assert wait is not None and 56 < wait <= 57
    assert limiter.allow("10.0.0.6", 3) is None  # another desk is not held up
    assert limiter.allow("10.0.0.5", 61) is None  # the first attempt has left the window


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "web.yaml"
    path.write_text(text)
    return path


BROKER = "broker: {url: mqtt://127.0.0.1:1883}\n"


def test_anonymous_viewing_is_allowed_on_loopback_only(tmp_path: Path) -> None:
    loaded = load_web_config(write(tmp_path, BROKER + "anonymous: true\n"))
    assert loaded.listen.loopback and loaded.config.anonymous
    with pytest.raises(WebConfigError) as refused:
        load_web_config(write(tmp_path, BROKER + "listen: 0.0.0.0:8640\nanonymous: true\n"))
    assert refused.value.problems == [
        f"{tmp_path / 'web.yaml'}: tls: a certificate (cert_file, key_file) expected on "
        "'0.0.0.0:8640', an address other than loopback, found none",
        f"{tmp_path / 'web.yaml'}: anonymous: false expected on '0.0.0.0:8640': anonymous "
        "viewing is allowed on a loopback address only",
        f"{tmp_path / 'web.yaml'}: passwords: a password file (or tls.client_ca_file) "
        "expected on '0.0.0.0:8640', an address other than loopback, found neither",
    ]


def test_a_console_that_names_no_viewer_or_a_missing_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(WebConfigError, match="who may view the floor"):
        load_web_config(write(tmp_path, BROKER))
    with pytest.raises(WebConfigError, match=r"passwords: a readable file expected"):
        load_web_config(write(tmp_path, BROKER + "passwords: nowhere.passwd\n"))
    with pytest.raises(WebConfigError, match=r"listen: HOST:PORT"):
        load_web_config(write(tmp_path, BROKER + "listen: desk\nanonymous: true\n"))
    with pytest.raises(WebConfigError, match=r"web.yaml: lisen: "):
        load_web_config(write(tmp_path, BROKER + "lisen: 1\n"))


def ack(**changes: object) -> dict[str, object]:
    command = {
        "id": "c" * 32,
        "name": "ack_alert",
        "by": "SE-3001",
        "ts": "2026-01-01T00:00:00.000000Z",
        "args": {"alert": "A00001", "note": "seen"},
        "sig": "a" * 64,
    }
    command.update(changes)
    return {"site": "north", "table": "RL-01", "command": command}


def test_only_an_ack_alert_of_the_contracts_shape_is_forwarded() -> None:
    assert command_problem(ack()) is None
    assert "only ack_alert" in str(command_problem(ack(name="resume")))
    assert "sig: 64 lower-case hex" in str(command_problem(ack(sig="A" * 64)))
    assert "args: {alert, note}" in str(command_problem(ack(args={"note": "x"})))
    assert "args.note: text of at most" in str(
        command_problem(ack(args={"alert": "A", "note": "x" * 1025}))
    )
    assert "exactly args, by" in str(command_problem(ack(key="the operator's key")))
    assert "{site, table, command}" in str(command_problem({"command": {}}))
