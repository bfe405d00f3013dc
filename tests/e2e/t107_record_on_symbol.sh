#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# --on target: only target's activations and what they call are recorded.
# The oracle is the whole-program trace counted by symbol: target + helper
# + pt_spin there must equal every count of the --on trace.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/ptrace_lib.sh"
need_prog pt_ontarget pt_dlopen pt_forkspin

"$PITRACE" record -o full -- "$PROGS/pt_ontarget" >want || fail "full record: $?"
"$PITRACE" record --on target -o on -- "$PROGS/pt_ontarget" >got || fail "--on record: $?"
expect_same_file "output" want got
for f in target helper pt_spin; do
	expect_eq "$f" "$(count_of full "$f")" "$(count_of on "$f")"
done
expect_eq "total" $(($(count_of full target) + $(count_of full helper) + $(count_of full pt_spin))) \
	"$(total_of on)"
expect_eq "pt_spin2 (outside target)" "" "$(count_of on pt_spin2)"
# target(4) and target(2) from main: two regions (recursion stays inside)
expect_eq "ON records" 2 "$("$POST" -i on dump --steps | grep -c ' ON ')"
expect_eq "OFF records" 2 "$("$POST" -i on dump --steps | grep -c ' OFF ')"
"$POST" -i on info | grep -q "target" || fail "--on symbol not in the header"

# a symbol that is nowhere: a warning, the program runs, nothing recorded
"$PITRACE" record --on no_such_function -o none -- "$PROGS/pt_ontarget" >/dev/null 2>err ||
	fail "--on no_such_function: exit status $?"
grep -q "warning: --on" err || { cat err; fail "no warning for a missing --on symbol"; }
expect_eq "steps with a missing --on symbol" 0 "$(info_field none steps)"

# a forked child inherits the breakpoint bytes: without --follow-fork they
# are removed from its copy (it must not die of SIGTRAP), with it the
# child's activation is recorded too (pt_spin(1000): 2002 instructions each)
out=$("$PITRACE" record --on pt_spin -o fork1 -- "$PROGS/pt_forkspin") || fail "fork --on: $?"
expect_eq "child status without --follow-fork" "child exited 7" "$out"
expect_eq "pt_spin without --follow-fork" 2002 "$(total_of fork1)"
out=$("$PITRACE" record --on pt_spin --follow-fork -o fork2 -- "$PROGS/pt_forkspin") ||
	fail "fork --on --follow-fork: $?"
expect_eq "child status with --follow-fork" "child exited 7" "$out"
expect_eq "pt_spin with --follow-fork" 4004 "$(count_of fork2 pt_spin)"
expect_eq "processes with --follow-fork" 2 "$("$POST" -i fork2 counts --by process | grep -vc '^#\|total$')"

# a library dlopen()ed after start-up: its symbol is found when it is mapped
"$PITRACE" record -o dlfull -- "$PROGS/pt_dlopen" >want
[ $? = 77 ] && skip "libz.so.1 not installed"
"$PITRACE" record --on zlibVersion -o dlon -- "$PROGS/pt_dlopen" >got || fail "--on zlibVersion: $?"
expect_same_file "pt_dlopen output" want got
n=$(count_of dlfull zlibVersion)
[ -n "$n" ] && [ "$n" -gt 0 ] || fail "zlibVersion not in the full trace"
expect_eq "zlibVersion with --on" "$n" "$(count_of dlon zlibVersion)"
expect_eq "total with --on zlibVersion" "$n" "$(total_of dlon)"
expect_eq "ON records (3 calls)" 3 "$("$POST" -i dlon dump --steps | grep -c ' ON ')"
echo "PASS"
