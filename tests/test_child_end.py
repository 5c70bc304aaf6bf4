"""A demo's, a bench's or the tests' children end with the process that started them,
however it ends (`floord_demo.child_end`, `bench.proc_stats.dies_with_bench`): a `floord
demo` killed outright must not leave its Mosquitto running on its port, a bench's daemon
left behind would keep reopening its pty's path and share the line of whatever is given
that pty next, and a test worker killed (a CI job's timeout) must not leave its brokers
behind."""

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
# A test worker in miniature: the tests' own broker (`support.Broker`), its pid said.
TESTS_BROKER = """
import sys, time
sys.path.insert(0, "tests")
from support import Broker
broker = Broker()
broker.start()
print(broker.proc.pid, flush=True)
time.sleep(60)
"""
# ... and a floord child of the tests (`e2e_support.Process`: a simulator), its pid said.
TESTS_SIMULATOR = """
import subprocess, sys, time
sys.path.insert(0, "tests")
from e2e_support import Process
sim = Process(["sim", "cammegh-ss2", "--pty"], stdout=subprocess.DEVNULL)
print(sim.proc.pid, flush=True)
time.sleep(60)
"""
# A bench in miniature: it starts a child that would sleep for a minute, says its pid,
# and waits to be killed.
BENCH = """
import subprocess, sys, time
from bench.proc_stats import dies_with_bench
kwargs = {"preexec_fn": dies_with_bench()} if sys.argv[1] == "tied" else {}
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], **kwargs)
print(child.pid, flush=True)
time.sleep(60)
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


def _killed_with(parent: subprocess.Popen[str], child: int) -> None:
    """SIGKILL `parent` (no `finally` of its own runs: it just goes) and see `child` end
    with it; a child that does not is killed here."""
    try:
        parent.send_signal(signal.SIGKILL)
        parent.wait(10)
        if parent.stdout is not None:
            parent.stdout.close()
        assert _ends_soon(child)
    finally:
        if _running(child):
            os.kill(child, signal.SIGKILL)


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
    _killed_with(demo, broker)


@pytest.mark.parametrize(
    ("script", "program"),
    [(TESTS_BROKER, "mosquitto"), (TESTS_SIMULATOR, "floord")],
    ids=["broker", "floord-child"],
)
def test_a_killed_test_worker_takes_its_children_with_it(script: str, program: str) -> None:
    """Its broker (even run as root, whom Mosquitto would switch from, which clears the
    tie) and the floord processes it started."""
    worker = subprocess.Popen(
        [sys.executable, "-c", script], cwd=REPO, stdout=subprocess.PIPE, text=True
    )
    assert worker.stdout is not None
    child = int(worker.stdout.readline())
    assert program in Path(f"/proc/{child}/cmdline").read_text()
    _killed_with(worker, child)


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


def _child_after_the_bench_is_killed(how: str) -> int:
    bench = subprocess.Popen(
        [sys.executable, "-c", BENCH, how], cwd=REPO, stdout=subprocess.PIPE, text=True
    )
    assert bench.stdout is not None
    child = int(bench.stdout.readline())
    assert _running(child)
    bench.send_signal(signal.SIGKILL)  # no finally, no atexit: the bench just goes
    bench.wait(10)
    bench.stdout.close()
    return child


def test_a_benchs_child_ends_when_the_bench_is_killed() -> None:
    assert _ends_soon(_child_after_the_bench_is_killed("tied"))


def test_without_the_tie_the_child_outlives_the_killed_bench() -> None:
    """What the above guards against, so that it is shown to guard."""
    child = _child_after_the_bench_is_killed("free")
    try:
        time.sleep(0.5)
        assert _running(child)
    finally:
        os.kill(child, signal.SIGKILL)
