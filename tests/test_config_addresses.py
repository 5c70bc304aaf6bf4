"""`floord check` refuses what `floord run` could not start with: a device port written
wrong (by the one parser the adapter opens ports with), a broker URL whose host or port
cannot be, a journal that cannot be opened where it is. Each problem is one `FILE:
KEY.PATH: expected, found` line."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import yaml

from floord.cli.main import main
from floord.transport.ports import PortError, parse_port

pytestmark = pytest.mark.unit

MALFORMED_PORTS = {
    "socket://127.0.0.1:70000": "a port number from 1 to 65535 expected, found 70000",
    "socket://127.0.0.1:0": "a port number from 1 to 65535 expected, found 0",
    "socket://127.0.0.1:http": "a port number from 1 to 65535 expected, found 'http'",
    "socket://127.0.0.1": "socket://HOST:PORT expected, found no port",
    "socket://127.0.0.1:": "a port number from 1 to 65535 expected, found no port",
    "socket://:4000": "a host name or IP address expected, found an empty host",
    "socket://wheel box:4000": "a host name or IP address expected, found 'wheel box'",
    "socket://[::1:4000": "socket://HOST:PORT expected, found no port",
    "socket://[zz]:4000": "an IPv6 address in brackets expected, found '[zz]'",
    "tcp://127.0.0.1:4000": "socket://HOST:PORT, usb://VID:PID[/SERIAL] or usb://sim:",
    "ttyUSB0": "a device path (/dev/...)",
    "usb://1209": "usb://VID:PID or usb://VID:PID/SERIAL (4 hex digits each) expected",
    "usb://sim:shoe.yaml": "usb://sim:<absolute path of a scenario file> expected",
    "/dev/tty\x07S0": "control character",
}


def _body(tmp: Path, port: str = "/dev/ttyUSB0", **top: object) -> dict:
    (tmp / "fp.key").write_text("secret\n")
    body = {
        "site": "casino-1",
        "broker": {"url": "mqtt://127.0.0.1:1883"},
        "journal": "journal.db",
        "operators": [{"id": "FP-1001", "role": "floorperson", "key_file": "fp.key"}],
        "tables": [
            {
                "id": "RL-01",
                "game": "roulette",
                "rules": {"wheel": "single_zero"},
                "devices": [{"id": "wheel", "profile": "cammegh-ss2", "port": port}],
            }
        ],
    }
    body.update(top)
    return body


def _check(tmp: Path, body: dict, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    path = tmp / "floord.yaml"
    path.write_text(yaml.safe_dump(body))
    code = main(["check", "-c", str(path)])
    return code, capsys.readouterr().out.strip().splitlines()


@pytest.mark.parametrize("port", sorted(MALFORMED_PORTS))
def test_check_refuses_each_malformed_port_kind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], port: str
) -> None:
    code, lines = _check(tmp_path, _body(tmp_path, port), capsys)
    assert code == 1
    [line] = lines
    assert line.startswith(f"{tmp_path / 'floord.yaml'}: tables.0.devices.0.port: ")
    assert MALFORMED_PORTS[port] in line
    with pytest.raises(PortError):  # the same parser refuses it when the adapter opens it
        parse_port(port)


@pytest.mark.parametrize(
    "port",
    ["/dev/ttyUSB0", "socket://127.0.0.1:4000", "socket://wheel-1.rig.local:65535/",
     "socket://[::1]:4000", "usb://1209:0001", "usb://1209:0001/A1"],
)  # fmt: skip
def test_check_accepts_each_port_kind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], port: str
) -> None:
    code, lines = _check(tmp_path, _body(tmp_path, port), capsys)
    assert code == 0, lines
    address = parse_port(port)
    assert address.kind in ("serial", "socket", "usb")
    if address.kind == "socket":
        assert address.host in ("127.0.0.1", "wheel-1.rig.local", "::1")
        assert address.number in (4000, 65535)


@pytest.mark.parametrize(
    ("url", "found"),
    [
        ("mqtt://127.0.0.1:99999", "a port number from 1 to 65535 expected, found 99999"),
        ("mqtts://broker:0", "a port number from 1 to 65535 expected, found 0"),
        ("mqtt://bro ker:1883", "a host name or IP address expected, found 'bro ker'"),
        ("mqtt://-broker", "a host name or IP address expected, found '-broker'"),
        ("mqtt://broker.:1883", "a host name or IP address expected, found 'broker.'"),
    ],
)
def test_check_refuses_a_broker_url_that_cannot_be(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], url: str, found: str
) -> None:
    code, lines = _check(tmp_path, _body(tmp_path, broker={"url": url}), capsys)
    assert code == 1
    [line] = lines
    assert line.startswith(f"{tmp_path / 'floord.yaml'}: broker.url: ")
    assert found in line


def test_check_refuses_a_journal_under_a_regular_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "state").write_text("a file, not a folder\n")
    code, lines = _check(tmp_path, _body(tmp_path, journal="state/db/journal.db"), capsys)
    assert code == 1
    assert lines == [
        f"{tmp_path / 'floord.yaml'}: journal: a path under a folder expected, found "
        f"{str(tmp_path / 'state')!r} (a regular file)"
    ]


def test_check_refuses_a_journal_that_is_a_folder_or_not_a_journal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "folder.db").mkdir()
    code, lines = _check(tmp_path, _body(tmp_path, journal="folder.db"), capsys)
    assert code == 1 and "journal: a journal file expected" in lines[0], lines
    (tmp_path / "notes.db").write_text("not SQLite at all\n" * 4)
    code, lines = _check(tmp_path, _body(tmp_path, journal="notes.db"), capsys)
    assert code == 1 and "a floord journal (SQLite) expected" in lines[0], lines
    newer = tmp_path / "newer.db"
    with sqlite3.connect(newer) as db:
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        db.execute("INSERT INTO meta VALUES ('schema_version', '99')")
    db.close()
    code, lines = _check(tmp_path, _body(tmp_path, journal="newer.db"), capsys)
    assert code == 1 and "at version '99'" in lines[0], lines
    # A journal that does not exist yet, in folders still to be made, is fine.
    code, lines = _check(tmp_path, _body(tmp_path, journal="new/deeper/journal.db"), capsys)
    assert code == 0, lines
    assert not (tmp_path / "new").exists()  # check only looks


@pytest.mark.parametrize("companion", [".lock", "-shm", "-wal"])
def test_check_refuses_a_folder_where_run_opens_a_file_beside_the_journal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], companion: str
) -> None:
    """`run` opens the journal's lock and SQLite's WAL and shared memory beside it, and
    refused a folder there while `check` passed it."""
    with sqlite3.connect(tmp_path / "journal.db") as db:
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    db.close()
    (tmp_path / f"journal.db{companion}").mkdir()
    code, lines = _check(tmp_path, _body(tmp_path, journal="journal.db"), capsys)
    assert code == 1
    found = str(tmp_path / f"journal.db{companion}")
    # SQLite itself cannot open a journal whose WAL is a folder: check says so first.
    said = "a journal floord can read" if companion == "-wal" else f"nothing expected at {found!r}"
    assert said in lines[0], lines
