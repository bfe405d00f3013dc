#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# post script --follow on a recording in progress: tests/progs/pt_follow
# calls work() 3 times, then blocks reading stdin (a FIFO the test holds)
# until the test lets it go.  The script's first call() line must come
# while the command is still blocked (the events arrive live), post exits 0
# once the recording ends, and step() per symbol equals counts --by symbol
# of the finished trace (compressed streams too).  A recorder killed with
# SIGKILL: one line, what it wrote is read, exit 1, no hang.  A finished
# trace: as without --follow.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/ptrace_lib.sh"
need_prog pt_follow
"$POST" -i /nonexistent script /dev/null 2>&1 | grep -q 'built without Python' &&
	skip "post was built without Python (python3-dev)"

cat >follow.py <<'PY'
from collections import Counter
n = Counter()
said = False
def call(c):
    global said
    if not said:
        print("first call", c.callee, flush=True)
        said = True
def step(s):
    n[s.symbol] += 1
def end():
    for sym, k in sorted(n.items()):
        print(k, sym)
PY

# follow TRACE [RECORD OPTIONS]: pitrace record of pt_follow into TRACE, post
# script --follow on it, both in the background (rpid, ppid) once the first
# call() is out
follow() {
	mkfifo "$1.in" || fail "mkfifo"
	exec 3<>"$1.in"		# pt_follow's read() waits until the test writes
	"$PITRACE" record -o "$1" "${@:2}" -- "$PROGS/pt_follow" <"$1.in" >/dev/null 2>"$1.rec" &
	rpid=$!
	local deadline=$((SECONDS + 120))
	until [ -e "$1/header" ]; do
		[ $SECONDS -lt $deadline ] || fail "no trace $1 after 120 s"
		sleep 0.05
	done
	"$POST" -i "$1" script --follow follow.py >"$1.out" 2>"$1.err" &
	ppid=$!
	until grep -q '^first call' "$1.out"; do
		kill -0 $ppid 2>/dev/null || { cat "$1.err"; fail "post ended before the first call"; }
		[ $SECONDS -lt $deadline ] || { kill $rpid $ppid; fail "no call() while recording"; }
		sleep 0.05
	done
	kill -0 $rpid || fail "the recording ended before the test let the command go"
	expect_eq "first call, live" "first call _start" "$(head -1 "$1.out")"
}

# a recording that ends: post ends with it, step() per symbol is counts'
follow live
echo go >&3
exec 3>&-
wait $rpid
expect_eq "pitrace record's exit status" 0 $?
wait $ppid
expect_eq "post script --follow's exit status" 0 $?
"$POST" -i live counts --by symbol | awk '!/^#/ && $NF != "total" { print $1, $NF }' |
	sort -k2 >counts.rows
tail -n +2 live.out | sort -k2 >script.rows
[ "$(wc -l <counts.rows)" -eq 3 ] || { cat counts.rows; fail "counts: not _start, work, leaf"; }
expect_same_file "step() per symbol = counts --by symbol" counts.rows script.rows
expect_eq "post's stderr" "" "$(cat live.err)"

# compressed streams (zstd blocks flushed whole) are followed as well
follow zlive -z
echo go >&3
exec 3>&-
wait $rpid
wait $ppid
expect_eq "post script --follow's exit status (-z)" 0 $?
tail -n +2 zlive.out | sort -k2 >zscript.rows
expect_same_file "step() per symbol, compressed" counts.rows zscript.rows

# a finished trace: --follow reads it as without
"$POST" -i live script follow.py >plain.out || fail "script without --follow"
"$POST" -i live script --follow follow.py >again.out || fail "script --follow, finished trace"
expect_same_file "--follow on a finished trace" plain.out again.out

# the recorder killed outright: said in one line, what it wrote is read, exit 1
follow dead
kill -KILL $rpid
{ wait $rpid; } 2>/dev/null	# no "Killed" from the shell
wait $ppid
expect_eq "post's exit status after SIGKILL" 1 $?
expect_eq "one line on stderr" 1 "$(wc -l <dead.err)"
grep -q '^post: error: dead: the recorder ended without finishing the trace' dead.err ||
	{ cat dead.err; fail "no line about the recorder"; }
tail -n +2 dead.out | grep -q ' work$' || { cat dead.out; fail "the steps written before are not read"; }
exec 3>&-
echo "PASS"
