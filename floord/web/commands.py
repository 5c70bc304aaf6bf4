"""A signed command as the browser hands it over, checked before it is forwarded.

The server cannot check the signature (it never has the key; the table does), but it
forwards only what the console is for: an `ack_alert` of the command shape of
docs/contract.md, to a table it shows, with a note and alert id of sane length. Anything
else is refused here with a sentence, never published.
"""

from __future__ import annotations

import re
from typing import Any

FIELDS = frozenset({"id", "name", "by", "ts", "args", "sig"})
ALLOWED = frozenset({"ack_alert"})
ARGS = {"ack_alert": frozenset({"alert", "note"})}
MAX_TEXT = 1024
MAX_ID = 128
SIG = re.compile(r"^[0-9a-f]{64}$")
MAX_BODY = 16 * 1024


def command_problem(body: Any) -> str | None:
    """Why `body` ({site, table, command}) may not be forwarded, or None."""
    if not isinstance(body, dict) or set(body) != {"site", "table", "command"}:
        return "an object {site, table, command} expected"
    if not isinstance(body["site"], str) or not isinstance(body["table"], str):
        return "site and table as text expected"
    command = body["command"]
    if not isinstance(command, dict) or set(command) != FIELDS:
        return f"a command with exactly {', '.join(sorted(FIELDS))} expected"
    for name in ("id", "name", "by", "ts", "sig"):
        value = command[name]
        if not isinstance(value, str) or not value or len(value) > MAX_ID:
            return f"{name}: text of 1 to {MAX_ID} characters expected"
    if command["name"] not in ALLOWED:
        return f"only {', '.join(sorted(ALLOWED))} is forwarded by the web console"
    if not SIG.match(command["sig"]):
        return "sig: 64 lower-case hex digits expected (HMAC-SHA256)"
    args = command["args"]
    if not isinstance(args, dict) or not set(args) <= ARGS[command["name"]] or "alert" not in args:
        return f"args: {{alert, note}} expected for {command['name']}"
    for key, value in args.items():
        if not isinstance(value, str) or len(value) > MAX_TEXT:
            return f"args.{key}: text of at most {MAX_TEXT} characters expected"
    return None
