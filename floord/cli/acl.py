"""`floord acl`: the broker's ACL file and password file, written from the floor's configs.

Each table box's login and password come from its own config (`broker.username`,
`broker.password_file`); the surveillance, operator-client and display logins are named
on the command line with `--user NAME=PASSWORD_FILE`. The ACL comes from
`floord.tools.acl`, the password hashes from `floord.tools.mosquitto_passwd`; both files are
written whole (a new file renamed over the old), the password file readable by its
owner only. With `--nats` it writes instead one nats-server include (users, bcrypt
hashes, permissions) from `floord.tools.nats_acl`, for the NATS cluster's MQTT.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from floord.config.load import ConfigError, LoadedConfig, load_config, read_secret
from floord.tools.acl import AclError, FloorLogins, acl_text, floor_logins
from floord.tools.mosquitto_passwd import password_line
from floord.tools.nats_acl import nats_auth_text
from floord.tools.nats_passwd import bcrypt_hash

ACL_NAME = "floord.acl"
PASSWD_NAME = "floord.passwd"
NATS_NAME = "floord-nats-auth.conf"


def register(sub: argparse._SubParsersAction) -> None:
    acl = sub.add_parser(
        "acl",
        help="write the broker's ACL and password files from the floor's configs",
        description="Write a Mosquitto acl_file (DIR/floord.acl) and password_file "
        "(DIR/floord.passwd) for every table box config given, and for the surveillance, "
        "operator-client and display logins named (docs/security.md).",
    )
    acl.add_argument(
        "-c",
        "--config",
        dest="configs",
        action="append",
        required=True,
        type=Path,
        help="a table box's config (repeat, one per box)",
    )
    acl.add_argument("--out", required=True, type=Path, help="the folder to write into")
    acl.add_argument(
        "--surveillance-user",
        action="append",
        default=[],
        metavar="NAME",
        help="a login that reads everything and publishes only commands (replay requests)",
    )
    acl.add_argument(
        "--operator-client-user",
        action="append",
        default=[],
        metavar="NAME",
        help="a login for operators' command clients (floord cmd): commands and results",
    )
    acl.add_argument(
        "--display-user",
        action="append",
        default=[],
        metavar="NAME",
        help="a login that reads only the tables' retained state (hole card masked)",
    )
    acl.add_argument(
        "--user",
        action="append",
        default=[],
        metavar="NAME=PASSWORD_FILE",
        help="the password file of a surveillance, operator-client or display login",
    )
    acl.add_argument(
        "--nats",
        action="store_true",
        help=f"write instead a nats-server include (DIR/{NATS_NAME}): the same logins as "
        "NATS users with bcrypt passwords and permissions on the MQTT subjects",
    )
    acl.set_defaults(handler=run_acl)


def user_passwords(pairs: list[str]) -> dict[str, Path]:
    """`NAME=PASSWORD_FILE` words to a mapping; a bad or repeated word is a ValueError."""
    found: dict[str, Path] = {}
    for pair in pairs:
        name, sep, file = pair.partition("=")
        if not sep or not name or not file:
            raise ValueError(f"--user: NAME=PASSWORD_FILE expected, found {pair!r}")
        if name in found:
            raise ValueError(f"--user: one password file per login expected, found {name!r} twice")
        found[name] = Path(file)
    return found


def login_secrets(
    logins: FloorLogins, configs: list[LoadedConfig], files: dict[str, Path]
) -> dict[str, str]:
    """Every login's password, in login order; raises AclError naming every missing one."""
    problems: list[str] = []
    secrets: dict[str, tuple[str, Path]] = {}
    for loaded in configs:
        broker = loaded.config.broker
        if broker.username is None:
            continue  # floor_logins already refused it
        if broker.password_file is None:
            problems.append(
                f"{loaded.path}: broker.password_file: the box's broker password expected "
                f"(the broker refuses logins without one), found nothing"
            )
            continue
        secrets[broker.username] = (
            f"{loaded.path}: broker.password_file",
            loaded.resolve(broker.password_file),
        )
    others = [*logins.surveillance, *logins.operator_clients, *logins.displays]
    for name in others:
        if name not in files:
            problems.append(f"login {name!r}: --user {name}=PASSWORD_FILE expected, found none")
        else:
            secrets[name] = (f"--user {name}", files[name])
    for name in sorted(set(files) - set(others)):
        problems.append(
            f"--user {name}: a login named by --surveillance-user, --operator-client-user or "
            f"--display-user expected, found {name!r} (box passwords come from their configs)"
        )
    found: dict[str, str] = {}
    for name in logins.names():
        if name not in secrets:
            continue
        where, path = secrets[name]
        try:
            secret = read_secret(path).decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            why = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
            problems.append(f"{where}: a readable password file expected, found {path} ({why})")
            continue
        if not secret:
            problems.append(f"{where}: a password expected, found an empty file {path}")
            continue
        found[name] = secret
    if problems:
        raise AclError(problems)
    return found


def write_whole(path: Path, text: str, mode: int) -> None:
    """Write `text` to a new file beside `path` and rename it over `path`."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def run_acl(ns: argparse.Namespace) -> int:
    configs: list[LoadedConfig] = []
    problems: list[str] = []
    for path in ns.configs:
        try:
            configs.append(load_config(path))
        except ConfigError as exc:
            problems += exc.problems
    try:
        files = user_passwords(ns.user)
    except ValueError as exc:
        problems.append(str(exc))
        files = {}
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    try:
        logins = floor_logins(
            configs,
            surveillance=ns.surveillance_user,
            operator_clients=ns.operator_client_user,
            displays=ns.display_user,
        )
        secrets = login_secrets(logins, configs, files)
        sources = [str(c.path) for c in configs]
        nats_text = ""
        if ns.nats:
            hashes = {name: bcrypt_hash(secret) for name, secret in secrets.items()}
            nats_text = nats_auth_text(logins, hashes, sources)
    except AclError as exc:
        print("\n".join(exc.problems), file=sys.stderr)
        return 1
    except RuntimeError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    if ns.nats:
        return _write_nats(ns.out, nats_text, logins)
    entries = [password_line(name, secret) for name, secret in secrets.items()]
    try:
        ns.out.mkdir(parents=True, exist_ok=True)
        acl_path, passwd_path = ns.out / ACL_NAME, ns.out / PASSWD_NAME
        write_whole(acl_path, acl_text(logins, sources), 0o644)
        write_whole(passwd_path, "\n".join(entries) + "\n", 0o600)
    except OSError as exc:
        print(f"floord acl: cannot write into {ns.out}: {exc}", file=sys.stderr)
        return 1
    print(f"acl_file: {acl_path}")
    print(f"password_file: {passwd_path}")
    print(f"logins: {len(logins.names())} ({len(logins.boxes)} table boxes)")
    return 0


def _write_nats(out: Path, text: str, logins: FloorLogins) -> int:
    """The NATS include, readable by its owner only (it holds the password hashes)."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        path = out / NATS_NAME
        write_whole(path, text, 0o600)
    except OSError as exc:
        print(f"floord acl: cannot write into {out}: {exc}", file=sys.stderr)
        return 1
    print(f"nats include: {path}")
    print(f"logins: {len(logins.names())} ({len(logins.boxes)} table boxes)")
    return 0
