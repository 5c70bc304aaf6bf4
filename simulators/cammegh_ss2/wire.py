"""The Cammegh SS2 host port's bytes, as the wheel writes them and reads the host's.

Written from the protocol reference alone (never from the driver), so that a decoding
mistake in the driver cannot hide behind the same mistake here. Everything the wheel
sends ends with CR LF; everything it reads is one host line without its line ending.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

CRLF = b"\r\n"
NO_REPLY = "*  NO"  # star, two spaces, NO: the wheel's answer to a malformed command
VERSION_TEXT = "*V V2.50 Cammegh / Syoptic - SlingShot 2 Roulette Wheel (c) 03/12/18"
FIRMWARE_TEXT = "*S V2.50"
ROTOR_RANGE_RPM = (16.0, 18.0)  # what `*T S` reports and where rotor speeds are drawn
GAMES_PER_HOUR = 60

# Mode bits the simulator acts on (see the reference's list).
MODE_ALTERNATE_DIRECTION = 1
MODE_WAIT_FOR_HOST = 2
MODE_RANDOM_SPEED_CHANGE = 4
MODE_NO_NUMBER_LINE = 16
MODE_AUTO_STATUS = 128
MODE_FAULT_LINES = 256

WARN_BALL_NOT_DETECTED = 1
WARN_SAME_DIRECTION = 2
WARN_COMPONENT_FAULT = 4
WARN_FAILED_LAUNCH = 8


@dataclass(frozen=True)
class Status:
    """What one status frame says."""

    state: int
    spin: int
    win: str  # "" before the first result, else "0".."36" or "00"
    warn: int
    speed: int  # rotor rpm times 10
    ccw: bool


def status_frame(status: Status) -> bytes:
    """`*X;<state>;<spin:03d>;<win:>2>;<warn:X>;<speed:03d>;<dir>` then CR LF."""
    if not 1 <= status.state <= 7:
        raise ValueError(f"state 1..7 expected, found {status.state}")
    if not 1 <= status.spin <= 256:
        raise ValueError(f"spin 1..256 expected, found {status.spin}")
    if not 0 <= status.warn <= 15:
        raise ValueError(f"warn 0..15 expected, found {status.warn}")
    if not 0 <= status.speed <= 999:
        raise ValueError(f"speed 0..999 expected, found {status.speed}")
    text = (
        f"*X;{status.state};{status.spin:03d};{status.win:>2};{status.warn:X};"
        f"{status.speed:03d};{1 if status.ccw else 0}"
    )
    return text.encode("ascii") + CRLF


def number_line(number: str) -> bytes:
    """The winning-number line: two characters, right-justified, no star, CR LF."""
    if not re.fullmatch(r"\d{1,2}", number):
        raise ValueError(f"a pocket number expected, found {number!r}")
    return f"{number:>2}".encode("ascii") + CRLF


def reply(text: str) -> bytes:
    """One reply line as the wheel sends it."""
    return text.encode("ascii") + CRLF


@dataclass(frozen=True)
class Command:
    """One host command the wheel understood: its letter and its argument (or "")."""

    letter: str
    arg: str = ""


# The host's commands this wheel accepts, exactly. Anything else is malformed.
_GRAMMAR: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("X", re.compile(r"\*X")),
    ("V", re.compile(r"\*V")),
    ("S", re.compile(r"\*S")),
    ("R", re.compile(r"\*R")),
    ("K", re.compile(r"\*K")),
    ("O", re.compile(r"\*O")),
    ("F", re.compile(r"\*F")),
    ("w", re.compile(r"\*w")),
    ("T", re.compile(r"\*T ([A-Za-z])")),
    ("u", re.compile(r"\*u ([13])")),
    ("o", re.compile(r"\*o (\d{1,5})")),
    ("q", re.compile(r"\*q ([01])")),
    ("P", re.compile(r"\*P ([01])")),
)


def parse_command(line: bytes) -> Command | None:
    """One host line (line ending removed) as a `Command`, or None when malformed."""
    try:
        text = line.decode("ascii")
    except UnicodeDecodeError:
        return None
    for letter, pattern in _GRAMMAR:
        match = pattern.fullmatch(text)
        if match:
            return Command(letter, match.group(1) if match.groups() else "")
    return None
