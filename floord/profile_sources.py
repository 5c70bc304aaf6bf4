"""Where device profiles come from: the site's directory first, then the installed driver
plugins' (`floord.driver_families`), then the packaged ones.

A casino's integrators tune a model's settings for their floor (a line's protocol-error
budget, the heartbeats it may miss) without editing floord's package: a profile file in the
site directory adds a model, or replaces the shipped profile of the same name. The
sources are searched in order and the site's file of a name wins; two shipped files of
one name (a plugin's and floord's, or two plugins') are refused. `profile_sources` is the
one place that orders them.

An override tunes a model; it does not change what the model can do. An override that
drops a capability the packaged profile declares (a card-recognition shoe that no longer
recognises, a tracker of other dice, another family) would quietly change what a table's
rules may rely on, so loading it is refused (floord's policy): a device that really lacks
the capability is another model, under a name of its own.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from floord.driver_families import DriverFamilyError, family_profile_dirs
from floord.profiles import (
    PROFILES_DIR,
    DeviceProfile,
    ProfileError,
    ProfileNotFound,
    load_strict_yaml,
)

# The site directory the .deb creates, used when the config names none and it exists.
DEFAULT_SITE_DIR = Path("/etc/floord/profiles")

SITE = "site"
PLUGIN = "plugin"
PACKAGED = "packaged"


@dataclass(frozen=True)
class ProfileSource:
    """One directory of `<name>.yaml` profiles, and the word that says where it is from."""

    origin: str
    directory: Path
    # Why the source cannot be searched (driver plugins that failed to load): every
    # lookup through the shelf is then a `ProfileError` with this one line.
    error: str | None = None

    def path_of(self, name: str) -> Path:
        return self.directory / f"{name}.yaml"

    def names(self) -> list[str]:
        if self.error is not None or not self.directory.is_dir():
            return []
        return sorted(p.stem for p in self.directory.glob("*.yaml") if p.is_file())


def plugin_sources() -> list[ProfileSource]:
    """The profile directories installed driver families bring, in their order
    (`floord.driver_families`).

    The packaged families' profiles are the `packaged` source; a driver plugin's
    directory goes here, searched after the site's and before the packaged ones. Plugins
    that cannot be loaded are one source carrying the error, so every lookup names them.
    """
    try:
        folders = family_profile_dirs(exclude=PROFILES_DIR)
    except DriverFamilyError as exc:
        return [ProfileSource(PLUGIN, PROFILES_DIR, error=str(exc))]
    return [ProfileSource(PLUGIN, folder) for folder in folders]


def site_directory(configured: Path | None) -> Path | None:
    """The config's `site_profiles` directory, else the .deb's default when it exists."""
    if configured is not None:
        return configured
    return DEFAULT_SITE_DIR if DEFAULT_SITE_DIR.is_dir() else None


def profile_sources(site: Path | None) -> tuple[ProfileSource, ...]:
    """Every source, in the order a name is looked up: the site's directory (the config's
    `site_profiles`, or `/etc/floord/profiles`), the driver plugins', the packaged ones."""
    sources = [ProfileSource(SITE, site)] if site is not None else []
    return (*sources, *plugin_sources(), ProfileSource(PACKAGED, PROFILES_DIR))


