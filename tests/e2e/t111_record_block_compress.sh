#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# --mode block: where the CPU doesn't honour block stepping, pitrace says so
# once and records single steps (counts exact, by construction, as in
# t101); where it does, the trace says mode "block" (post expands blocks).
# --compress: the same counts from zstd streams.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/ptrace_lib.sh"
need_prog pt_loops

"$PITRACE" record --mode block -o b -- "$PROGS/pt_loops" 2>err || fail "block record: $?"
if grep -q "block stepping is not available here; recording single steps" err; then
	expect_eq "said once" 1 "$(grep -c 'block stepping' err)"
	expect_eq "mode" step "$(info_field b mode)"
	"$POST" -i b info | grep -q "^note: .*block stepping was requested" ||
		fail "no note about block stepping in the header"
	while read -r name want; do
		expect_eq "count of $name" "$want" "$(count_of b "$name")"
	done <<-'TABLE'
	f 9006
	g 1502
	_start 14
	TABLE
else
	expect_eq "mode" block "$(info_field b mode)"
	echo "block stepping is honoured here: block counts need post's expansion"
fi

"$PITRACE" record --compress -o z -- "$PROGS/pt_loops" || fail "compressed record: $?"
"$POST" -i z info | grep -q "zstd" || fail "streams not compressed"
expect_eq "compressed: f" 9006 "$(count_of z f)"
expect_eq "compressed: total" 10522 "$(total_of z)"
echo "PASS"
