#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# post annotate on C loops whose trip counts are known by construction
# (tests/progs/annot_loops.c), built as the tests build it (-O0) and at -O2
# (gcc's rotated loops, cmov, merged cases): per instruction, the counts are
# valgrind's callgrind Ir and the taken branches its jcnd= counts; per source
# line, callgrind_annotate --auto's; the instructions are objdump's
# (annotate-oracle.py).  At -O0 also the numbers themselves: the inner loop's
# body runs OUTER * INNER = 70 times, its branch back is taken 70 of 80, and
# the hottest line is marked.  And post's own callgrind export read by
# callgrind_annotate gives the lines post annotate shows.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"
for tool in valgrind callgrind_annotate objdump python3 gcc; do
	command -v $tool >/dev/null || skip "$tool is not installed"
done
SRC=$ROOT/tests/progs/annot_loops.c

# check BINARY TRACE: annotate-oracle.py on BINARY's trace and valgrind's run of it
check() {
	local bin=$1 trace=$2 mod=${1##*/} m
	arc_record "$trace" "$bin"
	for m in mixed asm source; do
		"$POST" -i "$trace" annotate --module "$mod" $([ $m = mixed ] || echo --$m) \
			>"$trace.$m" 2>/dev/null || fail "annotate --$m $trace"
	done
	valgrind --tool=callgrind --dump-instr=yes --collect-jumps=yes \
		--callgrind-out-file="$trace.vg" "$bin" >/dev/null 2>"$trace.vgerr" ||
		{ cat "$trace.vgerr"; fail "valgrind $bin"; }
	objdump -d -M intel --no-show-raw-insn "$bin" >"$trace.objdump" || fail "objdump $bin"
	(cd "$ROOT/tests/e2e" && python3 annotate-oracle.py "$bin" "$SRC" "$TMP/$trace.vg" \
		"$TMP/$trace.mixed" "$TMP/$trace.asm" "$TMP/$trace.source" "$TMP/$trace.objdump" \
		nested halve pick main) || fail "post annotate and callgrind/objdump differ ($trace)"
}

check "$PROGS/annot_loops" O0
gcc -O2 -g -Wall -o "$TMP/annot_loops_O2" "$SRC" || fail "gcc -O2"
check "$TMP/annot_loops_O2" O2

# The numbers by construction (-O0: each statement's code runs once per pass).
E2E=$ROOT/tests/e2e python3 - O0.mixed O0.source <<'PY' || fail "the known counts"
import os, re, sys
sys.path.insert(0, os.environ['E2E'])
import post_annotate
text = open(sys.argv[1]).read()
src = open(sys.argv[2]).read()

def line_of(f, pattern):
    """Rows of the instructions under the source line whose text matches."""
    rows, on = [], False
    for r in f.rows:
        if r.kind == 'line':
            on = re.search(pattern, r.text) is not None
        elif on:
            rows.append(r)
    assert rows, '%s: no instructions under /%s/' % (f.name, pattern)
    return rows

nested = post_annotate.function(text, 'nested')
body = line_of(nested, r's \+= i \^ j;')
assert all(r.count == '70' for r in body), 'inner body: %s' % [r.count for r in body]
notes = [r.note for r in nested.insns() if r.note]
assert notes == ['taken 70 of 80', 'taken 10 of 11'], notes
hot = [r for r in nested.rows if r.hot]
assert any(re.search(r's \+= i \^ j;', r.text) for r in hot), 'the inner body is not marked hot'
assert nested.head('hottest lines: ').startswith('24 (330, '), nested.head('hottest lines: ')
# the loops' arrows: each back edge's target row has an arrow head
jl = [r for r in nested.insns() if r.text.startswith('jl ')]
for r in jl:
    target = int(r.text.split()[1], 16)
    t = [x for x in nested.insns() if x.addr == target][0]
    assert t.gutter.endswith('>'), 'no arrow to %#x: %r' % (target, t.gutter)
    assert r.gutter.rstrip('-').endswith('\\'), 'no arrow from %#x: %r' % (r.addr, r.gutter)

halve = post_annotate.function(text, 'halve')
assert all(r.count == '10' for r in line_of(halve, r'v >>= 1;')), 'halve: 10 halvings of 1000'
pick = post_annotate.function(text, 'pick')
for pattern, n in ((r'r \+= 5;', '6'), (r'r \^= 3;', '6'), (r'r -= 1;', '5')):
    rows = line_of(pick, pattern)
    assert all(r.count == n for r in rows), '%s: %s' % (pattern, [r.count for r in rows])
# --source: the line rows carry the same counts, jumps between lines drawn
s = post_annotate.function(src, 'nested')
assert s.line_counts() == nested.line_counts(), (s.line_counts(), nested.line_counts())
assert any(r.note == '-> 25 70x' for r in s.rows), [r.note for r in s.rows if r.note]
print('the known counts and jumps of nested, halve and pick')
PY

# post's own callgrind export through callgrind_annotate: the lines annotate shows.
"$POST" -i O2 export --format callgrind -o O2.cg || fail "export callgrind"
E2E=$ROOT/tests/e2e python3 - O2.cg O2.source "$SRC" <<'PY' || fail "annotate and the callgrind export differ"
import os, sys
sys.path.insert(0, os.environ['E2E'])
import cg_annotate, post_annotate
want = cg_annotate.source_lines(cg_annotate.annotate(sys.argv[1], '--auto=yes',
                                                     '--context=1000000'), sys.argv[3])
got = {}
for f in post_annotate.functions(open(sys.argv[2]).read()):
    if (f.head('source: ') or '').split(' ')[0] == sys.argv[3]:
        for label, n in f.line_counts().items():
            if n:
                got[int(label)] = got.get(int(label), 0) + n
assert got == want, (sorted(got.items()), sorted(want.items()))
print('%d lines as callgrind_annotate shows the export' % len(got))
PY
echo PASS
