"""A demo's or a bench's broker, cluster nodes and browser end with the process that
started them, however it ends (`floord_demo.child_end`): a `floord demo` killed outright
must not leave its Mosquitto running on its port."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from floord_demo.child_end import ends_with_this_process, ends_with_this_thread

pytestmark = pytest.mark.system  # processes

REPO = Path(__file__).resolve().parent.parent
# A demo in miniature: its private broker, as `floord demo` starts it; then its own pid,
# and it waits to be killed.
DEMO = """
import asyncio, os
from floord_demo.broker import mosquitto_binary, private_mosquitto
async def main():
    async with private_mosquitto(mosquitto_binary()) as url:
        print(os.getpid(), url, flush=True)
        await asyncio.sleep(60)
asyncio.run(main())
"""


def _running(pid: int) -> bool:
    """`pid` exists and is not a zombie (an orphan's zombie is reaped by init)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def _ends_soon(pid: int) -> bool:
    deadline = time.monotonic() + 10
    while _running(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not _running(pid)


def _sleeper(**kwargs: object) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], **kwargs)  # type: ignore[call-overload]


def test_a_killed_demo_takes_its_broker_with_it() -> None:
    demo = subprocess.Popen(
        [sys.executable, "-c", DEMO], cwd=REPO, stdout=subprocess.PIPE, text=True
    )
    assert demo.stdout is not None
    pid = int(demo.stdout.readline().split()[0])
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    assert len(children) == 1, children
    broker = int(children[0])
    assert "mosquitto" in Path(f"/proc/{broker}/cmdline").read_text()
    try:
        demo.send_signal(signal.SIGKILL)  # no finally: the demo just goes
        demo.wait(10)
        demo.stdout.close()
        assert _ends_soon(broker)
    finally:
        if _running(broker):
            os.kill(broker, signal.SIGKILL)


def test_on_the_main_thread_a_child_is_tied() -> None:
    assert threading.current_thread() is threading.main_thread()
    assert ends_with_this_process() is not None


def test_a_child_started_from_a_worker_thread_is_left_free() -> None:
    """A worker thread's end is not the process's: a child it starts is not tied."""
    started: list[subprocess.Popen[bytes]] = []

    def worker() -> None:
        assert ends_with_this_process() is None
        started.append(_sleeper(preexec_fn=ends_with_this_process()))

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    child = started[0]
    try:
        time.sleep(0.5)
        assert child.poll() is None  # the thread has ended; the child runs on
    finally:
        child.kill()
        child.wait()


def test_tied_to_a_worker_thread_a_child_ends_with_that_thread() -> None:
    """Why only the main thread ties: the kernel's parent is the forking thread."""
    started: list[subprocess.Popen[bytes]] = []
    thread = threading.Thread(
        target=lambda: started.append(_sleeper(preexec_fn=ends_with_this_thread()))
    )
    thread.start()
    thread.join()
    child = started[0]
    try:
        child.wait(10)
        assert child.returncode == -signal.SIGTERM
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
