"""Golden cases for the card-device drivers (FLF/1), and an independent checksum.

The golden files in tests/golden/cards/*.txt were written by hand from
docs/protocols/*.md. The checksums in them are checked here against a CRC written
separately from the driver's (table-driven rather than bitwise) and against a table of
check values copied from the CRC-16/CCITT-FALSE definition, so a wrong CRC in the
driver cannot be hidden by a golden file generated with it.

Format (one file per area; `#` lines are comments):
  === <case> profile=<profile name> [quirks=<JSON merged into the profile's quirks>]
  > <now> b"<bytes>"           feed these bytes at monotonic time <now>
  < send b"<bytes>"            an `Outgoing` (the host's ACK) the step must give, in order
  < reply <TYPE> <JSON text>   a `DeviceReply`
  < <event type> <JSON data>   a `DeviceEvent`
A step with no `<` lines must give nothing.
"""

from __future__ import annotations

import ast
import importlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import drivers
from floord.contract import EventType
from floord.events import DeviceEvent, DeviceReply, Outgoing
from floord.profiles import DeviceProfile, load_profile

GOLDEN_DIR = Path(__file__).resolve().parent / "golden" / "cards"
Output = DeviceEvent | DeviceReply | Outgoing

# Check values written by hand from the CRC-16/CCITT-FALSE definition and its published
# catalogue entry (check = 0x29B1), and xor8 values worked out byte by byte.
CRC16_CHECK_VALUES = {b"123456789": 0x29B1, b"": 0xFFFF, b"A": 0xB915}
XOR8_CHECK_VALUES = {b"123456789": 0x31, b"07|HBT": 0x25, b"": 0x00}


def _crc_table() -> list[int]:
    table = []
    for index in range(256):
        value = index << 8
        for _ in range(8):
            value = ((value << 1) ^ 0x1021) if value & 0x8000 else value << 1
        table.append(value & 0xFFFF)
    return table


_TABLE = _crc_table()


