#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fork + exec: with --follow-fork the child and the program it execs are
# traced too (pt_loops' counts exact, by construction), next to the
# parent's pt_spin(7000) = 14002; without it, only the parent.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/ptrace_lib.sh"
need_prog pt_forkexec pt_loops

out=$("$PITRACE" record --follow-fork -o t -- "$PROGS/pt_forkexec" "$PROGS/pt_loops") ||
	fail "record exit status $?"
child=$(echo "$out" | awk '/^child/ { print $2 }')
[ -n "$child" ] || fail "no child pid in output: $out"
expect_eq "processes" 2 "$("$POST" -i t counts --by process | grep -vc '^#\|total$')"
while read -r name want; do
	expect_eq "$name in the child" "$want" "$(count_of t "$name" --pid "$child")"
done <<'TABLE'
f 9006
g 1502
_start 14
TABLE
expect_eq "pt_spin in the parent" 14002 "$(count_of t pt_spin)"
"$POST" -i t dump --tasks | grep -q "EXEC .*pid $child .*pt_loops" || fail "no EXEC record"

out=$("$PITRACE" record -o n -- "$PROGS/pt_forkexec" "$PROGS/pt_loops") ||
	fail "record without --follow-fork: exit status $?"
echo "$out" | grep -q "exited 0" || fail "child did not run: $out"
expect_eq "processes without --follow-fork" 1 \
	"$("$POST" -i n counts --by process | grep -vc '^#\|total$')"
expect_eq "f without --follow-fork" "" "$(count_of n f)"
expect_eq "pt_spin without --follow-fork" 14002 "$(count_of n pt_spin)"
echo "PASS"
