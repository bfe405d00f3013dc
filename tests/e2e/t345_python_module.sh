#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# import pitrace in the system's python3 (/usr/bin/python3), the extension
# the build leaves in lib/python3: steps per function are profile's Base,
# calls per function its calls; events kept after their callback keep
# their values (and are post steps' first steps); a window, a filter,
# info(), stats(), resolve(); errors as Python exceptions.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"

LIB=${PT_LIB:-$ROOT/lib}
PY=/usr/bin/python3
[ -x "$PY" ] || skip "no $PY"
compgen -G "$LIB/python3/pitrace*.so" >/dev/null ||
	skip "no $LIB/python3/pitrace*.so (post built without python3-dev)"
export PYTHONPATH=$LIB/python3 LD_LIBRARY_PATH=$LIB
"$PY" -c 'import pitrace' || fail "import pitrace"
arc_record tr "$PROGS/bench_calls" 2

cat >rows.py <<'PY'
import sys, pitrace
from collections import Counter
t = pitrace.open(sys.argv[1])
steps, calls = Counter(), Counter()
def call(c):
    if c.counts:
        calls[c.callee] += 1
t.run(step=lambda s: steps.update((s.function,)), call=call)
for f, n in steps.items():
    print(calls[f], n, f)
PY
"$POST" -i tr profile --format csv | python3 -c '
import csv, sys
for r in csv.DictReader(sys.stdin):
    if r["base"] != "0":
        print(r["calls"], r["base"], r["function"])' | sort >profile.rows
"$PY" rows.py tr | sort >py.rows || fail "rows.py"
expect_same_file "steps and calls per function" profile.rows py.rows

cat >api.py <<'PY'
import sys, pitrace
path = sys.argv[1]
kept = []
def keep(s):
    if s.index < 3:
        kept.append(s)
with pitrace.open(path) as t:
    t.run(step=keep)
    for s in kept:      # read after the pass: the objects were not reused
        print("step", s.index, s.tid, "%x" % s.pc, "%s+%#x" % (s.symbol, s.offset), s.insn)
    st = t.stats()
    print("stats", st["steps"], st["steps_single"], t.info()["steps"])
    t.run(call=lambda c: None)
    st = t.stats()
    print("fast", int(st["calls_whole"] > 0), int(st["steps_single"] < st["steps"]))
    where = t.resolve(kept[0].pc, pid=kept[0].pid)
    print("resolve", where["symbol"], where["offset"], where["insn"] == kept[0].insn)
n = [0]
pitrace.open(path, from_=1000, to=20999).run(step=lambda s: n.__setitem__(0, n[0] + 1))
print("window", n[0])
n = [0]
pitrace.open(path, symbol="cmp").run(step=lambda s: n.__setitem__(0, n[0] + 1))
print("cmp", n[0])
def boom(c):
    raise ValueError("from a callback")
for what, fn in [("missing", lambda: pitrace.open(path + "-missing")),
                 ("keyword", lambda: pitrace.open(path, nosuch=1)),
                 ("ring", lambda: pitrace.open(path, ring="both")),
                 ("callable", lambda: pitrace.open(path).run(call=3)),
                 ("raise", lambda: pitrace.open(path).run(call=boom))]:
    try:
        fn()
        print("error", what, "none")
    except Exception as e:
        print("error", what, type(e).__name__)
t = pitrace.open(path)
def nested(c):
    t.run(call=lambda c: None)
try:
    t.run(call=nested)
except RuntimeError:
    print("error nested RuntimeError")
PY
"$PY" api.py tr >api.out 2>api.err || { cat api.err; fail "api.py"; }
"$POST" -i tr steps --to 2 | sed -E '/^#/d; s/ {2,}/|/g' |
	awk -F'|' '{ print "step", $2, $3, $4, $5, $8 }' >steps.post
grep '^step' api.out | sed 's/ *$//' >steps.py
expect_same_file "the first steps, kept" steps.post steps.py
steps=$("$POST" -i tr info | sed -n 's/^steps: *//p')
expect_eq "stats of a step pass" "stats $steps $steps $steps" "$(grep '^stats' api.out)"
expect_eq "a calls-only pass" "fast 1 1" "$(grep '^fast' api.out)"
expect_eq "resolve" "resolve _start 0 True" "$(grep '^resolve' api.out)"
expect_eq "a window" "window 20000" "$(grep '^window' api.out)"
expect_eq "--symbol cmp" "cmp $(awk '$3 == "cmp" { print $2 }' profile.rows)" \
	"$(grep '^cmp' api.out)"
expect_eq "errors" "error missing OSError
error keyword TypeError
error ring ValueError
error callable TypeError
error raise ValueError
error nested RuntimeError" "$(grep '^error' api.out)"
echo PASS
