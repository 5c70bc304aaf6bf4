"""Device drivers: bytes in, typed events out, commands out. No I/O, no game rules."""

# A profile's `driver:` name is a module path under `drivers`. Names from before the modules
# were grouped by protocol keep resolving, so a profile written then still loads.
RENAMED: dict[str, str] = {}


def module_name(name: str) -> str:
    """The module that a profile's `driver:` name means (`drivers.<name>`, or its new home)."""
    name = RENAMED.get(name, name)
    if not all(part.isidentifier() for part in name.split(".")):
        raise ValueError(f"driver: a module name expected, {name!r}")
    return f"drivers.{name}"
