#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A stripped system program (/bin/true, /bin/pwd: the loader, libc, PLT
# stubs, a program without symbols): every frame is matched (no unmatched
# returns, no asynchronous entries), the invariants hold, stacks stay shallow.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"

for prog in /bin/true /bin/pwd; do
	[ -x "$prog" ] || skip "$prog not present"
	dir=trace.$(basename "$prog")
	arc_record "$dir" "$prog"
	arc_check "$dir" 30
	expect_eq "$prog: unmatched returns" 0 "$(arc_stat "$dir" unmatched)"
	expect_eq "$prog: asynchronous entries" 0 "$(arc_stat "$dir" async)"
	"$POST" -i "$dir" tree --merged --prune 1 | grep -q "main" ||
		fail "$prog: no __libc_start_main/main path in the tree"
done
echo "PASS"
