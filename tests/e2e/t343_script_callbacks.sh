#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# post script's callbacks against post's own reports on one trace of
# tests/progs/bench_calls (4 threads, qsort, a recursion, libc): step()
# per module and symbol is counts --by symbol; call() per function is
# profile's calls, and Base and Cum summed at ret() its Base and Cum;
# every step's bytes are the ones resolve() reads at its pc; a
# calls-only script keeps the engine's fast path, a step() one does not;
# --symbol and a window select as in the reports; sys.argv; then errors:
# an exception and a syntax error print Python's traceback with the
# script's line and exit 1, sys.exit(N) exits N, Ctrl-C exits 130.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"

"$POST" script --help >/dev/null || fail "post script --help"
"$POST" -i /nonexistent script /dev/null 2>&1 | grep -q 'built without Python' &&
	skip "post was built without Python (python3-dev)"
arc_record tr "$PROGS/bench_calls" 2

# rows "N module symbol" of a report's csv, sorted
csv_rows() {	# csv_rows COLUMN...
	python3 -c '
import csv, sys
for r in csv.DictReader(sys.stdin):
    print(" ".join(r[c] for c in sys.argv[1:]))' "$@" | sort
}

cat >steps.py <<'PY'
import sys, pitrace
from collections import Counter
n = Counter()
differ = 0
def step(s):
    global differ
    n[s.module, s.symbol] += 1
    if s.bytes != pitrace.trace.resolve(s.pc, pid=s.pid, kernel=s.kernel)["bytes"]:
        differ += 1
def end():
    for (m, sym), k in n.items():
        print(k, m, sym)
    if differ or not n:
        sys.exit("%d steps whose bytes are not resolve()'s" % differ)
PY
"$POST" -i tr counts --by symbol --format csv | csv_rows count module symbol >counts.rows
[ "$(wc -l <counts.rows)" -gt 20 ] || fail "counts --by symbol has too few rows"
# post's own exit status (a pipe's would be sort's)
"$POST" -i tr script steps.py >script.out || fail "script steps.py"
sort script.out >script.rows
expect_same_file "step() per symbol" counts.rows script.rows

cat >calls.py <<'PY'
import sys, pitrace
from collections import Counter
calls, base, cum, module = Counter(), Counter(), Counter(), {}
def call(c):
    if c.counts:
        calls[c.callee] += 1
    module[c.callee] = c.callee_module
def ret(r):
    base[r.function] += r.base
    cum[r.function] += r.fn_cum
def end():
    for f in base:
        print(calls[f], base[f], cum[f], f, module[f])
    st = pitrace.trace.stats()
    print("stats", st["calls_whole"], st["steps_single"], st["steps"], file=sys.stderr)
PY
"$POST" -i tr profile --format csv | csv_rows calls base cum function module >profile.rows
"$POST" -i tr script calls.py 2>calls.err >script.out || fail "script calls.py"
sort script.out >script.rows
expect_same_file "call() and ret() per function" profile.rows script.rows
read -r _ whole single steps <calls.err
[ "$whole" -gt 100 ] || fail "a calls-only script took $whole calls whole (fast path lost)"
[ "$single" -lt "$steps" ] || fail "a calls-only script took every step one at a time"

# step() as well: every step one at a time, the same calls, Base and Cum
sed -i 's/^def end/def step(s):\n    pass\ndef end/' calls.py
"$POST" -i tr script calls.py 2>calls.err >script.out || fail "script calls.py + step"
sort script.out >script.rows
expect_same_file "call() and ret() with step()" profile.rows script.rows
read -r _ whole single steps <calls.err
expect_eq "steps one at a time with step()" "$steps" "$single"

# filters and window: the reports' selection
"$POST" -i tr counts --by symbol --symbol cmp --format csv | csv_rows count module symbol >f.rows
"$POST" -i tr script --symbol cmp steps.py >s.out || fail "script --symbol cmp"
sort s.out >s.rows
expect_same_file "step() with --symbol cmp" f.rows s.rows
"$POST" -i tr counts --by symbol --from 1000 --to 20999 --format csv |
	csv_rows count module symbol >f.rows
"$POST" -i tr script --from 1000 --to 20999 steps.py >s.out || fail "script --from --to"
sort s.out >s.rows
expect_same_file "step() in a window" f.rows s.rows
expect_eq "steps in the window" 20000 "$(awk '{ n += $1 } END { print n }' s.rows)"

# sys.argv: the script and its arguments, post's options before it
echo 'import sys; print(sys.argv)' >argv.py
expect_eq "sys.argv" "['argv.py', '-x', '--pid', '7']" \
	"$("$POST" -i tr script argv.py -x --pid 7)"

# errors: Python's traceback with the script's file and line, exit 1
printf 'def call(c):\n    pass\ndef ret(r):\n    return r.nosuch\n' >bad.py
run_expect_status "an exception in ret()" 1 "$POST" -i tr script bad.py 2>bad.err
grep -q 'File "bad.py", line 4, in ret' bad.err || { cat bad.err; fail "no traceback line"; }
grep -q "^AttributeError: 'pitrace.Return' object has no attribute 'nosuch'" bad.err ||
	{ cat bad.err; fail "no exception line"; }
printf 'def step(s)\n    pass\n' >syntax.py
run_expect_status "a syntax error" 1 "$POST" -i tr script syntax.py 2>syntax.err
grep -q '^SyntaxError' syntax.err && grep -q 'File "syntax.py", line 1' syntax.err ||
	{ cat syntax.err; fail "no syntax error said"; }
printf 'import sys\ndef end():\n    sys.exit(3)\n' >exit.py
run_expect_status "sys.exit(3)" 3 "$POST" -i tr script exit.py
run_expect_status "a missing script" 1 "$POST" -i tr script nosuch.py 2>/dev/null
run_expect_status "no script" 2 "$POST" -i tr script 2>/dev/null
run_expect_status "a missing trace" 1 "$POST" -i nosuch script argv.py 2>/dev/null
printf 'import pitrace\ndef begin():\n    pitrace.trace.run(call=1)\n' >badrun.py
run_expect_status "run(call=1)" 1 "$POST" -i tr script badrun.py 2>badrun.err
grep -q '^TypeError: pitrace: run(call=...) is not callable' badrun.err ||
	{ cat badrun.err; fail "run(call=1) not refused"; }

# a reader that closes the pipe early: no traceback, exit 0
printf 'def end():\n    for i in range(200000):\n        print(i)\n' >many.py
"$POST" -i tr script many.py 2>pipe.err | head -1 >/dev/null
expect_eq "exit status with head" 0 "${PIPESTATUS[0]}"
[ -s pipe.err ] && { cat pipe.err; fail "output to head said something on stderr"; }

# Ctrl-C: KeyboardInterrupt in the script ends the pass, exit 130
cat >slow.py <<'PY'
import time
def begin():
    open("started", "w").close()
def step(s):
    time.sleep(0.01)
PY
env --default-signal=INT "$POST" -i tr script slow.py 2>int.err &
pid=$!
for _ in $(seq 200); do [ -e started ] && break; sleep 0.05; done
[ -e started ] || { kill "$pid"; fail "the script did not start"; }
kill -INT "$pid"
wait "$pid"
expect_eq "exit status after Ctrl-C" 130 $?
grep -q 'post: error: script: slow.py interrupted' int.err ||
	{ cat int.err; fail "no interrupted line"; }
echo PASS
