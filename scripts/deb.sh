#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Debian packages from the release tarball: scripts/deb.sh OUTDIR VERSION
# (make deb) unpacks OUTDIR/pitrace-VERSION.tar.gz into OUTDIR/deb, gives
# debian/changelog an entry for VERSION when it is not a release there
# (0.1.0-12-gabc1234 becomes 0.1.0+12.gabc1234), runs
# `dpkg-buildpackage -us -uc -b`, checks the result with lintian (errors
# fail; LINTIAN=0 skips it) and moves the packages (not -dbgsym) to the
# source tree's top, replacing older ones.  The build log is OUTDIR/deb/build.log.
set -euo pipefail
out=$1 version=$2
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(cd "$out" && pwd)
work=$out/deb
src=$work/pitrace-$version

for tool in dpkg-buildpackage dh pandoc; do
	command -v $tool >/dev/null ||
		{ echo "deb: $tool is missing (make deps installs the packaging tools)" >&2; exit 1; }
done
rm -rf "$work"
mkdir -p "$work"
tar -C "$work" -xzf "$out/pitrace-$version.tar.gz"

# 0.1.0 -> 0.1.0; 0.1.0-12-gabc1234[-dirty] -> 0.1.0+12.gabc1234[.dirty]
debver=$(sed -e 's/-/+/' -e 's/-/./g' <<<"$version")
if [ "$(cd "$src" && dpkg-parsechangelog -S Version)" != "$debver" ]; then
	who=$(sed -n 's/^Maintainer: //p' "$src/debian/control")
	[ -n "${DEBEMAIL:-}" ] && who="${DEBFULLNAME:-$(getent passwd "$(id -un)" | cut -d: -f5 | cut -d, -f1)} <$DEBEMAIL>"
	{
		echo "pitrace ($debver) UNRELEASED; urgency=medium"
		echo
		echo "  * Snapshot of pitrace $version."
		echo
		echo " -- $who  $(date -R)"
		echo
		cat "$src/debian/changelog"
	} >"$src/debian/changelog.new"
	mv "$src/debian/changelog.new" "$src/debian/changelog"
fi

echo "deb: building pitrace $debver in $work (log: $work/build.log)"
export DEB_BUILD_OPTIONS=${DEB_BUILD_OPTIONS:-parallel=$(nproc)}
if ! (cd "$src" && dpkg-buildpackage -us -uc -b) >"$work/build.log" 2>&1; then
	tail -n 40 "$work/build.log"
	echo "deb: dpkg-buildpackage failed (log: $work/build.log)" >&2
	exit 1
fi
changes=$(ls "$work"/pitrace_*.changes)
if [ "${LINTIAN:-1}" != 0 ]; then
	if ! command -v lintian >/dev/null; then
		echo "deb: lintian is missing (make deps): packages not checked" >&2
	elif ! lintian --fail-on error --info "$changes" >"$work/lintian.log" 2>&1; then
		cat "$work/lintian.log"
		echo "deb: lintian found errors" >&2
		exit 1
	else
		grep -v 'running with root privileges' "$work/lintian.log" | sed 's/^/lintian: /' || true
	fi
fi
# The four packages; the automatic -dbgsym one stays in $work.
rm -f "$root"/pitrace_*.deb "$root"/pitrace-dkms_*.deb "$root"/libpitrace-dev_*.deb \
	"$root"/python3-pitrace_*.deb
for p in pitrace pitrace-dkms libpitrace-dev python3-pitrace; do
	f=$(ls "$work/${p}_$debver"_*.deb)
	mv "$f" "$root/"
	echo "deb: $(basename "$f") ($(du -k "$root/$(basename "$f")" | cut -f1) KiB)"
done
