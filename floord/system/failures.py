"""Expected failures end in one line and an exit code, never a traceback.

Ctrl-C, a reader that closed the pipe (`floord watch --json | head`) and a broker that is
not there are things that happen to a command line, not bugs: each gets one line on
stderr (a closed pipe gets none: nobody is reading) and a conventional exit code.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass

INTERRUPTED = 130  # 128 + SIGINT, as a shell reports Ctrl-C
CLOSED_PIPE = 141  # 128 + SIGPIPE, as a shell reports `... | head`


@dataclass
class Outcome:
    """The exit code of the command inside `expected_failures`."""

    code: int = 0


@contextlib.contextmanager
def expected_failures(prog: str) -> Iterator[Outcome]:
    """Turn Ctrl-C and a closed pipe anywhere inside into an exit code and at most a line."""
    outcome = Outcome()
    try:
        yield outcome
    except KeyboardInterrupt:
        with contextlib.suppress(OSError):
            print(f"{prog}: interrupted", file=sys.stderr)
        outcome.code = INTERRUPTED
    except BrokenPipeError:
        silence_stdout()
        outcome.code = CLOSED_PIPE


def silence_stdout() -> None:
    """Point stdout at /dev/null: the reader is gone, and Python's flush of stdout at exit
    must not print `Exception ignored ... BrokenPipeError` about it."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def broker_errors() -> tuple[type[BaseException], ...]:
    """What reaching a broker raises when it is down, refuses or hangs up (OSError covers
    ConnectionError and a TLS failure; aiomqtt's MqttError, its connect timeout)."""
    import aiomqtt

    return (aiomqtt.MqttError, OSError)


def broker_problem(exc: BaseException) -> str:
    """One line saying why the broker could not be used."""
    return " ".join(str(exc).split()) or type(exc).__name__
