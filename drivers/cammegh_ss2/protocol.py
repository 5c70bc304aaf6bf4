"""The Cammegh SS2 host protocol's fixed vocabulary, and parsers for its two data lines.

Everything here comes from shared/reference/cammegh-ss2.md (the vendor's developer
guide V2.10, summarised). Parsing is strict on purpose: a damaged line on a regulated
table must be reported as such, never guessed into a result. A line that does not fit
raises `LineError`, whose message becomes the `reason` of a `device.protocol_error`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


class LineError(ValueError):
    """A line the protocol does not allow; the message says why, in an operator's words."""


# Host commands: driver-neutral name -> (bytes before CR LF, prefix of the reply).
COMMAND_TABLE: dict[str, tuple[str, str]] = {
    "status": ("*X", "*X"),
    "respin": ("*R", "*R"),
    "identify": ("*V", "*V"),
    "firmware": ("*S", "*S"),
    "pockets": ("*T Z", "*T"),
    "settings": ("*O", "*O"),
    "self_test": ("*F", "*F"),
    "start_cw": ("*u 1", "*u"),
    "start_ccw": ("*u 3", "*u"),
    "status_on": ("*q 1", "*q"),
    "status_off": ("*q 0", "*q"),
    "power_on": ("*P 1", "*P"),
    "power_off": ("*P 0", "*P"),
}
# The reference: a self-test takes up to 5 minutes before its `*F` lines arrive.
SELF_TEST_TIMEOUT_S = 300.0

# First tokens of the reply lines the wheel sends (status frames are parsed apart).
REPLY_PREFIXES: frozenset[str] = frozenset(
    {"*R", "*V", "*T", "*P", "*K", "*u", "*S", "*o", "*O", "*F", "*w", "*q"}
)
# The wheel's answer to a malformed command: `*  NO`, and `*) NO` seen once in a trace.
NO_LINES: frozenset[str] = frozenset({"*  NO", "*) NO"})
NO_PREFIX = "NO"

# Warning flags of the status frame's hex digit, in bit order.
FLAG_NAMES: tuple[tuple[int, str], ...] = (
    (1, "ball_not_detected"),
    (2, "same_direction"),
    (4, "component_fault"),
    (8, "failed_launch"),
)
FLAG_BALL_NOT_DETECTED = 1
FLAG_SAME_DIRECTION = 2
FLAG_COMPONENT_FAULT = 4
FLAG_FAILED_LAUNCH = 8
COMPONENT_FAULT_TEXT = "component fault: a sensor stuck, or a motor or encoder fault"

# Self-test (`*F <code>`) fault codes.
FAULT_CODES: dict[int, str] = {
    1: "hardware",
    2: "no ball",
    3: "no ball position",
    4: "wrong ball direction",
    5: "motor",
    6: "encoder, or not calibrated",
    7: "cannot play clockwise",
    8: "cannot play counter-clockwise",
    11: "sensor 1 stuck on",
    12: "sensor 2 stuck on",
    13: "sensor 3 stuck on",
    21: "sensor 1 stuck off",
    22: "sensor 2 stuck off",
    23: "sensor 3 stuck off",
    100: "timeout",
}

# The longest line the reference documents: the `*V` reply, 68 characters and its CR.
# A line limit below this would make the wheel's own identification a protocol error.
VERSION_REPLY_EXAMPLE = "*V V2.50 Cammegh / Syoptic - SlingShot 2 Roulette Wheel (c) 03/12/18"
LONGEST_DOCUMENTED_LINE = len(VERSION_REPLY_EXAMPLE) + 1

SUPPORTED_POCKETS: frozenset[int] = frozenset({37, 38, 39, 40})
SPIN_MIN, SPIN_MAX = 1, 256

# ASCII digits only: `\d` would also match other scripts' digits.
_STATUS_RE = re.compile(
    r"\*X;([1-7]);([0-9]{3});(  | [0-9]|[0-9]{2});([0-9A-Fa-f]);([0-9]{3});([01])"
)
_FAULT_RE = re.compile(r"\*F ([0-9]{1,3}|BUSY)")
_VERSION_RE = re.compile(r"\*V (V[0-9]+\.[0-9]+) (\S.*)")
_POCKETS_RE = re.compile(r"\*T z ([0-9]{1,3})")
_DIGITS = frozenset("0123456789")


