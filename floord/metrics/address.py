"""The address the metrics are served on: `HOST:PORT`, loopback unless allowed otherwise.

Metrics say which tables are halted and which devices are gone: on a casino floor that is
information for the monitoring host, not for anyone on the box's network. So the address
must be a loopback one (`127.0.0.1`, `::1`, `localhost`) unless the config says
`allow_remote: true`, and a name other than `localhost` is refused either way: a listen
address is an IP address, so that what is exposed does not depend on a resolver.
"""

from __future__ import annotations

DEFAULT_LISTEN = "127.0.0.1:9464"


class ListenError(ValueError):
    """A listen address that cannot be used; its text says what was expected and found."""


def parse_listen(text: str, *, allow_remote: bool) -> tuple[str, int]:
    """(host, port) of `HOST:PORT` (`[::1]:9464` for IPv6); `ListenError` if unusable."""
    import ipaddress  # here: a box without metrics never reads an address

    host, sep, port_text = text.rpartition(":")
    if not sep or not host or not port_text.isdigit():
        raise ListenError(f"HOST:PORT such as {DEFAULT_LISTEN} expected, found {text!r}")
    port = int(port_text)
    if not 1 <= port <= 65535:
        raise ListenError(f"a port from 1 to 65535 expected, found {text!r}")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    elif ":" in host:
        raise ListenError(f"an IPv6 address in brackets ([::1]:{port}) expected, found {text!r}")
    if host == "localhost":
        return "127.0.0.1", port
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        raise ListenError(
            f"an IP address or localhost expected as the host, found {text!r}"
        ) from None
    if not address.is_loopback and not allow_remote:
        raise ListenError(
            f"a loopback address (127.0.0.1, ::1, localhost) expected unless "
            f"metrics.allow_remote is true, found {text!r}"
        )
    return str(address), port
