#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# post export --format callgrind as valgrind's own reader shows it: for the
# C programs the other tests don't export (dynamic, threads, dlopen, fork and
# exec, the vdso, the demo) and with every filter, callgrind_annotate's self
# cost of each function equals post profile's Base and its inclusive cost
# post's Cum (cg-annotate-check.py; the t31x tests check their programs the
# same way).  The file holds instruction addresses and jumps, as callgrind's
# --dump-instr=yes --collect-jumps=yes.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"

for prog in demo countloop pt_threads pt_dlopen sym_plt_vdso; do
	arc_record "$prog.data" "$PROGS/$prog"
	arc_annotate "$prog.data"
done
"$PITRACE" record --follow-fork -o forkexec.data -- "$PROGS/pt_forkexec" "$PROGS/countloop" \
	>/dev/null 2>&1 ||
	fail "record pt_forkexec"
arc_annotate forkexec.data
# the exec-ed countloop alone: a process filter
pid=$("$POST" -i forkexec.data counts --by process | awk '$4 == "(countloop)" { print $3; exit }')
[ -n "$pid" ] || fail "no countloop process in the fork+exec trace"
arc_annotate forkexec.data --pid "$pid"
# Filters: the functions shown, with their callers as context (no self cost).
for f in "--module demo" "--module libc.so.6" "--symbol fib" "--symbol qsort_r"; do
	# shellcheck disable=SC2086
	arc_annotate demo.data $f
done
arc_annotate pt_threads.data --ring user

# Positions are instructions and lines: fib's first instruction is the
# address nm gives, and its loop's conditional branch is a jcnd= line.
"$POST" -i demo.data export --format callgrind -o demo.cg || fail "export"
grep -qx 'positions: instr line' demo.cg || fail "no 'positions: instr line' header"
fib=$(nm "$PROGS/demo" | awk '$3 == "fib" { print $1 }' | sed 's/^0*//')
awk '/^fn=fib$/ { f = 1; next } /^fn=/ { f = 0 } f' demo.cg >fib.cg
head -1 fib.cg | grep -q "^0x$fib " || { head -3 fib.cg; fail "fib's first cost line is not at 0x$fib"; }
grep -Eq '^jcnd=[0-9]+/[0-9]+ 0x[0-9a-f]+ [0-9]+$' fib.cg || fail "no conditional jump in fib"
grep -Eq '^jump=[0-9]+ 0x[0-9a-f]+ [0-9]+$' fib.cg || fail "no jump in fib"
# callgrind_annotate reads the jumps too (it shows none, but must not warn)
callgrind_annotate --auto=yes demo.cg >/dev/null 2>err && [ ! -s err ] || { cat err; fail "callgrind_annotate warns"; }
echo "PASS"
