#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A command blocked in a system call: the steps it took before it reach the
# trace on disk while it waits (the recorder does not sit on them until the
# next stop), so that a reader of the recording in progress sees them.
# pt_cat blocks in read() on a FIFO the test holds open; the trace is read
# while it waits, then the test writes, and the recording ends as usual.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/ptrace_lib.sh"
need_prog pt_cat

mkfifo in || fail "mkfifo"
exec 3<>in	# a writer that never closes: pt_cat's read() waits for data
"$PITRACE" record -o live -- "$PROGS/pt_cat" <in >out 2>err &
rpid=$!
# the 4 instructions before read's syscall (xor, xor, lea, mov) are read
deadline=$((SECONDS + 120))
until [ "$(total_of live 2>/dev/null)" = 4 ]; do
	kill -0 $rpid 2>/dev/null || { cat err; fail "pitrace record ended early"; }
	[ $SECONDS -lt $deadline ] ||
		{ kill $rpid; ls -l live; "$POST" -i live counts; fail "no steps on disk while the command is blocked"; }
	sleep 0.1
done
expect_eq "state while recording" recording "$(info_field live state)"
kill -0 $rpid || fail "pitrace record ended before the command was let go"
echo hi >&3
exec 3>&-
wait $rpid
expect_eq "exit status" 0 $?
expect_eq "the command's output" hi "$(cat out)"
expect_eq "state at the end" complete "$(info_field live state)"
expect_eq "all 12 steps" 12 "$(total_of live)"
echo "PASS"
