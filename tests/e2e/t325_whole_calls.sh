#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Calls taken whole: post takes a repeated call (the same call followed by
# the same steps: qsort's comparison callback, memcpy through its PLT stub
# and its shared tail, a recursion's leaf calls) at once, not step by step.
# A window takes every step one at a time instead; with a window that holds
# every step, each report must print what it prints without one (but the
# header's window line).  tests/progs/bench_calls: 4 threads, qsort, a
# recursion, libc's string calls; static, -O2.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"

prog=$PROGS/bench_calls
arc_record tr "$prog" 3
# the engine's replays, on calls that go through no PLT stub (a folded stub's
# steps are the caller's, stepped one at a time: no call around one is taken
# whole)
"$POST" -v -i tr --plt keep profile >/dev/null 2>whole.log || fail "post profile"
# "call flow: N steps one at a time, C calls taken whole (S steps; R replays made)"
whole=$(sed -n 's/.* \([0-9]*\) calls taken whole.*/\1/p' whole.log)
whole_steps=$(sed -n 's/.*calls taken whole (\([0-9]*\) steps.*/\1/p' whole.log)
steps=$(sed -n 's/.*call flow: \([0-9]*\) steps, .*/\1/p' whole.log)
[ -n "$whole" ] && [ "$whole" -gt 500 ] ||
	{ cat whole.log; fail "not over 500 calls taken whole: '$whole'"; }
[ -n "$whole_steps" ] && [ -n "$steps" ] && [ $((4 * whole_steps)) -gt "$steps" ] ||
	{ cat whole.log; fail "not over a quarter of the steps in calls taken whole"; }
"$POST" -v -i tr profile >/dev/null 2>folded.log || fail "post profile"
whole=$(sed -n 's/.* \([0-9]*\) calls taken whole.*/\1/p' folded.log)
[ -n "$whole" ] && [ "$whole" -gt 500 ] ||
	{ cat folded.log; fail "stubs folded: not over 500 calls taken whole: '$whole'"; }
"$POST" -v -i tr profile --to 999999999999 >/dev/null 2>stepped.log || fail "post profile --to"
expect_eq "calls taken whole in a window" 0 \
	"$(sed -n 's/.* \([0-9]*\) calls taken whole.*/\1/p' stepped.log)"

for r in "profile" "profile --plt keep" "tree --merged" "arc" "arc --plt keep" "flow" \
	"flow --condensed" "flow --symbol cmp" "export --format callgrind -o -" \
	"export --format folded -o -" "export --format chrome -o -" \
	"export --format chrome --clock steps -o -"; do
	# shellcheck disable=SC2086
	"$POST" -i tr $r | grep -v '^# window' | sed 's/steps in the window/steps of the trace/' \
		>whole.out || fail "post $r"
	# shellcheck disable=SC2086
	"$POST" -i tr $r --to 999999999999 | grep -v '^# window' |
		sed 's/steps in the window/steps of the trace/' >stepped.out || fail "post $r --to"
	[ -s whole.out ] || fail "post $r printed nothing"
	expect_same_file "post $r" stepped.out whole.out
done
echo "PASS"
