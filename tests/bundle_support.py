"""Evidence bundles: a journal of play to export them from, and bundles opened, edited
and written back the way someone with the file could."""

from __future__ import annotations

import hashlib
import json
import zipfile
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from floord.cli.main import main
from floord.contract import Envelope, format_ts
from floord.journal.bundle_format import MANIFEST, SUMS, manifest_bytes, sums_bytes
from floord.journal.store import Journal

Members = dict[str, bytes]
ROOT = Path(__file__).resolve().parent.parent
T0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
TABLE, WHEEL = "RL-01", "RL-01/devices/wheel"
PROFILE = "profiles/wheel/cammegh-ss2.yaml"


def round_of(minute: int) -> str | None:
    """Minutes 1-4 are round 0000, 6-9 round 0001, ...; each fifth minute is between rounds."""
    return f"RL-01-2024-05-01-{minute // 5:04d}" if minute % 5 else None


def event(stream: str, minute: int, second: int = 0) -> Callable[[int], Envelope]:
    def make(seq: int) -> Envelope:
        device = stream == WHEEL
        return Envelope(
            site="casino-1",
            table="RL-01",
            seq=seq,
            ts=format_ts(T0 + timedelta(minutes=minute, seconds=second)),
            type="wheel.number" if device or second == 0 else "roulette.result",
            source="wheel" if device or second == 0 else "engine",
            data={"minute": minute, "second": second},
            round=None if device else round_of(minute),
        )

    return make


def append_minutes(journal: Journal, minutes: range) -> None:
    """Each minute: the wheel's event on both streams, and the engine's decision on the table's."""
    for minute in minutes:
        journal.append(WHEEL, event(WHEEL, minute))
        journal.append(TABLE, event(TABLE, minute))
        journal.append(TABLE, event(TABLE, minute, 30))


def box_config(folder: Path) -> Path:
    """The example box's config (RL-01 with a Cammegh wheel), copied into `folder`."""
    path = folder / "floord.yaml"
    path.write_bytes((ROOT / "examples" / "box.yaml").read_bytes())
    return path


def export(journal: Journal, config: Path, out: Path, *selection: str) -> int:
    argv = ["journal", "export", "--db", str(journal.path), "--table", TABLE, "-c", str(config)]
    return main([*argv, *selection, "--out", str(out)])


def verify(bundle: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["journal", "verify-bundle", str(bundle)])
    out = capsys.readouterr()
    return code, out.out + out.err


def read_members(bundle: Path) -> Members:
    with zipfile.ZipFile(bundle) as zf:
        return {info.filename: zf.read(info) for info in zf.infolist()}


def lines(members: Members, name: str) -> list[dict]:
    return [json.loads(line) for line in members[name].decode().splitlines()]


def rewrite(bundle: Path, change: Callable[[Members], None], *, rehash: bool = False) -> None:
    """Write `bundle` again with `change` made to its members; `rehash`: as a tamperer who
    knows the format would, with the manifest's `members` and SHA256SUMS made to match."""
    members = read_members(bundle)
    change(members)
    if rehash:
        manifest = json.loads(members[MANIFEST])
        manifest["members"] = {
            name: hashlib.sha256(data).hexdigest()
            for name, data in sorted(members.items())
            if name not in (MANIFEST, SUMS)
        }
        members[MANIFEST] = manifest_bytes(manifest)
        hashes = {n: hashlib.sha256(d).hexdigest() for n, d in members.items() if n != SUMS}
        members[SUMS] = sums_bytes(hashes)
    bundle.unlink()
    with zipfile.ZipFile(bundle, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)


def flip_in_file(bundle: Path, member: str) -> None:
    """Change one byte of the zip file itself, in the middle of `member`'s stored data."""
    with zipfile.ZipFile(bundle) as zf:
        info = zf.getinfo(member)
    raw = bytearray(bundle.read_bytes())
    header = raw[info.header_offset : info.header_offset + 30]
    name_len = int.from_bytes(header[26:28], "little")
    extra_len = int.from_bytes(header[28:30], "little")
    start = info.header_offset + 30 + name_len + extra_len
    raw[start + info.compress_size // 2] ^= 0x20
    bundle.write_bytes(bytes(raw))
