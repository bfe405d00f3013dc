#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# import pitrace: loops over t.steps(), t.calls(), t.returns() and
# t.events(), and the tables t.profile(), t.counts(by=), t.arcs(),
# t.tree(), each checked against post's own report of the same trace;
# events kept from a loop; open()'s filters and window; a loop left early
# (break, Ctrl-C) frees its pass; other threads resolving, reading
# events and taking steps while a loop runs; to_pandas() (or its one-line
# ImportError without pandas).
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"

LIB=${PT_LIB:-$ROOT/lib}
PY=/usr/bin/python3
[ -x "$PY" ] || skip "no $PY"
compgen -G "$LIB/python3/pitrace*.so" >/dev/null ||
	skip "no $LIB/python3/pitrace*.so (post built without python3-dev)"
export PYTHONPATH=$LIB/python3 LD_LIBRARY_PATH=$LIB
arc_record tr "$PROGS/bench_calls" 2

# post's reports as lines "key|numbers", sorted (csv and json parsed by Python's modules)
report() { # NAME POST-ARGS... -- PYTHON: the rows of post's --format csv, as lines
	local name=$1 code
	shift
	code=${*: -1}
	"$POST" -i tr "${@:1:$#-1}" --format csv >"$name.csv" || fail "post ${*:1:$#-1}"
	"$PY" -c "import csv, sys
for r in csv.DictReader(open('$name.csv')):
    print($code)" >"$name.post" || fail "parse $name.csv"
}
report counts.symbol counts --by symbol '"%s|%s|%s" % (r["module"], r["symbol"], r["count"])'
report counts.line counts --by line '"%s|%s|%s" % (r["module"], r["line"], r["count"])'
report counts.insn counts --by insn '"%s|%s|%s|%s" % (r["address"], r["symbol"], r["instruction"], r["count"])'
report profile profile '"%s|%s|%s|%s|%s" % (r["function"], r["module"], r["calls"], r["base"], r["cum"])'
report profile.cmp profile --symbol cmp '"%s|%s|%s|%s|%s" % (r["function"], r["module"], r["calls"], r["base"], r["cum"])'
report counts.cmp counts --by symbol --symbol cmp '"%s|%s|%s" % (r["module"], r["symbol"], r["count"])'
report counts.window counts --by symbol --from 1000 --to 20999 '"%s|%s|%s" % (r["module"], r["symbol"], r["count"])'
# post arc's caller lines are the arcs into each function (entry: the callee)
report arcs arc '"%s|%s|%s|%s|%s" % (r["name"] or "-", r["entry"], r["calls"], r["base"], r["cum"]) if r["kind"] == "caller" else None'
grep -v '^None$' arcs.post >arcs.post.tmp && mv arcs.post.tmp arcs.post
for merged in "" --merged; do
	"$POST" -i tr tree $merged --format json >"tree$merged.json" || fail "post tree $merged"
	"$PY" -c "import json
for p, t, d, calls, base, cum, pct, fn, mod in json.load(open('tree$merged.json'))['rows']:
    print('%s|%s|%s|%s|%s|%s|%s|%s' % (p or 0, t or 0, d, fn, mod, calls, base, cum))" \
		>"tree$merged.post" || fail "parse tree$merged.json"
done

cat >iterate.py <<'PY'
import os, sys, pitrace
from collections import Counter
path, out = sys.argv[1], sys.argv[2]

def write(name, lines):
    with open(os.path.join(out, name), "w") as f:
        for line in lines:
            print(line, file=f)

def rows(table):
    return ["|".join("-" if v is None else str(v) for v in r) for r in table]

t = pitrace.open(path)
# loops, each checked against a report
steps = Counter((s.module, s.symbol) for s in t.steps())
write("steps.py", ["%s|%s|%d" % (m, s, n) for (m, s), n in steps.items()])
calls = Counter(c.callee for c in t.calls() if c.counts)
rets = Counter()
for r in t.returns():
    rets[r.function] += r.base
write("calls.py", ["%s|%d|%d" % (f, calls[f], rets[f]) for f in set(calls) | set(rets)])
# events kept from a loop keep their values (the loop reuses only events no one holds)
kept, seen = [], []
for n, s in enumerate(t.steps()):
    if n % 997 == 0:
        kept.append(s)
        seen.append((s.index, s.pc, s.tid, s.function))
