#!/usr/bin/env bash
# `make deb`: floord's two Debian packages, built with dpkg-deb from one wheel.
#
# floord, the table box's package:
#   /opt/floord              a private virtual environment: the core install of the wheel
#                            and its metrics extra (prometheus_client, imported only when
#                            a config has `metrics:`), its web extra (aiohttp, imported
#                            only by `floord web`) and archive extra (psycopg, imported
#                            only by `floord archive` on PostgreSQL; no console, report
#                            or demo extra),
#                            on Debian's python3.11, without the device simulators and
#                            the demo (floord_demo)
#   /usr/bin/floord          -> /opt/floord/bin/floord, the path every unit runs
#   /usr/lib/systemd/system  floord.service, floord-adapter@.service, floord-backup.service
#                            and floord-backup.timer (the daily journal backup, not enabled),
#                            floord-web.service (the browser console, not enabled),
#                            floord-archive.service (the floor's archive, not enabled)
#   /usr/lib/sysusers.d, /usr/lib/tmpfiles.d   the floord user and its folders
#   /etc/floord/floord.yaml  examples/box.yaml, a conffile (edits survive upgrades)
#   /etc/floord/web.yaml     examples/web.yaml, the browser console's config, a conffile
#   /etc/floord/profiles     the site's device profiles (docs/deployment.md, "Site
#                            profiles"): empty but for its README, a conffile
#   /etc/floord/archive.yaml examples/archive.yaml, a conffile
#   /etc/default/floord-backup   the backup's journal, folder and retention, a conffile
#   /usr/share/doc/floord    the docs the units point at, the examples, the udev rules
#
# floord-rig, a test rig's additions (docs/rigs.md; never on a box with a live table),
# Depends: floord of the same version:
#   /opt/floord/.../site-packages/simulators   the simulators, their scenarios and the
#                            example rig config, in floord's environment
#   /opt/floord/.../site-packages/floord_demo  the demo `floord demo` runs
#   /usr/lib/systemd/system  floord-sim@.service
#   /usr/lib/tmpfiles.d      floord-rig.conf: /etc/floord/sims, the simulators' instances
#   /usr/share/doc/floord-rig   rigs.md, examples/rig.yaml
#
# A venv is not relocatable, so it is built in a staging root and its paths (the scripts'
# #! lines, pyvenv.cfg, activate, the .pyc files' source paths) are rewritten to
# /opt/floord before packing. The maintainer scripts create the user and never enable or
# start a daemon: the box's config comes first (docs/deployment.md, "The .deb").
#
# Environment: WHEEL=path (package this wheel instead of building one), OUT=folder
# (default dist/), PIP="python -m pip" to use (default: the project's .venv), PYBIN (the
# target interpreter, default /usr/bin/python3.11). Prints the two .debs' paths last
# (floord's, then floord-rig's).
set -euo pipefail
# The package's bytecode goes beside its modules whatever the caller's environment: a
# pycache prefix (make test sets one) would send compileall's files there instead.
unset PYTHONPYCACHEPREFIX
SRC=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$SRC/dist}
VENV=${VENV:-$SRC/.venv}
PIP=${PIP:-$VENV/bin/python -m pip}
PYBIN=${PYBIN:-/usr/bin/python3.11}
PREFIX=/opt/floord

for tool in dpkg-deb dpkg; do
  command -v "$tool" >/dev/null || { echo "make deb needs $tool (Debian's dpkg)" >&2; exit 1; }
done
[ -x "$PYBIN" ] || { echo "make deb needs $PYBIN (apt-get install python3.11-venv)" >&2; exit 1; }

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

if [ -z "${WHEEL:-}" ]; then
  # Built from a copy, so nothing (build/, *.egg-info) is written into the source tree.
  mkdir "$WORK/src"
  tar -C "$SRC" --exclude='./.venv*' --exclude=./.git --exclude=./build --exclude=./dist \
    --exclude='*.egg-info' --exclude=__pycache__ --exclude=./bench/results -cf - . |
    tar -C "$WORK/src" -xf -
  $PIP wheel -q --no-deps -w "$WORK/wheel" "$WORK/src" >&2
  WHEEL=$(ls "$WORK"/wheel/floord-*.whl)
