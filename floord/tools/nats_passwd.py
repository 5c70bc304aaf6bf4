"""NATS password hashes: bcrypt, which nats-server takes in a user's `password` (it
compares a `$2a$`/`$2b$` value as a bcrypt hash, anything else as plain text).

`floord acl --nats` hashes the floor's passwords itself, so that no password is written
in clear into the nodes' configs. The `bcrypt` package is floord's `nats` extra
(`pip install 'floord[nats]'`); only this command needs it, so the table box's .deb,
which carries the daemon's dependencies only, does not.
"""

from __future__ import annotations

import importlib

# bcrypt's work factor: 2**11 rounds, about 0.14 s of a core per hash or check here. The
# node checks it once per login, so a node's loss costs the others that for every box
# and console that moves to them (docs/security.md).
COST = 11


def bcrypt_hash(password: str, *, cost: int = COST) -> str:
    """The bcrypt hash of `password`, a fresh salt each time; a RuntimeError saying what
    to install when the `bcrypt` package is missing."""
    if not password:
        raise ValueError("a non-empty password expected")
    try:
        bcrypt = importlib.import_module("bcrypt")
    except ImportError as exc:
        raise RuntimeError(
            "floord acl --nats: the bcrypt package expected (pip install 'floord[nats]'), "
            "found none"
        ) from exc
    hashed: bytes = bcrypt.hashpw(password.encode("utf-8"), bcrypt.gensalt(cost))
    return hashed.decode("ascii")


def bcrypt_verify(password: str, hashed: str) -> bool:
    """Whether `password` matches a bcrypt hash (as nats-server would decide)."""
    bcrypt = importlib.import_module("bcrypt")
    ok: bool = bcrypt.checkpw(password.encode("utf-8"), hashed.encode("ascii"))
    return ok
