#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# post export on tests/progs/arc_basic.S: callgrind_annotate reads the
# callgrind file cleanly and its per-function self and inclusive totals equal
# post profile's Base and Cum; folded stacks are known by construction; the
# Chrome JSON parses and has matched B/E events per thread.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"
command -v callgrind_annotate >/dev/null || skip "callgrind_annotate (valgrind) not installed"
command -v python3 >/dev/null || skip "python3 not installed"

arc_record trace "$PROGS/arc_basic"

# callgrind
"$POST" -i trace export --format callgrind -o out.cg || fail "export callgrind"
callgrind_annotate out.cg >ann.self 2>ann.err || { cat ann.err; fail "callgrind_annotate"; }
[ -s ann.err ] && { cat ann.err; fail "callgrind_annotate complained"; }
callgrind_annotate --inclusive=yes out.cg >ann.incl 2>ann.err || fail "callgrind_annotate --inclusive"
# "9 (39.13%)  /path/arc_basic.S:g [/path/arc_basic]" -> "g 9"
ann() { sed -n 's/^ *\([0-9,]*\) ([ 0-9.]*%)  [^ ]*:\([^ ]*\) \[.*/\2 \1/p' "$1" | tr -d , | sort; }
"$POST" -i trace profile | awk '!/^#/ { print $6, $2 }' | sort >post.base
"$POST" -i trace profile | awk '!/^#/ { print $6, $4 }' | sort >post.cum
ann ann.self >cg.self
ann ann.incl >cg.incl
expect_same_file "callgrind_annotate self vs post Base" post.base cg.self
expect_same_file "callgrind_annotate inclusive vs post Cum" post.cum cg.incl
expect_eq "functions annotated" 4 "$(wc -l <cg.self)"

# folded stacks, by construction (see arc_basic.S)
"$POST" -i trace export --format folded -o out.folded || fail "export folded"
printf '%s\n' "_start 4" "_start;main 4" "_start;main;f 6" "_start;main;f;g 6" \
	"_start;main;g 3" >want.folded
expect_same_file "folded stacks" want.folded out.folded

# Chrome trace events
"$POST" -i trace export --format chrome -o out.json || fail "export chrome"
python3 - out.json <<'PY' || fail "chrome JSON"
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
stacks, calls = {}, 0
for i, e in sorted(enumerate(events), key=lambda p: (p[1]["ts"], p[0])):
    s = stacks.setdefault(e["tid"], [])
    if e["ph"] == "B":
        s.append(e["name"])
        calls += 1
    elif e["ph"] == "E":
        assert s and s.pop() == e["name"], "unmatched E for %s at %d" % (e["name"], e["ts"])
assert all(not s for s in stacks.values()), "unclosed B events"
assert calls == 7, "expected 7 frames (_start, main, 2 f, 3 g), got %d" % calls
PY
# --clock steps: a step is a nanosecond; main starts at step 1, the first g at 4
"$POST" -i trace export --format chrome --clock steps -o steps.json || fail "export --clock steps"
python3 - steps.json <<'PY' || fail "chrome JSON, --clock steps"
import json, sys
b = [(e["name"], e["ts"]) for e in json.load(open(sys.argv[1]))["traceEvents"] if e["ph"] == "B"]
assert b[:4] == [("_start", 0), ("main", 0.001), ("f", 0.002), ("g", 0.004)], b[:4]
PY
echo "PASS"
