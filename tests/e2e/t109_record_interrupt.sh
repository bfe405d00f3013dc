#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# e2e: serial (see tests/run-e2e.sh)
# SIGTERM to `pitrace record`: passed on to the command like a shell would,
# every tracee detached, the trace finalized as "interrupted" and readable;
# pitrace exits with the command's status (killed by SIGTERM: 143; SIGINT:
# 130).  A command that ignores the signal runs on: one line says so, and
# pitrace waits for it.  `record --help` says the same.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/ptrace_lib.sh"
need_prog pt_forever

"$PITRACE" record -o t -- "$PROGS/pt_forever" "$TMP/ctr" &
tracer=$!
# pt_forever writes ctr after its first pt_spin: steps of it are in the trace
for _ in $(seq 600); do [ -s "$TMP/ctr" ] && break; sleep 0.1; done
victim=$(pgrep -P $tracer pt_forever)
[ -n "$victim" ] || fail "pt_forever did not start"
kill -TERM $tracer
wait $tracer
rc=$?
expect_eq "exit status" 143 "$rc"
kill -0 "$victim" 2>/dev/null && fail "the command is still running"
expect_eq "state" interrupted "$(info_field t state)"
n=$(count_of t pt_spin)
[ -n "$n" ] && [ "$n" -gt 0 ] || fail "no pt_spin steps recorded"
expect_eq "header steps = counted steps" "$(info_field t steps)" "$(total_of t)"

# start_forever DIR ARGS...: pitrace recording pt_forever into DIR; sets tracer, victim
start_forever() {
	local dir=$1
	shift
	rm -f "$TMP/ctr"
	# a script's background job starts with SIGINT ignored: give it the default
	env --default-signal=INT "$PITRACE" record -o "$dir" -- "$PROGS/pt_forever" "$TMP/ctr" "$@" \
		2>"$TMP/$dir.err" &
	tracer=$!
	for _ in $(seq 600); do [ -s "$TMP/ctr" ] && break; sleep 0.1; done
	victim=$(pgrep -P $tracer pt_forever)
	[ -n "$victim" ] || fail "pt_forever $* did not start"
}

# SIGINT by kill: passed on too, the command dies of it
start_forever int
kill -INT $tracer
wait $tracer
expect_eq "exit status after SIGINT" 130 "$?"
kill -0 "$victim" 2>/dev/null && fail "the command survived SIGINT"
expect_eq "state after SIGINT" interrupted "$(info_field int state)"
grep -q "runs on" "$TMP/int.err" && fail "'runs on' said of a command that died: $(cat "$TMP/int.err")"

# a command that ignores SIGTERM: it runs on untraced, pitrace says so and waits
start_forever ign 15
kill -TERM $tracer
said=
for _ in $(seq 600); do
	grep -q "ignores SIGTERM" "$TMP/ign.err" && { said=1; break; }
	sleep 0.1
done
[ -n "$said" ] || { kill -KILL "$victim"; fail "nothing said of the ignored SIGTERM: $(cat "$TMP/ign.err")"; }
grep -qx "pitrace: .*/pt_forever (pid $victim) ignores SIGTERM: it runs on untraced and pitrace waits for it (kill -KILL $victim ends it)" "$TMP/ign.err" ||
	{ kill -KILL "$victim"; fail "ignored SIGTERM: $(cat "$TMP/ign.err")"; }
kill -0 $tracer 2>/dev/null || fail "pitrace did not wait for the command"
before=$(cat "$TMP/ctr")
for _ in $(seq 600); do [ "$(cat "$TMP/ctr")" != "$before" ] && break; sleep 0.1; done
[ "$(cat "$TMP/ctr")" != "$before" ] || fail "the command does not run on"
expect_eq "state with the command running on" interrupted "$(info_field ign state)"
kill -KILL "$victim"
wait $tracer
expect_eq "exit status once it is killed" 137 "$?"

# the help says what was just seen
"$PITRACE" record --backend ptrace --help | tr '\n' ' ' >help
grep -q "SIGINT and SIGTERM end the recording and are passed on to CMD" help ||
	fail "record --help does not say SIGINT/SIGTERM are passed on: $(cat help)"
grep -q "CMD runs on)" help && fail "record --help still says CMD runs on"
echo "PASS"