print("kept", [(s.index, s.pc, s.tid, s.function) for s in kept] == seen, len(kept) > 10)
kinds = Counter(type(e).__name__ for e in t.events())
print("events", kinds["Step"], kinds["Call"], kinds["Return"], kinds["Task"] > 0)
print("calls+rets", sum(1 for e in t.events(kinds=["call", "ret"])))
# tables
p = t.profile()
print("profile", len(p), p.columns == ("function", "module", "calls", "base", "cum"),
      p[0].function == p[0][0], type(p[0]).__name__)
write("profile.py", rows(p))
write("counts.symbol.py", rows(t.counts()))
write("counts.line.py", rows(t.counts(by="line")))
write("counts.insn.py", rows(t.counts(by="insn")))
write("arcs.py", ["%s|%s|%d|%d|%d" % (a.caller or "-", a.callee, a.calls, a.base, a.cum)
                  for a in t.arcs()])
write("tree.py", rows(t.tree()))
write("tree--merged.py", rows(t.tree(merged=True)))
# a loop left early: its pass ends, its thread is gone, the next pass runs
threads = len(os.listdir("/proc/self/task"))
for n, s in enumerate(t.steps()):
    if n == 100:
        break
it = t.calls()
next(it)
del it
print("early", len(os.listdir("/proc/self/task")) == threads, len(t.profile()) == len(p))
# Ctrl-C in a loop: KeyboardInterrupt there, the pass ends with it
import signal
signal.signal(signal.SIGINT, signal.default_int_handler)
try:
    for n, s in enumerate(t.steps()):
        if n == 1000:
            signal.raise_signal(signal.SIGINT)
except KeyboardInterrupt:
    print("ctrl-c", n, len(os.listdir("/proc/self/task")) == threads, len(t.profile()) == len(p))
# other Python threads while a loop runs: resolve() and an event's attributes wait for the
# loop's batch (one thread at a time uses the reader) and answer as in the loop's thread;
# two threads taking from one loop get every step once
import queue, threading
seen, every20 = {}, {}
for n, s in enumerate(t.steps()):
    seen.setdefault((s.pid, s.pc), (s.symbol, s.offset, s.insn))
    if n % 20 == 0:
        every20[s.tid, s.index] = (s.symbol, s.insn, s.function)
def threaded(fn, *args):
    out = []
    def run():
        try:
            fn(*args)
        except Exception as e:
            out.append(repr(e))
    th = threading.Thread(target=run)
    th.start()
    return th, out
stop, wrong = [], []
def resolver():
    while not stop:
        for (pid, pc), v in seen.items():
            r = t.resolve(pc, pid=pid)
            if (r["symbol"], r["offset"], r["insn"]) != v:
                wrong.append(hex(pc))
th, err = threaded(resolver)
n = sum(1 for _ in range(3) for s in t.steps())
stop.append(1)
th.join()
print("thread resolve", n == 3 * kinds["Step"], err, wrong[:3])
handed = queue.Queue(maxsize=64)
def reader():
    for s in iter(handed.get, None):
        if (s.symbol, s.insn, s.function) != every20[s.tid, s.index]:
            wrong.append(hex(s.pc))
th, err = threaded(reader)
for n, s in enumerate(t.steps()):
    if n % 20 == 0:
        handed.put(s)
handed.put(None)
th.join()
print("thread events", err, wrong[:3])
it, taken = t.steps(), []
def take():
    taken.append(sum(1 for s in it))
ths = [threaded(take) for _ in range(2)]
for th, err in ths:
    th.join()
print("thread loop", sum(taken) == kinds["Step"], ths[0][1] + ths[1][1])
# filters and the window of open()
c = pitrace.open(path, symbol="cmp")
write("steps.cmp.py", ["%s|%s|%d" % (m, s, n) for (m, s), n in
                       Counter((s.module, s.symbol) for s in c.steps()).items()])
write("profile.cmp.py", rows(c.profile()))
write("counts.cmp.py", rows(c.counts()))
print("cmp calls", sum(1 for x in c.calls() if x.counts))
tid = t.tree()[-1].tid      # the last thread
print("tid", tid, sum(1 for s in pitrace.open(path, tid=tid).steps()),
      sum(r.base for r in pitrace.open(path, tid=tid).profile()))
w = pitrace.open(path, from_=1000, to=20999)
print("window", sum(1 for s in w.steps()))
write("counts.window.py", rows(w.counts()))
# pandas, where it is installed
try:
    import pandas
except ImportError:
    pandas = None
if pandas is None:
    try:
        p.to_pandas()
    except ImportError as e:
        print("pandas missing:", e)
