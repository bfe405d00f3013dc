#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vDSO calls run natively from entry to return (ptrace_vdso.c): recordings of
# one command count the same every time, each call is a NATIVE record shown
# as a row with its count unknown and as a call marked "(native)" in arc,
# tree, flow, profile and the callgrind export, threads, a fork, signals and
# --on work, and the program's own functions count as callgrind counts them.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/ptrace_lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"
need_prog pt_vdso_clock
P=$PROGS/pt_vdso_clock
grep -q '\[vdso\]' /proc/self/maps || skip "no vDSO mapped here"

# native_row TRACE: "RUNS COUNT" of the [vdso] clock_gettime (native) row of post counts
native_row() {
	"$POST" -i "$1" counts | awk '$3 == "[vdso]" && $NF == "(native)" { print $1, $2; exit }'
}

# 1. 200 calls, three recordings: the same total each time, nothing stepped in the vDSO.
for i in 1 2 3; do
	"$PITRACE" record -o "r$i" -- "$P" >"rec$i.out" 2>&1 || { cat "rec$i.out"; fail "record $i"; }
	total_of "r$i" >>totals
done
[ "$(sort -u totals | wc -l)" = 1 ] || fail "totals differ: $(tr '\n' ' ' <totals)"
expect_eq "native row" "200 unknown" "$(native_row r1)"
"$POST" -i r1 counts --by module | awk '$NF == "[vdso]"' | grep -q . &&
	fail "steps recorded in the vDSO: $("$POST" -i r1 counts --by module)"
info_field r1 native | grep -q '^200 vDSO runs untraced (200 returned, .*0 known, 200 unknown$' ||
	fail "post info: $(info_field r1 native)"
"$POST" -i r1 dump | grep -q 'NATIVE .*kind 1 (vdso) .* returned count unknown' ||
	fail "no NATIVE record in post dump"

# 2. The call-flow reports show each native run as a call of the vDSO function
# from its caller (libc's clock_gettime), calls counted, 0 instructions, marked
# "(native)"; the GAP after it is the run's, the invariants hold with 0 for it
# and the fast paths count as stepping does.
arc_check r1 30
expect_eq "gaps of r1" 0 "$(arc_stat r1 gaps)"
arc_verify r1
"$POST" -i r1 arc --wide >arc.out || fail "post arc"
awk '/ clock_gettime \[vdso\] \(native\)$/ {
	print prev; print $1, $2, $4; exit } { prev = $0 }' arc.out | tr -s ' ' >arc.row
expect_eq "arc's vDSO row" " 200 0 0 < clock_gettime
200 0 0" "$(cat arc.row)"
awk '/ clock_gettime \[libc[^]]*\]$/ { f = 1; next } /^#/ { f = 0 }
	f && / > clock_gettime \(native\)$/ { print $1, $2, $3 }' arc.out >arc.callee
expect_eq "arc's callee row under libc's clock_gettime" "200 0 0" "$(cat arc.callee)"
# tree: the native node under the caller's, by depth
"$POST" -i r1 tree --wide | awk '!/^#/ && NF >= 6 { d = $1; name[d] = $6
	if ($0 ~ / clock_gettime \[vdso\] \(native\)$/) print name[d - 1], $2, $3, $4 }' >tree.rows
expect_eq "tree's native nodes" "clock_gettime 200 0 0" "$(sort -u tree.rows)"
# flow: each call's lines above a clock_gettime frame, and no "steps missing"
"$POST" -i r1 flow >flow.out || fail "post flow"
awk '$4 == ">" { name[$3] = $5 }
	/> clock_gettime \[vdso\] \(native\)$/ { calls += name[$3 - 1] == "clock_gettime" }
	/< clock_gettime \(incl 0, self 0, ran natively: count unknown\)$/ { ends++ }
	/steps missing/ { gaps++ }
	END { print calls + 0, ends + 0, gaps + 0 }' flow.out >flow.counts
expect_eq "flow's native calls, ends, gaps" "200 200 0" "$(cat flow.counts)"
"$POST" -i r1 profile --wide | awk '/ clock_gettime \[vdso\] \(native\)$/ {
	print $1, $2, $4 }' >profile.row
expect_eq "profile's vDSO row" "200 0 0" "$(cat profile.row)"
# callgrind: a calls= arc of cost 0 from libc's clock_gettime, as callgrind_annotate reads it
if command -v callgrind_annotate >/dev/null && command -v python3 >/dev/null; then
	arc_annotate r1
	callgrind_annotate --threshold=100 --tree=calling "$TMP/annotate.cg" | awk '
		/[*]  .*:clock_gettime \[.*libc[^]]*\]$/ { f = 1; next } !NF { f = 0 }
		f && $1 == "0" && /> +.*\(\[vdso\]\):clock_gettime \(200x\)/ { n++ }
		END { exit n != 1 }' ||
		fail "callgrind_annotate: no 200 calls of the vDSO's clock_gettime"
fi

# 3. date, twice: the same total.  It reads the clock once, in the vDSO; a fixed
# date to print, as the digits of the current time would change its path.
for i in 1 2; do
	"$PITRACE" record -o "d$i" -- /bin/date -u -d @1700000000 >/dev/null 2>&1 ||
		fail "record date $i"
done
expect_eq "date's totals" "$(total_of d1)" "$(total_of d2)"
expect_eq "date's native row" "1 unknown" "$(native_row d1)"

# 4. Two threads in the vDSO at once, a forked child, a signal handler's calls, --on.
"$PITRACE" record -o th -- "$P" threads >th.out 2>&1 || { cat th.out; fail "threads"; }
expect_eq "threads' native row" "200 unknown" "$(native_row th)"
"$PITRACE" record --follow-fork -o fk -- "$P" fork >fk.out 2>&1 || { cat fk.out; fail "fork"; }
expect_eq "fork's native row" "100 unknown" "$(native_row fk)"
"$PITRACE" record -o sg -- "$P" signal >sg.out 2>&1 || { cat sg.out; fail "signal"; }
[ "$(native_row sg | cut -d' ' -f1)" -ge 25 ] || fail "signal: $(native_row sg)"
"$PITRACE" record --on read_clock -o on -- "$P" >on.out 2>&1 || { cat on.out; fail "--on"; }
expect_eq "--on's native row" "200 unknown" "$(native_row on)"
expect_eq "--on read_clock" 2000 "$(count_of on read_clock)"
# a signal handler at a native call or its return nests above it, as anywhere
for t in th sg on; do
	out=$(arc_check $t 30) || { echo "$out"; fail "arc_check $t"; }
done
arc_verify sg

# 5. The call stack goes on in the caller; the program's functions count as callgrind's.
LD_BIND_NOW=1 arc_record oracle "$P"
arc_check oracle 30
arc_oracle "$P" main calls read_clock
echo "PASS"
