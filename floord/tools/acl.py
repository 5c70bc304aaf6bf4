"""Who may publish and read what on the floor's broker: Mosquitto ACL rules from configs.

A table box's login may publish only its own tables' topics and read only its own
tables' commands and the retained bodies it publishes itself (`P/state`, `P/status`,
`P/devices/<device>`: what `floord status`, run on the box with the box's config, reads
back), so a compromised box can neither forge another table's record, nor command or
read another table. A surveillance login reads everything under the prefix and
publishes only replay requests (`P/replay/request`, where the table takes a signed
`replay` and refuses any other command), so it can fill a gap in what it saw and
command nothing. An operator's command client publishes commands and reads their results. A display
login reads only the tables' retained `state`, which masks the dealer's hole card:
`P/events`, `P/replay` and `P/devices/#` carry the cards a recognition shoe reads, in
real time. Pure: configs in, text out (`floord acl` writes the files).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from floord.config.load import LoadedConfig
from floord.contract import Topics

READ = "read"
WRITE = "write"
READWRITE = "readwrite"


class AclError(ValueError):
    """Configs or login names that cannot make one consistent ACL; one line per fault."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class BoxTable:
    """One table of a box: its topics, and its devices (id, adapter in its own process)."""

    topics: Topics
    devices: tuple[tuple[str, bool], ...]


@dataclass(frozen=True)
class TableBox:
    """A table box's broker login and the tables it runs (from one config)."""

    username: str
    config: str
    tables: tuple[BoxTable, ...]


@dataclass(frozen=True)
class FloorLogins:
    """Every login of the floor's broker, by kind."""

    boxes: tuple[TableBox, ...]
    surveillance: tuple[str, ...] = ()
    operator_clients: tuple[str, ...] = ()
    displays: tuple[str, ...] = ()
    prefixes: tuple[str, ...] = ()

    def all_tables(self) -> list[Topics]:
        return [t.topics for box in self.boxes for t in box.tables]

    def names(self) -> list[str]:
        return [
            *(b.username for b in self.boxes),
            *self.surveillance,
            *self.operator_clients,
            *self.displays,
        ]


def _remote(device: object) -> bool:
    """Whether a device's adapter runs in its own process (`adapter: remote`)."""
    return getattr(device, "adapter", None) == "remote"


def box_from_config(loaded: LoadedConfig) -> TableBox:
    """The box of one config; its broker username must be set."""
    cfg = loaded.config
    if not cfg.broker.username:
        raise AclError(
            [
                f"{loaded.path}: broker.username: a broker user name for this table box "
                f"expected (each box logs in as itself), found nothing"
            ]
        )
    tables = tuple(
        BoxTable(
            topics=Topics(cfg.broker.topic_prefix, cfg.site, table.id),
            devices=tuple((d.id, _remote(d)) for d in table.devices),
        )
        for table in cfg.tables
    )
    return TableBox(username=cfg.broker.username, config=str(loaded.path), tables=tables)


def floor_logins(
    configs: Sequence[LoadedConfig],
    *,
    surveillance: Sequence[str] = (),
    operator_clients: Sequence[str] = (),
    displays: Sequence[str] = (),
) -> FloorLogins:
    """The floor's logins from its box configs and the extra login names; raises
    `AclError` listing every clash (a name used twice, a table in two boxes)."""
    problems: list[str] = []
    boxes: list[TableBox] = []
    for loaded in configs:
        try:
            boxes.append(box_from_config(loaded))
        except AclError as exc:
            problems += exc.problems
    seen_tables: dict[str, str] = {}
    for box in boxes:
        for table in box.tables:
            base = table.topics.base
            if base in seen_tables:
                problems.append(
                    f"{box.config}: tables: each table in one box expected, found {base} "
                    f"also in {seen_tables[base]}"
                )
            seen_tables.setdefault(base, box.config)
    logins = FloorLogins(
        boxes=tuple(boxes),
        surveillance=tuple(surveillance),
        operator_clients=tuple(operator_clients),
        displays=tuple(displays),
        prefixes=tuple(sorted({b.tables[0].topics.prefix for b in boxes if b.tables})),
    )
    owners: dict[str, int] = {}
    for name in logins.names():
        owners[name] = owners.get(name, 0) + 1
        if not name or any(c.isspace() for c in name) or ":" in name:
            problems.append(f"login {name!r}: a user name without ':' or white space expected")
    for name, count in owners.items():
        if count > 1:
            problems.append(
                f"login {name!r}: one login per box or role expected, found it {count} times "
                "(a shared login would have the rights of both)"
            )
    if not boxes and not problems:
        problems.append("configs: at least one table box config expected, found none")
    if problems:
        raise AclError(problems)
    return logins


