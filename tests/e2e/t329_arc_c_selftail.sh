#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/progs/arc_selftail.c built by clang at -O2: visit() ends with a jump
# to its own first instruction.  Each such jump is a call of visit by visit
# whose frame replaces the last (the stack stays flat), as callgrind counts
# it: 90 calls of visit (10 from main, 80 from itself), self instructions
# and calls equal callgrind's, and post's callgrind export says the same.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"

command -v clang >/dev/null || skip "clang is not installed (make deps)"
prog=$TMP/arc_selftail.clang
clang -O2 -g -o "$prog" "$ROOT/tests/progs/arc_selftail.c" || fail "clang cannot build arc_selftail.c"
objdump -d --no-show-raw-insn "$prog" >dis
awk '/<visit>:/,/^$/' dis | grep -Eq 'jmp +[0-9a-f]+ <visit>$' ||
	fail "clang made no jump from visit to its own entry (the layout this test is about)"

LD_BIND_NOW=1 arc_record oracle "$prog"
arc_check oracle 20
"$POST" -i oracle arc --symbol visit >arc || fail "post arc"
expect_eq "visit <- main" 10 "$(awk '/ < main$/ { print $1 }' arc)"
expect_eq "visit <- visit" 80 "$(awk '/ < visit$/ { print $1 }' arc)"
"$POST" -i oracle flow --symbol visit >flow || fail "post flow"
expect_eq "visit's jumps to itself" 80 "$(grep -c '> visit (tail call from visit)' flow)"
# the export's calls (KCachegrind's callers of visit) are callgrind's and post arc's
"$POST" -i oracle export --format callgrind -o selftail.cg || fail "post export"
awk '/^fn=/ { f = substr($0, 4) } /^cfn=/ { c = substr($0, 5) }
	/^calls=/ { split($1, n, "="); print f, c, n[2] }' selftail.cg >calls
expect_eq "export: main calls visit" 10 "$(awk '$1 == "main" && $2 == "visit" { print $3 }' calls)"
expect_eq "export: visit calls visit" 80 "$(awk '$1 == "visit" && $2 == "visit" { print $3 }' calls)"
arc_oracle "$prog" visit leaf
echo "PASS"
