"""Fitting the demo's lines to the terminal: cut to its width, colour codes included.

A line longer than the terminal wraps, and a wrapped line pushes the dashboard off the
screen (at 80x24 the demo showed nothing but wrapped event lines), so each line is cut
to the width; the colour codes in it take no room and the colour is reset after a cut.
Piped, the demo's lines are cut only when a terminal shows them (`COLUMNS` set, or the
demo's input is a terminal, as in `floord demo | tee demo.log`); into a file or another
program they stay whole.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from typing import TextIO

COLOUR = re.compile(r"(\x1b\[[0-9;]*m)")
RESET = "\x1b[0m"


def visible_length(line: str) -> int:
    return len(COLOUR.sub("", line))


def clip(line: str, width: int | None) -> str:
    """`line` cut to `width` visible characters (None: as it is)."""
    if width is None or visible_length(line) <= width:
        return line
    out: list[str] = []
    room = width
    coloured = False
    for part in COLOUR.split(line):
        if COLOUR.fullmatch(part):
            out.append(part)
            coloured = part != RESET
            continue
        out.append(part[:room])
        room -= len(out[-1])
        if room <= 0:
            break
    return "".join(out) + (RESET if coloured else "")


def screen_size(out: TextIO) -> tuple[int, int] | None:
    """(columns, rows) of the terminal the output shows on, or None (a file, a pipe to a
    program)."""
    if _isatty(out) or "COLUMNS" in os.environ:
        size = shutil.get_terminal_size()
        return size.columns, size.lines
    for stream in (sys.stdin, sys.stderr):
        if _isatty(stream):
            try:
                size = os.get_terminal_size(stream.fileno())
            except OSError:
                continue
            return size.columns, size.lines
    return None


def _isatty(stream: TextIO | None) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (ValueError, OSError):  # closed, or not a real file
        return False
