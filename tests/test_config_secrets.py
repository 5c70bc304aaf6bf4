"""Secret files (operators' keys, the broker's password) as `check` and `run` read them:
only a regular file of a line's size, and a password in UTF-8. A FIFO named as a key file
hung `floord check` and `floord run` both, `/dev/zero` grew them without end, and a
password that is no UTF-8 stopped `run` with a line naming neither file nor key."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from floord.config.load import ConfigError, load_config
from floord.config.secrets import MAX_SECRET_BYTES, read_secret, read_secret_text

pytestmark = pytest.mark.unit


def test_a_secret_is_a_regular_files_line(tmp_path: Path) -> None:
    path = tmp_path / "fp.key"
    path.write_bytes(b"  s3cret\n")
    assert read_secret(path) == b"s3cret"


def test_a_fifo_a_device_or_a_huge_file_is_no_secret_and_nothing_waits(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.key"
    os.mkfifo(fifo)  # nobody writes to it: a blocking open or read would wait for ever
    with pytest.raises(OSError) as found:
        read_secret(fifo)
    assert found.value.strerror == "not a regular file"
    with pytest.raises(OSError) as found:
        read_secret(Path("/dev/zero"))
    assert found.value.strerror == "not a regular file"
    huge = tmp_path / "huge.key"
    huge.write_bytes(b"x" * (MAX_SECRET_BYTES + 1))
    with pytest.raises(OSError) as found:
        read_secret(huge)
    assert found.value.strerror == f"larger than {MAX_SECRET_BYTES} bytes"


def test_a_password_that_is_no_utf8_is_named(tmp_path: Path) -> None:
    path = tmp_path / "broker.pw"
    path.write_bytes(b"\xff\xfe")
    with pytest.raises(ValueError, match=r"broker\.pw: a password of UTF-8 text expected"):
        read_secret_text(path)


def _config(tmp: Path, key_file: str, password_file: str) -> Path:
    body = {
        "site": "s",
        "broker": {
            "url": "mqtt://127.0.0.1:1883",
            "username": "box",
            "password_file": password_file,
        },
        "journal": "j.db",
        "operators": [{"id": "FP-1", "role": "floorperson", "key_file": key_file}],
        "tables": [
            {
                "id": "RL-01",
                "game": "roulette",
                "rules": {"wheel": "single_zero"},
                "devices": [{"id": "wheel", "profile": "cammegh-ss2", "port": "/dev/null"}],
            }
        ],
    }
    path = tmp / "floord.yaml"
    path.write_text(yaml.safe_dump(body))
    return path


def test_check_names_a_fifo_key_and_a_password_that_is_no_utf8(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fp.key")
    (tmp_path / "broker.pw").write_bytes(b"\xff\xfe")
    with pytest.raises(ConfigError) as refused:
        load_config(_config(tmp_path, "fp.key", "broker.pw"))
    text = "\n".join(refused.value.problems)
    assert "operators.0.key_file: a readable file expected" in text
    assert "(not a regular file)" in text
    assert "broker.password_file: a password of UTF-8 text expected" in text
