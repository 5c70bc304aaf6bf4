"""The floor's ACL for a NATS cluster's MQTT listener: NATS users with publish/subscribe
permissions on the subjects of the same rules as the Mosquitto ACL (`floord.tools.acl`).

NATS's MQTT (nats-server 2.9) maps a topic to a subject: `/` becomes `.`, `+` becomes
`*`, and a filter ending in `/#` is two NATS subscriptions, the parent and `parent.>`,
so a reader of `a/#` needs both. NATS 2.9 refuses `.` and spaces in MQTT topics, so a
site, table or device id with a `.` cannot be used on the cluster at all (an `AclError`).

What NATS needs beyond the topics, found against the installed server
(tests/test_acl_nats.py):
- a QoS 1 subscription is a JetStream consumer delivering to `$MQTT.sub.<nuid>`, so a
  reader needs subscribe on `$MQTT.sub.>`. NATS refuses an MQTT subscription to that
  subject itself, so over MQTT it gives nothing more;
- every login is limited to MQTT connections (`allowed_connection_types`), so no one
  can use it as a plain NATS client (which could subscribe to `$MQTT.sub.>`);
- a user without a `publish` entry may publish anywhere in NATS, so a login that
  publishes nothing is given `deny: [">"]`.
Nothing else: the retained messages, sessions and QoS 1 streams are kept by the server's
own JetStream client, not the user's. Pure: logins and password hashes in, text out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence

from floord.tools.acl import READ, READWRITE, WRITE, AclError, FloorLogins, acl_rules

# The subject a QoS 1 subscription's JetStream consumer delivers to.
MQTT_DELIVERY = "$MQTT.sub.>"
# Names written into the NATS config as quoted strings: keep them plain.
_NAME = re.compile(r"^[A-Za-z0-9_@+=-][A-Za-z0-9_.@+=-]*$")


def nats_subjects(pattern: str) -> list[str]:
    """The NATS subjects of an MQTT topic or filter (two for one ending in `#`)."""
    levels = pattern.split("/")
    if "." in pattern or " " in pattern or "" in levels:
        raise ValueError(
            f"an MQTT topic without '.', spaces or empty levels expected (NATS 2.9's MQTT "
            f"refuses them), found {pattern!r}"
        )
    if "#" in levels[:-1] or any(("#" in lv or "+" in lv) and len(lv) > 1 for lv in levels):
        raise ValueError(f"'+' and '#' only as whole levels, '#' last, expected: {pattern!r}")
    subject = ".".join("*" if lv == "+" else lv for lv in levels)
    if levels[-1] == "#":
        parent = ".".join("*" if lv == "+" else lv for lv in levels[:-1])
        return [parent, f"{parent}.>"] if parent else [">"]
    return [subject]


def nats_permissions(rules: Sequence[tuple[str, str]]) -> tuple[list[str], list[str]]:
    """(publish, subscribe) subjects of one login's (access, pattern) rules, in order,
    each once; a login that reads anything also gets `$MQTT.sub.>` (QoS 1)."""
    publish: list[str] = []
    subscribe: list[str] = []
    for access, pattern in rules:
        subjects = nats_subjects(pattern)
        if access in (WRITE, READWRITE):
            publish += [s for s in subjects if s not in publish]
        if access in (READ, READWRITE):
            subscribe += [s for s in subjects if s not in subscribe]
    if subscribe:
        subscribe.append(MQTT_DELIVERY)
    return publish, subscribe


def _quoted(items: Sequence[str]) -> str:
    return "[" + ", ".join(json.dumps(item) for item in items) + "]"


def _direction(subjects: list[str]) -> str:
    return f"{{ allow: {_quoted(subjects)} }}" if subjects else '{ deny: [">"] }'


def nats_auth_text(
    logins: FloorLogins, hashes: Mapping[str, str], sources: Sequence[str] = ()
) -> str:
    """A nats-server config include: `authorization { users = [...] }`, one user per
    login with its bcrypt password hash and the permissions of its rules."""
    problems: list[str] = []
    users: list[str] = []
    kinds = {b.username: f"table box ({b.config})" for b in logins.boxes}
    kinds.update({n: "surveillance" for n in logins.surveillance})
    kinds.update({n: "operator command client" for n in logins.operator_clients})
    kinds.update({n: "display (state only)" for n in logins.displays})
    for name, rules in acl_rules(logins).items():
        if not _NAME.match(name):
            problems.append(
                f"login {name!r}: for NATS a user name of letters, digits and _.@+=- expected"
            )
            continue
        try:
            publish, subscribe = nats_permissions(rules)
        except ValueError as exc:
            problems.append(f"login {name!r} ({kinds[name]}): {exc}")
            continue
        if name not in hashes:
            problems.append(f"login {name!r}: a password hash expected, found none")
            continue
        users += [
            f"    # {kinds[name]}",
            "    {",
            f"      user: {json.dumps(name)}",
            f"      password: {json.dumps(hashes[name])}",
            '      allowed_connection_types: ["MQTT"]',
            "      permissions: {",
            f"        publish: {_direction(publish)}",
            f"        subscribe: {_direction(subscribe)}",
            "      }",
            "    }",
        ]
    if problems:
        raise AclError(problems)
    lines = [
        "# nats-server authorization written by `floord acl --nats` (docs/security.md); do",
        "# not edit by hand: change the configs and run `floord acl --nats` again.",
        '# Include it in each node\'s config: include "floord-nats-auth.conf"',
    ]
    lines += [f"# from {source}" for source in sources]
    lines += ["authorization {", "  users = [", *users, "  ]", "}"]
    return "\n".join(lines) + "\n"
