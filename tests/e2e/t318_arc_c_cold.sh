#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/progs/arc_cold.c at -O2: gcc moves walk()'s unlikely branch into
# walk.cold, entered by a jump to its first instruction, which jumps back into
# walk's body while outer activations of the recursive walk are on the stack.
# The inner activation goes on (no unwinding to an outer one), walk.cold
# called above it as callgrind counts a jump to a function's first
# instruction: no unmatched returns, every call path with the Base the
# construction gives, counts equal callgrind's.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"

prog=$PROGS/arc_cold
[ -x "$prog" ] || skip "$prog is not built (make progs)"
objdump -d --no-show-raw-insn "$prog" >dis
grep -q '<walk\.cold>:' dis || fail "gcc -O2 made no walk.cold (the layout this test is about)"
grep -Eq 'j[a-z]+ +[0-9a-f]+ <walk\.cold>$' dis || fail "walk does not jump to walk.cold's first instruction"
awk '/<walk\.cold>:/,/^$/' dis | grep -Eq 'jmp +[0-9a-f]+ <walk\+0x[0-9a-f]+>' ||
	fail "walk.cold does not jump back into walk's body"

LD_BIND_NOW=1 arc_record oracle "$prog"
arc_check oracle 40
expect_eq "unmatched returns" 0 "$(arc_stat oracle unmatched)"

# The merged tree below main: walk^k (k = 1..21) and walk.cold above walk^(k+1)
# for k = 0, 5, 10, 15 (walk(20 - k) enters it), each path called 10 times.
"$POST" -i oracle tree --merged >tree || fail "post tree"
awk '$6 == "main" { d = $1 } d != "" && $1 > d && $6 ~ /^(walk|walk\.cold|note)$/ {
	print $1 - d, $2, $3, $6 } d != "" && $1 <= d && $6 != "main" { d = "" }' tree >paths
for k in $(seq 1 21); do
	base=160
	[ "$k" = 21 ] && base=90
	grep -qx "$k 10 $base walk" paths || { cat paths; fail "walk at depth $k under main: not 10 calls with Base $base"; }
done
for k in 0 5 10 15; do
	grep -qx "$((k + 2)) 10 60 walk.cold" paths || { cat paths; fail "walk.cold above walk^$((k + 1)): not 10 calls with Base 60"; }
	grep -qx "$((k + 3)) 10 40 note" paths || { cat paths; fail "note under walk.cold above walk^$((k + 1))"; }
done
expect_eq "call paths below main" 29 "$(wc -l <paths)"
"$POST" -i oracle flow --symbol walk.cold >flow || fail "post flow"
expect_eq "walk.cold entries (calls)" 40 "$(grep -c '> walk.cold$' flow)"
arc_oracle "$prog" main walk+walk.cold walk.cold:calls note
echo "PASS"
