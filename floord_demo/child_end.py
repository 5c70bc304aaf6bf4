"""Children that end with the process that started them, however it ends.

A demo or a bench stops its broker, its cluster nodes and its browsers in a `finally`; a
SIGKILL (or the OOM killer) skips that, and the child runs on, idle on its port, with
nobody to stop it. Linux can send the child a signal when its parent goes instead
(`prctl(PR_SET_PDEATHSIG)`), set between fork and exec through a `preexec_fn`.

The kernel's "parent" is the thread that forked, not the process: a child started from a
worker thread would be stopped when that thread ends, while the process lives on (a test
that starts a cluster node from a thread pool, a helper thread that restarts a broker).
So `ends_with_this_process` ties a child only when it is started from the main thread,
which lives as long as the process; from any other thread the child is left untied.
"""

from __future__ import annotations

import ctypes
import os
import signal
import threading
from collections.abc import Callable

# prctl(2)'s option for the signal a process gets when the thread that forked it ends.
PR_SET_PDEATHSIG = 1
_LIBC = ctypes.CDLL(None, use_errno=True)


def ends_with_this_thread() -> Callable[[], None]:
    """A `preexec_fn`: the child gets SIGTERM when the thread that starts it ends. Made in
    the parent; what it returns runs in the child, between fork and exec."""
    parent = os.getpid()

    def in_the_child() -> None:
        if _LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGTERM) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG)")
        if os.getppid() != parent:  # the parent had already gone before the line above
            os.kill(os.getpid(), signal.SIGTERM)

    return in_the_child


def ends_with_this_process() -> Callable[[], None] | None:
    """`ends_with_this_thread` when called on the main thread; None (a child left free)
    on any other, whose end is not the process's."""
    if threading.current_thread() is threading.main_thread():
        return ends_with_this_thread()
    return None
