#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vDSO calls run natively from entry to return (ptrace_vdso.c): recordings of
# one command count the same every time, each call is a NATIVE record shown
# as a row with its count unknown, threads, a fork, signals and --on work,
# and the program's own functions count as callgrind counts them.
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

# 2. date, twice: the same total.  It reads the clock once, in the vDSO; a fixed
# date to print, as the digits of the current time would change its path.
for i in 1 2; do
	"$PITRACE" record -o "d$i" -- /bin/date -u -d @1700000000 >/dev/null 2>&1 ||
		fail "record date $i"
done
expect_eq "date's totals" "$(total_of d1)" "$(total_of d2)"
expect_eq "date's native row" "1 unknown" "$(native_row d1)"

# 3. Two threads in the vDSO at once, a forked child, a signal handler's calls, --on.
"$PITRACE" record -o th -- "$P" threads >th.out 2>&1 || { cat th.out; fail "threads"; }
expect_eq "threads' native row" "200 unknown" "$(native_row th)"
"$PITRACE" record --follow-fork -o fk -- "$P" fork >fk.out 2>&1 || { cat fk.out; fail "fork"; }
expect_eq "fork's native row" "100 unknown" "$(native_row fk)"
"$PITRACE" record -o sg -- "$P" signal >sg.out 2>&1 || { cat sg.out; fail "signal"; }
[ "$(native_row sg | cut -d' ' -f1)" -ge 25 ] || fail "signal: $(native_row sg)"
"$PITRACE" record --on read_clock -o on -- "$P" >on.out 2>&1 || { cat on.out; fail "--on"; }
expect_eq "--on's native row" "200 unknown" "$(native_row on)"
expect_eq "--on read_clock" 2000 "$(count_of on read_clock)"

# 4. The call stack goes on in the caller; the program's functions count as callgrind's.
LD_BIND_NOW=1 arc_record oracle "$P"
arc_check oracle 30
arc_oracle "$P" main calls read_clock
echo "PASS"
