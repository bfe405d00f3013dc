#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# post counts on real recordings, checked against independent counts:
# tests/progs/labels (static, no libc) exactly as constructed, repmovs's
# rep movsb once per iteration, and the
# functions of tests/progs/countloop against callgrind's instruction counts.
. "$(dirname "$0")/lib.sh"
[ -x "$PROGS/labels" ] && [ -x "$PROGS/countloop" ] || skip "labels or countloop not built (make progs)"
"$PITRACE" record -o probe true >/dev/null 2>&1 || skip "pitrace record cannot trace here"

"$PITRACE" record -o lab "$PROGS/labels" >/dev/null 2>&1 || fail "record labels: exit $?"
"$POST" -i lab counts --by symbol >out || fail "counts: exit $?"
grep -v '^#' out >got
cat >want <<'WANT'
      14   60.87%  labels  beta
       6   26.09%  labels  _start
       3   13.04%  labels  alpha
      23  100.00%  total
WANT
expect_same_file "labels: counts by symbol" want got
# the total row equals the steps the header recorded
"$POST" -i lab info | grep -Eq '^steps: +23$' || fail "labels: info does not say 23 steps"

# a rep-prefixed string instruction counts once per iteration
if [ -x "$PROGS/repmovs" ]; then
	"$PITRACE" record -o rep "$PROGS/repmovs" >/dev/null 2>&1 || fail "record repmovs: exit $?"
	"$POST" -i rep counts --by insn >out || fail "counts repmovs"
	grep -Eq '^ +100  +[0-9.]+%  0x[0-9a-f]+  _start\+0x[0-9a-f]+ +rep movsb ' out ||
		fail "repmovs: rep movsb should count 100: $(cat out)"
	grep -Eq '^ +106  100\.00%  total$' out || fail "repmovs: total should be 106: $(cat out)"
fi

command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null || {
	echo "SKIP: valgrind not installed (labels part passed)"
	exit 77
}
"$PITRACE" record -o cl "$PROGS/countloop" >rec.out 2>&1 || fail "record countloop: exit $?"
"$POST" -i cl counts --by symbol --module countloop >out || fail "counts countloop: exit $?"
valgrind --tool=callgrind --callgrind-out-file=cg.out "$PROGS/countloop" >/dev/null 2>&1 ||
	fail "valgrind failed"
callgrind_annotate --auto=no --threshold=100 cg.out >cg.txt 2>/dev/null || fail "callgrind_annotate failed"
# main is left out: callgrind charges the lazy PLT stubs to the calling line.
# Recursion levels (fib'2) are summed back into their function.
for fn in square_sum fill fib; do
	ours=$(awk -v f="$fn" '!/^#/ && $NF == f { print $1 }' out)
	theirs=$(awk -v f="$fn" '/^ *[0-9,]+ .*countloop\.c:/ && ($0 ~ ":" f " " || $0 ~ ":" f "\047[0-9]+ ") {
		gsub(",", "", $1); n += $1 } END { if (n) print n }' cg.txt)
	[ -n "$ours" ] || fail "$fn: no row in post counts: $(cat out)"
	[ -n "$theirs" ] || fail "$fn: not in callgrind's output"
	expect_eq "$fn: post counts vs callgrind Ir" "$theirs" "$ours"
done
echo PASS
