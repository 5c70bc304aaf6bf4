"""A capture made golden, in one process: golden steps split by lines or by reads within
a window, and a bad capture file named by its line. `floord capture` itself on a real
pty is in `test_capture_system.py`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from floord.tools.capture import CaptureError, Chunk, golden_steps, read_capture

pytestmark = pytest.mark.unit


def test_golden_steps_split_by_lines_or_reads_and_window() -> None:
    chunks = [
        Chunk(1.0, b"*X;6;0"),
        Chunk(1.2, b"10;23;0;000;0\r\n17"),
        Chunk(1.5, b"\r\n", "in"),
        Chunk(1.6, b"*V\r\n", "out"),
        Chunk(2.0, b"half"),
    ]
    assert golden_steps(chunks) == [
        "> 0.0 b'*X;6;010;23;0;000;0\\r\\n'",
        "> 0.3 b'17\\r\\n'",
        "> 0.8 b'half'",
    ]
    assert golden_steps(chunks, split="reads", start=1.1, end=1.9) == [
        "> 0.0 b'10;23;0;000;0\\r\\n17'",
        "> 0.3 b'\\r\\n'",
    ]
    with pytest.raises(CaptureError, match="lines or reads"):
        golden_steps(chunks, split="frames")


def test_a_bad_capture_file_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"capture": 1}\n{"t": 0.1, "dir": "in", "hex": "zz"}\n')
    with pytest.raises(CaptureError, match=r"bad.jsonl:2: hex"):
        read_capture(path)
    path.write_text('{"t": 0.1}\n')
    with pytest.raises(CaptureError, match=r"bad.jsonl:1: a capture 1 header expected"):
        read_capture(path)
