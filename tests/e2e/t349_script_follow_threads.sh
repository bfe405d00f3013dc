#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# post script --follow and pitrace.open(follow=True) read what a recording
# gains after they opened it: threads started later (tests/progs/
# pt_follow_threads starts 4 once the test writes to its stdin, a FIFO,
# after the follower has printed its first step: the trace then has one
# stream) and a library loaded later (pt_follow_dlopen dlopen()s zlib
# likewise, recorded with --on).  With --follow a script sees exactly
# what it sees once the trace is finished: the same events in the same
# order (a digest of every event), per thread the same steps and calls;
# steps per symbol and per thread are post counts', calls post profile's,
# and zlibVersion is found by name.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/ptrace_lib.sh"
need_prog pt_follow_threads pt_follow_dlopen
"$POST" -i /nonexistent script /dev/null 2>&1 | grep -q 'built without Python' &&
	skip "post was built without Python (python3-dev)"

cat >order.py <<'PY'
import hashlib
from collections import Counter
h = hashlib.sha1()
steps, calls, per_tid = Counter(), Counter(), Counter()
said = False
def step(s):
    global said
    if not said:
        print("first step", flush=True)
        said = True
    steps[(s.tid, s.symbol)] += 1
    h.update(b"s%d %d %d;" % (s.index, s.tid, s.pc))
def call(c):
    if c.counts:
        calls[(c.tid, c.callee)] += 1
    h.update(("c%d %d %s %s %d;" % (c.index, c.tid, c.callee, c.kind, c.depth)).encode())
def ret(r):
    h.update(("r%d %d %s %d %d;" % (r.index, r.tid, r.function, r.base, r.cum)).encode())
def task(e):
    h.update(("t%s %d %d %s %s;" % (e.kind, e.pid, e.tid, e.path, e.ptid)).encode())
def gap(e):
    h.update(("g%s %d %d;" % (e.kind, e.index, e.tid)).encode())
def signal(e):
    h.update(("a%s %d %d;" % (e.kind, e.index, e.tid)).encode())
def syscall(e):
    h.update(("y%d %d;" % (e.index, e.tid)).encode())
def end():
    print("events", h.hexdigest())
    for (tid, sym), n in sorted(steps.items()):
        print("steps", tid, sym, n)
    for (tid, fn), n in sorted(calls.items()):
        print("calls", tid, fn, n)
PY

# follow TRACE PROG [RECORD OPTIONS]: pitrace record of PROG into TRACE and
# post script --follow order.py on it, both in the background (rpid, ppid),
# once the script's first step is out; the test lets PROG go with go()
follow() {
	mkfifo "$1.in" || fail "mkfifo"
	exec 3<>"$1.in"
	"$PITRACE" record -o "$1" "${@:3}" -- "$PROGS/$2" <"$1.in" >/dev/null 2>"$1.rec" &
	rpid=$!
	local deadline=$((SECONDS + 120))
	until [ -e "$1/header" ]; do
		[ $SECONDS -lt $deadline ] || fail "no trace $1 after 120 s"
		sleep 0.05
	done
	"$POST" -i "$1" script --follow order.py >"$1.out" 2>"$1.err" &
	ppid=$!
	until grep -qs '^first step' "$1.out"; do
		kill -0 $ppid 2>/dev/null || { cat "$1.err"; fail "post ended before a step"; }
		[ $SECONDS -lt $deadline ] || { kill $rpid $ppid; fail "no step() while recording"; }
		sleep 0.05
	done
	kill -0 $rpid || fail "the recording ended before the test let the command go"
}
go() {
	echo go >&3
	exec 3>&-
	wait $rpid
	expect_eq "pitrace record's exit status ($1)" 0 $?
	wait $ppid
	expect_eq "post script --follow's exit status ($1)" 0 $?
	expect_eq "post's stderr ($1)" "" "$(cat "$1.err")"
	"$POST" -i "$1" script order.py >"$1.plain" || fail "script without --follow ($1)"
	expect_same_file "$1: --follow sees what the finished trace has" "$1.plain" "$1.out"
}
# sum_by COLUMNS FILE: "KEY N" lines of the script's output summed by the columns named (awk)
sum_by() {
	awk -v k="$1" -v want="$3" '$1 == want { split(k, c, ","); key = "";
		for (i in c) key = key (key == "" ? "" : " ") $(c[i]); n[key] += $NF }
		END { for (x in n) print x, n[x] }' "$2" | sort
}

