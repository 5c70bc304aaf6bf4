"""The demo's browser console: `floord web` on loopback, in the demo's own process.

Anonymous viewing is allowed on loopback, so the demo needs no password file; the
console subscribes to the demo's broker like any surveillance host, and the security
officer (`SEC-DEMO`) signs its replays. It listens on `PORT` when that is free, else on
any free port; the header prints its address. Without the `web` extra the header says
how to get it, and the demo runs without it. It reads the demo's archive file for its
History page.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import TYPE_CHECKING

from floord.config.broker import BrokerConfig
from floord.system.extras import missing_extra_message
from floord_demo.operators import SECURITY

if TYPE_CHECKING:
    from floord.web.server import WebConsole

PORT = 8640


def unavailable() -> str | None:
    """Why the demo has no browser console (the extra is missing), or None."""
    if importlib.util.find_spec("aiohttp") is None:
        return missing_extra_message("web", "the demo's browser console")
    return None


async def start_web(broker_url: str, config: Path, archive: Path | None = None) -> WebConsole:
    """The console started (listening; `run()` serves), on `PORT` or a free port; with
    the demo's `archive` file, its History page reads it."""
    from floord.web.server import WebConsole, build
    from floord.web.settings import LoadedWebConfig, ReplayAs, WebConfig, parse_listen

    for port in (PORT, 0):
        settings = WebConfig(
            listen=f"127.0.0.1:{port}",
            broker=BrokerConfig(url=broker_url),
            anonymous=True,
            replay_as=ReplayAs(operator=SECURITY.id, key_file=Path(SECURITY.key_file)),
            archive=str(archive) if archive is not None else None,
        )
        loaded = LoadedWebConfig(config, settings, parse_listen(settings.listen))
        console = WebConsole(build(loaded))
        try:
            await console.start()
        except OSError:
            if port == 0:
                raise
            continue
        return console
    raise OSError("no port to listen on")
