#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# pitrace attach: trace a running process until SIGINT, then detach: the
# process keeps running untraced (no tracer, not stopped, its work goes on)
# and the trace is complete and readable.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/ptrace_lib.sh"
need_prog pt_forever

"$PROGS/pt_forever" "$TMP/ctr" &
victim=$!
trap 'kill $victim ${sleeper:-} 2>/dev/null; rm -rf "$TMP"' EXIT
for _ in $(seq 600); do [ -s "$TMP/ctr" ] && break; sleep 0.1; done
"$PITRACE" attach -p $victim -o t 2>err &
tracer=$!
# wait until it has recorded something (the header's totals move at the end
# only; the stream file grows a 64 KiB buffer at a time)
for _ in $(seq 600); do
	[ "$(stat -c %s t/steps.t$victim 2>/dev/null || echo 0)" -gt 32 ] && break
	sleep 0.1
done
kill -INT $tracer
wait $tracer
rc=$?
expect_eq "attach exit status" 0 "$rc"
kill -0 $victim 2>/dev/null || fail "the process did not survive the attach"
expect_eq "TracerPid after detach" 0 "$(awk '/^TracerPid/ { print $2 }' /proc/$victim/status)"
state=$(awk '/^State/ { print $2 }' /proc/$victim/status)
[ "$state" != t ] && [ "$state" != T ] || fail "the process was left stopped ($state)"
c1=$(cat "$TMP/ctr")
for _ in $(seq 600); do [ "$(cat "$TMP/ctr")" != "$c1" ] && break; sleep 0.1; done
[ "$(cat "$TMP/ctr")" != "$c1" ] || fail "the process stopped working after detach"
expect_eq "state" complete "$(info_field t state)"
n=$(count_of t pt_spin)
[ -n "$n" ] && [ "$n" -gt 0 ] ||
	fail "no pt_spin steps recorded: $("$POST" -i t info 2>&1 | grep -E 'steps|state' | tr -s ' \n' ' '); $("$POST" -i t counts --by symbol 2>&1 | grep -v '^#' | head -n 4 | tr -s ' \n' ' ')"
"$POST" -i t dump --tasks | grep -q "MMAP.*pt_forever" || fail "no module record of pt_forever"

# a process blocked in a system call the whole time (opening a FIFO that
# has no writer until the tracer is gone): its step trap, queued behind the
# detach-time interrupt, must not reach it (it would die of it)
mkfifo "$TMP/fifo"
head -n 1 "$TMP/fifo" >/dev/null &
sleeper=$!
"$PITRACE" attach -p $sleeper -o s 2>err &
tracer=$!
for _ in $(seq 600); do [ -s s/header ] && [ -s s/tasks ] && break; sleep 0.1; done
sleep 0.5
kill -INT $tracer
wait $tracer
expect_eq "attach to a sleeper: exit status" 0 $?
echo released >"$TMP/fifo"
wait $sleeper
expect_eq "the sleeper's exit status" 0 $?
echo "PASS"
