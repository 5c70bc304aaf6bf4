"""How every driver quotes device bytes it could not use: short, printable, one escape style.

A `device.protocol_error` carries the offending bytes as text an operator can read in a log
line or a dashboard. The escaping and the length bound are one policy for every protocol,
so it lives here rather than in each protocol package.
"""

from __future__ import annotations

from floord.contract import EventType
from floord.events import DeviceEvent

RAW_LIMIT = 80
_ESCAPES = {0x5C: "\\\\", 0x0D: "\\r", 0x0A: "\\n", 0x09: "\\t"}


def escape_raw(data: bytes, limit: int = RAW_LIMIT) -> str:
    """`repr`-style printable ASCII of `data`, cut at whole escapes to `limit` characters."""
    parts: list[str] = []
    total = 0
    for byte in data:
        if byte in _ESCAPES:
            piece = _ESCAPES[byte]
        elif 0x20 <= byte <= 0x7E:
            piece = chr(byte)
        else:
            piece = f"\\x{byte:02x}"
        if total + len(piece) > limit:
            break
        parts.append(piece)
        total += len(piece)
    return "".join(parts)


def protocol_error(reason: str, raw: bytes) -> DeviceEvent:
    """The `device.protocol_error` event for `raw`, which the device sent and `reason` refuses."""
    return DeviceEvent(EventType.DEVICE_PROTOCOL_ERROR, {"reason": reason, "raw": escape_raw(raw)})