fi
VERSION=$("$PYBIN" "$SRC/scripts/deb/version.py" "$WHEEL")  # floord/__init__.py, as packed
ARCH=$(dpkg --print-architecture)
PYVER=$("$PYBIN" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')

ROOT=$WORK/root
STAGED=$ROOT$PREFIX
# The venv without pip: the box never installs into it; pip runs from outside (--python).
"$PYBIN" -m venv --without-pip "$STAGED"
$PIP --python "$STAGED/bin/python" install -q --no-compile "$WHEEL[metrics,web,archive]" >&2
# direct_url.json records the build's own wheel path: meaningless on a box.
rm -f "$STAGED"/lib/python*/site-packages/floord-*.dist-info/direct_url.json
sed -i '/direct_url.json/d' "$STAGED"/lib/python*/site-packages/floord-*.dist-info/RECORD
# Rewrite the staging path to the installed one, then compile with the installed paths.
grep -rlI --null -F "$STAGED" "$STAGED" | xargs -0 -r sed -i "s|$STAGED|$PREFIX|g"
"$STAGED/bin/python" -m compileall -q -j 0 -s "$ROOT" -p / "$STAGED/lib" >/dev/null
if grep -rlI -F "$WORK" "$STAGED" >&2; then
  echo "build-deb: the staging path is still in the files above" >&2
  exit 1
fi

# The simulators and the demo (`floord demo` runs floord_demo, whose devices are the
# simulators) go to floord-rig, at the same place in the same environment; the box's
# RECORD lists only what the box's package installs.
RIG=$WORK/rig
SITE=$(cd "$STAGED" && echo lib/python*/site-packages)
install -d "$RIG$PREFIX/$SITE"
for package in simulators floord_demo; do
  mv "$STAGED/$SITE/$package" "$RIG$PREFIX/$SITE/$package"
  sed -i "/^$package\//d" "$STAGED/$SITE"/floord-*.dist-info/RECORD
done

install -d "$ROOT/usr/bin"
ln -s "$PREFIX/bin/floord" "$ROOT/usr/bin/floord"
install -d "$ROOT/usr/lib/systemd/system" "$ROOT/usr/lib/sysusers.d" "$ROOT/usr/lib/tmpfiles.d"
install -m 0644 "$SRC/systemd/floord.service" "$SRC/systemd/floord-adapter@.service" \
  "$SRC/systemd/floord-backup.service" "$SRC/systemd/floord-backup.timer" \
  "$SRC/systemd/floord-web.service" "$SRC/systemd/floord-archive.service" \
  "$ROOT/usr/lib/systemd/system/"
install -m 0644 "$SRC/systemd/floord.sysusers.conf" "$ROOT/usr/lib/sysusers.d/floord.conf"
install -m 0644 "$SRC/systemd/floord.tmpfiles.conf" "$ROOT/usr/lib/tmpfiles.d/floord.conf"
install -d -m 0750 "$ROOT/etc/floord"
install -m 0640 "$SRC/examples/box.yaml" "$ROOT/etc/floord/floord.yaml"
install -m 0640 "$SRC/examples/web.yaml" "$ROOT/etc/floord/web.yaml"
install -m 0640 "$SRC/examples/archive.yaml" "$ROOT/etc/floord/archive.yaml"
install -d -m 0755 "$ROOT/etc/floord/profiles"
install -m 0644 "$SRC/scripts/deb/profiles-README" "$ROOT/etc/floord/profiles/README"
install -d "$ROOT/etc/default"
install -m 0644 "$SRC/systemd/floord-backup.default" "$ROOT/etc/default/floord-backup"
DOC=$ROOT/usr/share/doc/floord
install -d "$DOC/examples"
install -m 0644 "$SRC"/docs/*.md "$SRC/README.md" "$SRC/CHANGELOG.md" "$DOC/"
install -m 0644 "$SRC/LICENSE" "$DOC/copyright"
install -m 0644 "$SRC/examples/box.yaml" "$SRC/examples/archive.yaml" \
  "$SRC/systemd/99-floord-devices.rules" \
  "$SRC/device_profiles/99-floord-usb-shoe.rules" "$DOC/examples/"
install -d "$DOC/examples/site-profiles"
install -m 0644 "$SRC"/examples/site-profiles/*.yaml "$DOC/examples/site-profiles/"

install -d "$ROOT/DEBIAN"
install -m 0755 "$SRC"/scripts/deb/postinst "$SRC"/scripts/deb/prerm "$SRC"/scripts/deb/postrm \
  "$ROOT/DEBIAN/"
printf '%s\n' /etc/floord/floord.yaml /etc/floord/web.yaml /etc/floord/archive.yaml \
  /etc/floord/profiles/README \
  /etc/default/floord-backup \
  >"$ROOT/DEBIAN/conffiles"
SIZE=$(du -sk --exclude=DEBIAN "$ROOT" | cut -f1)
cat >"$ROOT/DEBIAN/control" <<EOF
Package: floord
Version: $VERSION
Architecture: $ARCH
Maintainer: floord maintainers <floord@localhost>
Installed-Size: $SIZE
Depends: python$PYVER, systemd
Recommends: libusb-1.0-0
Suggests: mosquitto
Section: misc
Priority: optional
Description: table-side daemon: casino table devices to journaled MQTT events
 floord talks to a casino table's devices, enforces the regulated procedures of
 the game (58 Pa. Code, Subpart K), journals every event and publishes it over
 MQTT. This package holds the daemon in a private virtual environment under
 /opt/floord (core install), its systemd units and an example configuration.
EOF
DEB=$OUT/floord_${VERSION}_${ARCH}.deb
dpkg-deb --root-owner-group -Zgzip --build "$ROOT" "$DEB" >&2

install -d "$RIG/usr/lib/systemd/system" "$RIG/usr/lib/tmpfiles.d" \
  "$RIG/usr/share/doc/floord-rig/examples"
install -m 0644 "$SRC/systemd/floord-sim@.service" "$RIG/usr/lib/systemd/system/"
install -m 0644 "$SRC/systemd/floord-rig.tmpfiles.conf" "$RIG/usr/lib/tmpfiles.d/floord-rig.conf"
install -m 0644 "$SRC/docs/rigs.md" "$RIG/usr/share/doc/floord-rig/"
install -m 0644 "$SRC/LICENSE" "$RIG/usr/share/doc/floord-rig/copyright"
install -m 0644 "$SRC/simulators/examples/rig.yaml" "$RIG/usr/share/doc/floord-rig/examples/"
install -d "$RIG/DEBIAN"
install -m 0755 "$SRC"/scripts/deb/rig/postinst "$SRC"/scripts/deb/rig/prerm \
  "$SRC"/scripts/deb/rig/postrm "$RIG/DEBIAN/"
RIG_SIZE=$(du -sk --exclude=DEBIAN "$RIG" | cut -f1)
cat >"$RIG/DEBIAN/control" <<EOF
Package: floord-rig
Version: $VERSION
Architecture: $ARCH
Maintainer: floord maintainers <floord@localhost>
Installed-Size: $RIG_SIZE
Depends: floord (= $VERSION)
Section: misc
Priority: optional
Description: floord's device simulators and demo, for a test rig (never a live table)
 The behavioural twins of every device floord drives, speaking each device's exact
 wire bytes, with their scenario files, the floord-sim@.service unit and an example
 rig configuration (docs/rigs.md), and the demo that floord demo runs (a floor of
 simulated tables on one machine). For hardware-in-the-loop test rigs only: a box
 that serves a live table installs floord alone.
EOF
RIG_DEB=$OUT/floord-rig_${VERSION}_${ARCH}.deb
dpkg-deb --root-owner-group -Zgzip --build "$RIG" "$RIG_DEB" >&2
echo "$DEB"
echo "$RIG_DEB"
