#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# examples/scripts/*.py against post's own reports on the same traces:
# tests/progs/bench_calls (threads, qsort, libc) and tests/progs/annot_loops
# (loops whose trip counts are known by construction).
#   hot_blocks.py      blocks' steps per function = profile's Base, in all info's steps
#   insn_mix.py        per function = profile's Base; mnemonics = counts --by insn's
#   syscall_cost.py    system calls = counts --by insn's syscall steps; a caller's
#                      steps = the arc's Cum when every call made one
#   call_paths.py      paths to cmp = its calls; their last callers = arc's callers
#   loops.py           annot_loops' trip counts; a head's trips = its counts
#   callgraph_dot.py   edges = arc's calls; nodes = profile's calls, Base, Cum
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"

EX=$ROOT/examples/scripts
"$POST" -i /nonexistent script /dev/null 2>&1 | grep -q 'built without Python' &&
	skip "post was built without Python (python3-dev)"
arc_record tr "$PROGS/bench_calls" 2

# csv_rows COLUMN... <CSV: the columns of each row, space-separated, sorted
csv_rows() {
	python3 -c '
import csv, sys
for r in csv.DictReader(sys.stdin):
    print(" ".join(r[c] for c in sys.argv[1:]))' "$@" | sort
}
"$POST" -i tr profile --format csv | csv_rows function calls base cum >profile.rows
awk '$3 != 0 { print $1, $3 }' profile.rows | sort >base.rows
"$POST" -i tr arc --format csv >arc.csv || fail "post arc"
"$POST" -i tr counts --by insn --format csv >insn.csv || fail "post counts --by insn"
steps=$("$POST" -i tr info | sed -n 's/^steps: *//p')

# hot_blocks: every block (top 10^9), steps summed per function
"$POST" -i tr script "$EX/hot_blocks.py" 1000000000 >hot.out || fail "hot_blocks.py"
expect_eq "hot_blocks' total" "total: $steps steps" "$(tail -1 hot.out | sed 's/ in .*//')"
sed '1d;$d' hot.out | awk '{ n[$4] += $1 } END { for (f in n) print f, n[f] }' | sort >hot.rows
expect_same_file "hot_blocks' steps per function" base.rows hot.rows
"$POST" -i tr script "$EX/hot_blocks.py" 3 >hot3.out || fail "hot_blocks.py 3"
expect_eq "hot_blocks 3's rows" 5 "$(wc -l <hot3.out)"
expect_eq "the hottest block" "$(sed -n 2p hot.out)" "$(sed -n 2p hot3.out)"

# insn_mix: classes and mnemonics per function
"$POST" -i tr script "$EX/insn_mix.py" >mix.out || fail "insn_mix.py"
sed 's/^ *\([0-9]*\)  \([^:]*\):.*/\2 \1/' mix.out | sort >mix.rows
expect_same_file "insn_mix per function" base.rows mix.rows
grep -q ' cond=' mix.out && grep -q ' call=' mix.out || fail "insn_mix has no cond or call"
"$POST" -i tr script "$EX/insn_mix.py" -m >mixm.out || fail "insn_mix.py -m"
sed 's/^ *\([0-9]*\)  \([^:]*\):.*/\2 \1/' mixm.out | sort >mixm.rows
expect_same_file "insn_mix -m per function" base.rows mixm.rows
sed 's/^[^:]*: //' mixm.out | tr ' ' '\n' |
	awk -F= '{ n[$1] += $2 } END { for (m in n) print m, n[m] }' |
	sort >mnem.script
csv_rows count instruction <insn.csv |
	awk '{ n[$2] += $1 } END { for (m in n) print m, n[m] }' | sort >mnem.post
# an instruction the disassembler cannot decode (AVX-512 in __strlen_evex):
# "(bad)" to the reader, "(code not available)" to counts
sed -i 's/^(bad) /(code /' mnem.script
expect_same_file "mnemonics in all" mnem.post mnem.script

