#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# post counts, info and dump on a synthetic trace of tests/progs/labels: the
# steps are that program's instructions as it executes them (taken from its
# disassembly, beta's loop body 4 times), so every table is known by construction.
. "$(dirname "$0")/lib.sh"
[ -x "$PROGS/mktrace" ] && [ -x "$PROGS/labels" ] || skip "mktrace or labels not built (make progs)"
command -v objdump >/dev/null || skip "objdump not installed"

LABELS=$PROGS/labels
# address of every instruction, in file order: "addr function"
objdump -d --no-show-raw-insn "$LABELS" | awk '
	/^[0-9a-f]+ <.*>:$/ { fn = substr($2, 2, length($2) - 3) }
	/^ +[0-9a-f]+:/ { sub(":", "", $1); print $1, fn }' >insns
[ "$(wc -l <insns)" = 14 ] || fail "labels should have 14 instructions, objdump shows $(wc -l <insns)"
beta=$(awk '$2 == "beta" { print $1; exit }' insns)
pcs=""
while read -r addr fn; do
	n=1
	# beta's loop body (add, dec, jne) runs 4 times
	if [ "$fn" = beta ] && [ "$addr" != "$beta" ] && [ $((0x$addr)) -lt $((0x401023)) ]; then n=4; fi
	pcs="$pcs${pcs:+,}0x$addr*$n"
done <insns
# 3 more steps at an address nothing maps
pcs="$pcs,0x900000*3"
read -r off vaddr memsz < <(readelf -lW "$LABELS" | awk '$1 == "LOAD" && $8 == "E" { print $2, $3, $6 }')
[ -n "$vaddr" ] || fail "no executable LOAD segment in $LABELS"
"$PROGS/mktrace" t --mmap "$LABELS:$vaddr:$memsz:$off" --pcs "$pcs" || fail "mktrace"

rows() { grep -v '^#' "$1"; }

"$POST" -i t counts --by symbol >out || fail "counts --by symbol: exit $?"
cat >want <<'WANT'
      14   53.85%  labels     beta
       6   23.08%  labels     _start
       3   11.54%  [unknown]  [unknown]
       3   11.54%  labels     alpha
      26  100.00%  total
WANT
rows out >got
expect_same_file "counts --by symbol" want got
grep -q '^# counts by symbol of trace ' out || fail "the header must say what the report is"
grep -q '^# one count is one executed instruction (a rep-prefixed string instruction counts once per iteration)$' out ||
	fail "the header must say what a count is"
grep -q '^# total: 26 steps of the trace (percentages are of these)$' out ||
	fail "total line: $(grep total out)"

"$POST" -i t counts --by module >out || fail "counts --by module"
printf '      23   88.46%%  labels\n       3   11.54%%  [unknown]\n      26  100.00%%  total\n' >want
rows out >got
expect_same_file "counts --by module" want got

"$POST" -i t counts --by insn --top 3 >out || fail "counts --by insn"
rows out >got
cat >want <<WANT
       4   15.38%  0x40101d  beta+0x2  add eax, ecx
       4   15.38%  0x40101f  beta+0x4  dec ecx
       4   15.38%  0x401021  beta+0x6  jne 0x40101d
      26  100.00%  total
WANT
expect_same_file "counts --by insn --top 3" want got
grep -q '^# 12 more rows: 14 (53.85%)$' out || fail "--top summary line: $(grep more out)"

"$POST" -i t counts --by line >out || fail "counts --by line"
total=$(rows out | awk '$NF == "total" { print $1 }')
loop=$(rows out | grep -c 'labels\.S:')
[ "$total" = 26 ] || fail "--by line total $total"
[ "$loop" -ge 10 ] || fail "--by line: expected source lines of labels.S, got: $(cat out)"

"$POST" -i t counts --by thread >out || fail "counts --by thread"
rows out | head -1 | grep -Eq '^ +26  100\.00%  1000  1000 \(prog\)$' || fail "--by thread: $(cat out)"

"$POST" -i t counts --module labels --by symbol --top 1 >out || fail "--module"
grep -q '^# filter: module labels$' out || fail "--module: filter line missing"
grep -q '^# shown: 23 steps (88.46%) in the functions the filter selects$' out ||
	fail "--module: shown line: $(grep shown out)"
rows out | tail -1 | grep -Eq '^ +23   88\.46%  total$' || fail "--module: total: $(cat out)"

"$POST" -i t info >out || fail "info: exit $?"
grep -Eq '^steps: +26$' out || fail "info: steps: $(cat out)"
grep -Eq '^  steps\.t1000 +26 steps' out || fail "info: stream line: $(cat out)"

"$POST" -i t dump --steps >out || fail "dump --steps"
[ "$(grep -c ' STEP ' out)" = 26 ] || fail "dump: $(grep -c ' STEP ' out) STEP lines, expected 26"
grep -q ' END         steps 26 counted 0 bytes' out || fail "dump: END record"
"$POST" -i t dump tasks >out || fail "dump tasks"
grep -q " MMAP .* path $LABELS\$" out || fail "dump tasks: no MMAP of labels: $(cat out)"
echo PASS
