"""`floord capture`: record a device's bytes, or turn a capture into golden-frame steps.

    floord capture --port /dev/ttyUSB0 --baud 9600 --seconds 60 --out capture.jsonl
    floord capture --port /dev/ttyUSB0 --profile cammegh-ss2 --send '*V\\r\\n' --out ss2.jsonl
    floord capture --port /dev/ttyUSB0 --profile ref-card-reader -c /etc/floord/floord.yaml \
        --out reader.jsonl
    floord capture --to-golden ss2.jsonl --case "field_spin pockets=37" >> tests/golden/ss2/x.txt

The formats are in `floord/tools/capture.py`; the workflow is in docs/rigs.md.
"""

from __future__ import annotations

import argparse
import asyncio
import codecs
import sys
from pathlib import Path

from floord.cli.profile_options import ProfileOptionError, add_site_options, shelf_of
from floord.profiles import ProfileError, SerialSettings
from floord.tools.capture import CaptureError, capture, golden_case, golden_steps, read_capture
from floord.transport.stream import TransportError


def register(sub: argparse._SubParsersAction) -> None:
    """Add `floord capture` to the `floord` command line."""
    cap = sub.add_parser(
        "capture",
        help="record a device's raw bytes (JSON lines), or turn a capture into golden steps",
    )
    cap.add_argument("--port", help="a serial device, a pty or socket://HOST:PORT")
    cap.add_argument("--baud", type=int, help="baud rate (default: the profile's, else 9600)")
    cap.add_argument(
        "--profile",
        help="take the serial settings from this device profile (looked up as `floord run` "
        "does: -c's or --profiles' site directory first)",
    )
    add_site_options(cap, "--profiles")
    cap.add_argument("--seconds", type=float, default=60.0, help="how long to record (60)")
    cap.add_argument("--out", type=Path, help="where to write (a capture needs one)")
    cap.add_argument(
        "--send",
        action="append",
        default=[],
        metavar="TEXT",
        help="bytes to send first, with Python escapes (e.g. '*V\\r\\n'); repeatable",
    )
    cap.add_argument("--to-golden", type=Path, metavar="CAPTURE", help="convert this capture")
    cap.add_argument(
        "--case",
        default="captured",
        help="the golden case's header after `=== `, e.g. 'spin pockets=37' or "
        "'peek profile=ref-card-reader'",
    )
    cap.add_argument("--split", choices=["lines", "reads"], default="lines")
    cap.add_argument("--start", type=float, default=0.0, help="skip reads before this second")
    cap.add_argument("--end", type=float, default=None, help="skip reads after this second")
    cap.set_defaults(handler=run)


def _escaped(text: str) -> bytes:
    """`*V\\r\\n` as the bytes it spells (Python escapes, latin-1)."""
    try:
        return codecs.decode(text.encode("latin-1"), "unicode_escape").encode("latin-1")
    except (UnicodeError, ValueError) as exc:
        raise CaptureError(
            f"--send: latin-1 text with Python escapes expected, found {text!r}"
        ) from exc


def _settings(ns: argparse.Namespace) -> SerialSettings:
    base = shelf_of(ns).load(ns.profile).serial if ns.profile else SerialSettings(baudrate=9600)
    if ns.baud is not None:
        if ns.baud <= 0:
            raise CaptureError(f"--baud: > 0 expected, found {ns.baud}")
        base = base.model_copy(update={"baudrate": ns.baud})
    return base


def _to_golden(ns: argparse.Namespace) -> int:
    head, chunks = read_capture(ns.to_golden)
    steps = golden_steps(chunks, split=ns.split, start=ns.start, end=ns.end)
    if not steps:
        raise CaptureError(f"{ns.to_golden}: no bytes from the device in the window chosen")
    source = f"{head.get('port')} at {head.get('baud')} baud, {head.get('started')}"
    text = golden_case(ns.case, steps, source)
    if ns.out is None:
        sys.stdout.write(text)
    else:
        ns.out.write_text(text, encoding="ascii")
    return 0


def _capture(ns: argparse.Namespace) -> int:
    if not ns.port or ns.out is None:
        raise CaptureError("a capture needs --port and --out (or use --to-golden CAPTURE)")
    settings = _settings(ns)
    sends = [_escaped(text) for text in ns.send]
    with ns.out.open("w", encoding="utf-8") as out:
        chunks, total = asyncio.run(
            capture(ns.port, settings, ns.seconds, out, send=sends, profile=ns.profile)
        )
    print(
        f"floord capture: {total} bytes in {chunks} reads from {ns.port} to {ns.out}",
        file=sys.stderr,
    )
    return 0


def run(ns: argparse.Namespace) -> int:
    """The handler of `floord capture`: 0 done, 1 a port that failed, 2 bad arguments."""
    try:
        return _to_golden(ns) if ns.to_golden is not None else _capture(ns)
    except (CaptureError, ProfileError, ProfileOptionError) as exc:
        print(f"floord capture: {exc}", file=sys.stderr)
        return 2
    except (TransportError, OSError) as exc:
        print(f"floord capture: {exc}", file=sys.stderr)
        return 1