def profile_hash(path: Path) -> str:
    """The SHA-256 of the profile file's bytes, in lower-case hex: what the record keeps."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


@dataclass(frozen=True)
class SourcedProfile:
    """A loaded profile and where it came from: what an audit needs to know which
    settings drove a device."""

    name: str
    path: Path
    origin: str
    sha256: str
    profile: DeviceProfile
    # The profile of the same name in a later source that this one replaces, or None.
    overrides: Path | None = None

    def record(self) -> dict[str, Any]:
        """The profile as `daemon.started` records it, per device (docs/contract.md)."""
        return {
            "name": self.name,
            "model": self.profile.model,
            "origin": self.origin,
            "path": str(self.path),
            "sha256": self.sha256,
            "overrides": None if self.overrides is None else str(self.overrides),
        }


def weakening(override: DeviceProfile, base: DeviceProfile) -> list[tuple[str, str, str]]:
    """What `override` removes of what `base` can do, as (key, expected, found).

    The family, every capability flag the base declares true (`quirks.recognition`,
    `quirks.double`, `quirks.exposes_value`, a tracker's `quirks.die_ids`...), and the
    number of dice a tracker reads: the properties the games ask of a device.
    """
    found: list[tuple[str, str, str]] = []
    if override.family != base.family:
        found.append(("family", repr(base.family), repr(override.family)))
    for key, value in base.quirks.items():
        if value is True and override.quirks.get(key) is not True:
            found.append((f"quirks.{key}", "true", _said(override.quirks, key)))
    if "dice" in base.quirks and override.quirks.get("dice") != base.quirks["dice"]:
        found.append(("quirks.dice", repr(base.quirks["dice"]), _said(override.quirks, "dice")))
    return found


def _said(quirks: dict[str, Any], key: str) -> str:
    """A quirk's value as the YAML file writes it (`false`, `3`), or that it is absent."""
    if key not in quirks:
        return "no such key"
    value = quirks[key]
    return str(value).lower() if isinstance(value, bool) else repr(value)


class ProfileShelf:
    """The profiles a box can use, looked up through its sources in order."""

    def __init__(self, sources: tuple[ProfileSource, ...]) -> None:
        self.sources = sources
        # Each profile as it was parsed and checked, by what it was made from (the file,
        # the one it overrides, and the SHA-256 of each): a box of eight wheels of one
        # model parses its profile once, not once per table and again per device at
        # start, and a file changed since is parsed again (its digest differs).
        self._checked_once: dict[tuple[object, ...], SourcedProfile] = {}

    @classmethod
    def packaged(cls) -> ProfileShelf:
        """Only the profiles that come with floord and its installed driver families."""
        return cls(profile_sources(None))

    def names(self) -> list[str]:
        return sorted({name for source in self.sources for name in source.names()})

    def _holders(self, name: str) -> Iterator[tuple[ProfileSource, Path]]:
        for source in self.sources:
            if source.error is not None:
                raise ProfileError(source.error)
            path = source.path_of(name)
            if path.is_file():
                yield source, path

    def open(self, name: str) -> SourcedProfile:
        """The profile called `name` (or the file a `.yaml` path names), validated; a
        `ProfileError` naming the file, the key and what was expected otherwise."""
        if Path(name).suffix in (".yaml", ".yml"):
            # A file the config names by its path replaces nothing: it is that file.
            path = Path(name)
            if not path.is_file():
                raise ProfileNotFound(name, path, self.names())
            return self._checked(path.stem, path, "file", None)
        holders = list(self._holders(name))
        if not holders:
            raise ProfileNotFound(name, self.sources[-1].path_of(name), self.names())
        shipped = [path for source, path in holders if source.origin != SITE]
        if len(shipped) > 1:
            # A site profile replaces on purpose; which of two shipped files drives a
            # device must not depend on which package was installed.
            raise ProfileError(
                f"profile {name!r} is shipped twice, by {shipped[0]} and by {shipped[1]}: a "
                "driver family may not replace another's profile; uninstall one, or give the "
                "profile by path"
            )
        (source, path), *under = holders
        return self._checked(name, path, source.origin, under[0][1] if under else None)

    def open_candidate(self, path: Path) -> SourcedProfile:
        """A profile file as it would be if dropped into the site directory: valid, and
        held to the profile of its name it would replace (`floord profiles check`)."""
        if not path.is_file():
            raise ProfileNotFound(str(path), path, self.names())
        others = (p for _, p in self._holders(path.stem) if p.resolve() != path.resolve())
        return self._checked(path.stem, path, SITE, next(others, None))

    def _checked(self, name: str, path: Path, origin: str, under: Path | None) -> SourcedProfile:
        digest = profile_hash(path)
        made_of = (name, path, origin, digest, under, under and profile_hash(under))
        if (found := self._checked_once.get(made_of)) is not None:
            return found
        found = self._parsed(name, path, origin, digest, under)
        self._checked_once[made_of] = found
        return found

    def _parsed(
        self, name: str, path: Path, origin: str, digest: str, under: Path | None
    ) -> SourcedProfile:
        profile = load_strict_yaml(path, DeviceProfile, ProfileError)
        if origin != "file" and profile.model != name:
            raise ProfileError(
                f"{path}: model: {name!r} expected (the file's name: what a config names "
                f"and what an override replaces), found {profile.model!r}"
            )
        if under is not None:
            base = load_strict_yaml(under, DeviceProfile, ProfileError)
            lost = weakening(profile, base)
            if lost:
                raise ProfileError(
                    "\n".join(
                        f"{path}: {key}: {expected} expected (the profile it overrides, "
                        f"{under}, has it; an override may not remove a capability), "
                        f"found {found}"
                        for key, expected, found in lost
                    )
                )
        return SourcedProfile(name, path, origin, digest, profile, under)

    def load(self, name: str) -> DeviceProfile:
        return self.open(name).profile

    def listing(self) -> list[tuple[str, ProfileSource, Path, Path | None]]:
        """Every name a box can use: the file that wins and the one it replaces, if any."""
        rows = []
        for name in self.names():
            (source, path), *under = self._holders(name)
            rows.append((name, source, path, under[0][1] if under else None))
        return rows
