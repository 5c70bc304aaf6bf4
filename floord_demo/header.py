"""What the demo says about itself first: where its config is, which broker it uses, and
the command lines that open the console on it and send a command to one of its tables.

A newcomer copies these into another terminal, so they are whole command lines (never
cut to the terminal's width; `LiveView` lets them wrap) and as short as they can be: the
program as the shell finds it (`floord` when it is on the PATH, else the path it was
started by), the config's path, and an operator of the demo who may do what is shown
(`SEC-DEMO`, security: `ack_alert` the first alert, `A00001`, which RL-03 raises).
"""

from __future__ import annotations

import shlex
import shutil
import sys
import textwrap
from pathlib import Path

from floord.contract import DEFAULT_TOPIC_PREFIX
from floord_demo.operators import OPERATORS, SECURITY
from floord_demo.sensor_wheel import FAVOURED, SURVEILLANCE
from floord_demo.sensor_wheel import TABLE as SENSOR_TABLE

INTRO_WIDTH = 80  # the intro's lines fit an 80-column terminal
FIRST_ALERT = "A00001"  # floord.table.surveillance numbers a table's alerts from 1
# The labels of the lines a reader (and the demo's test) looks for.
BROKER = "broker "  # then the URL: "broker mqtt://HOST:PORT (what it is)"
CONFIG = "config: "
CONSOLE = "console: "
COMMAND = "command: "
SUBSCRIBE = "subscribe: "
TABLES = "tables: "
WEB = "web: "
OR = "  (or: "


def floord_program(argv0: str | None = None) -> list[str]:
    """How to run `floord` from another terminal, as words of a command line."""
    argv0 = sys.argv[0] if argv0 is None else argv0
    started = Path(argv0)
    if started.name != "floord":  # `python -m floord demo`
        return [sys.executable, "-m", "floord"]
    on_path = shutil.which("floord")
    if on_path and Path(on_path).resolve() == started.resolve():
        return ["floord"]
    where = started.resolve()
    try:
        return [str(where.relative_to(Path.cwd()))]
    except ValueError:
        return [str(where)]


def console_command(config: Path, program: list[str]) -> str:
    return shlex.join([*program, "watch", "-c", str(config), "--as", SECURITY.id])


def ack_command(config: Path, program: list[str]) -> str:
    words = ["cmd", "-c", str(config), "--table", SENSOR_TABLE, "--as", SECURITY.id]
    return shlex.join([*program, *words, "ack_alert", f"alert={FIRST_ALERT}", "note=seen"])


def header_lines(*, url: str, what: str, config: Path, web: str | None = None) -> list[str]:
    """The dashboard's top lines: the broker, the config, the console, a command, and the
    browser console's address (or why there is none) when `web` is given."""
    program = floord_program()
    lines = [
        f"{BROKER}{url} ({what})",
        f"{CONFIG}{config}",
        f"{CONSOLE}{console_command(config, program)}",
        f"{COMMAND}{ack_command(config, program)}",
    ]
    if web is not None:
        lines.append(f"{WEB}{web}")
    return lines


def web_line(url: str) -> str:
    """The browser console's address and who may acknowledge there."""
    return f"{url} (acknowledge as {SECURITY.id}, key {SECURITY.secret})"


def _wrapped(text: str) -> list[str]:
    """`text` in lines of at most `INTRO_WIDTH` columns, the later ones indented."""
    return textwrap.wrap(text, INTRO_WIDTH, subsequent_indent="  ", break_long_words=False)


def intro_lines(*, site: str, seed: int, url: str, tables: list[str]) -> list[str]:
    """Said once, under the header, before the first event (on a screen tall enough);
    each line short enough for 80 columns but the commands to copy."""
    host_port = url.split("://", 1)[1]
    host, _, port = host_port.rpartition(":")
    named = [f"{o.id} {o.role}" for o in OPERATORS]
    # Three to a line, so none is cut in two and each line fits 80 columns.
    groups = [", ".join(named[n : n + 3]) for n in range(0, len(named), 3)]
    operators = [f"  {g}," for g in groups]
    operators[0] = f"operators: {groups[0]},"
    operators[-1] = operators[-1].removesuffix(",") + ";"
    operators.append("  each key in a file beside the config")
    return [
        *_wrapped(f"{TABLES}{' '.join(tables)} (site {site!r})"),
        f"seed {seed}: floord demo --seed {seed} spins this run's numbers again",
        *operators,
        "every command and who may send it: floord cmd --help",
        f"{SENSOR_TABLE}: a time-lapse wheel, many spins a second, biased towards "
        f"{'-'.join(FAVOURED)}:",
        f"  its sector test raises {FIRST_ALERT} once {SURVEILLANCE['window']} results are in",
        f"{SUBSCRIBE}mosquitto_sub -h {host} -p {port} -t '{DEFAULT_TOPIC_PREFIX}/{site}/#' -v",
        f"{OR}{shlex.join([sys.executable, '-m', 'floord_demo.tail', url])})",
    ]


def command_lines(lines: list[str]) -> frozenset[str]:
    """The lines that are command lines to copy: shown whole, never cut."""
    labels = (CONFIG, CONSOLE, COMMAND, SUBSCRIBE, OR, WEB)
    return frozenset(line for line in lines if line.startswith(labels))
