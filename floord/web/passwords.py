"""The viewers' password file: one `user:scrypt$N$r$p$salt$hash` line each.

scrypt (hashlib, no extra) because it costs memory as well as time: a stolen file is
slow to guess at. The file holds no password; `floord web passwd FILE USER` adds or
replaces a line. Verifying takes about as long for an unknown user as for a known one,
so the answer's timing does not tell which user names exist.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
import secrets
from dataclasses import dataclass
from pathlib import Path

SCHEME = "scrypt"
N, R, P = 2**14, 8, 1
SALT_BYTES = 16
HASH_BYTES = 32
USER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$")
MIN_PASSWORD = 8
MAX_PASSWORD = 1024


class PasswordFileError(ValueError):
    """A password file line that cannot be read; the message names file and line."""


@dataclass(frozen=True)
class Hashed:
    n: int
    r: int
    p: int
    salt: bytes
    digest: bytes

    def text(self) -> str:
        salt = base64.b64encode(self.salt).decode()
        digest = base64.b64encode(self.digest).decode()
        return f"{SCHEME}${self.n}${self.r}${self.p}${salt}${digest}"


def _derive(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(
        password.encode("utf-8"),
        salt=salt,
        n=n,
        r=r,
        p=p,
        maxmem=256 * 1024 * 1024,
        dklen=HASH_BYTES,
    )


def hash_password(password: str) -> Hashed:
    salt = secrets.token_bytes(SALT_BYTES)
    return Hashed(N, R, P, salt, _derive(password, salt, N, R, P))


def parse_hash(text: str) -> Hashed:
    parts = text.split("$")
    if len(parts) != 6 or parts[0] != SCHEME:
        raise ValueError(f"{SCHEME}$N$r$p$salt$hash expected")
    try:
        n, r, p = int(parts[1]), int(parts[2]), int(parts[3])
        salt = base64.b64decode(parts[4], validate=True)
        digest = base64.b64decode(parts[5], validate=True)
    except ValueError:
        raise ValueError("numbers and base64 expected in the hash") from None
    if n < 2**10 or n & (n - 1) or not 1 <= r <= 64 or not 1 <= p <= 16 or not salt or not digest:
        raise ValueError("scrypt parameters N (a power of two, at least 1024), r and p expected")
    return Hashed(n, r, p, salt, digest)


def read_passwords(path: Path) -> dict[str, Hashed]:
    """Every user of the file; PasswordFileError (naming file and line) if one is bad."""
    users: dict[str, Hashed] = {}
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PasswordFileError(f"{path}: a readable password file expected ({exc})") from None
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        user, sep, hashed = line.partition(":")
        if not sep or not USER.match(user):
            raise PasswordFileError(f"{path}: line {number}: USER:{SCHEME}$... expected")
        if user in users:
            raise PasswordFileError(f"{path}: line {number}: user {user!r} given twice")
        try:
            users[user] = parse_hash(hashed.strip())
        except ValueError as exc:
            raise PasswordFileError(f"{path}: line {number}: {exc}") from None
    return users


_DUMMY = Hashed(N, R, P, b"\0" * SALT_BYTES, b"\0" * HASH_BYTES)


def verify(users: dict[str, Hashed], user: str, password: str) -> bool:
    """True if `password` is `user`'s; as slow for an unknown user as for a known one."""
    if len(password) > MAX_PASSWORD:
        return False
    known = users.get(user)
    stored = known if known is not None else _DUMMY
    derived = _derive(password, stored.salt, stored.n, stored.r, stored.p)
    return known is not None and hmac.compare_digest(derived, stored.digest)


def set_password(path: Path, user: str, password: str) -> bool:
    """Add `user` to the file (or replace their line); True if they were new. The file is
    written whole under a temporary name, then renamed, mode 0640."""
    if not USER.match(user):
        raise ValueError(f"a user name of letters, digits and ._@- expected, found {user!r}")
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise ValueError(f"a password of {MIN_PASSWORD} to {MAX_PASSWORD} characters expected")
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    if path.exists():
        read_passwords(path)  # a broken file is not rewritten
    entry = f"{user}:{hash_password(password).text()}"
    kept = [line for line in lines if line.partition(":")[0] != user]
    new = len(kept) == len(lines)
    kept.append(entry)
    partial = path.with_name(f".{path.name}.{os.getpid()}.new")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o640)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write("\n".join(kept) + "\n")
    os.replace(partial, path)
    return new