# syscall_cost
"$POST" -i tr script "$EX/syscall_cost.py" >sys.out || fail "syscall_cost.py"
nsys=$(csv_rows count instruction <insn.csv | awk '$2 == "syscall" { n += $1 } END { print n + 0 }')
[ "$nsys" -gt 10 ] || fail "too few system calls in the trace: $nsys"
expect_eq "system calls" "total: $nsys system calls" "$(tail -1 sys.out)"
csv_rows entry kind name calls cum <arc.csv | awk '$2 == "caller"' >callers.rows
checked=0
while read -r _ n steps _ caller _ fn; do
	[ "$caller" != None ] || continue
	arc=$(awk -v f="$fn" -v c="$caller" '$1 == f && $3 == c { print $4, $5 }' callers.rows)
	[ -n "$arc" ] || fail "syscall_cost: no arc $caller -> $fn"
	[ "${arc% *}" = "$n" ] || continue	# not every call made a system call
	expect_eq "steps of $caller -> $fn" "${arc#* }" "$steps"
	checked=$((checked + 1))
done < <(sed '1d;$d' sys.out)
[ "$checked" -gt 3 ] || fail "syscall_cost: only $checked rows checked against arc"

# call_paths to cmp
"$POST" -i tr script "$EX/call_paths.py" cmp >paths.out || fail "call_paths.py"
expect_eq "paths to cmp" "$(awk '$1 == "cmp" { print $2 }' profile.rows)" \
	"$(tail -1 paths.out | awk '{ print $2 }')"
sed '$d' paths.out | awk '$NF != "cmp" { exit 1 }' || fail "a path that does not end at cmp"
sed '$d' paths.out | awk '{ n[$(NF - 2)] += $1 } END { for (c in n) print "cmp caller", c, n[c] }' |
	sort >paths.callers
awk '$1 == "cmp" { print $1, $2, $3, $4 }' callers.rows | sort >arc.callers
expect_same_file "cmp's callers" arc.callers paths.callers
run_expect_status "call_paths.py without an address" 1 "$POST" -i tr script "$EX/call_paths.py" \
	2>/dev/null

# callgraph_dot: edges against arc's callees, nodes against profile
"$POST" -i tr script "$EX/callgraph_dot.py" >graph.dot || fail "callgraph_dot.py"
head -1 graph.dot | grep -qx 'digraph calls {' && tail -1 graph.dot | grep -qx '}' ||
	fail "callgraph_dot.py's output is no digraph"
if command -v dot >/dev/null; then
	dot -Tsvg graph.dot >/dev/null || fail "dot refuses the graph"
fi
sed -n 's/^\t"\([^"]*\)" -> "\([^"]*\)" \[label="\([0-9]*\)"\];$/\1 \2 \3/p' graph.dot |
	sort >edges.dot
csv_rows entry kind name calls <arc.csv | awk '$2 == "callee" && $4 != 0 { print $1, $3, $4 }' |
	sort >edges.arc
[ "$(wc -l <edges.arc)" -gt 20 ] || fail "arc has too few edges"
expect_same_file "the graph's edges" edges.arc edges.dot
node='^\t"\([^"]*\)" \[label=".*\\ncalls \([0-9]*\) base \([0-9]*\) cum \([0-9]*\)"\];$'
sed -n "s/$node/\\1 \\2 \\3 \\4/p" graph.dot | sort >nodes.dot
expect_same_file "the graph's nodes" profile.rows nodes.dot

# loops: annot_loops' loops, by construction: nested() 10 runs of 7 trips
# inside one of 10, halve() one of 10, pick() one of 17
arc_record lp "$PROGS/annot_loops"
"$POST" -i lp script "$EX/loops.py" 10 >loops.out || fail "loops.py"
trips() {	# trips FUNCTION: its loops' "trips:runs" lines
	grep -A1 " $1\$" loops.out | sed -n 's/^ *trips:runs //p' | sort | tr '\n' ' '
}
expect_eq "nested()'s loops" "10:1 7:10 " "$(trips nested)"
expect_eq "halve()'s loop" "10:1 " "$(trips halve)"
expect_eq "pick()'s loop" "17:1 " "$(trips pick)"
expect_eq "loops of nested() with 10 trips or more" "1 0 " \
	"$(awk '$NF == "nested" { print $4 }' loops.out | sort -r | tr '\n' ' ')"
# a loop's trips are its head's steps
"$POST" -i lp counts --by insn --format csv | csv_rows address count >lp.insn
checked=0
while read -r _ trips _ _ head _ _; do
	expect_eq "steps of loop head $head" "$(awk -v a="$head" '$1 == a { print $2 }' lp.insn)" \
		"$trips"
	checked=$((checked + 1))
done < <(grep -E ' (nested|halve|pick)$' loops.out)
expect_eq "loops checked against counts" 4 "$checked"
echo PASS
