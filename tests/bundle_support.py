"""Evidence bundles opened, edited and written back the way someone with the file could."""

from __future__ import annotations

import hashlib
import json
import zipfile
from collections.abc import Callable
from pathlib import Path

from floord.journal.bundle_format import MANIFEST, SUMS, manifest_bytes, sums_bytes

Members = dict[str, bytes]


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
