#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# --on SYMBOL: each activation is one call with its own Base and Cum, and
# the time between activations is recording off, not steps missing inside a
# frame.  pt_on10's main calls hot_loop ten times (by construction); the
# oracle for calls, Base and Cum is valgrind's callgrind on the same
# program.  A misspelled --on name is named in a warning, next to a good
# one too; names found nowhere are said at the end.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/ptrace_lib.sh"
need_prog pt_on10

# profile_row TRACE FN: "calls base cum" of FN in post profile
profile_row() {
	"$POST" -i "$1" profile | awk -v f="$2" '!/^#/ && $6 == f { print $1, $2, $4; exit }'
}

"$PITRACE" record --on hot_loop -o on -- "$PROGS/pt_on10" >out 2>err || fail "record --on: $?"
"$PROGS/pt_on10" >want
expect_same_file "output" want out
grep -q warning err && { cat err; fail "warnings for a name that exists"; }
read -r calls base cum <<<"$(profile_row on hot_loop)"
expect_eq "hot_loop calls" 10 "$calls"
expect_eq "hot_loop cum = the whole trace" "$(total_of on)" "$cum"
"$POST" -i on flow >flow || fail "post flow"
# each activation is a thread's first function: its module named
expect_eq "flow: calls of hot_loop" 10 "$(grep -c '  > hot_loop \[pt_on10\]$' flow)"
expect_eq "flow: returns of hot_loop" 10 "$(grep -c '  < hot_loop (incl [0-9]*, self [0-9]*)$' flow)"
expect_eq "flow: recording off between them" 10 "$(grep -c ' - recording off$' flow)"
grep -q 'steps missing\|still running' flow && { cat flow; fail "an activation shown as one frame with gaps"; }
"$POST" -i on arc --check >/dev/null || fail "arc --check"
# each activation's own cost: hot_loop(n) takes the same steps plus a fixed
# amount per n, so consecutive activations differ by one constant
incls=$(sed -n 's/.*< hot_loop (incl \([0-9]*\),.*/\1/p' flow | tr '\n' ' ')
read -r -a a <<<"$incls"
for i in $(seq 2 9); do
	expect_eq "activation $i - $((i - 1)) = $((i - 1)) - $((i - 2))" \
		$((a[1] - a[0])) $((a[i] - a[i - 1]))
done

# a misspelled name next to a good one: named; the good one still recorded
"$PITRACE" record --on hot_loop --on hot_lop -o typo -- "$PROGS/pt_on10" >/dev/null 2>err ||
	fail "record with a misspelled --on: $?"
expect_eq "warnings" 1 "$(grep -c warning err)"
grep -q "^pitrace: warning: --on hot_lop: no function of that name" err || { cat err; fail "hot_lop not named"; }
expect_eq "hot_loop with a misspelled neighbour" "$calls $base $cum" "$(profile_row typo hot_loop)"
# none found: each named, then said that nothing was recorded
"$PITRACE" record --on nope1 --on nope2 -o none -- "$PROGS/pt_on10" >/dev/null 2>err ||
	fail "record with no --on name found: $?"
grep -q "warning: --on nope1: no function" err && grep -q "warning: --on nope2: no function" err &&
	grep -q "warning: --on: none of the 2 names was found: nothing was recorded" err ||
	{ cat err; fail "missing --on names not said"; }

command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null ||
	skip "valgrind not installed (the checks by construction passed)"
valgrind --tool=callgrind --callgrind-out-file=cg.out "$PROGS/pt_on10" >/dev/null 2>&1 ||
	fail "valgrind"
cg_of() {
	callgrind_annotate "$@" cg.out 2>/dev/null |
		awk '/pt_on10\.c:hot_loop / { gsub(",", "", $1); print $1; exit }'
}
expect_eq "hot_loop Base = callgrind self" "$(cg_of)" "$base"
expect_eq "hot_loop Cum = callgrind inclusive" "$(cg_of --inclusive=yes)" "$cum"
# the caller line printed just above "* ...hot_loop" is main's
cg_calls=$(callgrind_annotate --tree=caller cg.out 2>/dev/null |
	awk '/< .*pt_on10\.c:main \(/ { c = $0 } /\* .*pt_on10\.c:hot_loop / { print c; exit }' |
	sed -n 's/.*(\([0-9]*\)x).*/\1/p')
expect_eq "hot_loop calls = callgrind's" "$cg_calls" "$calls"
echo "PASS"