# threads started after the follower opened the trace
follow live pt_follow_threads
expect_eq "streams when the follower is there" 1 "$(ls live | grep -c '^steps\.')"
go live
expect_eq "threads" 5 "$(ls live | grep -c '^steps\.')"
"$POST" -i live counts --by symbol | awk '!/^#/ && $NF != "total" { print $NF, $1 }' |
	sort >counts.symbol
expect_same_file "steps per symbol = counts --by symbol" counts.symbol \
	<(sum_by 3 live.out steps)
"$POST" -i live counts --by thread | awk '!/^#/ && $NF != "total" { print $4, $1 }' |
	sort >counts.thread
[ "$(wc -l <counts.thread)" -eq 5 ] || { cat counts.thread; fail "counts --by thread: not 5"; }
expect_same_file "steps per thread = counts --by thread" counts.thread \
	<(sum_by 2 live.out steps)
"$POST" -i live profile | awk '!/^#/ && $1 > 0 { print $(NF-1), $1 }' |
	sort >profile.calls
expect_same_file "calls per function = profile" profile.calls <(sum_by 3 live.out calls)

# compressed streams
follow zlive pt_follow_threads -z
go zlive

# a library loaded after the follower opened the trace
follow dl pt_follow_dlopen --on pt_spin --on zlibVersion --on pt_spin2
go dl
"$POST" -i dl counts --by symbol | awk '!/^#/ && $NF != "total" { print $NF, $1 }' |
	sort >dl.symbol
grep -q '^zlibVersion [1-9]' dl.symbol || { cat dl.symbol; fail "no zlibVersion in counts"; }
expect_same_file "steps per symbol = counts (dlopen)" dl.symbol <(sum_by 3 dl.out steps)
grep -q '^calls [0-9]* zlibVersion 3$' dl.out || { cat dl.out; fail "not 3 calls of zlibVersion"; }

# import pitrace: open(follow=True)
LIB=${PT_LIB:-$ROOT/lib}
PY=/usr/bin/python3
if [ -x "$PY" ] && compgen -G "$LIB/python3/pitrace*.so" >/dev/null; then
	cat >follow_open.py <<'PY'
import sys, pitrace
from collections import Counter
n = Counter()
said = False
def step(s):
    global said
    if not said:
        print("first step", flush=True)
        said = True
    n[(s.tid, s.symbol)] += 1
t = pitrace.open(sys.argv[1], follow=sys.argv[2] == "follow")
t.run(step=step)
print("state", t.info()["state"])
for (tid, sym), k in sorted(n.items()):
    print("steps", tid, sym, k)
PY
	mkfifo py.in || fail "mkfifo"
	exec 3<>py.in
	"$PITRACE" record -o py -- "$PROGS/pt_follow_threads" <py.in >/dev/null 2>py.rec &
	rpid=$!
	until [ -e py/header ]; do sleep 0.05; done
	PYTHONPATH=$LIB/python3 LD_LIBRARY_PATH=$LIB "$PY" follow_open.py py follow >py.out 2>py.err &
	ppid=$!
	until grep -qs '^first step' py.out; do
		kill -0 $ppid 2>/dev/null || { cat py.err; fail "python ended before a step"; }
		sleep 0.05
	done
	expect_eq "streams when open(follow=True) is there" 1 "$(ls py | grep -c '^steps\.')"
	echo go >&3
	exec 3>&-
	wait $rpid
	wait $ppid
	expect_eq "python's exit status, follow=True" 0 $?
	PYTHONPATH=$LIB/python3 LD_LIBRARY_PATH=$LIB "$PY" follow_open.py py no >py.plain ||
		fail "pitrace.open without follow"
	expect_same_file "open(follow=True) = the finished trace" py.plain py.out
	grep -q '^state complete$' py.out || { cat py.out; fail "state after follow=True"; }
	expect_eq "threads seen by open(follow=True)" 5 \
		"$(awk '$1 == "steps" { print $2 }' py.out | sort -u | wc -l)"
else
	echo "note: no $PY or $LIB/python3/pitrace*.so: pitrace.open(follow=True) not tried"
fi
echo "PASS"