def flag_names(code: int) -> list[str]:
    """The names of the flags set in a warn sum, in bit order."""
    return [name for bit, name in FLAG_NAMES if code & bit]


def wheel_labels(pockets: int) -> frozenset[str]:
    """Every number a wheel of `pockets` pockets can show: 0-36, then 00, 000, 0000."""
    labels = {str(n) for n in range(37)}
    extra = ("00", "000", "0000")
    labels.update(extra[: pockets - 37])
    return frozenset(labels)


def _two_char_number(field: str) -> str:
    """A right-justified, space-padded 2-character number: ` 7` -> `7`, `00` -> `00`."""
    if field == "00":
        return "00"
    if len(field) == 2 and field[1] in _DIGITS:
        if field[0] == " ":
            return field[1]
        if field[0] in _DIGITS and field[0] != "0":
            return field
    raise LineError(f"{field!r} is not a right-justified, space-padded number")


@dataclass(frozen=True)
class StatusFrame:
    """One decoded `*X` status frame; `win` is None before the first result."""

    text: str
    state: int
    spin: int
    win: str | None
    warn: int
    rotor_rpm: float
    rotor_direction: str


def parse_status(text: str, labels: frozenset[str]) -> StatusFrame:
    """Decode `*X;<state>;<spin>;<win>;<warn>;<speed>;<dir>` exactly, or raise LineError."""
    match = _STATUS_RE.fullmatch(text)
    if match is None:
        raise LineError("malformed status frame")
    state_s, spin_s, win_s, warn_s, speed_s, dir_s = match.groups()
    spin = int(spin_s)
    if not SPIN_MIN <= spin <= SPIN_MAX:
        raise LineError(f"spin counter {spin} outside {SPIN_MIN}-{SPIN_MAX}")
    win = None if win_s == "  " else _two_char_number(win_s)
    if win is not None and win not in labels:
        raise LineError(f"status frame shows {win!r}, which this wheel cannot produce")
    state = int(state_s)
    if state == 5 and win is None:
        raise LineError("state 5 frame without a winning number")
    return StatusFrame(
        text=text,
        state=state,
        spin=spin,
        win=win,
        warn=int(warn_s, 16),
        rotor_rpm=int(speed_s) / 10,
        rotor_direction="cw" if dir_s == "0" else "ccw",
    )


def parse_number_line(text: str, labels: frozenset[str], cut_tails: frozenset[str]) -> str:
    """Decode the winning-number line (` 7`, `00`, `000`, `0000`), or raise LineError."""
    if text in cut_tails:
        raise LineError("the tail of a cut status frame, not a winning number")
    if len(text) == 2:
        number = _two_char_number(text)
    elif text in ("000", "0000"):
        number = text
    else:
        raise LineError("neither a packet nor a winning-number line")
    if number not in labels:
        raise LineError(f"winning number {number!r}, which this wheel cannot produce")
    return number


def parse_fault_line(text: str) -> int | None:
    """The code of a `*F` line (`*F 0`, `*F 12`), None for `*F BUSY`; else LineError."""
    match = _FAULT_RE.fullmatch(text)
    if match is None:
        raise LineError("malformed *F line")
    value = match.group(1)
    return None if value == "BUSY" else int(value)


def fault_text(code: int) -> str:
    """The reference's words for a self-test fault code (unknown codes are still faults)."""
    known = FAULT_CODES.get(code)
    return known if known is not None else f"fault code {code}, not in the vendor's table"


def parse_version(text: str) -> tuple[str, str]:
    """From the `*V` reply: (firmware such as `V2.50`, the full version text)."""
    match = _VERSION_RE.fullmatch(text)
    if match is None:
        raise LineError("malformed *V reply")
    if "cammegh" not in match.group(2).lower():
        raise LineError("the *V reply does not name Cammegh")
    return match.group(1), text[len("*V ") :]


def parse_pockets(text: str) -> int:
    """From the `*T z <n>` reply to `*T Z`: the wheel's pocket count (37 to 40)."""
    match = _POCKETS_RE.fullmatch(text)
    if match is None:
        raise LineError("malformed *T z reply")
    pockets = int(match.group(1))
    if pockets not in SUPPORTED_POCKETS:
        raise LineError(f"the wheel reports {pockets} pockets, not 37 to 40")
    return pockets
