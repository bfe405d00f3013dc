#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# pitrace record turns address-space randomization off for its command, as
# a debugger does, so two recordings of one command see the same addresses
# and count the same instructions; --aslr keeps randomization (the command
# then lands elsewhere each run, when the kernel randomizes at all).
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/ptrace_lib.sh"
need_prog aslr_where

for i in 1 2; do
	run_expect_status "record aslr_where ($i)" 0 "$PITRACE" record -o t$i -- \
		"$PROGS/aslr_where" some-argument >out$i 2>err$i
	grep -q '^stack ' out$i || fail "run $i printed no addresses: $(cat out$i err$i)"
done
expect_eq "addresses of two recordings" "$(cat out1)" "$(cat out2)"
expect_eq "steps of two recordings" "$(info_field t1 steps)" "$(info_field t2 steps)"

[ "$(cat /proc/sys/kernel/randomize_va_space)" = 0 ] &&
	skip "kernel.randomize_va_space is 0: --aslr has nothing to keep"
for i in 3 4; do
	run_expect_status "record --aslr ($i)" 0 "$PITRACE" record --aslr -o t$i -- \
		"$PROGS/aslr_where" some-argument >out$i 2>err$i
done
[ "$(cat out3)" != "$(cat out4)" ] ||
	fail "--aslr: two runs landed at the same addresses: $(cat out3)"
echo "PASS"
