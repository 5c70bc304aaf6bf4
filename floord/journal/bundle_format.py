"""What an evidence bundle is made of: its members' names, its manifest's form, its zip.

An evidence bundle (`floord journal export --table ... --out FILE`, docs/journal.md,
"Evidence bundles") is one zip file an investigator can take away and check with
nothing but the file (`floord journal verify-bundle`, or a verifier of their own
written from docs/journal.md). The exporter and the verifier both take its layout from
here, so the two cannot disagree on it.

The zip is deterministic: members in the order written, every one dated 1980-01-01 and
given the same permissions, so the same range of the same journal, exported with the
same clock and files, is the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from typing import IO, Any

FORMAT = "floord evidence bundle"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
SUMS = "SHA256SUMS"
# The earliest time a zip can hold: no member carries the moment it was written.
ZIP_TIME = (1980, 1, 1, 0, 0, 0)
MEMBER_MODE = 0o644


def events_member(stream: str) -> str:
    """The member holding the range's events of `stream` (`events/RL-01/devices/wheel.jsonl`)."""
    return f"events/{stream}.jsonl"


def links_member(stream: str) -> str:
    """The member holding the events that tie `stream`'s range to its head."""
    return f"links/{stream}.jsonl"


def manifest_bytes(manifest: dict[str, Any]) -> bytes:
    """The manifest as stored: indented, sorted keys, UTF-8, one newline at the end."""
    text = json.dumps(manifest, indent=2, sort_keys=True, ensure_ascii=False)
    return (text + "\n").encode("utf-8")


def sums_bytes(hashes: dict[str, str]) -> bytes:
    """`SHA256SUMS` in `sha256sum`'s own form, so `sha256sum -c SHA256SUMS` checks it."""
    return "".join(f"{digest}  {name}\n" for name, digest in sorted(hashes.items())).encode()


def parse_sums(data: bytes) -> dict[str, str] | None:
    """`SHA256SUMS` read back as {member: sha256}; None when a line is not of its form."""
    found: dict[str, str] = {}
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    for line in text.splitlines():
        digest, sep, name = line.partition("  ")
        if not sep or len(digest) != 64 or not all(c in "0123456789abcdef" for c in digest):
            return None
        found[name] = digest
    return found


def _info(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=ZIP_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = (0o100000 | MEMBER_MODE) << 16  # a regular file, rw-r--r--
    info.create_system = 3  # Unix, so the mode above is read as one
    return info


class BundleWriter:
    """Writes a bundle's members one by one into a zip, noting each one's SHA-256."""

    def __init__(self, out: IO[bytes]) -> None:
        self._zip = zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED)
        self.hashes: dict[str, str] = {}

    def add(self, name: str, data: bytes) -> str:
        """Store one member whole; returns its SHA-256 (hex)."""
        return self.add_lines(name, [data])

    def add_lines(self, name: str, chunks: Any) -> str:
        """Store one member from an iterable of byte chunks (streamed, never held whole)."""
        if name in self.hashes:
            raise ValueError(f"bundle member {name} written twice")
        digest = hashlib.sha256()
        with self._zip.open(_info(name), "w", force_zip64=True) as member:
            for chunk in chunks:
                digest.update(chunk)
                member.write(chunk)
        self.hashes[name] = digest.hexdigest()
        return self.hashes[name]

    def close(self) -> None:
        self._zip.close()
