#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# e2e: serial (see tests/run-e2e.sh)
# Job control under the tracer: SIGSTOP stops the command (input sent
# meanwhile is not copied), SIGCONT resumes it, and the system call it was
# blocked in (read) is restarted without a step too many or too few:
# pt_cat.S executes 12 instructions, by construction.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/ptrace_lib.sh"
need_prog pt_cat

# wait_state PID STATE: poll /proc until the process is in STATE
wait_state() {
	for _ in $(seq 1200); do
		[ "$(awk '/^State/ { print $2 }' /proc/$1/status 2>/dev/null)" = "$2" ] && return 0
		sleep 0.05
	done
	return 1
}

mkfifo in
"$PITRACE" record -o t -- "$PROGS/pt_cat" <in >out &
tracer=$!
exec 7>in
for _ in $(seq 1200); do victim=$(pgrep -P $tracer pt_cat) && break; sleep 0.05; done
[ -n "$victim" ] || fail "pt_cat did not start"
wait_state "$victim" S || fail "pt_cat is not sleeping in read"
kill -STOP "$victim"
# stopped: a tracee in group-stop shows as a tracing stop (t), as under any tracer
wait_state "$victim" t || fail "SIGSTOP: not stopped (state $(awk '/^State/ { print $2 }' /proc/$victim/status))"
echo "after stop and cont" >&7
sleep 0.5
[ -s out ] && fail "pt_cat ran while stopped: $(cat out)"
kill -CONT "$victim"
exec 7>&-
wait $tracer
expect_eq "exit status" 0 $?
expect_eq "output" "after stop and cont" "$(cat out)"
expect_eq "total" 12 "$(total_of t)"
echo "PASS"
