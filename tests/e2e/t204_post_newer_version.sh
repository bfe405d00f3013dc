#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A trace that needs a newer reader is refused, naming both versions.
. "$(dirname "$0")/lib.sh"
[ -x "$PROGS/mktrace" ] || skip "$PROGS/mktrace not built (make progs)"

"$PROGS/mktrace" new --steps 10 --min-reader 99 || fail "mktrace"
for cmd in info dump counts; do
	"$POST" -i new "$cmd" >out 2>err
	rc=$?
	[ $rc = 1 ] || fail "$cmd: exit $rc, expected 1"
	[ "$(wc -l <err)" = 1 ] || fail "$cmd: expected one error line, got: $(cat err)"
	grep -Eq '^post: error: new/header: format version 99 needs a newer post \(this one reads up to [0-9]+\)$' err ||
		fail "$cmd: unexpected message: $(cat err)"
done
echo PASS
