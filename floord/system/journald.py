"""stderr under systemd's journal: each line starts with its syslog priority, `<N>`.

journald reads a service's stderr line by line; a line starting with `<N>` (sd-daemon.h:
`<2>` crit, `<3>` err, `<4>` warning, `<6>` info, `<7>` debug) is stored with PRIORITY=N
and the prefix stripped, a line without one at the unit's default (info). So
`journalctl -u floord -p warning` shows warnings and worse only if every line carries
its prefix: every line of a log record (the lines of a traceback too: each one is an
entry of its own), and whatever else reaches stderr (a command's one-line failure, a
traceback Python prints as it dies), which `PriorityStream` prefixes `<3>`.

systemd sets JOURNAL_STREAM to `<device>:<inode>` of the stream it connected to the
journal (systemd.exec(5)); stderr is that stream only if its own device and inode match,
so a child whose stderr was redirected elsewhere (a file, a pipe, a test) is not fooled
by the variable it inherited.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Mapping
from typing import IO, Any

# sd-daemon.h's prefixes, by the stdlib levels floord logs at.
CRIT, ERR, WARNING, INFO, DEBUG = 2, 3, 4, 6, 7

_PREFIXED = re.compile(r"<[0-7]>")


def stream_is_journal(stream: IO[str], environ: Mapping[str, str] | None = None) -> bool:
    """True if `stream` is the one systemd connected to the journal (JOURNAL_STREAM)."""
    value = (os.environ if environ is None else environ).get("JOURNAL_STREAM", "")
    device, _, inode = value.partition(":")
    if not (device.isdigit() and inode.isdigit()):
        return False
    try:
        st = os.fstat(stream.fileno())
    except (OSError, ValueError, AttributeError):  # closed, or no file behind it
        return False
    return (st.st_dev, st.st_ino) == (int(device), int(inode))


def priority(levelno: int) -> int:
    """The syslog priority of a stdlib level (anything above error is critical)."""
    if levelno >= logging.CRITICAL:
        return CRIT
    if levelno >= logging.ERROR:
        return ERR
    if levelno >= logging.WARNING:
        return WARNING
    if levelno >= logging.INFO:
        return INFO
    return DEBUG


def prefix_lines(text: str, level: int) -> str:
    """`text` with every line prefixed `<level>`: no line of it reaches the journal at
    the default priority."""
    mark = f"<{level}>"
    return "\n".join(mark + line for line in text.split("\n"))


class PriorityStream:
    """stderr under the journal: a line written without a prefix gets `<3>` (err).

    What reaches stderr outside the log pipeline is a failure: `floord run: cannot start:
    ...`, a config's problems, the traceback of a crash. A line the pipeline wrote
    already starts with its own prefix and passes unchanged. Everything else (fileno,
    isatty, encoding) is the wrapped stream's.
    """

    def __init__(self, inner: IO[str], level: int = ERR) -> None:
        self.inner = inner
        self._mark = f"<{level}>"
        self._at_line_start = True

    def write(self, text: str) -> int:
        out = []
        lines = text.split("\n")
        for i, line in enumerate(lines):
            last = i == len(lines) - 1
            if last and not line:
                break  # `text` ended with a newline: the next write starts a line
            if self._at_line_start and not _PREFIXED.match(line):
                out.append(self._mark)
            out.append(line if last else line + "\n")
            self._at_line_start = not last
        self.inner.write("".join(out))
        return len(text)

    def flush(self) -> None:
        self.inner.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)
