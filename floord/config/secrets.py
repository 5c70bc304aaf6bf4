"""Cross-checks of a config's secrets: operator keys (and a key being rotated out), the
broker's password file and TLS files. Each problem names the file, the key and what was
expected, like every other config check (`floord.config.load`).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from floord.mqtt.tls import client_tls

if TYPE_CHECKING:
    from floord.config.broker import BrokerConfig, OperatorConfig


# A key or a password is a line; a file far larger is not a secret file (a log, a disk).
MAX_SECRET_BYTES = 64 * 1024


def read_secret(path: Path) -> bytes:
    """A secret file holds one line of text; surrounding white space is not part of it.

    Only a regular file of at most `MAX_SECRET_BYTES` is read: a FIFO would block the
    read (and `floord check` with it) until someone writes to it, and `/dev/zero` never
    ends. Anything else is an OSError whose `strerror` says what was found."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    try:
        kind = os.fstat(fd).st_mode
        if not stat.S_ISREG(kind):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(MAX_SECRET_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_SECRET_BYTES:
        raise OSError(errno.EFBIG, f"larger than {MAX_SECRET_BYTES} bytes", str(path))
    return data.strip()


def read_secret_text(path: Path) -> str:
    """A secret that is text (a password): UTF-8, else a ValueError naming the file."""
    secret = read_secret(path)
    try:
        return secret.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: a password of UTF-8 text expected ({exc.reason})") from exc


def secret_problems(path: Path, key: str, secret: Path, *, text: bool = False) -> list[str]:
    """A secret file (a key, a password: `text`, UTF-8) must be readable and not empty."""
    where = secret if secret.is_absolute() else path.parent / secret
    try:
        found = read_secret(where)
    except OSError as exc:
        return [f"{path}: {key}: a readable file expected, found {str(where)!r} ({exc.strerror})"]
    if not found:
        return [f"{path}: {key}: a file with a secret expected, found an empty file {str(where)!r}"]
    if text:
        try:
            found.decode("utf-8")
        except UnicodeDecodeError:
            return [f"{path}: {key}: a password of UTF-8 text expected, found {str(where)!r}"]
    return []


def rotation_problems(path: Path, key: str, op: OperatorConfig) -> list[str]:
    """A previous key comes with its expiry, is readable, and is not the current key."""
    if (op.previous_key_file is None) != (op.previous_key_expires is None):
        given, missing = (
            ("previous_key_file", "previous_key_expires")
            if op.previous_key_expires is None
            else ("previous_key_expires", "previous_key_file")
        )
        return [
            f"{path}: {key}.{missing}: a value expected with {given} (a retired key is "
            f"accepted only until a stated time), found nothing"
        ]
    if op.previous_key_file is None:
        return []
    problems = secret_problems(path, f"{key}.previous_key_file", op.previous_key_file)
    if not problems and not secret_problems(path, f"{key}.key_file", op.key_file):

        def read(p: Path) -> bytes:
            return read_secret(p if p.is_absolute() else path.parent / p)

        if read(op.previous_key_file) == read(op.key_file):
            problems.append(
                f"{path}: {key}.previous_key_file: a key different from key_file expected, "
                f"found the same secret in both"
            )
    return problems


def broker_problems(path: Path, broker: BrokerConfig) -> list[str]:
    """Credentials readable; a tls section exactly when the URL is mqtts://, its files
    readable and loadable into a TLS context."""
    problems: list[str] = []
    if broker.password_file is not None:
        problems += secret_problems(path, "broker.password_file", broker.password_file, text=True)
        if broker.username is None:
            problems.append(
                f"{path}: broker.username: a user name with password_file expected, found nothing"
            )
    tls = broker.tls
    if broker.secure and tls is None:
        return [
            *problems,
            f"{path}: broker.tls: a tls section (ca_file; cert_file and key_file when the "
            f"broker requires client certificates) expected for {broker.where!r}, found none",
        ]
    if not broker.secure and tls is not None:
        return [
            *problems,
            f"{path}: broker.tls: no tls section with a plain mqtt:// url expected (use "
            f"mqtts:// for TLS), found one with {broker.where!r}",
        ]
    if tls is None:
        return problems
    unreadable = []
    files = {"ca_file": tls.ca_file, "cert_file": tls.cert_file, "key_file": tls.key_file}
    for name, file in files.items():
        if file is None:
            continue
        where = file if file.is_absolute() else path.parent / file
        try:
            text = where.read_bytes()
        except OSError as exc:
            unreadable.append(
                f"{path}: broker.tls.{name}: a readable PEM file expected, "
                f"found {str(where)!r} ({exc.strerror})"
            )
            continue
        if b"-----BEGIN " not in text:
            unreadable.append(
                f"{path}: broker.tls.{name}: a PEM file (-----BEGIN ...) expected, "
                f"found {str(where)!r} without one"
            )
    if unreadable:
        return problems + unreadable
    try:
        client_tls(broker, lambda p: p if p.is_absolute() else path.parent / p)
    except ValueError as exc:
        problems.append(f"{path}: {exc}")
    return problems