def box_rules(box: TableBox) -> list[tuple[str, str]]:
    """A box publishes its tables' record, state, status (and last will), command
    results, replays and devices; it reads its tables' commands and, for `floord status`
    on the box, the retained bodies it publishes itself (its state, status and devices'
    availability: nothing it did not write, no other table's)."""
    rules: list[tuple[str, str]] = []
    for table in box.tables:
        t = table.topics
        rules += [
            (WRITE, t.events),
            (READWRITE, t.state),
            (READWRITE, t.status),
            (WRITE, t.cmd_result),
            (WRITE, t.replay),
            (READ, t.cmd),
            (READ, t.replay_request),
        ]
        for device, remote in table.devices:
            if remote:
                # The daemon and the device's adapter process (`floord adapter`) both
                # log in as the box: events, status and replays one way, device
                # commands and replay requests the other.
                rules += [(READWRITE, t.device(device)), (READWRITE, f"{t.device(device)}/#")]
            else:
                rules += [(READWRITE, t.device(device)), (WRITE, t.device_events(device))]
    return rules


def surveillance_rules(logins: FloorLogins) -> list[tuple[str, str]]:
    """Read everything under each prefix; publish only replay requests."""
    rules = [(READ, f"{prefix}/#") for prefix in logins.prefixes]
    rules += [(WRITE, t.replay_request) for t in logins.all_tables()]
    return rules


def operator_client_rules(logins: FloorLogins) -> list[tuple[str, str]]:
    """Publish commands; read their answers (`floord cmd` subscribes to `cmd/result`)."""
    rules: list[tuple[str, str]] = []
    for t in logins.all_tables():
        rules += [(WRITE, t.cmd), (WRITE, t.replay_request), (READ, t.cmd_result)]
    return rules


def display_rules(logins: FloorLogins) -> list[tuple[str, str]]:
    """Only the retained `state` (the hole card masked); never events or devices."""
    return [(READ, t.state) for t in logins.all_tables()]


def acl_rules(logins: FloorLogins) -> dict[str, list[tuple[str, str]]]:
    """Every login's (access, topic pattern) rules, in the order they are written."""
    rules: dict[str, list[tuple[str, str]]] = {}
    for box in logins.boxes:
        rules[box.username] = box_rules(box)
    for name in logins.surveillance:
        rules[name] = surveillance_rules(logins)
    for name in logins.operator_clients:
        rules[name] = operator_client_rules(logins)
    for name in logins.displays:
        rules[name] = display_rules(logins)
    return rules


def acl_text(logins: FloorLogins, sources: Sequence[str] = ()) -> str:
    """A Mosquitto `acl_file`: `user NAME` then `topic ACCESS PATTERN` lines per login."""
    lines = [
        "# Mosquitto acl_file written by `floord acl` (docs/security.md); do not edit by",
        "# hand: change the configs and run `floord acl` again.",
    ]
    lines += [f"# from {source}" for source in sources]
    kinds = {b.username: f"table box ({b.config})" for b in logins.boxes}
    kinds.update({n: "surveillance" for n in logins.surveillance})
    kinds.update({n: "operator command client" for n in logins.operator_clients})
    kinds.update({n: "display (state only)" for n in logins.displays})
    for name, rules in acl_rules(logins).items():
        lines += ["", f"# {kinds[name]}", f"user {name}"]
        lines += [f"topic {access} {pattern}" for access, pattern in rules]
    return "\n".join(lines) + "\n"
