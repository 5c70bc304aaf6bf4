"""The config's `metrics:` section: off when absent, loopback unless allowed, and refused
by `check` (as by `run`) where the `metrics` extra is missing; `floord adapter
--metrics-listen` held to the same address rules."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from test_config import _problems, _valid, _write

from floord.cli.main import main
from floord.config.load import load_config
from floord.metrics.address import ListenError, parse_listen

pytestmark = pytest.mark.unit


def test_metrics_are_off_unless_the_section_is_there(tmp_path: Path) -> None:
    assert load_config(_write(tmp_path, _valid(tmp_path))).config.metrics is None
    body = {**_valid(tmp_path), "metrics": {}}
    metrics = load_config(_write(tmp_path, body)).config.metrics
    assert metrics is not None and metrics.address() == ("127.0.0.1", 9464)


@pytest.mark.parametrize(
    ("text", "allow_remote", "expected"),
    [
        ("127.0.0.1:9464", False, ("127.0.0.1", 9464)),
        ("localhost:9100", False, ("127.0.0.1", 9100)),
        ("[::1]:9464", False, ("::1", 9464)),
        ("0.0.0.0:9464", True, ("0.0.0.0", 9464)),
        ("10.1.2.3:9464", True, ("10.1.2.3", 9464)),
    ],
)
def test_listen_addresses_taken(text: str, allow_remote: bool, expected: tuple[str, int]) -> None:
    assert parse_listen(text, allow_remote=allow_remote) == expected


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("0.0.0.0:9464", "a loopback address (127.0.0.1, ::1, localhost) expected unless"),
        ("10.1.2.3:9464", "a loopback address"),
        ("9464", "HOST:PORT such as 127.0.0.1:9464 expected, found '9464'"),
        ("127.0.0.1:0", "a port from 1 to 65535 expected"),
        ("127.0.0.1:70000", "a port from 1 to 65535 expected"),
        ("::1:9464", "an IPv6 address in brackets"),
        ("metrics.example:9464", "an IP address or localhost expected"),
    ],
)
def test_listen_addresses_refused(text: str, said: str) -> None:
    with pytest.raises(ListenError) as caught:
        parse_listen(text, allow_remote=False)
    assert said in str(caught.value)


def test_a_refused_address_names_the_file_and_key(tmp_path: Path) -> None:
    body = {**_valid(tmp_path), "metrics": {"listen": "0.0.0.0:9464"}}
    path = tmp_path / "floord.yaml"
    [problem] = _problems(tmp_path, body)
    assert problem.startswith(f"{path}: metrics.listen: a loopback address")
    body["metrics"]["allow_remote"] = True
    assert load_config(_write(tmp_path, body)).config.metrics is not None
    body["metrics"]["port"] = 1
    [problem] = _problems(tmp_path, body)
    assert problem.startswith(f"{path}: metrics.port: ")


def test_check_refuses_metrics_without_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "prometheus_client", None)  # not installed
    body = {**_valid(tmp_path), "metrics": {"listen": "127.0.0.1:9464"}}
    path = _write(tmp_path, body)
    [problem] = _problems(tmp_path, body)
    assert problem.startswith(f"{path}: metrics: floord's 'metrics' extra expected")
    assert "pip install 'floord[metrics]'" in problem
    # `check` refuses it as `run` would, in the same words.
    assert main(["check", "-c", str(path)]) == 1
    assert problem in capsys.readouterr().out
    assert main(["run", "-c", str(path)]) == 1
    assert problem in capsys.readouterr().err
    # Without the section the box runs on its core alone.
    assert load_config(_write(tmp_path, _valid(tmp_path))).config.metrics is None


def test_adapter_metrics_listen_is_held_to_the_same_rules(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _write(tmp_path, _valid(tmp_path))
    argv = ["adapter", "-c", str(path), "--table", "RL-01", "--device", "wheel"]
    assert main([*argv, "--metrics-listen", "0.0.0.0:9464"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("floord adapter: --metrics-listen: a loopback address")
    monkeypatch.setitem(sys.modules, "prometheus_client", None)
    assert main([*argv, "--metrics-listen", "127.0.0.1:9464"]) == 1
    assert "needs floord's 'metrics' extra" in capsys.readouterr().err
