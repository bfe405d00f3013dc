#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The release tarball: scripts/dist.sh OUTDIR VERSION writes
# OUTDIR/pitrace-VERSION.tar.gz, the source tree (in a git checkout: the
# tracked files and the new ones git does not ignore, as they are in the
# work tree) plus a VERSION file, from which a build outside git takes its
# version (scripts/version.sh).  Prints the tarball's path.
set -eu
out=$1 version=$2
root=$(cd "$(dirname "$0")/.." && pwd)
name=pitrace-$version
stage=$(mktemp -d "${TMPDIR:-/tmp}/pitrace-dist.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$out" "$stage/$name"
out=$(cd "$out" && pwd)

cd "$root"
if [ -d .git ] || [ -f .git ]; then
	git ls-files -z --cached --others --exclude-standard
else
	# An unpacked tarball: everything but what builds make.
	find . -path ./build -prune -o -path ./bin -prune -o -path ./lib -prune -o \
		-path ./debian/.debhelper -prune -o -name '*.deb' -prune -o -type f -print0 |
		sed -z 's,^\./,,'
fi | while IFS= read -r -d '' f; do
	# deleted in the work tree but still in the index: not part of it
	[ -e "$f" ] && printf '%s\0' "$f"
done >"$stage/files"
tar -C "$root" --null -T "$stage/files" -cf - | tar -C "$stage/$name" -xf -
echo "$version" >"$stage/$name/VERSION"
# Reproducible: the files' own times, fixed owner and order, no gzip time stamp.
tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner -cf - "$name" |
	gzip -9n >"$out/$name.tar.gz"
echo "$out/$name.tar.gz"
