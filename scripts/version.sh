#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Print pitrace's version: the VERSION file of a release tarball (make dist
# writes it), else `git describe` of this checkout (release tags vX.Y.Z:
# "0.1.0", "0.1.0-12-gabc1234", "-dirty" with uncommitted changes).  Before
# the first tag, the history is described from an imaginary v0.0.0.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
if [ -f "$root/VERSION" ]; then
	cat "$root/VERSION"
	exit
fi
# Only this tree's own history: a tarball unpacked inside another checkout
# has a VERSION file, and anything else must not describe the outer one.
top=$(git -C "$root" rev-parse --show-toplevel 2>/dev/null) || top=
if [ "$top" != "$root" ]; then
	echo "version.sh: $root has no VERSION file and is not a git checkout" >&2
	exit 1
fi
if v=$(git -C "$root" describe --tags --match 'v[0-9]*' --dirty 2>/dev/null); then
	echo "${v#v}"
else
	echo "0.0.0-$(git -C "$root" rev-list --count HEAD)-g$(git -C "$root" describe --always --dirty)"
fi
