#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# import pitrace: t.resolve() answers at any time on an open trace: before
# any pass, after each table (profile, counts, arcs, tree), after a loop
# left with break and after a run() whose callback raised, and from
# another thread while tables are made (it waits for the table's pass);
# t.stats() is the last finished pass's: during a run(), a loop or a
# table, and after each; before the first pass a RuntimeError says so.
# Events kept from a pass keep their insn, and resolve after a table.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"

LIB=${PT_LIB:-$ROOT/lib}
PY=/usr/bin/python3
[ -x "$PY" ] || skip "no $PY"
compgen -G "$LIB/python3/pitrace*.so" >/dev/null ||
	skip "no $LIB/python3/pitrace*.so (post built without python3-dev)"
export PYTHONPATH=$LIB/python3 LD_LIBRARY_PATH=$LIB
arc_record tr "$PROGS/bench_calls" 2

cat >anytime.py <<'PY'
import sys, threading, pitrace
path = sys.argv[1]

# where the program's own steps are, as a pass resolves them at each step
ref, kept = {}, []
def note(s):
    if s.module == "bench_calls" and s.index % 97 == 0 and len(ref) < 40:
        ref.setdefault((s.pid, s.pc), (s.symbol, s.offset, s.insn))
        kept.append(s)
u = pitrace.open(path)
u.run(step=note)
total = u.info()["steps"]

t = pitrace.open(path)
def check(when):
    try:
        bad = [hex(pc) for (pid, pc), v in ref.items()
               if (lambda r: (r["symbol"], r["offset"], r["insn"]))(t.resolve(pc, pid=pid)) != v]
        print("resolve", when, "ok" if bad == [] else bad[:3])
    except RuntimeError as e:
        print("resolve", when, e)
def figures(when):
    try:
        return t.stats()
    except RuntimeError as e:
        print("stats", when, e)

print("ref", len(ref) > 10)
check("before any pass")
figures("before any pass")
for name, table in [("profile", t.profile), ("counts", t.counts),
                    ("counts-line", lambda: t.counts(by="line")), ("arcs", t.arcs),
                    ("tree", t.tree), ("tree-merged", lambda: t.tree(merged=True))]:
    table()
    check("after " + name)
    st = figures("after " + name)
    print("stats after", name, st is not None and st["steps"] == total)
# events kept from a pass keep where they are (each its own disassembly)
print("kept events", [(s.symbol, s.offset, s.insn) for s in kept] ==
      [ref[s.pid, s.pc] for s in kept])
u.close()
try:
    kept[0].symbol
except ValueError as e:
    print("kept after close:", e)
# events of a pass read after a table: resolved then
later = []
t.run(step=lambda s: later.append(s) if (s.pid, s.pc) in ref and len(later) < 20 else None)
t.counts()
print("read after a table", len(later) == 20 and
      [(s.symbol, s.offset, s.insn) for s in later] == [ref[s.pid, s.pc] for s in later])
for n, s in enumerate(t.steps()):
    if n == 100:
        break
check("after break")
st = figures("after break")
print("stats after break", st is not None and 100 < st["steps"] < total)
def boom(s):
    raise ValueError("from a callback")
try:
    t.run(step=boom)
except ValueError:
    pass
check("after an exception in run()")

# during a pass: the last finished pass's figures
t.run(call=lambda c: None)
last = t.stats()
during = []
def grab(c):
    if not during:
        during.append(t.stats())
t.run(call=grab)
print("stats during run", during == [last], t.stats()["steps"] == total)
last = t.stats()
for c in t.calls():
    during.append(t.stats())
    break
print("stats during a loop", during[1] == last)

# another thread while tables are made: it waits for each table's pass.
# The last finished pass must be a whole one first (the loop above was
# broken off, so its figures stop short): until the first table ends,
# stats() gives that pass's.
t.run(call=lambda c: None)
sys.setswitchinterval(1e-6)
stop, errors, answers = [], [], [0]
def other():
    while not stop:
        try:
            for (pid, pc), v in ref.items():
                r = t.resolve(pc, pid=pid)
                if (r["symbol"], r["offset"], r["insn"]) != v:
                    errors.append(hex(pc))
            if t.stats()["steps"] != total:
                errors.append("stats")
            answers[0] += 1
        except Exception as e:
            errors.append(repr(e))
            return
th = threading.Thread(target=other)
th.start()
for _ in range(3):
    t.counts(by="insn")
    t.profile()
    t.tree()
stop.append(1)
th.join()
print("thread during tables", errors[:3], answers[0] > 0)
PY
"$PY" anytime.py tr >py.out 2>py.err || { cat py.err; fail "anytime.py"; }
cat py.out

expect_eq "steps resolved by a pass" "ref True" "$(grep '^ref' py.out)"
expect_eq "resolve() before any pass" "resolve before any pass ok" \
	"$(grep '^resolve before' py.out)"
expect_eq "stats() before any pass" "stats before any pass pitrace: no pass has finished yet" \
	"$(grep '^stats before' py.out)"
for name in profile counts counts-line arcs tree tree-merged; do
	expect_eq "resolve() after $name" "resolve after $name ok" \
		"$(grep "^resolve after $name\$\|^resolve after $name " py.out)"
	expect_eq "stats() after $name" "stats after $name True" \
		"$(grep "^stats after $name " py.out)"
done
expect_eq "events kept from a pass" "kept events True" "$(grep '^kept events' py.out)"
expect_eq "an event's symbol after close()" "kept after close: pitrace: the trace is closed" \
	"$(grep '^kept after close' py.out)"
expect_eq "events of a pass read after a table" "read after a table True" \
	"$(grep '^read after a table' py.out)"
expect_eq "resolve() after break" "resolve after break ok" "$(grep '^resolve after break' py.out)"
expect_eq "stats() after break: the pass as far as it went" "stats after break True" \
	"$(grep '^stats after break' py.out)"
expect_eq "resolve() after an exception in run()" "resolve after an exception in run() ok" \
	"$(grep '^resolve after an exception' py.out)"
expect_eq "stats() during run()" "stats during run True True" \
	"$(grep '^stats during run' py.out)"
expect_eq "stats() during a loop" "stats during a loop True" \
	"$(grep '^stats during a loop' py.out)"
expect_eq "resolve() and stats() on a thread while tables are made" \
	"thread during tables [] True" "$(grep '^thread during tables' py.out)"
echo PASS
