"""Behavioural twins of each device, speaking its exact wire bytes. Never imports drivers."""

# A profile's `simulator:` name is a module path under `simulators`. Names from before the
# modules were grouped by protocol keep resolving, so a profile written then still loads.
RENAMED: dict[str, str] = {}


def module_name(name: str) -> str:
    """The module a profile's `simulator:` name means (`simulators.<name>`, or its new home)."""
    name = RENAMED.get(name, name)
    if not all(part.isidentifier() for part in name.split(".")):
        raise ValueError(f"simulator: a module name expected, {name!r}")
    return f"simulators.{name}"
