#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# post counts on a block-mode trace: one record per run of instructions
# ending at a taken branch, expanded into every instruction it ran.  The
# block trace is derived from a real step recording of tests/progs/labels
# (a step starts a block when it does not follow its predecessor in
# memory), so its counts must equal the step trace's exactly.
. "$(dirname "$0")/lib.sh"
[ -x "$PROGS/mktrace" ] && [ -x "$PROGS/labels" ] || skip "mktrace or labels not built (make progs)"

"$PITRACE" record -o steps -- "$PROGS/labels" || fail "record labels: exit $?"
# instruction lengths from the disassembly: "address length"
objdump -d "$PROGS/labels" | awk -F'\t' '/^ +[0-9a-f]+:\t/ {
	addr = $1; sub(/^ +/, "", addr); sub(/:$/, "", addr)
	print addr, split($2, b, " ") }' >lengths
# executed addresses in order (the third column of post steps)
"$POST" -i steps steps | awk '!/^#/ { print $3 }' >executed
steps=$(wc -l <executed)
[ "$steps" -gt 10 ] || fail "too few steps listed: $steps"
declare -A len
while read -r addr n; do len[$addr]=$n; done <lengths
starts="" next_pc=-1
while read -r addr; do
	[ -n "${len[$addr]:-}" ] || fail "no instruction at $addr in the disassembly"
	pc=$((0x$addr))
	[ "$pc" != "$next_pc" ] && starts="$starts${starts:+,}0x$addr"
	next_pc=$((pc + len[$addr]))
done <executed
blocks=$(tr ',' '\n' <<<"$starts" | wc -l)
[ "$blocks" -gt 1 ] && [ "$blocks" -lt "$steps" ] || fail "$blocks blocks from $steps steps: the derivation is broken"

read -r off vaddr memsz < <(readelf -lW "$PROGS/labels" | awk '$1 == "LOAD" && $8 == "E" { print $2, $3, $6 }')
"$PROGS/mktrace" blocks --mode block --mmap "$PROGS/labels:$vaddr:$memsz:$off" --pcs "$starts" ||
	fail "mktrace"

"$POST" -i steps counts --by symbol | grep -v '^#' | awk '{ print $1, $3, $4 }' >want
"$POST" -i blocks counts --by symbol >out || fail "counts on the block trace: exit $?"
grep -v '^#' out | awk '{ print $1, $3, $4 }' >got
expect_same_file "block-mode counts --by symbol" want got
grep -q "^# block mode: $blocks block records expanded into $steps instructions$" out ||
	fail "the header should say $blocks blocks became $steps instructions: $(grep '^# block' out)"
grep -q "^# total: $steps steps of the trace (percentages are of these)$" out ||
	fail "total line: $(grep '^# total' out)"