def independent_crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE, table-driven (the driver's is bitwise)."""
    crc = 0xFFFF
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ _TABLE[(crc >> 8) ^ byte]
    return crc


def independent_xor8(data: bytes) -> int:
    value = 0
    for byte in data:
        value ^= byte
    return value


def independent_check(body: bytes, checksum: str) -> str:
    if checksum == "xor8":
        return f"{independent_xor8(body):02X}"
    return f"{independent_crc16(body):04X}"


FRAME = re.compile(rb"\x02([^\x02\x03]*)\x03([0-9A-F]*)\r\n")


def frames_in(data: bytes) -> list[tuple[bytes, bytes]]:
    """Every complete `STX body ETX CHK CR LF` in `data`, as (body, CHK)."""
    return [(m.group(1), m.group(2)) for m in FRAME.finditer(data)]


@dataclass
class Step:
    now: float
    data: bytes
    expected: list[Output] = field(default_factory=list)


@dataclass
class Case:
    name: str
    profile: DeviceProfile
    steps: list[Step] = field(default_factory=list)

    @property
    def checksum(self) -> str:
        return self.profile.quirks.get("checksum", "crc16-ccitt")

    def driver(self) -> Any:
        return importlib.import_module(drivers.module_name(self.profile.driver)).DRIVER(
            self.profile
        )


def _bytes(literal: str, where: str) -> bytes:
    data = ast.literal_eval(literal)
    if not isinstance(data, bytes):
        raise ValueError(f"{where}: a bytes literal expected")
    return data


def _expected(body: str, where: str) -> Output:
    kind, rest = body.split(" ", 1)
    if kind == "send":
        return Outgoing(_bytes(rest, where))
    if kind == "reply":
        prefix, text = rest.split(" ", 1)
        return DeviceReply(prefix=prefix, text=json.loads(text))
    return DeviceEvent(EventType(kind), json.loads(rest))


def _header(line: str) -> Case:
    name, _, rest = line[4:].partition(" profile=")
    profile_name, _, quirks = rest.partition(" quirks=")
    profile = load_profile(profile_name.strip())
    if quirks:
        merged = {**profile.quirks, **json.loads(quirks)}
        profile = profile.model_copy(update={"quirks": merged})
    return Case(name=name.strip(), profile=profile)


def load_cases(path: Path) -> list[Case]:
    """Read one golden file; a line it cannot read is an error naming file and line."""
    cases: list[Case] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        where = f"{path.name}:{number}"
        if not line.strip() or line.startswith("#"):
            continue
        if line.startswith("=== "):
            cases.append(_header(line))
        elif line.startswith("> "):
            now, literal = line[2:].split(" ", 1)
            cases[-1].steps.append(Step(now=float(now), data=_bytes(literal, where)))
        elif line.startswith("< "):
            cases[-1].steps[-1].expected.append(_expected(line[2:], where))
        else:
            raise ValueError(f"{where}: cannot read {line!r}")
    return cases


def cases_of(name: str) -> list[Case]:
    return load_cases(GOLDEN_DIR / f"{name}.txt")


def run_case(case: Case, chunking) -> list[list[Output]]:
    """Feed every step (cut into chunks by `chunking(step_index, data)`); outputs per step."""
    driver = case.driver()
    outputs = []
    for index, step in enumerate(case.steps):
        got: list[Output] = []
        for chunk in chunking(index, step.data):
            got.extend(driver.feed(chunk, step.now))
        outputs.append(got)
    return outputs


def whole(_index: int, data: bytes) -> list[bytes]:
    return [data]


def check_golden(case: Case) -> None:
    """The case's outputs, fed whole, split in two at every byte, and byte by byte."""
    expected = [step.expected for step in case.steps]
    got = run_case(case, whole)
    for step, out in zip(case.steps, got, strict=True):
        assert out == step.expected, f"{case.name} at now={step.now}: {step.data!r}"
    for index, step in enumerate(case.steps):
        for cut in range(1, len(step.data)):

            def split(i: int, data: bytes, index=index, cut=cut) -> list[bytes]:
                return [data[:cut], data[cut:]] if i == index else [data]

            assert run_case(case, split) == expected, f"{case.name}: step {index} cut at {cut}"

    def bytewise(_i: int, data: bytes) -> list[bytes]:
        return [data[i : i + 1] for i in range(len(data))]

    assert run_case(case, bytewise) == expected


def _escaped(data: bytes) -> str:
    """The driver's `raw` rendering, rewritten here: printable ASCII, repr-style escapes."""
    names = {0x5C: "\\\\", 0x0D: "\\r", 0x0A: "\\n", 0x09: "\\t"}
    text = "".join(names.get(b) or (chr(b) if 0x20 <= b <= 0x7E else f"\\x{b:02x}") for b in data)
    return text[:80]


def check_golden_checksums(case: Case) -> None:
    """Every ACK the case expects carries the right CHK (by the independent CRC), and a
    frame fed in is reported as a checksum mismatch, with the right computed value,
    exactly when its CHK is wrong."""
    width = 2 if case.checksum == "xor8" else 4
    for step in case.steps:
        errors = {
            out.data["raw"]: out.data["reason"]
            for out in step.expected
            if isinstance(out, DeviceEvent) and out.type == EventType.DEVICE_PROTOCOL_ERROR
        }
        for match in FRAME.finditer(step.data):
            body, check = match.group(1), match.group(2).decode("ascii")
            if len(check) != width:
                continue
            right = independent_check(body, case.checksum)
            reason = errors.get(_escaped(match.group(0)), "")
            if check == right:
                assert not reason.startswith("checksum"), f"{case.name}: {match.group(0)!r}"
            else:
                wanted = f"checksum mismatch: frame says {check}, computed {right}"
                assert reason == wanted, f"{case.name}: {match.group(0)!r}"
        for out in step.expected:
            if isinstance(out, Outgoing):
                [(body, check)] = frames_in(out.payload)
                assert check.decode("ascii") == independent_check(body, case.checksum)
