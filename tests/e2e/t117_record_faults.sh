#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# e2e: serial (see tests/run-e2e.sh)
# The ptrace backend under faults.  A failed recording leaves an existing
# trace as it was; attaching to a zombie says so and leaves nothing.
# Killing pitrace attach, SIGKILL included, lets the process run on
# untraced with its CPU affinity back; a SIGKILL to the tracer itself kills
# what it single-steps (said, and shown in the trace), but an --on process
# running natively survives with its breakpoints removed.  SIGKILL to
# pitrace record takes the command with it.  A full filesystem, with or
# without -z: one line, a trace readable up to there, the command's status.
# Every trace left is readable without --force.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/ptrace_lib.sh"
need_prog pt_exit3 pt_forever pt_ticker pt_noisy

# whatever this test starts is gone at its end, pass or fail
started=()
cleanup() {
	for p in "${started[@]}"; do kill -9 "$p" 2>/dev/null; done
	umount "$TMP/small" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

# wait_for WHAT CMD...: until CMD succeeds (progress, not a time)
wait_for() {
	local what=$1
	shift
	for _ in $(seq 600); do "$@" && return 0; sleep 0.1; done
	fail "timed out waiting for $what"
}
grown() { [ -s "$1" ] && [ "$(cat "$1")" -gt "${2:-0}" ] 2>/dev/null; }
cpus() { awk '/^Cpus_allowed_list/ { print $2 }' "/proc/$1/status"; }
tracer_of() { awk '/^TracerPid/ { print $2 }' "/proc/$1/status"; }
# readable PATH STATE: post reads the trace without --force, in that state
readable() {
	"$POST" -i "$1" info >info.out 2>info.err || { cat info.out info.err; fail "$1 does not read"; }
	expect_eq "$1: state" "$2" "$(awk '$1 == "state:" { print $2 }' info.out)"
	"$POST" -i "$1" counts >/dev/null || fail "$1: post counts"
}
fingerprint() { (cd "$1" && md5sum header tasks steps.* 2>/dev/null); }
no_leftovers() {
	ls -d ./*.new-* 2>/dev/null && fail "a staging directory was left behind"
	return 0
}

# ---- a failed recording over an existing trace (default directory) ----
"$PITRACE" record -- "$PROGS/pt_exit3" 2>/dev/null
good=$(fingerprint pitrace.data)
"$PITRACE" record -o busy -- "$PROGS/pt_forever" "$TMP/ctr0" 2>/dev/null &
rec=$!
started+=($rec)
wait_for "pt_forever under pitrace" grown "$TMP/ctr0"
victim=$(pgrep -P $rec pt_forever)
started+=($victim)
for try in 1 2; do
	"$PITRACE" attach -p "$victim" 2>err
	expect_eq "attach to a traced process ($try): status" 1 $?
	grep -q "Operation not permitted" err || fail "EPERM not said: $(cat err)"
	expect_eq "the earlier trace after a failed attach ($try)" "$good" "$(fingerprint pitrace.data)"
	[ -e pitrace.data.old ] && fail "a failed attach made pitrace.data.old"
	no_leftovers
done
kill -TERM $rec
wait $rec
for cmd in no-such-command /etc/passwd; do
	"$PITRACE" record -- "$cmd" 2>/dev/null
	expect_eq "the earlier trace after 'record -- $cmd'" "$good" "$(fingerprint pitrace.data)"
	[ -e pitrace.data.old ] && fail "a failed record made pitrace.data.old"
	no_leftovers
done
# a recording that starts replaces it, keeping it as .old
"$PITRACE" record -- "$PROGS/pt_exit3" 2>/dev/null
expect_eq "the earlier trace as pitrace.data.old" "$good" "$(fingerprint pitrace.data.old)"

# ---- a zombie: said, nothing left ----
sh -c 'sleep 0 & exec sleep 60' &
zparent=$!
started+=($zparent)
wait_for "a zombie" sh -c "ps -o stat= --ppid $zparent | grep -q Z"
zombie=$(ps -o pid= --ppid $zparent | tr -d ' ')
"$PITRACE" attach -p "$zombie" -o zt 2>err
expect_eq "attach to a zombie: status" 1 $?
grep -q "^pitrace: error: process $zombie is a zombie" err || fail "zombie not said: $(cat err)"
expect_eq "lines for a zombie" 1 "$(wc -l <err)"
[ -e zt ] && fail "attach to a zombie left a trace directory"
no_leftovers
kill $zparent

# ---- attach: pitrace killed (SIGTERM, SIGINT, SIGKILL): the process goes on ----
for sig in TERM INT KILL; do
	"$PROGS/pt_forever" "$TMP/ctr.$sig" &
	victim=$!
	started+=($victim)
	wait_for "pt_forever" grown "$TMP/ctr.$sig"
	before=$(cpus $victim)
	"$PITRACE" attach -p $victim -o "a.$sig" 2>"err.$sig" &
	pt=$!
	started+=($pt)
	wait_for "the attach" grep -q "^pitrace: tracing $victim" "err.$sig"
	c=$(cat "$TMP/ctr.$sig")
	wait_for "steps of pt_forever" grown "$TMP/ctr.$sig" "$c"
	kill -$sig $pt
	wait $pt
	rc=$?
	[ $sig = KILL ] && expect_eq "pitrace attach killed: its status" 137 $rc
	[ $sig != KILL ] && expect_eq "attach ended by SIG$sig: status" 0 $rc
	wait_for "the detach (SIG$sig)" sh -c "[ \"\$(awk '/^TracerPid/ { print \$2 }' /proc/$victim/status)\" = 0 ]"
	c=$(cat "$TMP/ctr.$sig")
	wait_for "pt_forever working after SIG$sig" grown "$TMP/ctr.$sig" "$c"
	expect_eq "CPU affinity after SIG$sig" "$before" "$(cpus $victim)"
	if [ $sig = KILL ]; then
		# the tracer finishes the trace after pitrace is gone
		wait_for "the trace's end" sh -c "grep -q interrupted a.$sig/header 2>/dev/null"
		readable "a.$sig" interrupted
		grep -q "pitrace was killed: the tracer let every process go on" info.out ||
			fail "no note of pitrace's death: $(cat info.out)"
	else
		readable "a.$sig" complete
	fi
	kill $victim
done

# ---- attach: the tracer killed: said; what it stepped dies (the documented case) ----
"$PROGS/pt_forever" "$TMP/ctr.t" &
victim=$!
started+=($victim)
wait_for "pt_forever" grown "$TMP/ctr.t"
"$PITRACE" attach -p $victim -o tk 2>err &
pt=$!
started+=($pt)
wait_for "the attach" grep -q "^pitrace: tracing $victim" err
grep -q "a SIGKILL to the tracer (pid [0-9]*) kills what it is single-stepping" err ||
	fail "the first line does not say what a tracer's SIGKILL does: $(cat err)"
tracer=$(sed -n 's/.*the tracer (pid \([0-9]*\)).*/\1/p' err | head -1)
expect_eq "the tracer" "$tracer" "$(tracer_of $victim)"
wait_for "steps" sh -c "[ \$(stat -c %s tk/steps.t$victim 2>/dev/null || echo 0) -gt 100 ]"
kill -KILL "$tracer"
wait $pt
expect_eq "pitrace after its tracer's death: status" 1 $?
grep -q "^pitrace: error: the tracer (pid $tracer) was killed by SIGKILL$" err || fail "not said: $(cat err)"
if kill -0 $victim 2>/dev/null && [ "$(ps -o stat= -p $victim)" != Z ]; then
	grep -q "process $victim goes on untraced" err || fail "survival not said: $(cat err)"
	kill $victim
else
	grep -q "process $victim died with it" err || fail "death not said: $(cat err)"
fi
readable tk interrupted
grep -q "the tracer was killed by SIGKILL" info.out || fail "no note of the tracer's death"
expect_eq "tk: steps in the header = steps read" "$(awk '$1 == "steps:" { print $2 }' info.out)" "$(total_of tk)"

# ---- attach --on: the tracer killed while the process runs natively: it survives ----
survived=0
for try in 1 2 3; do
	"$PROGS/pt_ticker" "$TMP/tick.$try" &
	victim=$!
	started+=($victim)
	wait_for "pt_ticker" grown "$TMP/tick.$try"
	before=$(cpus $victim)
	"$PITRACE" attach --on tick -p $victim -o "on.$try" 2>err &
	pt=$!
	started+=($pt)
	wait_for "the attach" grep -q "^pitrace: tracing $victim" err
	# activations on disk (streams are flushed about once a second), then
	# a few more ticks: the kill comes at no particular moment
	wait_for "ticks on disk" sh -c "[ \$(stat -c %s on.$try/steps.t$victim 2>/dev/null || echo 0) -gt 200 ]"
	c=$(cat "$TMP/tick.$try")
	wait_for "ticks under --on" grown "$TMP/tick.$try" $((c + 2))
	tracer=$(sed -n 's/.*the tracer (pid \([0-9]*\)).*/\1/p' err | head -1)
	kill -KILL "$tracer"
	wait $pt
	if grep -q "process $victim goes on untraced (breakpoints removed, CPU affinity given back)" err; then
		c=$(cat "$TMP/tick.$try")
		# a breakpoint left in tick() would kill it at the next tick
		wait_for "ticks after the tracer's death" grown "$TMP/tick.$try" $((c + 3))
		expect_eq "TracerPid" 0 "$(tracer_of $victim)"
		expect_eq "CPU affinity given back" "$before" "$(cpus $victim)"
		readable "on.$try" interrupted
		n=$("$POST" -i "on.$try" profile | awk '!/^#/ && $6 == "tick" { print $1 }')
		[ "${n:-0}" -gt 0 ] || fail "no activation of tick in the trace"
		survived=1
		kill $victim
		break
	fi
	# the kill came while tick() was being stepped: the documented case
	grep -q "process $victim died with it" err || fail "neither survival nor death said: $(cat err)"
	kill $victim 2>/dev/null
done
expect_eq "an --on process outlives its tracer (3 tries)" 1 $survived

# ---- record: SIGKILL takes the command with it; the trace stays readable ----
"$PITRACE" record -o rk -- "$PROGS/pt_forever" "$TMP/ctr.r" 2>/dev/null &
pt=$!
started+=($pt)
wait_for "pt_forever under record" grown "$TMP/ctr.r"
victim=$(pgrep -P $pt pt_forever)
wait_for "steps on disk" sh -c "[ \$(stat -c %s rk/steps.t$victim 2>/dev/null || echo 0) -gt 100 ]"
kill -KILL $pt
wait $pt
wait_for "the command's end" sh -c "! kill -0 $victim 2>/dev/null"
readable rk recording
[ "$(total_of rk)" -gt 0 ] || fail "no steps in the trace of a killed record"

# ---- a full filesystem, plain and -z: one line, the status, a readable trace ----
mkdir -p small
# nr_inodes: the root, t.lock, t and its first four files; no room for a new
# header file either, so it is rewritten in place.  The header, tasks and vdso
# files take four pages; -z leaves the steps three more, since one flushed
# zstd batch is about a page and a cut one decodes to nothing.
if ! mount -t tmpfs -o size=128k,nr_inodes=7 tmpfs small 2>/dev/null; then
	skip "cannot mount a tmpfs (not root?): the full-filesystem part did not run"
fi
for z in "" -z; do
	n=30000
	[ -n "$z" ] && { umount small; mount -t tmpfs -o size=28k,nr_inodes=7 tmpfs small; n=200000; }
	"$PITRACE" -v record $z -o small/t -- "$PROGS/pt_noisy" $n >out 2>err.all
	expect_eq "command's status on a full filesystem ($z)" 3 $?
	grep -q '^done ' out || fail "the command did not finish ($z)"
	grep -v 'debug:' err.all >err
	grep -q "^pitrace: error: cannot write small/t/steps.t[0-9]*: No space left on device: the trace ends here" err ||
		{ cat err; fail "no ENOSPC line ($z)"; }
	expect_eq "error lines ($z)" 1 "$(grep -c error err)"
	grep -q "debug: writer: small/t/header rewritten in place" err.all ||
		fail "the header was not rewritten in place ($z)"
	readable small/t interrupted
	grep -q "writing the trace failed (No space left on device)" info.out || fail "no note ($z)"
	grep -q "cut short" info.out || fail "stream not marked cut short ($z)"
	[ -e small/t/header.tmp ] && fail "header.tmp left ($z)"
	n=$(total_of small/t)
	[ "$n" -gt 0 ] || fail "nothing readable ($z)"
	expect_eq "header steps = steps read ($z)" "$(awk '$1 == "steps:" { print $2 }' info.out)" "$n"
	rm -rf small/t
done
echo "PASS"
