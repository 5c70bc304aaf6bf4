"""`floord sim`: run a profile's simulator on a pty or a TCP port, with a live control channel.

Apart from `link.py` (how a simulated device reaches its host), which every simulator
imports: the entry point imports the simulators and their control channel, so in
`link.py` it would close a loop back to them.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import signal
import sys
from collections.abc import Callable
from typing import Any

from floord.events import Simulator
from floord.profile_sources import ProfileShelf
from floord.profiles import DeviceProfile, ProfileError
from simulators import module_name
from simulators.catalogue import find_scenario
from simulators.control import open_control, parse_control
from simulators.link import PtyLink, TcpLink, open_pty_link, serve_tcp
from simulators.scenario import ScenarioError, load_scenario


def load_simulator(profile: DeviceProfile) -> Callable[..., Simulator]:
    """The simulator class named by a profile: `SIMULATOR` of the module its `simulator:`
    names in its driver family (`floord.driver_families`)."""
    name = profile.simulator
    try:
        module_path = module_name(name)
    except ValueError as exc:
        raise ValueError(f"profile {profile.model}: {exc}") from exc
    try:
        module = importlib.import_module(module_path)
    except ModuleNotFoundError as exc:
        raise ValueError(f"profile {profile.model}: no simulator module {name!r}") from exc
    simulator: Callable[..., Simulator] | None = getattr(module, "SIMULATOR", None)
    if simulator is None:
        raise ValueError(f"{module_path} has no SIMULATOR")
    return simulator


def _parse_tcp(address: str) -> tuple[str, int]:
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"tcp: HOST:PORT expected, found {address!r}")
    return host or "127.0.0.1", int(port)


async def run_simulator(
    profile_name: str,
    *,
    pty: bool,
    tcp: str | None,
    scenario_path: str | None,  # a file's path or a packaged scenario's name
    speed: float,
    announce: Callable[[str], None],
    control: str | None = None,
    profiles: ProfileShelf | None = None,
) -> int:
    """Run a profile's simulator on a pty or a TCP port until its scenario ends.

    The profile is looked up on `profiles` (the shelf `floord run` would use: the site's
    directory, the driver plugins', the packaged ones), by default on the plugins' and
    the packaged ones only.

    Announces where the host should connect on one line (`pty: /dev/pts/5` or
    `tcp: 127.0.0.1:5000`), then, with `control` (`stdin`, `unix:PATH`, `tcp:HOST:PORT`:
    see `simulators/control.py`), where steps can be injected live (`control: ...`).
    Returns 0 when the scenario ended, 2 for bad arguments, a bad profile, a bad
    scenario or a control address that cannot be used (the reason goes to stderr).
    """
    try:
        if pty == (tcp is not None):
            raise ValueError("exactly one of a pty or a tcp address expected")
        if not speed > 0:
            raise ValueError(f"speed > 0 expected, found {speed}")
        profile = (profiles or ProfileShelf.packaged()).load(profile_name)
        simulator_class = load_simulator(profile)
        # Each family reads its own scenario form; the wheel's loader is the default.
        loader = getattr(simulator_class, "load_scenario", load_scenario)
        scenario = loader(find_scenario(scenario_path)) if scenario_path else None
        address = _parse_tcp(tcp) if tcp is not None else None
        simulator = simulator_class(profile, scenario, speed=speed)
        if control is not None:
            parse_control(control)
    except (ProfileError, ScenarioError, ValueError) as exc:
        print(f"floord sim: {exc}", file=sys.stderr)
        return 2
    link: PtyLink | TcpLink
    if address is None:
        link, path = await open_pty_link()
        announce(f"pty: {path}")
    else:
        try:
            link = await serve_tcp(*address)
        except OSError as exc:
            print(f"floord sim: cannot listen on {tcp}: {exc}", file=sys.stderr)
            return 2
        announce(f"tcp: {link.address}")
    controlled = None
    try:
        if control is not None:
            try:
                controlled = await open_control(control, simulator, profile_name, announce)
            except ValueError as exc:
                print(f"floord sim: {exc}", file=sys.stderr)
                return 2
        await _run_until_terminated(simulator.run(link))
    finally:
        if controlled is not None:
            await controlled.close()
        await link.close()
    return 0


async def _run_until_terminated(playing: Any) -> None:
    """Play until done; SIGTERM (systemd's stop) ends it cleanly, so links and sockets close."""
    loop = asyncio.get_running_loop()
    runner = asyncio.ensure_future(playing)
    terminated = False

    def on_term() -> None:
        nonlocal terminated
        terminated = True
        runner.cancel()

    loop.add_signal_handler(signal.SIGTERM, on_term)
    try:
        await runner
    except asyncio.CancelledError:
        if not terminated:
            raise
    finally:
        loop.remove_signal_handler(signal.SIGTERM)
        if not runner.done():
            runner.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await runner
