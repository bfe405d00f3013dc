#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What post checks in a trace, on a real recording of a C recursion (gcc
# -O0, no libc: tests/progs/deep_recursion.c) damaged in one exact way
# each (tests/e2e/trace_edit.py), as issue reports found them: a moved
# mapping and a flipped header byte (the checksums of format 6), a COUNT
# of 2^40 in a trace of 600 steps, a step inserted with the CRC redone (END
# no longer counts the stream), the last block written twice (its CHECK's
# block number), a trace without a steps file.  Each is one error line naming the
# file and what is wrong (with the byte offset), exit 1; with --force a
# warning and a report of no more steps than the trace holds, exit 0.  A
# step inserted or deleted with every check redone reads, but every later
# address is shifted: post says the trace looks damaged, and the output of
# tree, flow and folded stays within a small multiple of the trace's size.
. "$(dirname "$0")/lib.sh"
PROG=$PROGS/deep_recursion
EDIT="python3 $ROOT/tests/e2e/trace_edit.py"
[ -x "$PROG" ] || skip "$PROG not built (make progs)"
[ -x "$POST" ] || skip "post not built (make all)"

"$PITRACE" record -o good -- "$PROG" >/dev/null 2>&1 || fail "record deep_recursion"
stream=$(cd good && ls steps.t*)
steps=$("$POST" -i good info | sed -n 's/^steps: *//p')
[ "$steps" -gt 500 ] || fail "the recording has $steps steps"
"$POST" -i good counts >/dev/null 2>&1 || fail "the undamaged trace must read"

# damaged NAME EDIT...: a copy of the trace with one edit
damaged() {
	local name=$1
	shift
	rm -rf "$name" && cp -r good "$name" && $EDIT "$name" "$@" || fail "trace_edit.py $*"
}
# expect_damage WHAT DIR REGEX: post counts fails with that one line; --force warns and
# counts at most the trace's steps (and the one an edit inserted)
expect_damage() {
	local what=$1 dir=$2 re=$3 total
	"$POST" -i "$dir" counts >out 2>err
	rc=$?
	[ $rc = 1 ] || fail "$what: exit status $rc, expected 1 ($(cat err))"
	[ "$(wc -l <err)" = 1 ] || fail "$what: expected one line on stderr: $(cat err)"
	grep -Eq "^post: error: $dir/$re \(--force reads [a-z ]*\)$" err ||
		fail "$what: '$(cat err)' does not match '$re'"
	"$POST" -i "$dir" --force counts >out 2>err || fail "$what: --force: exit $?: $(cat err)"
	grep -Eq "^post: warning: $dir/$re" err || fail "$what, --force: no warning: $(cat err)"
	grep -q 'error' err && fail "$what, --force: an error: $(cat err)"
	total=$(awk '$NF == "total" { print $1 }' out)
	[ -n "$total" ] && [ "$total" -le $((steps + 1)) ] ||
		fail "$what, --force: $total steps counted, the trace holds $steps"
}

damaged moved mmap-move
expect_damage "a mapping moved by 0x1000" moved \
	'tasks: checksum mismatch: corrupt data in bytes [0-9]+-[0-9]+'

damaged hdr flip header 40
expect_damage "a flipped header byte" hdr 'header: checksum mismatch: corrupt data in bytes 0-[0-9]+'

damaged count count "$stream" 5 1099511627776 crc
expect_damage "COUNT 2^40" count \
	"$stream: COUNT record at byte [0-9]+ in a trace that is not count-only"

damaged insert insert-step "$stream" 5 crc
expect_damage "a step inserted, CRC redone" insert \
	"$stream: END at byte [0-9]+ counts $steps steps, the stream holds $((steps + 1))"

damaged dup dup-last-block "$stream"
expect_damage "the last block twice" dup \
	"$stream: CHECK at byte [0-9]+ ends block [0-9]+ where block [0-9]+ was due: blocks duplicated, moved or missing"

# the UBSan finding: a trace directory without a steps file (its TOTALS
# say so too; with the stream gone and TOTALS as they were it is damage)
rm -rf lost && cp -r good lost && rm lost/steps.*
expect_damage "the steps file gone" lost "header: TOTALS counts $steps steps, the streams hold 0"
damaged nosteps set-totals 0
rm nosteps/steps.*
"$POST" -i nosteps counts >out 2>err || fail "no steps file: exit $?: $(cat err)"
grep -Eq '^ +0 +0.00% +total$' out || fail "no steps file: $(cat out)"

# Every check redone: it reads, says it looks damaged, and stays small.
size=$(du -cb good/header good/tasks good/steps.* | tail -n 1 | cut -f1)
for edit in insert-step delete-step; do
	damaged "$edit" "$edit" "$stream" 6 all	# a step of the recursion
	"$POST" -i "$edit" arc --check >check 2>err || fail "$edit, all redone: $(cat err check)"
	grep -q '^invariants: hold$' check || fail "$edit: $(cat check)"
	grep -q '^post: warning: .* the trace looks damaged$' err ||
		fail "$edit, all redone: post does not say the trace looks damaged: $(cat err)"
	for report in tree flow "export --format folded -o -"; do
		# shellcheck disable=SC2086 # the report's words
		"$POST" -i "$edit" $report >out 2>/dev/null || fail "$edit: $report: exit $?"
		out=$(stat -c %s out)
		[ "$out" -le $((64 * size)) ] ||
			fail "$edit: $report wrote $out bytes from a trace of $size bytes"
		echo "$edit: $report: $out bytes from $size"
	done
done
echo PASS
