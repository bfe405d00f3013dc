#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# README's "Using it" works after a plain `make`: every program its lines
# run is one `make` (the default goal) builds, and its first lines, run as
# written from the source tree, print their reports.
. "$(dirname "$0")/lib.sh"
command -v make >/dev/null || skip "make is not installed"

# the lines of README's "Using it" block that run bin/...
awk '/^## Using it/ { on = 1; next } /^## / { on = 0 } on && /^    bin\//' "$ROOT/README.md" |
	sed 's/^    //; s/  *#.*//' >lines
[ -s lines ] || fail "README has no 'Using it' lines"
# the built files they name must be the default goal's: make -n with the
# source newer shows the command that builds each, with nothing else asked
for f in $(grep -oE '(build|bin|lib)/[A-Za-z0-9_/.-]+' lines | sort -u); do
	case $f in
	build/progs/*)
		make -C "$ROOT" -n -W "examples/${f#build/progs/}.c" 2>/dev/null | grep -q -- "-o $f " ||
			fail "plain make does not build $f, which README runs"
		;;
	esac
done
grep -q 'build/progs/demo' lines || fail "README's lines no longer run build/progs/demo"
[ -x "$PROGS/demo" ] || fail "no $PROGS/demo after make"

# the first three lines, as written, from a copy of the paths they name
ln -s "$BIN" bin
mkdir -p build && ln -s "$PROGS" build/progs
head -3 lines >run3
grep -q '^bin/pitrace record -o demo.data -- build/progs/demo$' run3 || fail "first line: $(head -1 run3)"
while read -r line; do
	# shellcheck disable=SC2086
	$line >out 2>err || fail "'$line': exit $? ($(cat err))"
	[ -s out ] || grep -q 'steps' err || fail "'$line' printed nothing"
done <run3
grep -q '^# arc of trace demo.data' out || fail "the arc line's report: $(head -2 out)"
echo "PASS"
