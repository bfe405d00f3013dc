#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# post script --follow on per-CPU streams merged by time, as the driver's
# collector writes them with SYNCED_TIME (docs/trace-format.md, "Following
# a recording"): tests/progs/mkfollow_cpu writes windows each on disk with
# a cut in its middle, CPU 1's runs and an MMAP task record of the window's
# second half coming only with the next window, and a CPU's stream
# appearing later.  The follower's events, in order (a digest of every
# event), and steps per thread are the finished trace's; a reader that
# went past the cut would put the MMAP or CPU 1's runs after CPU 0's.
. "$(dirname "$0")/lib.sh"
need_prog mkfollow_cpu
"$POST" -i /nonexistent script /dev/null 2>&1 | grep -q 'built without Python' &&
	skip "post was built without Python (python3-dev)"

cat >order.py <<'PY'
import hashlib
from collections import Counter
h = hashlib.sha1()
steps = Counter()
said = False
def step(s):
    global said
    if not said:
        print("first step", flush=True)
        said = True
    steps[s.tid] += 1
    h.update(b"s%d %d %d;" % (s.index, s.tid, s.pc))
def task(e):
    h.update(("t%s %d %d %s;" % (e.kind, e.pid, e.tid, e.path)).encode())
def gap(e):
    h.update(("g%s %d %d;" % (e.kind, e.index, e.tid)).encode())
def end():
    print("events", h.hexdigest())
    for tid, n in sorted(steps.items()):
        print("steps", tid, n)
PY

"$PROGS/mkfollow_cpu" cpus go 8 &
rpid=$!
deadline=$((SECONDS + 120))
until [ -e cpus/header ]; do
	[ $SECONDS -lt $deadline ] || fail "no trace after 120 s"
	sleep 0.05
done
expect_eq "streams when the follower opens the trace" 2 "$(ls cpus | grep -c '^steps\.')"
"$POST" -i cpus dump --header | grep -q 'SYNCED_TIME.*cut_ns' ||
	fail "no SYNCED_TIME in the header while recording"
"$POST" -i cpus script --follow order.py >cpus.out 2>cpus.err &
ppid=$!
until grep -qs '^first step' cpus.out; do
	kill -0 $ppid 2>/dev/null || { cat cpus.err; fail "post ended before a step"; }
	[ $SECONDS -lt $deadline ] || { kill $rpid $ppid; fail "no step() while recording"; }
	sleep 0.05
done
kill -0 $rpid || fail "the recording ended before the follower read it"
touch go
wait $rpid
expect_eq "mkfollow_cpu's exit status" 0 $?
wait $ppid
expect_eq "post script --follow's exit status" 0 $?
expect_eq "post's stderr" "" "$(cat cpus.err)"
expect_eq "streams at the end" 3 "$(ls cpus | grep -c '^steps\.')"
"$POST" -i cpus script order.py >cpus.plain || fail "script without --follow"
expect_same_file "--follow sees what the finished trace has" cpus.plain cpus.out
"$POST" -i cpus dump --header | grep -q SYNCED_TIME && fail "SYNCED_TIME in the final header"
echo "PASS"
