#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Any call depth goes through every report, in time and output linear in
# the trace (issue: tree, arc --check and folded crashed at 150,000 levels,
# and the engine was super-quadratic in depth).  A plain recursive C
# function at -O0 (tests/progs/deep_recursion.c) is recorded 50 levels
# deep; its steps are cut into prefix, one level's descent, the deepest
# call, one level's return and the rest, and mktrace writes that same code
# LEVELS deep (default 500,000; PT_DEEP_LEVELS=10000000 for ten million)
# through the real trace writer.  Written at 50 levels, the synthetic trace
# must be the recording, step for step.  At LEVELS, counts are known by
# construction: depth has LEVELS+1 calls, and every report must finish.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"
PROG=$PROGS/deep_recursion
[ -x "$PROG" ] && [ -x "$PROGS/mktrace" ] || skip "deep_recursion or mktrace not built (make progs)"
LEVELS=${PT_DEEP_LEVELS:-500000}
REC=50	# tests/progs/deep_recursion.c LEVELS

"$PITRACE" record -o rec.data -- "$PROG" >/dev/null 2>&1 || fail "record deep_recursion"
arc_verify rec.data
"$POST" -i rec.data steps --no-pager | awk '!/^#/ { print $3 }' >rec.steps
entry=$(nm "$PROG" | awk '$3 == "depth" { print $1 }' | sed 's/^0*//')
call=$(objdump -d --no-show-raw-insn "$PROG" |
	awk '/<depth>:/ { on = 1 } on && /call/ { sub(":", "", $1); print $1; exit }')
[ -n "$entry" ] && [ -n "$call" ] || fail "no depth() or its call in $PROG"
ret=$(printf '%x' $((0x$call + 5)))
load=$(readelf -lW "$PROG" | awk '$1 == "LOAD" && / R E / { print $3 ":" $6 ":" $2; exit }')
IFS=: read -r vaddr memsz off <<<"$load"

# lists LEVELS: mktrace's --pcs arguments for depth() LEVELS deep
cat >lists.py <<'PY'
import sys
m, n, entry, ret = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
s = [l.strip() for l in sys.stdin if l.strip()]
p = [i for i, a in enumerate(s) if a == entry]	# n + 1 activations
q = [i for i, a in enumerate(s) if a == ret]	# n returns into depth
assert len(p) == n + 1 and len(q) == n, (len(p), len(q))
parts = [(s[:p[0]], 1), (s[p[0]:p[1]], m), (s[p[n]:q[0]], 1), (s[q[0]:q[1]], m - 1), (s[q[n - 1]:], 1)]
print(" ".join("--pcs " + ",".join("0x" + a for a in l) + "@%d" % k for l, k in parts if l))
PY
lists() { python3 lists.py "$1" "$REC" "$entry" "$ret" <rec.steps; }
# shellcheck disable=SC2046
"$PROGS/mktrace" syn50.data --mmap "$PROG:$vaddr:$memsz:$off" $(lists $REC) || fail "mktrace at $REC levels"
"$POST" -i syn50.data steps --no-pager | awk '!/^#/ { print $3 }' >syn50.steps
expect_same_file "the synthetic trace's steps at $REC levels" rec.steps syn50.steps

# shellcheck disable=SC2046
"$PROGS/mktrace" deep.data --mmap "$PROG:$vaddr:$memsz:$off" $(lists "$LEVELS") ||
	fail "mktrace at $LEVELS levels"
total=$("$POST" -i deep.data info | awk '/^steps/ { gsub(",", "", $2); print $2; exit }')
start_base=$("$POST" -i rec.data profile --no-pager | awk '$NF == "[deep_recursion]" && $(NF-1) == "_start" { print $2 }')
[ -n "$total" ] && [ -n "$start_base" ] || fail "no step total or _start's Base"

# profile: LEVELS+1 calls of depth, its Base all but _start's own steps
"$POST" -i deep.data profile --no-pager >profile.txt || fail "profile at $LEVELS levels"
got=$(awk '$(NF-1) == "depth" { print $1 " " $2 " " $4 }' profile.txt | tr -d ,)
expect_eq "depth's calls, Base, Cum" "$((LEVELS + 1)) $((total - start_base)) $((total - start_base))" "$got"
"$POST" -i deep.data arc --check >check.txt 2>&1 || { cat check.txt; fail "arc --check at $LEVELS levels"; }
grep -q "invariants: hold" check.txt || fail "arc --check: $(cat check.txt)"

# tree (per thread and merged): a line per level, indented at most 100 levels
for t in "" --merged; do
	"$POST" -i deep.data tree $t --no-pager >tree.txt || fail "tree $t at $LEVELS levels"
	n=$(grep -c ' depth$' tree.txt)
	expect_eq "tree $t: depth's lines" "$((LEVELS + 1))" "$n"
	w=$(awk '{ print length }' tree.txt | sort -n | tail -1)
	[ "$w" -lt 400 ] || fail "tree $t: a line of $w columns (indentation is bounded)"
done

# flow: an entry and an end per activation
"$POST" -i deep.data flow --no-pager >flow.txt || fail "flow at $LEVELS levels"
expect_eq "flow: depth's entries" "$((LEVELS + 1))" "$(grep -c '> depth$' flow.txt)"
expect_eq "flow: depth's ends" "$((LEVELS + 1))" "$(grep -c '< depth (' flow.txt)"

# folded: lines cut at --max-stack, their counts still every step
"$POST" -i deep.data export --format folded -o deep.folded 2>folded.err ||
	fail "folded at $LEVELS levels: $(cat folded.err)"
grep -q "max-stack" folded.err || fail "folded: no word that deep paths were cut"
sum=$(awk '{ s += $NF } END { print s }' deep.folded)
expect_eq "folded: the counts' sum" "$total" "$sum"
frames=$(awk -F';' '{ print NF }' deep.folded | sort -n | tail -1)
[ "$frames" -le 512 ] || fail "folded: a line of $frames frames (--max-stack 512)"
lines=$(wc -l <deep.folded)
[ "$lines" -le 1024 ] || fail "folded: $lines lines for one recursion"

# svg and callgrind finish, and are no bigger than linear in the tree
"$POST" -i deep.data export --format svg -o deep.svg 2>/dev/null || fail "svg at $LEVELS levels"
grep -q "deeper than 512 levels" deep.svg || fail "svg: no note that deep paths end at --max-stack"
"$POST" -i deep.data export --format callgrind -o deep.cg || fail "callgrind at $LEVELS levels"
if command -v callgrind_annotate >/dev/null; then
	callgrind_annotate deep.cg >cg.txt 2>&1 || fail "callgrind_annotate: $(head -3 cg.txt)"
	got=$(awk '$NF ~ /^\[/ && $(NF-1) ~ /:depth$/ { gsub(",", "", $1); print $1; exit }' cg.txt)
	expect_eq "callgrind_annotate: depth's self" "$((total - start_base))" "$got"
fi
echo "PASS: $LEVELS levels, $total steps"
