"""A private PostgreSQL server (Debian's `postgresql`) in a temporary folder, for the
archive's tests and the load bench.

The server refuses to run as root, so as root it runs as the `postgres` user the package
makes (through `runuser`), in a folder of its own, on a free loopback port with trust
authentication; `fsync` is off for the tests (a test's data need not survive a power
cut; a restart of the server, which a test does, keeps it) and left on for the bench
(`durable=True`), whose figures must be a real server's.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

from floord_demo.broker import free_port


def pg_bin() -> Path | None:
    """The newest installed PostgreSQL's bin folder (initdb, pg_ctl), or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=_major)
    return Path(found[-1]).parent if found else None


def _major(path: str) -> int:
    part = Path(path).parent.parent.name
    return int(part) if part.isdigit() else 0


def why_not() -> str | None:
    """Why no server can be started here, or None."""
    if pg_bin() is None:
        return (
            "PostgreSQL is not installed (scripts/ensure-test-tools.sh installs Debian's "
            "postgresql with apt-get when run as root)"
        )
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed (pip install -e '.[test]' brings the archive extra)"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no `postgres` user to run the server as"
    return None


def _wait_port(port: int, *, up: bool, timeout: float = 20.0) -> None:
    import socket

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                if up:
                    return
        except OSError:
            if not up:
                return
        time.sleep(0.05)
    raise TimeoutError(f"port {port} did not come {'up' if up else 'down'}")


class Postgres:
    """One PostgreSQL server on a free loopback port; `restart()` keeps its data."""

    def __init__(self, *, durable: bool = False) -> None:
        binary = pg_bin()
        if binary is None:
            raise RuntimeError(why_not())
        self._bin = binary
        self._durable = durable
        self.port = free_port()
        self._dir = Path(tempfile.mkdtemp(prefix="floord-pg-"))
        self._as: list[str] = []
        if os.geteuid() == 0:
            user = pwd.getpwnam("postgres")
            os.chown(self._dir, user.pw_uid, user.pw_gid)
            self._as = ["runuser", "-u", "postgres", "--"]
        self.data = self._dir / "data"
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8")
        self.start()

    def _run(self, tool: str, *args: str) -> None:
        subprocess.run(
            [*self._as, str(self._bin / tool), *args],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            cwd=self._dir,
        )

    def start(self) -> None:
        options = f"-p {self.port} -k {self._dir} -c listen_addresses=127.0.0.1"
        if not self._durable:
            options += " -c fsync=off -c full_page_writes=off"
        log = str(self._dir / "log")
        self._run("pg_ctl", "start", "-D", str(self.data), "-w", "-l", log, "-o", options)
        _wait_port(self.port, up=True)

    def stop(self) -> None:
        self._run("pg_ctl", "stop", "-D", str(self.data), "-m", "fast", "-w")
        _wait_port(self.port, up=False)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A fresh database; its URL."""
        import psycopg

        name = f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url(), autocommit=True) as db:
            db.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def pids(self) -> list[int]:
        """The server's processes: the postmaster and its children (the backends)."""
        try:
            first = (self.data / "postmaster.pid").read_text().split()[0]
        except (OSError, IndexError):
            return []
        found = [int(first)]
        done = subprocess.run(["pgrep", "-P", first], capture_output=True, text=True)
        found += [int(p) for p in done.stdout.split()]
        return found

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._run("pg_ctl", "stop", "-D", str(self.data), "-m", "immediate", "-w")
        shutil.rmtree(self._dir, ignore_errors=True)
