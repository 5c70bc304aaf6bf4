"""floord, its drivers and its simulators type-check: mypy with `[tool.mypy]` of
pyproject.toml, zero errors.

The second test keeps the config strict: the faults it must find (the issue's transport
held under the wrong type, an unannotated function, an Any returned as an int, an ignore
without its code, bytes compared with text) are written into a scratch module, and mypy
must name each of them.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.system

ROOT = Path(__file__).resolve().parents[1]


def _mypy(*args: str) -> subprocess.CompletedProcess[str]:
    # The cache under .mypy_cache keeps a run after the first to a few seconds.
    return subprocess.run(
        [sys.executable, "-m", "mypy", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_mypy_finds_no_errors() -> None:
    done = _mypy()
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success: no issues found" in done.stdout


SCRATCH = """
from typing import Any

from floord.transport.base import Transport
from floord.transport.stream import StreamTransport


class Holder:
    def __init__(self) -> None:
        self.transport: StreamTransport | None = None

    def hold(self, transport: Transport) -> None:
        self.transport = transport


def untyped(value):
    return value


def count(rows: list[Any]) -> int:
    return rows[0][0]


def uncoded(value: int) -> str:
    return value  # type: ignore


def same(raw: bytes) -> bool:
    return raw == "text"
"""


def test_the_config_finds_the_faults_it_is_there_for(tmp_path: Path) -> None:
    scratch = tmp_path / "scratch_types.py"
    scratch.write_text(SCRATCH, encoding="utf-8")
    done = _mypy(str(scratch))
    assert done.returncode == 1, done.stdout + done.stderr
    reported = done.stdout.splitlines()
    number = {text: n for n, text in enumerate(SCRATCH.splitlines(), 1)}
    expected = {
        "        self.transport = transport": "[assignment]",
        "def untyped(value):": "[no-untyped-def]",
        "    return rows[0][0]": "[no-any-return]",
        "    return value  # type: ignore": "[ignore-without-code]",
        '    return raw == "text"': "[comparison-overlap]",
    }
    for source, code in expected.items():
        where = f"scratch_types.py:{number[source]}:"
        assert any(where in m and code in m for m in reported), (source, code, done.stdout)
