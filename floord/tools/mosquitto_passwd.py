"""Mosquitto password-file entries, hashed in Python exactly as `mosquitto_passwd` does.

`floord acl` writes the floor's password file itself, so that the secrets never pass
through a shell or a second tool. Mosquitto 2.x reads `user:$7$<iterations>$<salt>$<hash>`,
where `$7$` is PBKDF2-HMAC-SHA512 over the password with a 12-byte random salt, the
salt and the 64-byte hash in standard base64 (with padding), and 101 iterations by
default (mosquitto's `PW_DEFAULT_ITERATIONS`).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os

SALT_BYTES = 12
HASH_BYTES = 64
DEFAULT_ITERATIONS = 101
_PREFIX = "$7$"


def hash_password(
    password: str, *, salt: bytes | None = None, iterations: int = DEFAULT_ITERATIONS
) -> str:
    """The `$7$...` hash of `password`; a fresh random salt unless one is given (tests)."""
    if iterations < 1:
        raise ValueError(f"at least 1 PBKDF2 iteration expected, found {iterations}")
    if not password:
        raise ValueError("a non-empty password expected")
    if salt is None:
        salt = os.urandom(SALT_BYTES)
    digest = hashlib.pbkdf2_hmac("sha512", password.encode("utf-8"), salt, iterations, HASH_BYTES)
    return f"{_PREFIX}{iterations}${_b64(salt)}${_b64(digest)}"


def password_line(username: str, password: str) -> str:
    """One line of a Mosquitto password file (without the newline)."""
    if not username or ":" in username or any(c.isspace() for c in username):
        raise ValueError(f"a user name without ':' or white space expected, found {username!r}")
    return f"{username}:{hash_password(password)}"


def verify_password(password: str, hashed: str) -> bool:
    """Whether `password` matches a `$7$` hash (as the broker would decide)."""
    parts = hashed.split("$")
    if len(parts) != 5 or parts[0] != "" or parts[1] != "7":
        raise ValueError(f"a $7$<iterations>$<salt>$<hash> entry expected, found {hashed!r}")
    try:
        iterations = int(parts[2])
        salt = base64.b64decode(parts[3], validate=True)
        expected = base64.b64decode(parts[4], validate=True)
    except (ValueError, binascii.Error) as exc:
        raise ValueError(f"a $7$ entry with base64 salt and hash expected: {exc}") from exc
    digest = hashlib.pbkdf2_hmac(
        "sha512", password.encode("utf-8"), salt, iterations, len(expected)
    )
    return hmac.compare_digest(digest, expected)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")
