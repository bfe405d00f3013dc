#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A step stream cut short: post refuses with the byte offset; --force reads up to the damage.
. "$(dirname "$0")/lib.sh"
[ -x "$PROGS/mktrace" ] || skip "$PROGS/mktrace not built (make progs)"

for z in "" --zstd; do
	rm -rf t
	"$PROGS/mktrace" t --steps 300000 --loop 1000 $z || fail "mktrace $z"
	size=$(stat -c %s t/steps.t1000)
	truncate -s $((size / 2)) t/steps.t1000
	# info describes the damage in its stream line, then fails in one line
	"$POST" -i t info >out 2>err
	rc=$?
	[ $rc = 1 ] || fail "info $z on a cut stream: exit $rc, expected 1"
	grep -Eq '^  steps\.t1000 .*  DAMAGED: truncated at byte [0-9]+' out ||
		fail "info $z: stream line: $(grep steps.t out)"
	[ "$(cat err)" = "post: error: t: 1 damaged step stream (see above; --force reads up to the damage)" ] ||
		fail "info $z: unexpected message: $(cat err)"
	for cmd in counts dump; do
		"$POST" -i t "$cmd" >out 2>err
		rc=$?
		[ $rc = 1 ] || fail "$cmd $z on a cut stream: exit $rc, expected 1"
		[ "$(wc -l <err)" = 1 ] || fail "$cmd $z: expected one error line, got: $(cat err)"
		grep -Eq '^post: error: t/steps\.t1000: truncated at byte [0-9]+( \(decompressed: [0-9]+\))? \(--force reads up to there\)$' err ||
			fail "$cmd $z: unexpected message: $(cat err)"
	done
	"$POST" -i t --force counts --by thread >out 2>err || fail "--force $z: exit $?"
	grep -Eq '^post: warning: t/steps\.t1000: truncated at byte [0-9]+( \(decompressed: [0-9]+\))?; reading up to there$' err ||
		fail "--force $z: no warning: $(cat err)"
	total=$(awk '$NF == "total" { print $1 }' out)
	[ -n "$total" ] && [ "$total" -gt 0 ] && [ "$total" -lt 300000 ] ||
		fail "--force $z: total '$total' should be part of the 300000 steps"
done
echo PASS
