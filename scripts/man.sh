#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Render one man page from its markdown source with pandoc:
#   scripts/man.sh docs/man/NAME.SECTION.md OUT VERSION
# The source is markdown GitHub shows as it is.  A line that is only a link
# to another markdown file is replaced by that file:
#   [...](_NAME.md)    a fragment of docs/man/ shared by several pages, as is;
#   [...](../NAME.md)  a document of docs/, its title line dropped and its
#                      headings raised one level (its "##" sections become
#                      the page's sections).
# So the options shared by post's reports, and the trace format and driver
# ABI documents, have one source each.  The page's date is the source's last
# commit (SOURCE_DATE_EPOCH when set, as dpkg-buildpackage sets it; the
# VERSION file's in a release tarball), for reproducible output.
set -eu
src=$1 out=$2 version=$3
command -v pandoc >/dev/null ||
	{ echo "man.sh: pandoc is missing: make deps (or apt install pandoc) renders the man pages" >&2; exit 1; }
dir=$(dirname "$src")
root=$(cd "$(dirname "$0")/.." && pwd)

if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
	date=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)
elif [ -f "$root/VERSION" ]; then
	date=$(date -u -r "$root/VERSION" +%Y-%m-%d)
else
	date=$(git -C "$root" log -1 --format=%cs -- "$src" 2>/dev/null || true)
	[ -n "$date" ] || date=$(date -u +%Y-%m-%d)
fi

expand() {	# expand FILE: the source with its include lines replaced
	awk -v dir="$dir" '
	function include(path, raise,    line, fence, first) {
		first = 1
		while ((getline line < path) > 0) {
			if (line ~ /^(```|~~~)/)
				fence = !fence
			if (raise && !fence) {
				if (first && line ~ /^# /) { first = 0; continue }
				if (line ~ /^##+ /)
					line = substr(line, 2)
			}
			if (line !~ /^[ \t]*$/)
				first = 0
			print line
		}
		if (close(path) != 0) { print "man.sh: cannot read " path > "/dev/stderr"; exit 1 }
	}
	/^\[[^]]*\]\(_[A-Za-z0-9._-]+\.md\)$/ { sub(/^[^(]*\(/, ""); sub(/\)$/, ""); include(dir "/" $0, 0); next }
	/^\[[^]]*\]\(\.\.\/[A-Za-z0-9._-]+\.md\)$/ { sub(/^[^(]*\(/, ""); sub(/\)$/, ""); include(dir "/" $0, 1); next }
	{ print }' "$1"
}

mkdir -p "$(dirname "$out")"
expand "$src" | pandoc -f gfm+definition_lists -t man -s \
	-M "footer=pitrace $version" -M "date=$date" -M "header=pitrace manual" -o "$out.tmp"
mv "$out.tmp" "$out"
