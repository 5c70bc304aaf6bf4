"""Optional parts of floord and the one line that says how to get one that is missing.

A table box installs floord's core only (docs/deployment.md); the terminal console
(textual), the report's PNG (matplotlib) and the demo's embedded broker (amqtt) are
extras. A command that needs one checks for it before it starts anything, and when it is
missing stops with one line naming the extra to install, never with an ImportError's
traceback.
"""

from __future__ import annotations

import importlib.util

_RIG_INSTALL = "apt install floord-rig (the wheel has them: pip install floord)"
_RIG_LINE = "on a test rig, " + _RIG_INSTALL

# extra -> the module whose absence means the extra is not installed
EXTRAS: dict[str, str] = {
    "console": "textual",
    "report": "matplotlib",
    "demo": "amqtt",
    "metrics": "prometheus_client",
    "web": "aiohttp",
    "archive": "psycopg",
}


class MissingExtra(SystemExit):
    """Ends the command with a one-line message on stderr and exit status 1.

    A SystemExit, so that every command path (the CLI's handlers, code inside
    `asyncio.run`) stops the same way without printing a traceback.
    """


def missing_extra_message(extra: str, what: str) -> str:
    module = EXTRAS[extra]
    return (
        f"{what} needs floord's {extra!r} extra ({module} is not installed): "
        f"pip install 'floord[{extra}]', or with pipx: pipx inject floord {module}"
    )


def require_extra(extra: str, what: str) -> None:
    """Raise `MissingExtra` when `extra`'s module cannot be imported here."""
    if importlib.util.find_spec(EXTRAS[extra]) is None:
        raise MissingExtra(missing_extra_message(extra, what))


def require_simulators(what: str) -> None:
    """Raise `MissingExtra` when the device simulators are not installed: a table box's
    Debian package leaves them out (they belong on a test rig, docs/rigs.md)."""
    if importlib.util.find_spec("simulators") is None:
        raise MissingExtra(
            f"{what} needs floord's device simulators, which a table box does not install: "
            + _RIG_LINE
        )


def require_demo(what: str) -> None:
    """Raise `MissingExtra` when the demo (`floord_demo`) or the simulators that are its
    devices are not installed: both belong on a test rig (the `floord-rig` Debian package),
    and a table box's package leaves them out. floord reaches the demo by module name only,
    never by an import."""
    missing = [name for name in ("floord_demo", "simulators") if not _installed(name)]
    if missing:
        names = " and ".join(missing)
        raise MissingExtra(
            f"{what} belongs on a test rig: {names} {'is' if len(missing) == 1 else 'are'} "
            "not installed here (a table box has neither); " + _RIG_INSTALL
        )


def _installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None