else:
    df = p.to_pandas()
    print("pandas", list(df.columns) == list(p.columns), len(df) == len(p),
          int(df["base"].sum()) == sum(r.base for r in p),
          df.sort_values("cum", ascending=False).iloc[0]["cum"] == max(r.cum for r in p),
          int(t.counts(by="line").to_pandas()["count"].sum()) == sum(steps.values()))
PY
"$PY" iterate.py tr . >py.out 2>py.err || { cat py.err; fail "iterate.py"; }
cat py.out

same_sorted() { # WHAT A B
	sort "$2" >"$2.sorted"
	sort "$3" >"$3.sorted"
	expect_same_file "$1" "$2.sorted" "$3.sorted"
}
# steps per symbol are post counts --by symbol's rows
same_sorted "steps per symbol" counts.symbol.post steps.py
same_sorted "steps of --symbol cmp" counts.cmp.post steps.cmp.py
# calls per function and Base of returns are profile's calls and Base
awk -F'|' '$3 != 0 || $4 != 0 { print $1 "|" $3 "|" $4 }' profile.post >calls.post
awk -F'|' '$2 != 0 || $3 != 0' calls.py >calls.py.nz
same_sorted "calls and Base per function" calls.post calls.py.nz
# tables: the reports' rows, in their order
expect_same_file "profile()" profile.post profile.py
expect_same_file "profile() of --symbol cmp" profile.cmp.post profile.cmp.py
expect_same_file "counts()" counts.symbol.post counts.symbol.py
expect_same_file "counts(by='line')" counts.line.post counts.line.py
expect_same_file "counts(by='insn')" counts.insn.post counts.insn.py
expect_same_file "counts() of --symbol cmp" counts.cmp.post counts.cmp.py
expect_same_file "counts() of a window" counts.window.post counts.window.py
same_sorted "arcs()" arcs.post arcs.py
expect_same_file "tree()" tree.post tree.py
expect_same_file "tree(merged=True)" tree--merged.post tree--merged.py

steps=$("$POST" -i tr info | sed -n 's/^steps: *//p')
read -r _ ev_steps ev_calls ev_rets ev_tasks < <(grep '^events' py.out)
expect_eq "events(): every step" "$steps" "$ev_steps"
expect_eq "events(): a return per call" "$ev_calls" "$ev_rets"
expect_eq "events(): task events" True "$ev_tasks"
expect_eq "events(kinds=[call, ret])" "calls+rets $((ev_calls + ev_rets))" "$(grep '^calls+rets' py.out)"
expect_eq "profile()'s rows" "profile $(wc -l <profile.post) True True ProfileRow" \
	"$(grep '^profile' py.out)"
expect_eq "events kept from a loop" "kept True True" "$(grep '^kept' py.out)"
expect_eq "a loop left early" "early True True" "$(grep '^early' py.out)"
expect_eq "Ctrl-C in a loop" "ctrl-c 1000 True True" "$(grep '^ctrl-c' py.out)"
expect_eq "resolve() on a thread while a loop runs" "thread resolve True [] []" \
	"$(grep '^thread resolve' py.out)"
expect_eq "a loop's events read on another thread" "thread events [] []" \
	"$(grep '^thread events' py.out)"
expect_eq "two threads taking from one loop" "thread loop True []" "$(grep '^thread loop' py.out)"
expect_eq "calls of --symbol cmp" "cmp calls $(awk -F'|' '$1 == "cmp" { print $3 }' profile.post)" \
	"$(grep '^cmp calls' py.out)"
expect_eq "a window" "window 20000" "$(grep '^window' py.out)"
read -r _ tid tid_steps tid_base < <(grep '^tid' py.out)
"$POST" -i tr counts --by thread --format csv >threads.csv || fail "post counts --by thread"
expect_eq "tid=$tid: steps and profile's Base" \
	"$(awk -F, -v t="$tid" 'index($4, t " ") == 1 { print $1, $1 }' threads.csv)" \
	"$tid_steps $tid_base"
if "$PY" -c 'import pandas' 2>/dev/null; then
	expect_eq "to_pandas()" "pandas True True True True True" "$(grep '^pandas' py.out)"
else
	expect_eq "to_pandas() without pandas" \
		"pandas missing: pandas is not installed: apt install python3-pandas" \
		"$(grep '^pandas' py.out)"
	echo "SKIP (part): pandas is not installed: to_pandas()'s numbers not checked"
fi
echo PASS
